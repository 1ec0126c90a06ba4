package proc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cac-tmux/cac-tmux/records"
)

// errNoExactArgs says that the system has no exact source of another process's argv and
// environment but /proc (everywhere but macOS): ps serves.
var errNoExactArgs = errors.New("no exact source of arguments without /proc")

// noProc is one Find or explain without /proc.
type noProc struct {
	explain bool
	rejects []string // why no process was taken, when explaining
	// When explaining, what explain looks under (procfs.below): the listing, the processes
	// below the foreground on terminals of their own, and the foreground's tmux clients.
	tab     *psTable
	off     []psRow
	clients []tmuxClient
	server  int // the parent of the pane's process: its tmux server
}

func (np *noProc) reject(format string, a ...any) {
	if np.explain {
		np.rejects = append(np.rejects, fmt.Sprintf(format, a...))
	}
}

// findNoProc is Find without /proc. One ps listing gives the process tree and the walk's
// candidates (psTable.walk); one lsof run gives each candidate's executable, working
// directory and command name; argv comes from kern.procargs2 on macOS, else from the listing.
// Then the same rule as on /proc decides (isClaude with the executable): a candidate whose
// executable cannot be learned (lsof does not list its program text: another user's process,
// or gone) is never Claude Code. err != nil: ps or lsof could not answer.
func (f *Finder) findNoProc(ctx context.Context, panePID int, np *noProc) (Found, bool, error) {
	out, err := f.runPS(ctx)
	if err != nil {
		return Found{}, false, err
	}
	tab, err := parsePS(out)
	if err != nil {
		return Found{}, false, err
	}
	np.tab = tab
	return f.findInTable(ctx, tab, panePID, np)
}

// findInTable is findNoProc on a listing already read.
func (f *Finder) findInTable(ctx context.Context, tab *psTable, panePID int, np *noProc) (Found, bool, error) {
	w := tab.walk(panePID)
	if i, ok := tab.byPID[panePID]; ok && np.explain {
		np.off, np.server = w.off, tab.rows[i].ppid
	}
	switch {
	case w.gone:
		np.reject("the pane's process %d is gone", panePID)
		return Found{}, false, nil
	case w.starting:
		np.reject("the pane's process %d has not yet run the pane's program: it shows its parent's arguments (tmux's fork)", panePID)
		return Found{Starting: true}, false, nil
	case w.noTTY:
		np.reject("the pane's process %d has no terminal, so no foreground", panePID)
		return Found{}, false, nil
	case len(w.cands) == 0:
		return Found{}, false, nil
	}
	learned, err := f.learn(ctx, w.cands)
	if err != nil {
		return Found{}, false, err
	}
	starting := false
	for i, c := range w.cands {
		fa, pid := learned[i], c.row.pid
		if fa.exe == "" {
			np.reject("pid %d (command %q): its executable cannot be learned (lsof lists no program text: another user's process, or gone), and only the executable can confirm Claude Code", pid, fa.comm)
			continue
		}
		name, why, ok, launcher := decide(fa.comm, fa.argv, fa.exe, resolveIn(fa.cwd))
		if !ok {
			starting = starting || launcher
			if np.explain {
				np.reject("pid %d: %s", pid, rejected(why, fa.comm, fa.argv, fa.exe))
				if isTmux(fa.exe) {
					np.clients = append(np.clients, tmuxClient{pid: pid, name: baseName(fa.exe), argv: fa.argv, cwd: fa.cwd, row: c.row})
				}
			}
			continue
		}
		return Found{
			Identity: Identity{PID: pid, Start: lstartPrefix + c.row.lstart},
			How:      how(noProcSource, panePID, w.tpgid, pid, c.depth, why),
			Agent:    name,
		}, true, nil
	}
	// Codex's npm launcher without its native child: for now only (procfs.none).
	return Found{Starting: starting}, false, nil
}

// facts is what the path without /proc learns of one candidate.
type facts struct {
	comm, exe, cwd string
	argv           []string
}

// learn learns the facts of every candidate with one lsof run. argv: exact from
// kern.procargs2 on macOS (nil when it cannot be read, as procfs.cmdline gives nil), else
// the listing's args split at spaces, which is ambiguous: an argument with a space in it is
// two (a script path with a space is not resolved, an argument holding the npm package's name
// still names it), and "exec -a 'x y' prog" looks like two arguments.
func (f *Finder) learn(ctx context.Context, cands []psCand) ([]facts, error) {
	pids := make([]int, 0, len(cands))
	for _, c := range cands {
		if !slices.Contains(pids, c.row.pid) { // a hostile listing can have parent cycles
			pids = append(pids, c.row.pid)
		}
	}
	listed, err := f.runLsof(ctx, pids)
	if err != nil {
		return nil, err
	}
	learned := make([]facts, len(cands))
	for i, c := range cands {
		l := listed[c.row.pid] // zero when not listed: nothing known
		fa := facts{comm: l.comm, exe: l.exe, cwd: l.cwd}
		if fa.exe == "" {
			learned[i] = fa // never Claude Code: nothing more to learn
			continue
		}
		fa.argv = strings.Fields(c.row.args)
		pa, err := f.exactArgs(c.row.pid)
		switch {
		case err == nil:
			fa.argv = pa.argv
			if pa.retitled {
				// A runtime that set its title on macOS rewrote its argument area but kept
				// its command name; on Linux it sets both, and the rule reads the title
				// from comm (isClaude): the title stands for comm here.
				fa.comm = pa.argv[0]
			}
		case !errors.Is(err, errNoExactArgs):
			fa.argv = nil
		}
		learned[i] = fa
	}
	return learned, nil
}

// exactArgs reads argv and the environment exactly where the system can (macOS), from f.args
// when set.
func (f *Finder) exactArgs(pid int) (procArgs, error) {
	if f.args != nil {
		return f.args(pid)
	}
	return exactArgs(pid)
}

// resolveIn is isClaude's resolver for a process whose working directory is cwd ("" when
// unknown): the real path of a path it names, symlinks resolved, or the path as given when
// that fails (procfs.resolver on /proc).
func resolveIn(cwd string) func(string) string {
	return func(path string) string {
		if !filepath.IsAbs(path) {
			if cwd == "" {
				return path
			}
			path = filepath.Join(cwd, path)
		}
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return real
		}
		return path
	}
}

// envNoProc is Env without /proc, for an identity from ps: the process must still be the
// same (the listing), then its environment is read exactly from kern.procargs2 on macOS,
// else from `ps eww` (parsePSEnviron, ambiguous where a value holds spaces).
func (f *Finder) envNoProc(ctx context.Context, id Identity) (records.Env, error) {
	out, err := f.runPS(ctx)
	if err != nil {
		return records.Env{}, err
	}
	tab, err := parsePS(out)
	if err != nil {
		return records.Env{}, err
	}
	if !tab.alive(id) {
		return records.Env{}, errors.New("the process is gone")
	}
	pa, err := f.exactArgs(id.PID)
	if err == nil {
		return records.ParseEnviron(pa.env), nil
	}
	if !errors.Is(err, errNoExactArgs) {
		return records.Env{}, err
	}
	if out, err = f.psEnvironOf(ctx, id.PID); err != nil {
		return records.Env{}, err
	}
	return parsePSEnviron(out, tab.rows[tab.byPID[id.PID]].args)
}
