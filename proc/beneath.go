package proc

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// Beneath is a Claude Code process that a pane's foreground runs out of the pane's reach
// (Finder.Diagnose): Find does not take it, and a watcher must not type into the pane for it.
type Beneath struct {
	// Claude is the Claude Code process, as Find finds it where it runs (its How names the
	// foreground group of that terminal).
	Claude Found
	// Via is the process of the pane's foreground that leads to it: the parent of the
	// session on its own terminal (script), or the tmux client; ViaComm names it for people
	// (the base name of its executable, or of its first argument without /proc).
	Via     int
	ViaComm string
	// Terminal is the terminal Claude Code runs on under a program that gave it one of its
	// own ("/dev/pts/5"; "" when not known, and for a tmux client).
	Terminal string
	// Socket is the socket of the other tmux server, whose client Via is; "" otherwise.
	Socket string
}

// String is the sentence of explain for b; it names the agent by its command (claude,
// codex).
func (b Beneath) String() string {
	cmd := "claude"
	if b.Claude.Agent == agent.Codex {
		cmd = "codex"
	}
	if b.Socket != "" {
		return fmt.Sprintf("%s (pid %d) runs in another tmux server, on socket %s, that this pane's tmux client (%s, pid %d) is attached to: "+
			"cac-tmux does not type through a tmux client; a watcher must run on that server: cac-tmux watch -S %s",
			cmd, b.Claude.PID, b.Socket, b.ViaComm, b.Via, b.Socket)
	}
	term := b.Terminal
	if term == "" {
		term = "(not known)"
	}
	return fmt.Sprintf("%s (pid %d) runs under %s (pid %d) on its own terminal %s, not in this pane's terminal: "+
		"cac-tmux does not type through it; run %s directly in the pane", cmd, b.Claude.PID, b.ViaComm, b.Via, term, cmd)
}

// with puts what below found before the reasons: the Claude Code process out of reach, or
// the notes on the foreground's tmux clients.
func (d Diagnosis) with(b *Beneath, notes []string) Diagnosis {
	head := notes
	if b != nil {
		d.Beneath, head = b, []string{b.String()}
	}
	d.Why = append(head[:len(head):len(head)], d.Why...)
	return d
}

// ownTerminal reports whether a process not in a pane's foreground group runs on a terminal
// of its own: it is running, has a controlling terminal (tpgid > 0, the foreground group of
// that terminal), and that terminal's foreground is not the pane's, so it is not the pane's
// terminal (a background job of the pane has the pane's).
func ownTerminal(state byte, tpgid, paneTPGID int) bool {
	return !zombie(state) && tpgid > 0 && tpgid != paneTPGID
}

// isTmux reports whether an executable is tmux (a client, in a pane's foreground).
func isTmux(exe string) bool { return baseName(exe) == "tmux" }

// keepOff keeps, when explaining, a process below the foreground that runs on a terminal of
// its own (ownTerminal), for below.
func (p *procfs) keepOff(st statInfo, tpgid int) {
	if p.explain && len(p.off) < maxCandidates && ownTerminal(st.state, st.tpgid, tpgid) {
		p.off = append(p.off, st)
	}
}

// looker is what below asks of a path: /proc (procLook) or the tools (toolLook).
type looker interface {
	// find is Find's walk for a terminal's foreground, from pid as a pane's first process.
	find(pid int) (Found, bool)
	comm(pid int) string     // a name for people, "" when unknown
	terminal(pid int) string // the name of its controlling terminal, "" when unknown
	children(pid int) []int
	holders(socket string) []int // the processes listening on a unix socket: its server
	socket(c tmuxClient) (string, error)
}

// offProc is a process below a pane's foreground that runs on a terminal of its own
// (ownTerminal), and its parent, of the foreground.
type offProc struct{ pid, ppid int }

