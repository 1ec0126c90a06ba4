package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/records"
)

// procfs reads one Find's or alive's worth of a proc filesystem (Linux). It is not safe for
// concurrent use; each call makes its own.
type procfs struct {
	root string
	buf  []byte // scratch for readFile, grown as needed

	// byParent lists children by parent pid, built from a scan of every process when a
	// task/PID/children file is missing (kernels built without CONFIG_PROC_CHILDREN).
	byParent map[int][]int
	scanned  bool

	// explain, when set, makes find keep why it took no process (Finder.explain) in rejects,
	// and where Claude Code might run out of the pane's reach (below): the processes below
	// the foreground on terminals of their own (off), and the tmux clients of the foreground
	// (clients).
	explain bool
	rejects []string
	off     []statInfo
	clients []tmuxClient
	server  int // the parent of the pane's process: its tmux server

	// launcher: the walk met Codex's npm launcher (isCodex) and did not find its child.
	launcher bool
}

// reject keeps why find took no process, when it explains.
func (p *procfs) reject(format string, a ...any) {
	if p.explain {
		p.rejects = append(p.rejects, fmt.Sprintf(format, a...))
	}
}

// statInfo is what Find uses of /proc/PID/stat.
type statInfo struct {
	pid   int
	comm  string // the text of /proc/PID/comm (both are the task's comm), so that file is not read
	state byte
	ppid  int
	pgrp  int
	tty   int // tty_nr: the device number of its controlling terminal, 0 for none
	tpgid int
	start string // field 22, starttime in clock ticks since boot, as text
}

// parseStat parses /proc/PID/stat. comm (field 2) is in parentheses and may itself contain
// spaces and ')' (a process can name itself anything), so the other fields are read after the
// LAST ')'.
func parseStat(b []byte) (statInfo, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return statInfo{}, fmt.Errorf("malformed stat %.40q", b)
	}
	var st statInfo
	var ok bool
	if st.pid, ok = atoi(bytes.TrimSpace(b[:open])); !ok {
		return statInfo{}, fmt.Errorf("malformed stat pid %.40q", b)
	}
	st.comm = string(b[open+1 : end])
	// Fields after comm: 3 state, 4 ppid, 5 pgrp, 6 session, 7 tty_nr, 8 tpgid, …, 22 starttime.
	rest := b[end+1:]
	for field := 3; field <= 22; field++ {
		for len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
		}
		n := bytes.IndexByte(rest, ' ')
		if n < 0 {
			n = len(rest)
		}
		tok := bytes.TrimSpace(rest[:n])
		rest = rest[n:]
		if len(tok) == 0 {
			return statInfo{}, fmt.Errorf("malformed stat of pid %d: %d fields after comm", st.pid, field-3)
		}
		switch field {
		case 3:
			st.state = tok[0]
		case 4:
			st.ppid, ok = atoi(tok)
		case 5:
			st.pgrp, ok = atoi(tok)
		case 7:
			st.tty, ok = atoi(tok)
		case 8:
			st.tpgid, ok = atoi(tok)
		case 22:
			if _, ok = atoi(tok); ok {
				st.start = string(tok)
			}
		}
		if !ok {
			return statInfo{}, fmt.Errorf("malformed stat of pid %d: field %d %q", st.pid, field, tok)
		}
	}
	return st, nil
}

// gone reports whether err says the process does not exist (any more).
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// zombie reports whether a process state is a zombie or dead one: not running any more.
func zombie(state byte) bool { return state == 'Z' || state == 'X' || state == 'x' }

func (p *procfs) path(pid int, file string) string {
	return p.root + "/" + strconv.Itoa(pid) + "/" + file
}

func (p *procfs) read(path string) ([]byte, error) {
	if p.buf == nil {
		p.buf = make([]byte, 1024)
	}
	b, err := readFile(path, p.buf)
	if cap(b) > cap(p.buf) {
		p.buf = b[:cap(b)]
	}
	return b, err
}

// stat reads and parses /proc/PID/stat.
func (p *procfs) stat(pid int) (statInfo, error) {
	path := p.path(pid, "stat")
	b, err := p.read(path)
	if err != nil {
		return statInfo{}, err
	}
	st, err := parseStat(b)
	if err != nil {
		return statInfo{}, fmt.Errorf("parse %s: %w", path, err)
	}
	return st, nil
}

// usable reports whether root is a proc filesystem, so that a missing /proc/PID means that the
// process does not exist.
func (p *procfs) usable() bool {
	_, err := os.Lstat(p.root + "/self")
	return err == nil
}

