//go:build linux

// The tmux servers of a run: made, filled with panes that draw like Claude Code, measured
// and killed.

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var sockSeq int

// tmuxCmd runs tmux against the server at sock (always -S) and returns its stdout.
func tmuxCmd(sock string, args ...string) (string, error) {
	if sock == "" {
		panic("tmux without a socket")
	}
	cmd := exec.Command(realTmux, append([]string{"-S", sock}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args[:min(len(args), 3)], " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

type server struct {
	sock    string
	label   string // its "server" field in the watcher's log: "" with one server, else "s0", "s1", …
	agent   string // what its panes run (-agent): agentClaude, agentCodex or agentBoth
	pid     int
	panes   int      // fake sessions made at the start
	stopped string   // the pane id of the session stopped at a limit ("" but on the home server)
	busy    []string // the panes whose session runs a turn in the busy phases (spin)
}

// userSocketDir is $TMUX_TMPDIR/tmux-UID: where tmux puts the sockets of the user's servers, and
// where `cac-tmux watch --all-servers` looks for them. With -servers > 1 the servers are there.
func userSocketDir() string { return filepath.Join(tmp, "tmux-"+strconv.Itoa(os.Getuid())) }

// socketFor is the socket of the i-th server of a run, and its label in the watcher's log:
// tmp/sK (K counts every server made) and no label with one server; with -servers > 1,
// s0, s1, … in userSocketDir, labelled by that name (the servers of the previous run are
// killed by then, so their names are free again).
func socketFor(i int) (sock, label string) {
	if opt.servers == 1 {
		sockSeq++
		return filepath.Join(tmp, "s"+strconv.Itoa(sockSeq)), ""
	}
	label = "s" + strconv.Itoa(i)
	return filepath.Join(userSocketDir(), label), label
}

// newServer starts a tmux server on sock with n fake sessions of the agent mode (codexAt),
// one window (120x40) each in one session. On the home server the first is stopped at a limit
// an hour away (`--scenario plain`) and the next opt.busy are named busy (spin makes them run
// a turn); every other session is idle (`--scenario idle`). It waits until every one has drawn
// its screen.
func newServer(sock, label string, n int, home bool, agent string) (*server, error) {
	mu.Lock()
	s := &server{sock: sock, label: label, panes: n, agent: agent}
	if cleaned {
		mu.Unlock()
		return s, errors.New("interrupted")
	}
	sockets[s.sock] = 0
	first := fakeCmd(codexAt(agent, 0, home), "--scenario", "idle")
	if home {
		reset := time.Now().Add(time.Hour).Truncate(time.Minute).UTC().Format(time.RFC3339)
		first = fakeCmd(codexAt(agent, 0, home), "--scenario", "plain", "--reset", reset)
	}
	args := append([]string{"-f", filepath.Join(tmp, "tmux.conf"), "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "bench", "-x", "120", "-y", "40"}, first...)
	out, err := tmuxCmd(s.sock, args...) // under mu: cleanup cannot run between the start and its registration
	mu.Unlock()
	if err != nil {
		return s, err
	}
	if home {
		s.stopped = strings.TrimSpace(out)
	}
	if err := s.fill(n, home); err != nil {
		return s, err
	}
	if err := s.findPID(); err != nil {
		return s, err
	}
	return s, s.waitDrawn(n)
}

// fill makes the server's windows after the first, up to n, batch at a time, the first
// opt.busy of them named busy on the home server, and notes the busy panes.
func (s *server) fill(n int, home bool) error {
	for made := 1; made < n; {
		var args []string
		for k := 0; k < batch && made < n; k, made = k+1, made+1 {
			if k > 0 {
				args = append(args, ";")
			}
			args = append(args, "new-window", "-d", "-t", "bench:")
			if home && made <= opt.busy {
				args = append(args, fakeCmd(false, "--scenario", "idle", "--name", "busy")...) // idle until spin
			} else {
				args = append(args, fakeCmd(codexAt(s.agent, made, home), "--scenario", "idle")...)
			}
		}
		if _, err := tmuxCmd(s.sock, args...); err != nil {
			return err
		}
	}
	out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_id}\t#{pane_start_command}")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, cmd, _ := strings.Cut(l, "\t"); strings.Contains(cmd, "--name busy") {
			s.busy = append(s.busy, id)
		}
	}
	return nil
}

// findPID reads the server's pid, and registers it for cleanup.
func (s *server) findPID() error {
	out, err := tmuxCmd(s.sock, "display-message", "-p", "#{pid}")
	if err != nil {
		return err
	}
	if s.pid, err = strconv.Atoi(strings.TrimSpace(out)); err != nil {
		return fmt.Errorf("tmux server pid %q: %v", out, err)
	}
	mu.Lock()
	if _, ok := sockets[s.sock]; ok {
		sockets[s.sock] = s.pid
	}
	mu.Unlock()
	return nil
}

// waitDrawn waits until the n fake sessions have drawn their screen.
func (s *server) waitDrawn(n int) error {
	deadline := time.Now().Add(30*time.Second + time.Duration(n)*100*time.Millisecond)
	for {
		drawn, err := s.drawn()
		if err != nil {
			return err
		}
		if drawn >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: only %d of %d fake sessions drew their screen", s.sock, drawn, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// drawn counts the panes whose command is a fake (claude, codex) and whose screen shows its
// session: a finished turn, or a stop (Claude Code's or Codex's wording).
func (s *server) drawn() (int, error) {
	out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_current_command}\t#{C:Worked for}\t#{C:hit your session limit}\t#{C:hit your usage limit}")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, "\t"); len(f) == 4 && (f[0] == "claude" || f[0] == "codex") && (f[1] != "0" || f[2] != "0" || f[3] != "0") {
			n++
		}
	}
	return n, nil
}

// spin makes the busy panes' sessions run a turn with an animated spinner (--spinner,
// redrawn every 100 ms), or idle again: each is replaced by a new fake (respawn-pane -k).
func (s *server) spin(on bool) error {
	for _, p := range s.busy {
		args := append([]string{"respawn-pane", "-k", "-t", p}, fakeCmd(false, "--scenario", "idle", "--name", "busy")...)
		if on {
			args = append(args, "--spinner")
		}
		if _, err := tmuxCmd(s.sock, args...); err != nil {
			return err
		}
	}
	return nil
}

func (s *server) paneIDs() ([]string, error) {
	out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_id}")
	return strings.Fields(out), err
}