// below looks for Claude Code out of the pane's reach, once Find took no process: in the
// foreground of each terminal of its own below the foreground (off), then in the panes of the
// server of each tmux client of the foreground (clients), one level down, with Find's walk,
// at most maxCandidates terminals and panes in all. server is the pane's own tmux server (the
// parent of its process). notes say, for each tmux client of another server in which none
// was seen, which server that is.
func below(l looker, off []offProc, clients []tmuxClient, server int) (*Beneath, []string) {
	budget := maxCandidates
	for _, o := range off {
		if budget--; budget < 0 {
			return nil, nil
		}
		if found, ok := l.find(o.pid); ok {
			return &Beneath{Claude: found, Via: o.ppid, ViaComm: l.comm(o.ppid), Terminal: l.terminal(found.PID)}, nil
		}
	}
	var notes []string
	for _, c := range clients {
		b, note := inServer(l, c, server, &budget)
		if b != nil {
			return b, nil
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	return nil, notes
}

// inServer looks for Claude Code in the panes of the server of the tmux client c (the
// children of the process that listens on its socket), or says which server that is.
func inServer(l looker, c tmuxClient, server int, budget *int) (*Beneath, string) {
	socket, err := l.socket(c)
	if err != nil {
		return nil, fmt.Sprintf("pid %d (%s) is a tmux client whose server cannot be told: %v", c.pid, c.name, err)
	}
	servers, looked := l.holders(socket), 0
	for _, srv := range servers {
		if srv == server {
			return nil, "" // a view of the pane's own server: nothing there is out of reach
		}
		for _, kid := range l.children(srv) {
			if *budget--; *budget < 0 {
				break
			}
			looked++
			if found, ok := l.find(kid); ok {
				return &Beneath{Claude: found, Via: c.pid, ViaComm: c.name, Socket: socket}, ""
			}
		}
	}
	if len(servers) == 0 {
		return nil, c.note(socket, "")
	}
	return nil, c.note(socket, fmt.Sprintf("no Claude Code in the foreground of its panes (%d looked at)", looked))
}

// below is the package below on /proc.
func (p *procfs) below() (*Beneath, []string) {
	off := make([]offProc, len(p.off))
	for i, st := range p.off {
		off[i] = offProc{st.pid, st.ppid}
	}
	return below(procLook{p}, off, p.clients, p.server)
}

// procLook is below's looker on /proc.
type procLook struct{ p *procfs }

func (l procLook) find(pid int) (Found, bool) {
	sub := procfs{root: l.p.root}
	found, ok, err := sub.find(pid)
	return found, ok && err == nil
}

// comm is the base name of the process's executable, else its command name.
func (l procLook) comm(pid int) string {
	if exe := l.p.exe(pid); exe != "" {
		return baseName(exe)
	}
	st, _ := l.p.stat(pid)
	return st.comm
}

func (l procLook) terminal(pid int) string {
	if st, err := l.p.stat(pid); err == nil {
		return ttyName(st.tty)
	}
	return ""
}

func (l procLook) children(pid int) []int      { return l.p.children(pid) }
func (l procLook) holders(socket string) []int { return l.p.holders(socket) }
func (l procLook) socket(c tmuxClient) (string, error) {
	var env map[string]string
	if b, err := l.p.read(l.p.path(c.pid, "environ")); err == nil {
		env = environVars(b, tmuxEnv...)
	}
	cwd, _ := os.Readlink(l.p.path(c.pid, "cwd"))
	return c.socketFrom(env, l.p.uid(c.pid), cwd)
}

// uid is the real user id of the process (/proc/PID/status), -1 when it cannot be read.
func (p *procfs) uid(pid int) int {
	b, err := p.read(p.path(pid, "status"))
	if err != nil {
		return -1
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if uid, ok := atoi([]byte(f[0])); ok && uid >= 0 {
					return uid
				}
			}
		}
	}
	return -1
}

// Bounds of the look for the process that listens on a socket (holders): how many processes,
// and how many descriptors of each (a tmux server makes its socket before any pane).
const (
	maxScan = 1 << 15
	maxFDs  = 1024
)

