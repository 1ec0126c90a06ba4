// Package tmuxtest starts private tmux servers for tests. A server lives on a socket in a short
// temporary directory (socket paths over ~100 bytes fail) and is killed when the test ends.
// Isolate, called from TestMain, points TMUX_TMPDIR at a private directory and unsets TMUX, so
// that even a tmux call that forgot its -S cannot reach the user's default server. On a slow
// or loaded machine, CAC_TEST_SLOW=N stretches every deadline N times (Scale).
package tmuxtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// Isolate makes the default tmux server unreachable for this process and the tmux clients it
// starts, and points the XDG config, state and runtime directories (cac-tmux's
// configuration, state files and locks) into the same private directory. Call it first in TestMain; the returned function
// removes the private directory.
func Isolate() (cleanup func()) {
	slow() // a bad $CAC_TEST_SLOW stops the run before any test
	dir, err := os.MkdirTemp("/tmp", "cxi")
	if err != nil {
		panic(err)
	}
	os.Setenv("TMUX_TMPDIR", dir)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	os.Setenv("XDG_RUNTIME_DIR", filepath.Join(dir, "run"))
	os.Unsetenv("TMUX")
	os.Unsetenv("TMUX_PANE")
	return func() { os.RemoveAll(dir) }
}

// Main is a TestMain for packages whose tests start tmux: it isolates the process (Isolate),
// runs the tests and exits with their status.
func Main(m *testing.M) {
	cleanup := Isolate()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// MainBuilding is Main for packages whose tests run programs of ours in tmux panes: build
// gets a fresh temporary directory (removed afterwards) to build them into before the tests
// run; a failed build ends the run.
func MainBuilding(m *testing.M, build func(dir string) error) {
	cleanup := Isolate()
	dir, err := os.MkdirTemp("", "cacbin")
	if err == nil {
		err = build(dir)
	}
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	} else {
		code = m.Run()
	}
	os.RemoveAll(dir)
	cleanup()
	os.Exit(code)
}

// GoBuild builds the Go package at pkg (a path as `go build` takes it, relative to the test's
// package directory) into the file out: the fake Claude Code and the cac-tmux binary that
// integration tests run inside tmux panes.
func GoBuild(out, pkg string) error {
	goTool, err := exec.LookPath("go") // go test puts $GOROOT/bin first in PATH
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if b, err := exec.Command(goTool, "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// Server is a private tmux server.
type Server struct {
	Dir    string // its temporary directory
	Socket string // the socket path (tmux -S)
	Client *tmuxctl.Client
	// ClaudeDir is the CLAUDE_CONFIG_DIR of every pane's processes (Dir/claude, not created):
	// a claude (real or fake) in a test pane keeps its records there, never in the user's.
	ClaudeDir string
}

// Config is the server configuration the tests run with: the server stays up with no session,
// and nothing a user's ~/.tmux.conf sets applies. Start adds the global CLAUDE_CONFIG_DIR.
const Config = "set -g exit-empty off\nset -g history-limit 200\nset -g default-shell /bin/sh\n"

// Start starts a private server with one detached session "main" of the given size running
// command (the default shell when empty). The server is killed when t ends.
func Start(t testing.TB, width, height int, command ...string) *Server {
	t.Helper()
	return StartAt(t, "", width, height, command...)
}

// StartAt is Start with the server's socket at socket (in the server's own temporary
// directory when ""): several servers in one directory, as tmux puts the sockets of -L NAME.
func StartAt(t testing.TB, socket string, width, height int, command ...string) *Server {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is not installed (apt-get install -y tmux): %v", err)
	}
	dir, err := os.MkdirTemp("/tmp", "cx")
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "tmux.conf")
	if socket == "" {
		socket = filepath.Join(dir, "s")
	}
	s := &Server{Dir: dir, Socket: socket, ClaudeDir: filepath.Join(dir, "claude")}
	// default-size: windows made later without a client (new-window, another new-session)
	// take it on every tmux (3.2a would make them 80x23).
	text := Config + fmt.Sprintf("set -g default-size %dx%d\n", width, height) +
		"set-environment -g CLAUDE_CONFIG_DIR '" + s.ClaudeDir + "'\n"
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Client = &tmuxctl.Client{SocketPath: s.Socket, Timeout: Scale(tmuxctl.DefaultTimeout)}
	args := []string{"-f", conf, "new-session", "-d", "-s", "main", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height)}
	args = append(append(args, command...), tmuxctl.KeepSize("main", width, height)...)
	if _, err := s.Client.Run(context.Background(), args...); err != nil {
		os.RemoveAll(dir)
		t.Fatalf("start tmux server: %v", err)
	}
	t.Cleanup(func() {
		s.Client.Run(context.Background(), "kill-server")
		os.RemoveAll(dir)
	})
	return s
}

