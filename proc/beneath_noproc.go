package proc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// belowNoProc is procfs.below without /proc, on the listing of the walk: each terminal's or
// pane's walk asks lsof again; a tmux client's server is found with lsof -U.
func (f *Finder) belowNoProc(ctx context.Context, np *noProc) (*Beneath, []string) {
	off := make([]offProc, len(np.off))
	for i, r := range np.off {
		off[i] = offProc{r.pid, r.ppid}
	}
	return below(toolLook{f: f, ctx: ctx, tab: np.tab}, off, np.clients, np.server)
}

// toolLook is below's looker without /proc: the listing, lsof, and ps for one process's
// terminal, user and environment.
type toolLook struct {
	f   *Finder
	ctx context.Context
	tab *psTable
}

func (l toolLook) find(pid int) (Found, bool) {
	found, ok, err := l.f.findInTable(l.ctx, l.tab, pid, &noProc{})
	return found, ok && err == nil
}

// comm is the base name of the first word of the process's arguments in the listing.
func (l toolLook) comm(pid int) string {
	if i, ok := l.tab.byPID[pid]; ok {
		if args := strings.Fields(l.tab.rows[i].args); len(args) > 0 {
			return baseName(args[0])
		}
	}
	return ""
}

// terminal is ps's tty column of the process ("pts/5" on Linux, "ttys005" on macOS) under
// /dev; "" for none ("?", "??", "-") or when ps cannot tell.
func (l toolLook) terminal(pid int) string {
	tty, err := l.f.psColumn(l.ctx, pid, "tty")
	if err != nil || strings.Trim(tty, "?-") == "" || strings.Contains(tty, " ") || strings.Contains(tty, "..") || strings.HasPrefix(tty, "/") {
		return ""
	}
	return "/dev/" + tty
}

func (l toolLook) children(pid int) []int { return l.tab.byParent[pid] }

// holders is procfs.holders with lsof: every process's unix sockets (-U), names as fields.
// On Linux lsof names a listening socket, and the server's side of each connection, by the
// path it is bound at followed by " type=STREAM"; on macOS by the path alone.
func (l toolLook) holders(socket string) []int {
	var out string
	var err error
	if l.f.lsofUnix != nil {
		out, err = l.f.lsofUnix(l.ctx)
	} else {
		var stderr string
		out, stderr, err = runTool(l.ctx, "lsof", lsofUnixArgs, lsofEnv)
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 1 && stderr == "" {
			err = nil // no unix socket to list
		}
	}
	if err != nil {
		return nil
	}
	pids, err := parseLsofUnix(out, socket)
	if err != nil {
		return nil
	}
	return pids
}

// lsofUnixArgs asks lsof for the unix sockets of every process, as fields: "p<pid>", then for
// each "f<fd>" and "n<name>".
var lsofUnixArgs = []string{"-w", "-b", "-O", "-U", "-F", "pfn"}

// parseLsofUnix returns, from the output of lsof with lsofUnixArgs, the processes with a
// unix socket bound at socket (sameSocket; Linux appends " type=..." to the name), strictly:
// a line it does not expect is an error.
func parseLsofUnix(out, socket string) ([]int, error) {
	var pids []int
	pid, held := 0, false
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			return nil, errors.New("lsof: an empty line")
		}
		switch val := line[1:]; line[0] {
		case 'p':
			if held {
				pids = append(pids, pid)
			}
			n, ok := atoi([]byte(val))
			if !ok || n <= 0 {
				return nil, fmt.Errorf("lsof: bad pid line %.40q", line)
			}
			pid, held = n, false
		case 'f', 'n':
			if pid == 0 {
				return nil, fmt.Errorf("lsof: %.40q before a pid line", line)
			}
			bound, _, _ := strings.Cut(val, " type=")
			held = held || line[0] == 'n' && sameSocket(bound, socket)
		default:
			return nil, fmt.Errorf("lsof: unexpected line %.40q", line)
		}
	}
	if held {
		pids = append(pids, pid)
	}
	return pids, nil
}

// socket is the tmux client's server's socket, from its argv and working directory (the
// walk's), its environment (kern.procargs2 on macOS, else `ps eww`) and its user (ps).
func (l toolLook) socket(c tmuxClient) (string, error) {
	uid := -1
	if out, err := l.f.psColumn(l.ctx, c.pid, "uid"); err == nil {
		if n, ok := atoi([]byte(out)); ok && n >= 0 {
			uid = n
		}
	}
	return c.socketFrom(l.env(c), uid, c.cwd)
}

// env is the tmux client's TMUX and TMUX_TMPDIR, nil when they cannot be read.
func (l toolLook) env(c tmuxClient) map[string]string {
	pa, err := l.f.exactArgs(c.pid)
	switch {
	case err == nil:
		return environVars(pa.env, tmuxEnv...)
	case !errors.Is(err, errNoExactArgs):
		return nil
	}
	var out string
	if l.f.psEnviron != nil {
		out, err = l.f.psEnviron(l.ctx, c.pid)
	} else {
		out, _, err = runTool(l.ctx, "ps", psEnvironArgs(c.pid), psEnv)
	}
	if err != nil {
		return nil
	}
	vars, err := psEnvVars(out, c.row.args, tmuxEnv...)
	if err != nil {
		return nil
	}
	return vars
}

// psColumn is one column of ps for one process (`ps -o COLUMN= -p PID`), trimmed, from
// f.psOne when set.
func (f *Finder) psColumn(ctx context.Context, pid int, column string) (string, error) {
	if f.psOne != nil {
		out, err := f.psOne(ctx, pid, column)
		return strings.TrimSpace(out), err
	}
	out, _, err := runTool(ctx, "ps", []string{"-o", column + "=", "-p", strconv.Itoa(pid)}, psEnv)
	return strings.TrimSpace(out), err
}