// holders returns the processes that hold the listening unix socket bound at path, its
// server's: /proc/net/unix names the socket's inode, and a descriptor of its holder links to
// "socket:[INODE]". nil when none is seen (the path is not a listening socket, or its holder
// is another user's).
func (p *procfs) holders(path string) []int {
	links := listening(p.root+"/net/unix", path)
	if len(links) == 0 {
		return nil
	}
	entries, err := os.ReadDir(p.root)
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries[:min(len(entries), maxScan)] {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && pid > 0 && p.holds(pid, links) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// holds reports whether one of the first maxFDs descriptors of the process links to one of
// links.
func (p *procfs) holds(pid int, links map[string]bool) bool {
	d, err := os.Open(p.path(pid, "fd"))
	if err != nil {
		return false
	}
	defer d.Close()
	names, _ := d.Readdirnames(maxFDs)
	for _, n := range names {
		if link, err := os.Readlink(p.path(pid, "fd/"+n)); err == nil && links[link] {
			return true
		}
	}
	return false
}

// listening reads a /proc/net/unix file ("Num RefCount Protocol Flags Type St Inode Path",
// the path last) and returns the descriptor link text ("socket:[INODE]") of each listening
// socket (flag __SO_ACCEPTCON) bound at path (sameSocket).
func listening(file, path string) map[string]bool {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	links := make(map[string]bool)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var tok [7]string
		rest := sc.Text()
		for i := range tok {
			rest = strings.TrimLeft(rest, " ")
			n := strings.IndexByte(rest, ' ')
			if n < 0 {
				n = len(rest)
			}
			tok[i], rest = rest[:n], rest[n:]
		}
		flags, err := strconv.ParseUint(tok[3], 16, 32)
		if err == nil && flags&0x10000 != 0 && tok[6] != "" && sameSocket(strings.TrimPrefix(rest, " "), path) {
			links["socket:["+tok[6]+"]"] = true
		}
	}
	return links
}

// sameSocket reports whether a socket bound at the path bound (as the server spelled it) is
// the socket at path, resolved through symlinks (tmuxctl.Client.SocketFile).
func sameSocket(bound, path string) bool {
	if bound == path {
		return true
	}
	if !strings.HasPrefix(bound, "/") {
		return false // abstract ("@…") or unbound
	}
	real, err := filepath.EvalSymlinks(bound)
	return err == nil && real == path
}

// ttyName names the terminal of a tty_nr (/proc/PID/stat, the device number as
// new_encode_dev writes it): a pseudo-terminal (major 136–143) as /dev/pts/N, a virtual
// console (major 4, minor 1–63) as /dev/ttyN, else "" (not known).
func ttyName(tty int) string {
	major, minor := (tty>>8)&0xfff, (tty&0xff)|((tty>>12)&0xfff00)
	switch {
	case major >= 136 && major <= 143:
		return "/dev/pts/" + strconv.Itoa((major-136)<<8+minor)
	case major == 4 && minor >= 1 && minor < 64:
		return "/dev/tty" + strconv.Itoa(minor)
	}
	return ""
}

// tmuxClient is a tmux client of a pane's foreground: below looks into its server.
type tmuxClient struct {
	pid  int
	name string // the base name of its executable
	argv []string
	cwd  string // without /proc: its working directory, "" when unknown
	row  psRow  // without /proc: its row of the listing
}

// tmuxEnv is what of a tmux client's environment tells its server's socket.
var tmuxEnv = []string{"TMUX", "TMUX_TMPDIR"}

// socketFrom is the socket of the server the client talks to, worked out as tmux does and
// resolved through symlinks as the watcher's lock is keyed (tmuxctl.Client.SocketFile): -S
// PATH from its argv (relative to its working directory cwd), else -L NAME or its
// environment (env: TMUX, TMUX_TMPDIR; nil when it cannot be read) and its user id (uid, -1
// when unknown).
func (c tmuxClient) socketFrom(env map[string]string, uid int, cwd string) (string, error) {
	path, label := tmuxSocketFlags(c.argv)
	switch {
	case path != "" && !filepath.IsAbs(path) && cwd == "":
		return "", fmt.Errorf("its -S %s is relative and its working directory cannot be read", path)
	case path != "":
		if !filepath.IsAbs(path) {
			path = filepath.Join(cwd, path)
		}
		cl := tmuxctl.Client{SocketPath: path}
		return cl.SocketFile(func(k string) string { return env[k] }, uid)
	case env == nil:
		return "", errors.New("its environment cannot be read")
	case uid < 0:
		return "", errors.New("its user cannot be read")
	}
	cl := tmuxctl.Client{SocketName: label}
	return cl.SocketFile(func(k string) string { return env[k] }, uid)
}

// note is the sentence for a tmux client in whose server no Claude Code was seen; seen says
// what the look saw ("" when the server's process was not found).
func (c tmuxClient) note(socket, seen string) string {
	head := fmt.Sprintf("pid %d (%s) is a client of the tmux server on socket %s", c.pid, c.name, socket)
	if seen == "" {
		return head + ", whose process cannot be looked at (another user's, or none): if Claude Code runs there, " +
			"cac-tmux does not type through the client; a watcher must run on that server: cac-tmux watch -S " + socket
	}
	return head + ": " + seen
}

// tmuxSocketFlags reads -S PATH and -L NAME from a tmux command line as tmux's getopt does
// ("2c:CDdf:hlL:NqS:T:uUvV": c, f, L, S and T take a value, in the same argument or the next;
// flags end at the first argument that is not one, or "--"). The last of each counts.
func tmuxSocketFlags(argv []string) (path, label string) {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" || len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			if !strings.ContainsRune("cfLST", rune(a[j])) {
				continue
			}
			val := a[j+1:]
			if val == "" && i+1 < len(argv) {
				i++
				val = argv[i]
			}
			switch a[j] {
			case 'S':
				path = val
			case 'L':
				label = val
			}
			break
		}
	}
	return path, label
}

// environVars reads the variables names from an environment block (NUL-separated
// NAME=VALUE, as /proc/PID/environ); the first of a name counts, as getenv takes it.
func environVars(b []byte, names ...string) map[string]string {
	vars := make(map[string]string)
	for kv := range strings.SplitSeq(string(b), "\x00") {
		name, val, ok := strings.Cut(kv, "=")
		if _, seen := vars[name]; ok && !seen && slices.Contains(names, name) {
			vars[name] = val
		}
	}
	return vars
}