// cmdline returns argv from /proc/PID/cmdline (NUL-separated), nil when unreadable or empty
// (a kernel thread, a zombie). A process that rewrote its argv area (node's process.title on
// Linux) leaves trailing NULs, which are dropped.
func (p *procfs) cmdline(pid int) []string {
	b, err := p.read(p.path(pid, "cmdline"))
	if err != nil {
		return nil
	}
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\x00")
}

// exe returns the target of /proc/PID/exe, "" when unreadable (another user's process). Linux
// appends " (deleted)" when the binary was removed since it started (the native install deletes
// old versions when it updates): that suffix is dropped.
func (p *procfs) exe(pid int) string {
	exe, err := os.Readlink(p.path(pid, "exe"))
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(exe, " (deleted)")
}

// children returns the children of pid: /proc/PID/task/PID/children lists those forked by its
// main thread (Linux ≥ 3.5 with CONFIG_PROC_CHILDREN); where that file is missing, a scan of
// every process by ppid.
func (p *procfs) children(pid int) []int {
	b, err := p.read(p.path(pid, "task/"+strconv.Itoa(pid)+"/children"))
	if err == nil {
		var kids []int
		for len(b) > 0 {
			for len(b) > 0 && (b[0] == ' ' || b[0] == '\n') {
				b = b[1:]
			}
			n := 0
			for n < len(b) && b[n] != ' ' && b[n] != '\n' {
				n++
			}
			if kid, ok := atoi(b[:n]); ok && kid > 0 {
				kids = append(kids, kid)
			}
			b = b[n:]
		}
		return kids
	}
	if !gone(err) {
		return nil
	}
	if !p.scanned {
		p.scanned = true
		p.byParent = make(map[int][]int)
		for _, st := range p.scan() {
			p.byParent[st.ppid] = append(p.byParent[st.ppid], st.pid)
		}
	}
	return p.byParent[pid]
}

// scan reads the stat of every process, in pid order; processes that vanish are skipped.
func (p *procfs) scan() []statInfo {
	entries, err := os.ReadDir(p.root)
	if err != nil {
		return nil
	}
	var all []statInfo
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		if st, err := p.stat(pid); err == nil {
			all = append(all, st)
		}
	}
	slices.SortFunc(all, func(a, b statInfo) int { return a.pid - b.pid })
	return all
}

// find is Finder.Find on /proc. err != nil means that /proc is not usable (the caller falls
// back to ps), not that the pane has no Claude Code.
func (p *procfs) find(panePID int) (Found, bool, error) {
	pane, err := p.stat(panePID)
	if err != nil {
		if gone(err) && p.usable() {
			p.reject("the pane's process %d is gone", panePID)
			return Found{}, false, nil
		}
		return Found{}, false, fmt.Errorf("%s not usable: %w", p.root, err)
	}
	p.server = pane.ppid
	tpgid := pane.tpgid
	if tpgid <= 0 {
		p.reject("the pane's process %d has no terminal, so no foreground", panePID)
		return p.none(pane) // no controlling terminal: not a pane's foreground
	}
	type candidate struct{ pid, depth int }
	var arr [maxCandidates]candidate
	queue := append(arr[:0], candidate{tpgid, 0})
	for i := 0; i < len(queue); i++ {
		c := queue[i]
		st := pane
		if c.pid != panePID {
			if st, err = p.stat(c.pid); err != nil {
				if i == 0 && gone(err) {
					return p.findInGroup(panePID, tpgid)
				}
				continue // vanished mid-walk, or unreadable
			}
		}
		if st.pgrp != tpgid || zombie(st.state) {
			if i == 0 {
				// The leader has exited (a zombie, or its pid already reused).
				return p.findInGroup(panePID, tpgid)
			}
			// Not in the foreground (a job suspended with Ctrl-Z, a background job), or
			// on a terminal of its own (script(1)'s child), which explain looks under.
			p.keepOff(st, tpgid)
			continue
		}
		if f, ok := p.check(st, panePID, tpgid, c.depth); ok {
			return f, true, nil
		}
		if c.depth < maxDepth {
			for _, kid := range p.children(c.pid) {
				if len(queue) == maxCandidates {
					break
				}
				queue = append(queue, candidate{kid, c.depth + 1})
			}
		}
	}
	return p.none(pane)
}

