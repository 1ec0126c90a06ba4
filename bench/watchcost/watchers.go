//go:build linux

// The watchers of a run: started (the counting one behind the wrapper), stopped, and their
// logs read for when they supervise every pane.

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

type watcher struct {
	cmd    *exec.Cmd
	pid    int
	log    string
	done   chan error    // its Wait result, for stop
	exited chan struct{} // closed when it has exited
}

var watchSeq int

// lastXDG is the XDG base directory of the last watcher started with each command line.
var lastXDG = map[string]string{}

// watchArgv is the watcher's command line after the binary: the harness's flags, then
// -watch-args (later flags win in pflag, so -watch-args can override the harness's). With
// -servers > 1 it is `watch --all-servers`, which finds the servers in userSocketDir
// (TMUX_TMPDIR=tmp), instead of `watch -S sock`.
func watchArgv(sock string) []string {
	if opt.servers > 1 {
		return watchArgvOf("--all-servers")
	}
	return watchArgvOf("-S", sock)
}

// watchArgvOf is `watch WHICH… --log-format json --interval I --margin M -watch-args…`.
func watchArgvOf(which ...string) []string {
	args := append([]string{"watch"}, which...)
	args = append(args, "--log-format", "json", "--interval", opt.interval.String(), "--margin", margin.String())
	return append(args, opt.watchArgs...)
}

// startWatcher runs `cac-tmux watch -S sock --log-format json --interval I --margin 5s` (with
// -servers > 1 `watch --all-servers …`, sock unused), then -watch-args, with its own XDG config, state and runtime directories in tmp (no configuration
// file, a fresh state file and lock; a counting one takes those of the watcher started
// before it with the same command line), and with the counting wrapper first in its PATH when
// counting.
func startWatcher(sock string, counting bool) (*watcher, error) {
	return startWatcherArgv(watchArgv(sock), counting)
}

// startWatcherArgv is startWatcher with the command line after the binary.
func startWatcherArgv(argv []string, counting bool) (*watcher, error) {
	mu.Lock()
	defer mu.Unlock()
	if cleaned {
		return nil, errors.New("interrupted")
	}
	watchSeq++
	w := &watcher{log: filepath.Join(tmp, fmt.Sprintf("watch%d.log", watchSeq)), done: make(chan error, 1), exited: make(chan struct{})}
	xdg := filepath.Join(tmp, fmt.Sprintf("x%d", watchSeq))
	key := strings.Join(argv, " ")
	if counting && lastXDG[key] != "" {
		// The watcher measured before on this server, started again: its state file, and so
		// its output pipes (tmux 3.2a to 3.7), are its own.
		xdg = lastXDG[key]
	}
	lastXDG[key] = xdg
	for _, d := range []string{"config", "state", "run"} {
		if err := os.MkdirAll(filepath.Join(xdg, d), 0o700); err != nil {
			return nil, err
		}
	}
	f, err := os.Create(w.log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w.cmd = exec.Command(filepath.Join(bin, "cac-tmux"), argv...)
	path := os.Getenv("PATH")
	if counting {
		path = wrapperDir() + string(os.PathListSeparator) + path
	}
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch k {
		case "PATH", "TMUX", "TMUX_PANE", "TMUX_TMPDIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR":
		default:
			env = append(env, e)
		}
	}
	w.cmd.Env = append(env, "PATH="+path, "TMUX_TMPDIR="+tmp,
		"XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"), "XDG_RUNTIME_DIR="+filepath.Join(xdg, "run"))
	w.cmd.Stdout, w.cmd.Stderr = f, f
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C reaches it through cleanup only
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	w.pid = w.cmd.Process.Pid
	children[w.cmd] = w.done
	go func() {
		err := w.cmd.Wait()
		close(w.exited)
		w.done <- err
	}()
	return w, nil
}

// stop sends SIGINT and waits (SIGKILL after 10s).
func (w *watcher) stop() {
	mu.Lock()
	defer mu.Unlock()
	stopChild(w.cmd, w.done)
}

// stopChild is stop with mu held.
func stopChild(cmd *exec.Cmd, done chan error) {
	if _, ok := children[cmd]; !ok {
		return
	}
	delete(children, cmd)
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// logLine is what watchcost reads of the watcher's zerolog JSON lines.
type logLine struct {
	Time        string `json:"time"`
	Level       string `json:"level"`
	Server      string `json:"server"` // with --all-servers: the server's label (s0, …); pane ids repeat across servers
	Pane        string `json:"pane"`
	Message     string `json:"message"`
	Error       string `json:"error"`
	ClaudePanes int    `json:"claude_panes"`
}

func (w *watcher) lines() []logLine {
	b, _ := os.ReadFile(w.log)
	var ls []logLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l logLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			ls = append(ls, l)
		}
	}
	return ls
}

// tail is the end of the watcher's output, for an error message.
func (w *watcher) tail() string {
	b, _ := os.ReadFile(w.log)
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	if s == "" {
		return "no output"
	}
	return s
}

// supervised counts the panes the watcher took on (of every server: a pane is its server's
// label and its id), and returns its error and warning lines (with the server's label, if any).
func (w *watcher) supervised() (n int, problems []string, panes map[string]bool) {
	panes = map[string]bool{}
	for _, l := range w.lines() {
		switch {
		case l.Message == "supervising claude":
			panes[l.Server+" "+l.Pane] = true
		case l.Level == "error" || l.Level == "warn":
			where := ""
			if l.Server != "" {
				where = l.Server + ": "
			}
			problems = append(problems, where+l.Message+": "+l.Error)
		}
	}
	return len(panes), problems, panes
}

// logged returns the time of the first log line with this message about pane of the server
// labelled server ("" with one server) (zero: none).
func (w *watcher) logged(server, pane, message string) (time.Time, error) {
	for _, l := range w.lines() {
		if l.Server == server && l.Pane == pane && l.Message == message {
			t, err := time.Parse(time.RFC3339Nano, l.Time)
			if err != nil {
				return t, fmt.Errorf("watcher log time %q: %v", l.Time, err)
			}
			return t, nil
		}
	}
	return time.Time{}, nil
}

// waitSupervised waits until the watcher supervises want panes.
func (w *watcher) waitSupervised(want int, timeout time.Duration) error {
	t0 := time.Now()
	for deadline := t0.Add(timeout); ; time.Sleep(100 * time.Millisecond) {
		got, problems, _ := w.supervised()
		if got >= want {
			return nil
		}
		select {
		case <-w.exited: // a bad -watch-args, most likely
			return fmt.Errorf("the watcher (%s) exited: %s", strings.Join(watchArgv("SOCK"), " "), w.tail())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the watcher supervises %d of %d panes after %s (%v)", got, want, time.Since(t0).Round(time.Second), problems)
		}
	}
}

// waitPiped waits, where the watcher pipes its panes' output (tmux 3.2a to 3.7: it logs so),
// until every pane of every server has a pipe: the watcher pipes 32 panes a tick, each a fork
// of the tmux server, and the idle cost is measured after that start.
func (w *watcher) waitPiped(g group, timeout time.Duration) error {
	if b, err := os.ReadFile(w.log); err != nil || !strings.Contains(string(b), "output is piped to the watcher") {
		return err
	}
	t0 := time.Now()
	for deadline := t0.Add(timeout); ; time.Sleep(200 * time.Millisecond) {
		unpiped := 0
		for _, s := range g {
			out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_pipe}")
			if err != nil {
				return err
			}
			unpiped += strings.Count(out, "0")
		}
		if unpiped == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d panes not piped after %s", unpiped, time.Since(t0).Round(time.Second))
		}
	}
}