// kill ends the server (and with it every fake in its panes).
func (s *server) kill() {
	mu.Lock()
	defer mu.Unlock()
	killServer(s.sock)
}

// group is the servers of one N and run: opt.servers of them, the N panes split evenly. The
// first is the home server: it holds the stopped session, the busy ones, the probe and the
// detection trials, and the display-message pings ask it.
type group []*server

// newGroup starts the servers of n panes in all (the probe, made later, is the home server's
// last pane with -latency). On an error it returns the servers started so far, to be killed.
func newGroup(n int, agent string) (group, error) {
	var g group
	for i := range opt.servers {
		k := n / opt.servers
		if i < n%opt.servers {
			k++
		}
		if i == 0 && opt.latency {
			k-- // the probe
		}
		sock, label := socketFor(i)
		s, err := newServer(sock, label, k, i == 0, agent)
		g = append(g, s)
		if err != nil {
			return g, err
		}
	}
	return g, nil
}

// panes counts the fake sessions made with the servers.
func (g group) panes() int {
	n := 0
	for _, s := range g {
		n += s.panes
	}
	return n
}

func (g group) labels() []string {
	var l []string
	for _, s := range g {
		l = append(l, s.label)
	}
	return l
}

func (g group) kill() {
	for _, s := range g {
		s.kill()
	}
}

// cpu reads each server's own CPU (utime+stime), in clock ticks.
func (g group) cpu() ([]float64, error) {
	var c []float64
	for _, s := range g {
		t, err := readCPU(s.pid)
		if err != nil {
			return nil, fmt.Errorf("tmux server %s: %w", s.sock, err)
		}
		c = append(c, t.own)
	}
	return c, nil
}

// pcts turns each server's CPU from a to b (clock ticks) over el seconds into % of one core.
func pcts(a, b []float64, el float64) []float64 {
	p := make([]float64, len(a))
	for i := range a {
		p[i] = (b[i] - a[i]) / clkTck / el * 100
	}
	return p
}

func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// killServer kills the server at sock, makes sure its process is gone, and kills any fake
// left behind. Called with mu held.
func killServer(sock string) {
	if _, ok := sockets[sock]; !ok {
		return
	}
	delete(sockets, sock)
	tmuxCmd(sock, "kill-server")
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && len(ours()) > 0 {
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range ours() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// ours lists the processes this program started that outlive their server: fakes (their exe
// is tmp/bin/claude or tmp/bin/codex, a simulated Codex's stand-in daemon too) and tmux
// processes whose command line names a socket in tmp.
func ours() []int {
	ents, _ := os.ReadDir("/proc")
	liveServer := map[int]bool{}
	for _, pid := range sockets {
		if pid > 0 {
			liveServer[pid] = true
		}
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		if fakeExe(exe) {
			// A fake of a server still in use, or a daemon of such a fake, is not left over.
			if p := parent(pid); !liveServer[p] && !liveServer[parent(p)] {
				pids = append(pids, pid)
			}
			continue
		}
		if filepath.Base(exe) != "tmux" {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		args := strings.Split(string(cl), "\x00")
		if i := slices.Index(args, "-S"); i >= 0 && i+1 < len(args) && strings.HasPrefix(args[i+1], tmp+"/") {
			if _, live := sockets[args[i+1]]; !live { // a server still in use is not left over
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// parent is the ppid of pid, 0 when unknown.
func parent(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
