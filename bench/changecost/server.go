//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// layoutNames are the layouts of the panes on the server.
var layoutNames = map[string]string{
	"1": "1 pane per window",
	"4": "4 panes per window",
	"s": "1 pane per session",
}

// maxArgs is the most arguments put on one tmux command line (tmux 3.7 takes at most 1,000).
const maxArgs = 900

// server is a private tmux server of idle panes, each running cat.
type server struct {
	tmux, dir, sock string
	n               int
	layout          string
	pid             int
	panes           []string // pane ids
	caps            caps
}

// caps is what the server can do, probed rather than read from its version.
type caps struct {
	lastOutput bool // #{pane_last_output_time} (next-3.8)
	waitEvent  bool // wait-for -E (next-3.8)
}

// newServer starts a private server (-S in a fresh short directory under /tmp, -f /dev/null)
// with n idle panes in the layout.
func newServer(tmux string, n int, layout string) (*server, error) {
	dir, err := os.MkdirTemp("/tmp", "cc.")
	if err != nil {
		return nil, err
	}
	s := &server{tmux: tmux, dir: dir, sock: filepath.Join(dir, "s"), n: n, layout: layout}
	start := time.Now()
	if _, err := s.run("new-session", "-d", "-s", "b", "-x", "80", "-y", "24", "cat", ";",
		"set-option", "-g", "exit-empty", "off"); err != nil {
		s.kill()
		return nil, err
	}
	if err := s.fill(); err != nil {
		s.kill()
		return nil, err
	}
	if err := s.inspect(); err != nil {
		s.kill()
		return nil, err
	}
	logf("N=%d, %s: %d panes made in %s (server pid %d, last_output_time %v, wait-for -E %v)",
		n, layoutNames[layout], len(s.panes), time.Since(start).Round(time.Millisecond), s.pid,
		s.caps.lastOutput, s.caps.waitEvent)
	return s, nil
}

// fill makes the panes other than the first, in command lines of at most maxArgs arguments.
func (s *server) fill() error {
	var cmds [][]string
	switch s.layout {
	case "1":
		for i := 1; i < s.n; i++ {
			cmds = append(cmds, []string{"new-window", "-d", "-t", "b:" + strconv.Itoa(i), "cat"})
		}
	case "s":
		for i := 1; i < s.n; i++ {
			cmds = append(cmds, []string{"new-session", "-d", "-s", "b" + strconv.Itoa(i), "-x", "80", "-y", "24", "cat"})
		}
	case "4":
		for w := 0; w < s.n/4; w++ {
			t := "b:" + strconv.Itoa(w)
			if w > 0 {
				cmds = append(cmds, []string{"new-window", "-d", "-t", t, "cat"})
			}
			for j := 0; j < 3; j++ {
				cmds = append(cmds, []string{"split-window", "-d", "-t", t, "cat"})
			}
			cmds = append(cmds, []string{"select-layout", "-t", t, "tiled"})
		}
	}
	var line []string
	for i, c := range cmds {
		if len(line) > 0 {
			line = append(line, ";")
		}
		line = append(line, c...)
		if i == len(cmds)-1 || len(line)+1+len(cmds[i+1]) > maxArgs {
			if _, err := s.run(line...); err != nil {
				return err
			}
			line = nil
		}
	}
	return nil
}

// inspect reads the server's pid and panes, checks that there are n, and probes its caps.
func (s *server) inspect() error {
	out, err := s.run("display-message", "-p", "-t", "b:0", "#{pid}")
	if err != nil {
		return err
	}
	if s.pid, err = strconv.Atoi(strings.TrimSpace(out)); err != nil {
		return fmt.Errorf("server pid %q: %v", out, err)
	}
	out, err = s.run("list-panes", "-a", "-F", "#{pane_id} #{pane_dead}")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		id, dead, _ := strings.Cut(l, " ")
		if dead != "0" {
			return fmt.Errorf("pane %s is dead", id)
		}
		s.panes = append(s.panes, id)
	}
	if len(s.panes) != s.n {
		return fmt.Errorf("%d panes made, want %d", len(s.panes), s.n)
	}
	// display-message -a lists pane_last_output_time only once the pane has printed: make
	// the first pane print (cat's terminal echoes a key), long before any window.
	if err := s.poke(s.panes[0]); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond)
	out, err = s.run("display-message", "-a", "-t", s.panes[0])
	if err != nil {
		return err
	}
	s.caps.lastOutput = strings.Contains(out, "\npane_last_output_time=") || strings.HasPrefix(out, "pane_last_output_time=")
	// wait-for -E -l lists the waiters of an event; older servers refuse the flag.
	_, err = s.run("wait-for", "-E", "-l", "pane-activity")
	s.caps.waitEvent = err == nil
	return nil
}

// run runs one tmux client with args on the server and returns its output.
func (s *server) run(args ...string) (string, error) {
	cmd := exec.Command(s.tmux, append([]string{"-S", s.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		a := strings.Join(args, " ")
		if len(a) > 120 {
			a = a[:120] + "…"
		}
		return out.String(), fmt.Errorf("tmux %s: %v: %s", a, err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// env is this process's environment without TMUX and TMUX_PANE, so that no tmux client
// started here finds another server.
func env() []string {
	var e []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			e = append(e, kv)
		}
	}
	return e
}

// kill ends the server (kill-server, then SIGKILL if it is still there) and removes its
// directory.
func (s *server) kill() {
	_, _ = s.run("kill-server")
	if s.pid > 0 {
		deadline := time.Now().Add(3 * time.Second)
		for alive(s.pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(s.pid) {
			if p, err := os.FindProcess(s.pid); err == nil {
				_ = p.Kill()
			}
		}
	}
	_ = os.RemoveAll(s.dir)
}

// usable is the modes of names the server can do, and why the others cannot.
func (s *server) usable(names []string) (ms []mode, skipped []string) {
	for _, name := range names {
		m, _ := modeByName(name)
		if why := m.unable(s.caps); why != "" {
			skipped = append(skipped, fmt.Sprintf("%s: %s", name, why))
			continue
		}
		ms = append(ms, m)
	}
	return ms, skipped
}

// poke makes pane print something: cat's terminal echoes a key.
func (s *server) poke(pane string) error {
	_, err := s.run("send-keys", "-t", pane, "x")
	return err
}