// none is find's answer when it took no process: for now only (Found.Starting) when the
// pane's process is still tmux's fork. Checked only then, so that finding Claude Code costs
// no read of the parent.
func (p *procfs) none(pane statInfo) (Found, bool, error) {
	if p.launcher {
		// Codex's npm launcher, before it started its native child (or after the child
		// exited, before the launcher does): the next look finds the child, or nothing.
		return Found{Starting: true}, false, nil
	}
	if !p.forked(pane) {
		return Found{}, false, nil
	}
	p.reject("the pane's process %d has not yet run the pane's program: it is still tmux's fork (comm %q)", pane.pid, pane.comm)
	return Found{Starting: true}, false, nil
}

// forked reports whether the pane's first process is still the fork of its parent (the tmux
// server) that has not yet executed the pane's program: the same comm ("tmux: server", as
// tmux 3.3a names its server on Linux) and the same executable as its parent. A listing made
// then shows the pane with the program's name already (tmux 3.3a falls back to the pane's
// argv while the fork has no terminal), and nothing shows it again but new output.
func (p *procfs) forked(pane statInfo) bool {
	parent, err := p.stat(pane.ppid)
	if err != nil || parent.comm != pane.comm {
		return false
	}
	exe := p.exe(pane.pid)
	return exe != "" && exe == p.exe(pane.ppid)
}

// findInGroup looks at every member of the foreground group when its leader has exited (the
// group lives on while a member does, and the members' parent links no longer lead from the
// leader): a scan of every process, done only then.
func (p *procfs) findInGroup(panePID, tpgid int) (Found, bool, error) {
	n := 0
	for _, st := range p.scan() {
		if st.pgrp != tpgid || zombie(st.state) {
			continue
		}
		if f, ok := p.check(st, panePID, tpgid, -1); ok {
			return f, true, nil
		}
		if n++; n == maxCandidates {
			break
		}
	}
	return Found{Starting: p.launcher}, false, nil
}

// check reads one candidate's argv and executable and decides. A process whose executable
// cannot be read (another user's) is never taken for Claude Code: only the executable can
// confirm it. Claude Code's session registry, when it names the same process, confirms it too.
func (p *procfs) check(st statInfo, panePID, tpgid, depth int) (Found, bool) {
	exe := p.exe(st.pid)
	if exe == "" {
		p.reject("pid %d (comm %q): its executable cannot be read (another user's process?), and only the executable can confirm Claude Code", st.pid, st.comm)
		return Found{}, false
	}
	argv := p.cmdline(st.pid)
	name, why, ok, launcher := decide(st.comm, argv, exe, p.resolver(st.pid))
	if !ok {
		p.launcher = p.launcher || launcher
		if p.explain {
			p.reject("pid %d: %s", st.pid, rejected(why, st.comm, argv, exe))
			if isTmux(exe) {
				p.clients = append(p.clients, tmuxClient{pid: st.pid, name: baseName(exe), argv: argv})
			}
		}
		return Found{}, false
	}
	if name == agent.Claude {
		if en, err := p.env(st.pid).ReadEntry(st.pid); err == nil && en.ProcStart == st.start {
			why += "; its session registry entry names it (Claude Code " + en.Version + ")"
		}
	}
	return Found{
		Identity: Identity{PID: st.pid, Start: ticksPrefix + st.start},
		How:      how("", panePID, tpgid, st.pid, depth, why),
		Agent:    name,
	}, true
}

// resolver gives the real path of a path named by process pid, relative to its working
// directory, with symlinks resolved (the path as given when that fails).
func (p *procfs) resolver(pid int) func(string) string {
	return func(path string) string {
		if !filepath.IsAbs(path) {
			cwd, err := os.Readlink(p.path(pid, "cwd"))
			if err != nil {
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

// env reads where the process's Claude Code records are, from /proc/PID/environ (empty when
// unreadable).
func (p *procfs) env(pid int) records.Env {
	b, err := p.read(p.path(pid, "environ"))
	if err != nil {
		return records.Env{}
	}
	return records.ParseEnviron(b)
}

// alive is Finder.alive on /proc for an identity from /proc.
func (p *procfs) alive(id Identity) (bool, error) {
	st, err := p.stat(id.PID)
	if err != nil {
		if gone(err) && p.usable() {
			return false, nil
		}
		return false, fmt.Errorf("%s not usable: %w", p.root, err)
	}
	return !zombie(st.state) && ticksPrefix+st.start == id.Start, nil
}

// atoi parses a decimal int, maybe negative (tpgid is -1 without a terminal).
func atoi(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