// UserTmux makes a private TMUX_TMPDIR (tmp, in /tmp: a socket path must be short) and in it
// the user's tmux directory (dir, tmux-UID: where tmux puts the sockets of -L NAME and where
// the user's servers are looked for), both removed when t ends.
func UserTmux(t testing.TB) (tmp, dir string) {
	t.Helper()
	tmp, err := os.MkdirTemp("/tmp", "cxu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	dir = filepath.Join(tmp, "tmux-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return tmp, dir
}

// NewSession makes another detached session of the given size running command (the default
// shell when empty), its first window that size on every tmux (see tmuxctl.KeepSize).
func (s *Server) NewSession(t testing.TB, name string, width, height int, command ...string) {
	t.Helper()
	args := []string{"new-session", "-d", "-s", name, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height)}
	s.Tmux(t, append(append(args, command...), tmuxctl.KeepSize(name, width, height)...)...)
}

// KillServer kills the server and waits until it has exited, so that a server started on the
// socket next is a new one. tmux's kill-server returns while the server is still exiting: until
// its last client and job are gone it accepts each connection and closes it at once, and a
// new-session meeting it fails with "server exited unexpectedly" (measured on 3.5a with a
// run-shell still running).
func (s *Server) KillServer(t testing.TB) {
	t.Helper()
	s.Tmux(t, "kill-server")
	WaitFor(t, 20*time.Second, "the tmux server on "+s.Socket+" to exit", func() bool { return !tmuxctl.Listening(s.Socket) })
}

// Stop stops the server with SIGSTOP until the test ends (then SIGCONT, before the server is
// killed): a server that accepts connections and never answers them, as a hung one does.
func (s *Server) Stop(t testing.TB) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(s.Tmux(t, "display-message", "-p", "#{pid}")))
	if err != nil {
		t.Fatalf("the pid of the tmux server on %s: %v", s.Socket, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) })
}

// Silent listens on a unix socket at path that accepts every connection and never reads or
// answers, until the test ends: what a tmux client meets at a hung server. A tmux client
// hands its stdin and stdout to the server it connects to; here they stay unread in the
// socket, as at a stopped server.
func Silent(t testing.TB, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
}

// Connect makes s.Client run its commands over a control-mode connection (Client.Connect)
// and fails the test unless the connection comes up. It is closed when t ends, before the
// server is killed.
func (s *Server) Connect(t testing.TB) {
	t.Helper()
	c := &tmuxctl.Client{SocketPath: s.Socket, Timeout: s.Client.Timeout, Clock: s.Client.Clock}
	var mu sync.Mutex
	var events []string
	c.Connect(func(event string, err error) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, fmt.Sprint(event, " ", err))
	})
	if _, err := c.Run(context.Background(), "display-message", "-p", "x"); err != nil || !c.Connected() {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no control connection: %v; events %q", err, events)
	}
	s.Client = c
	t.Cleanup(func() { c.Close() })
}

// Tmux runs a tmux command on the server and fails the test on error.
func (s *Server) Tmux(t testing.TB, args ...string) string {
	t.Helper()
	out, err := s.Client.Run(context.Background(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// SlowEnv names the environment variable that stretches every test deadline on a slow or
// loaded machine: CAC_TEST_SLOW=3 makes WaitFor's deadlines and the tmux call timeouts of
// the servers Start starts three times longer. Unset, the factor is 1.
const SlowEnv = "CAC_TEST_SLOW"

// slow is $CAC_TEST_SLOW, read once.
var slow = sync.OnceValue(func() float64 {
	v := os.Getenv(SlowEnv)
	if v == "" {
		return 1
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 1 || f > 1000 {
		panic(fmt.Sprintf("tmuxtest: %s=%q: want a factor from 1 to 1000", SlowEnv, v))
	}
	return f
})

// Scale stretches a test deadline by the slow-machine factor ($CAC_TEST_SLOW, default 1).
// Only deadlines are scaled, never the instants a test expects on a manual clock.
func Scale(d time.Duration) time.Duration { return time.Duration(float64(d) * slow()) }

// WaitFor polls cond every 20 ms until it holds or the deadline (timeout stretched by
// Scale) passes, then fails with what. It waits on the real clock: what it waits for is
// another process.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	timeout = Scale(timeout)
	deadline := clock.Real.Now().Add(timeout)
	for !cond() {
		if clock.Real.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		clock.Real.Sleep(context.Background(), 20*time.Millisecond)
	}
}

// WaitScreen waits until the pane's screen contains text and returns the screen, each line
// without its trailing spaces (tmux 3.2a's capture-pane -J pads lines with them).
func (s *Server) WaitScreen(t testing.TB, pane, text string) string {
	t.Helper()
	var screen string
	WaitFor(t, 10*time.Second, fmt.Sprintf("%q on pane %s", text, pane), func() bool {
		out, err := s.Client.Capture(context.Background(), pane)
		screen = TrimLines(out)
		return err == nil && strings.Contains(screen, text)
	})
	return screen
}

// TrimLines is s with the trailing spaces of each line removed.
func TrimLines(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		body, nl := strings.CutSuffix(line, "\n")
		b.WriteString(strings.TrimRight(body, " "))
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
