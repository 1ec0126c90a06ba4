package tmuxctl_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
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

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// dial opens a control connection to s, closed when t ends.
func dial(t testing.TB, s *tmuxtest.Server) *tmuxctl.ControlClient {
	t.Helper()
	k, err := s.Client.Dial(context.Background())
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

func run(t testing.TB, k *tmuxctl.ControlClient, args ...string) string {
	t.Helper()
	out, err := k.Run(context.Background(), args...)
	if err != nil {
		t.Fatalf("control %q: %v", args, err)
	}
	return out
}

// arg is tmuxctl's protection of a free-text argument (a final ";" escaped), which Client's
// helpers apply before Run.
func arg(s string) string {
	if strings.HasSuffix(s, ";") {
		return s[:len(s)-1] + `\;`
	}
	return s
}

// nasty are strings that tmux's command parser would change if they were not quoted right.
var nasty = []string{
	`'`, `"`, `\`, `\\`, `\n`, `\;`, `$HOME`, `${HOME}`, `$`, `~`, `~/x`, `~root`, `a ~ b`,
	`#{pane_id}`, `#[fg=red]`, `#`, `## x`, `#comment`, `;`, `a;`, `a\;`, `;;`, ` ; `, `a;b`,
	`{`, `}`, `{ a }`, `}{`, `-`, `-t`, `--`, `-l`, `%1`, `%`, `%if`, `%hidden x=1`, `%endif`,
	`A=b`, `a=b c`, ` leading and trailing `, "two  spaces", "héllo ✓ 日本語 🙂", "a\tb", "\t",
	"", `''`, `'"'"'`, `"'"`, `a'b"c\d$e~f#g;h{i}j%k=l`, `'$HOME'`, `"$HOME"`, `\'`, `\"`,
	`%end 1 2 3`, `%error`, `%begin 1 2 3`, `%exit`,
	strings.Repeat(`x'y"z\ $~#;{}`, 150),
}

// nastyBytes are for option values only: bytes a terminal would act on.
var nastyBytes = []string{"a\nb", "\n", "x\n", "\r", "a\r\nb", "\x1b[31mred", "\x1f", "\x01\x02", "\x7f", "\xff\xfe", "é\xc3"}

func TestControlListPanesMatchesExec(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30, "cat")
	s.Tmux(t, "split-window", "-d", "-t", "main", "cat")
	s.Tmux(t, "new-window", "-d", "-t", "main", "cat")
	s.Tmux(t, "new-session", "-d", "-s", "two", "-x", "80", "-y", "24", "cat")
	s.Tmux(t, "select-pane", "-t", "%0", "-T", "a-:-b\tc %end 1 2 3")
	s.Tmux(t, "select-pane", "-t", "%1", "-T", "%error 4 5 6")
	s.Tmux(t, "set-option", "-p", "-t", "%2", "@cac_state", "waiting")
	s.Tmux(t, "set-option", "-p", "-t", "%2", "@cac_note", "x\ny\x1fz")
	s.Tmux(t, "send-keys", "-t", "%3", "-l", "limit reached")
	s.WaitScreen(t, "%3", "limit reached")
	k := dial(t, s)
	for _, search := range []tmuxctl.Search{{}, {Pattern: "limit"}, {Pattern: "limit", Commands: "^cat$"}} {
		args := []string{"list-panes", "-a", "-F", tmuxctl.PaneFormat(search)}
		want := s.Tmux(t, args...)
		got := run(t, k, args...)
		if got != want {
			t.Errorf("%+v: control list-panes = %q, exec = %q", search, got, want)
		}
		panes, err := tmuxctl.ParsePanes(got)
		if err != nil || len(panes) != 4 {
			t.Errorf("%+v: ParsePanes = %d panes, %v; want 4", search, len(panes), err)
		}
	}
	// Output without a final newline and a wide capture come through as exec gives them.
	for _, args := range [][]string{
		{"capture-pane", "-p", "-J", "-t", "%3"},
		{"display-message", "-p", "-t", "%2", "#{@cac_note}"},
		{"list-sessions"},
		{"set-option", "-p", "-t", "%2", "@x", "1"},
	} {
		if got, want := run(t, k, args...), s.Tmux(t, args...); got != want {
			t.Errorf("%q: control = %q, exec = %q", args, got, want)
		}
	}
}

func TestControlLiteralArgs(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30, "cat")
	k := dial(t, s)
	ctx := context.Background()
	// Options: set the same argv by control and by exec, compare in the server byte for
	// byte, and read back.
	for _, v := range append(append([]string{}, nasty...), nastyBytes...) {
		a := arg(v)
		run(t, k, "set-option", "-p", "-t", "%0", "@a", a)
		s.Tmux(t, "set-option", "-p", "-t", "%0", "@b", a)
		if eq := s.Tmux(t, "display-message", "-p", "-t", "%0", "#{==:#{@a},#{@b}}"); eq != "1\n" {
			t.Errorf("%q: control set %q, exec set %q", v, s.Tmux(t, "display-message", "-p", "-t", "%0", "#{@a}"),
				s.Tmux(t, "display-message", "-p", "-t", "%0", "#{@b}"))
		}
		if got, err := s.Client.PaneOption(ctx, "%0", "@a"); got != controlsAsQuestionMarks(v) || err != nil {
			t.Errorf("%q: read back %q, %v; want %q", v, got, err, controlsAsQuestionMarks(v))
		}
		if got := run(t, k, "display-message", "-p", "-t", "%0", "#{@a}"); got != s.Tmux(t, "display-message", "-p", "-t", "%0", "#{@a}") {
			t.Errorf("%q: control display-message = %q, exec gives %q", v, got, s.Tmux(t, "display-message", "-p", "-t", "%0", "#{@a}"))
		}
	}

	// Every byte but NUL, first, inside and last: set by control and by exec (each one
	// command line of 255 commands), compared in the server.
	var ctlArgs, execArgs []string
	var cmp strings.Builder
	for c := 1; c < 256; c++ {
		v := arg(string([]byte{byte(c)}) + "x" + string([]byte{byte(c)}))
		ctlArgs = append(ctlArgs, "set-option", "-p", "-t", "%0", fmt.Sprintf("@c%d", c), v, ";")
		execArgs = append(execArgs, "set-option", "-p", "-t", "%0", fmt.Sprintf("@d%d", c), v, ";")
		fmt.Fprintf(&cmp, "#{==:#{@c%d},#{@d%d}}", c, c)
	}
	// tmux 3.7 takes at most 1,000 arguments a command line: 50 commands (350) at a time.
	for i := 0; i < len(ctlArgs); i += 50 * 7 {
		run(t, k, ctlArgs[i:min(i+50*7, len(ctlArgs))]...)
		s.Tmux(t, execArgs[i:min(i+50*7, len(execArgs))]...)
	}
	if got := s.Tmux(t, "display-message", "-p", "-t", "%0", cmp.String()); got != strings.Repeat("1", 255)+"\n" {
		for c := 1; c < 256; c++ {
			if got[c-1] != '1' {
				t.Errorf("byte %#x: control and exec set different values", c)
			}
		}
	}

	// Keys: type each string literally into `cat > file`, one line each, and compare the file.
	file := filepath.Join(s.Dir, "keys")
	pane := strings.TrimSpace(s.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_id}", "cat > "+file))
	var want strings.Builder
	for _, v := range nasty {
		run(t, k, "send-keys", "-t", pane, "-l", "--", arg(v))
		run(t, k, "send-keys", "-t", pane, "Enter")
		want.WriteString(v + "\n")
	}
	var got []byte
	tmuxtest.WaitFor(t, 5*time.Second, "the typed lines in "+file, func() bool {
		got, _ = os.ReadFile(file)
		return len(got) >= want.Len()
	})
	if string(got) != want.String() {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
		for i := range wl {
			if i >= len(gl) || gl[i] != wl[i] {
				t.Errorf("line %d typed as %q, want %q", i+1, gl[min(i, len(gl)-1)], wl[i])
				break
			}
		}
	}

	// argv with the ";" rule: what exec does, control does.
	for _, args := range [][]string{
		{"display-message", "-p", "x;", "display-message", "-p", "y"},
		{"display-message", "-p", "x", ";", ";", "display-message", "-p", "y", ";"},
		{"display-message", "-p", `a\;`},
		{"display-message", "-p", `a\\;`},
		{"display-message", "-p", "", ";", "display-message", "-p", "--", "-t"},
	} {
		if got, want := run(t, k, args...), s.Tmux(t, args...); got != want {
			t.Errorf("%q: control = %q, exec = %q", args, got, want)
		}
	}
	for _, args := range [][]string{{}, {";"}, {"display-message", "-p", "a\x00b"}, {"A=b", "list-panes"}} {
		if out, err := k.Run(ctx, args...); err == nil {
			t.Errorf("%q: no error, output %q", args, out)
		}
	}
	if got := run(t, k, "display-message", "-p", "still here"); got != "still here\n" {
		t.Errorf("after refused commands: %q", got)
	}
}

func TestControlError(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	k := dial(t, s)
	ctx := context.Background()
	_, err := k.Run(ctx, "set-option", "-p", "-t", "%99", "@x", "1")
	var e *tmuxctl.Error
	if !errors.As(err, &e) || !errors.Is(err, tmuxctl.ErrNoTarget) || e.ExitCode != 1 || !strings.Contains(e.Stderr, "%99") {
		t.Fatalf("set-option on a missing pane: %#v, want *Error wrapping ErrNoTarget with tmux's text", err)
	}
	if len(e.Args) != 6 || e.Args[3] != "%99" {
		t.Errorf("Args = %q", e.Args)
	}
	_, xerr := s.Client.Run(ctx, "set-option", "-p", "-t", "%99", "@x", "1")
	if !errors.Is(xerr, tmuxctl.ErrNoTarget) || strings.TrimSpace(xerr.(*tmuxctl.Error).Stderr) != strings.TrimSpace(e.Stderr) {
		t.Errorf("exec error %v, control error %v", xerr, err)
	}
	if _, err := k.Run(ctx, "no-such-command"); !errors.As(err, &e) || !strings.Contains(e.Stderr, "unknown command") {
		t.Errorf("unknown command: %v", err)
	}
	// An error stops the rest of the line, as with exec; the next Run is in step.
	out, err := k.Run(ctx, "set-option", "-p", "-t", "%99", "@x", "1", ";", "display-message", "-p", "after")
	if !errors.Is(err, tmuxctl.ErrNoTarget) || out != "" {
		t.Errorf("error then command: %q, %v", out, err)
	}
	if got := run(t, k, "display-message", "-p", "next"); got != "next\n" {
		t.Errorf("after errors: %q", got)
	}
	if got := run(t, k, "display-message", "-p", "a", ";", "display-message", "-p", "b"); got != "a\nb\n" {
		t.Errorf("two commands: %q", got)
	}
	// A command that runs others: every block up to the sentinel is its output.
	if got := run(t, k, "if-shell", "-F", "1", "display-message -p yes ; display-message -p yes2"); got != "yes\nyes2\n" {
		t.Errorf("if-shell: %q", got)
	}
}

func TestControlFraming(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30, "cat")
	k := dial(t, s)
	for _, title := range []string{"%end 1 2 3", "%error", "%error 1 2 3", "%begin 1 2 3", "%exit", "%end"} {
		s.Tmux(t, "select-pane", "-t", "%0", "-T", title)
		if got := run(t, k, "display-message", "-p", "-t", "%0", "#{pane_title}"); got != title+"\n" {
			t.Errorf("title %q read as %q", title, got)
		}
		out := run(t, k, "list-panes", "-a", "-F", tmuxctl.PaneFormat(tmuxctl.Search{}))
		if ps, err := tmuxctl.ParsePanes(out); err != nil || len(ps) != 1 || ps[0].Title != title {
			t.Errorf("title %q listed as %+v, %v", title, ps, err)
		}
	}
	// Lines that look like guards, in an option value and on the screen.
	v := "x\n%end 1 2 3\n%error 1 2 3\n%begin 1 2 3\n%exit\ny"
	s.Tmux(t, "set-option", "-p", "-t", "%0", "@v", v)
	if got := run(t, k, "display-message", "-p", "-t", "%0", "#{@v}"); got != v+"\n" {
		t.Errorf("option %q read as %q", v, got)
	}
	s.Tmux(t, "send-keys", "-t", "%0", "-l", "%end 1 2 3")
	s.Tmux(t, "send-keys", "-t", "%0", "Enter")
	s.WaitScreen(t, "%0", "%end 1 2 3\n%end 1 2 3")
	if got, want := run(t, k, "capture-pane", "-p", "-t", "%0"), s.Tmux(t, "capture-pane", "-p", "-t", "%0"); got != want {
		t.Errorf("capture = %q, exec = %q", got, want)
	}
}

// TestControlForgedGuard forges the exact end line of the next block (the number is a
// server-wide counter, so a neighbourhood of the current one covers it): the reply must be
// an ErrFraming error, never silently cut, and the connection must stay in step.
func TestControlForgedGuard(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30, "cat")
	k := dial(t, s)
	num, when := currentNumber(t, s)
	// The TIME field is the server's clock in seconds when the Run's command runs: cover
	// every second up to the Run's own timeout from now, so a slow machine cannot outrun it.
	// One second's lines per set-option -a: tmux 3.3a refuses a command over 16 kB.
	for sec := when; sec <= when+int64(s.Client.Timeout/time.Second)+1; sec++ {
		var lines []string
		for n := num; n < num+120; n++ {
			lines = append(lines, fmt.Sprintf("%%end %d %d 1\n", sec, n))
		}
		s.Tmux(t, "set-option", "-p", "-a", "-t", "%0", "@forge", strings.Join(lines, ""))
	}
	out, err := k.Run(context.Background(), "display-message", "-p", "-t", "%0", "#{@forge}")
	if !errors.Is(err, tmuxctl.ErrFraming) {
		t.Fatalf("forged guard: got %d bytes, error %v; want ErrFraming", len(out), err)
	}
	if got := run(t, k, "display-message", "-p", "after"); got != "after\n" {
		t.Errorf("after a forged guard: %q", got)
	}
}

// currentNumber attaches a raw control client to learn the server's command counter and time.
func currentNumber(t *testing.T, s *tmuxtest.Server) (num, when int64) {
	t.Helper()
	cmd := exec.Command("tmux", "-u", "-N", "-S", s.Socket, "-C", "attach-session", "-f", "no-output,ignore-size")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 4 || f[0] != "%begin" {
		t.Fatalf("raw control client said %q, %v", line, err)
	}
	when, _ = strconv.ParseInt(f[1], 10, 64)
	num, _ = strconv.ParseInt(f[2], 10, 64)
	return num, when
}

func TestControlDropped(t *testing.T) {
	wait := func(t *testing.T, k *tmuxctl.ControlClient, what string) {
		t.Helper()
		select {
		case <-k.Done():
		case <-time.After(tmuxtest.Scale(5 * time.Second)):
			t.Fatalf("connection not over %s after %s", tmuxtest.Scale(5*time.Second), what)
		}
		if !errors.Is(k.Err(), tmuxctl.ErrClosed) {
			t.Errorf("Err() = %v, want ErrClosed", k.Err())
		}
		// ErrClosed, not a timeout: the Run did not wait for a reply.
		_, err := k.Run(context.Background(), "list-sessions")
		if !errors.Is(err, tmuxctl.ErrClosed) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run after %s: %v, want ErrClosed at once", what, err)
		}
	}
	t.Run("server killed", func(t *testing.T) {
		s := tmuxtest.Start(t, 100, 30)
		k := dial(t, s)
		if k.Err() != nil {
			t.Fatalf("Err() = %v on a live connection", k.Err())
		}
		s.Tmux(t, "kill-server")
		wait(t, k, "kill-server")
	})
	t.Run("session closed", func(t *testing.T) {
		s := tmuxtest.Start(t, 100, 30)
		k := dial(t, s)
		s.Tmux(t, "kill-session", "-t", "main")
		wait(t, k, "kill-session")
	})
	t.Run("detached", func(t *testing.T) {
		s := tmuxtest.Start(t, 100, 30)
		k := dial(t, s)
		s.Tmux(t, "detach-client", "-s", "main")
		wait(t, k, "detach-client")
	})
	t.Run("server killed during a Run", func(t *testing.T) {
		s := tmuxtest.Start(t, 100, 30)
		k := dial(t, s)
		// run-shell holds the reply until its shell is done, and the server dies first; the
		// Run ends on the drop (ErrClosed), not on its timeout.
		_, err := k.Run(context.Background(), "run-shell", "tmux -S "+s.Socket+" kill-server; while [ -d "+s.Dir+" ]; do sleep 0.05; done")
		if !errors.Is(err, tmuxctl.ErrClosed) || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run = %v, want ErrClosed", err)
		}
	})
	t.Run("Close", func(t *testing.T) {
		s := tmuxtest.Start(t, 100, 30)
		k := dial(t, s)
		if err := k.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		wait(t, k, "Close")
		k.Close()
		tmuxtest.WaitFor(t, 5*time.Second, "the control client to leave", func() bool {
			return strings.TrimSpace(s.Tmux(t, "list-clients")) == ""
		})
	})
}

func TestControlDialErrors(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	s.Tmux(t, "kill-session", "-t", "main") // exit-empty off: the server stays
	_, err := s.Client.Dial(context.Background())
	var e *tmuxctl.Error
	if !errors.Is(err, tmuxctl.ErrNoSession) || !errors.As(err, &e) || !strings.Contains(e.Stderr, "no sessions") {
		t.Errorf("Dial without sessions: %v, want ErrNoSession", err)
	}
	// A listing finds no current target either (a killed server's sessions end first).
	if _, err := s.Client.ListPanes(context.Background(), tmuxctl.Search{}); !errors.Is(err, tmuxctl.ErrNoSession) {
		t.Errorf("ListPanes without sessions: %v, want ErrNoSession", err)
	}

	dir := t.TempDir()
	c := &tmuxctl.Client{SocketPath: filepath.Join(dir, "none")}
	if _, err := c.Dial(context.Background()); !errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("Dial without server: %v, want ErrNoServer", err)
	}
	if _, err := os.Stat(c.SocketPath); err == nil {
		t.Errorf("Dial started a server on %s", c.SocketPath)
	}
}

func TestControlInsideTmux(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	t.Setenv("TMUX", s.Socket+",1,0") // as in a pane of this server
	k := dial(t, s)
	if got := run(t, k, "display-message", "-p", "ok"); got != "ok\n" {
		t.Errorf("got %q", got)
	}
}

func TestControlConcurrent(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	s.Tmux(t, "split-window", "-d", "-t", "main")
	k := dial(t, s)
	want, err := s.Client.ListPanes(context.Background(), tmuxctl.Search{})
	if err != nil || len(want) != 2 {
		t.Fatalf("ListPanes: %v, %v", want, err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*50)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if i%5 == 0 {
					got, err := k.Run(context.Background(), "list-panes", "-a", "-F", tmuxctl.PaneFormat(tmuxctl.Search{}))
					ps, perr := tmuxctl.ParsePanes(got)
					if err != nil || perr != nil || len(ps) != 2 || ps[0].ID != want[0].ID || ps[1].ID != want[1].ID {
						errs <- fmt.Errorf("list-panes: %q, %v, %v", got, err, perr)
					}
					continue
				}
				w := fmt.Sprintf("g%d-%d ;'\"", g, i)
				got, err := k.Run(context.Background(), "display-message", "-p", w)
				if err != nil || got != w+"\n" {
					errs <- fmt.Errorf("display-message %q: %q, %v", w, got, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// gated is a run-shell command that holds the control client's queue: it creates the file
// started, then waits until the file gate exists (or the server's directory is gone), then
// prints "late".
func gated(s *tmuxtest.Server) (cmd, started, gate string) {
	started, gate = filepath.Join(s.Dir, "started"), filepath.Join(s.Dir, "gate")
	cmd = fmt.Sprintf("touch %s; while [ ! -e %s ] && [ -d %s ]; do sleep 0.02; done; echo late", started, gate, s.Dir)
	return cmd, started, gate
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// manual gives s's Client a manual clock.
func manual(s *tmuxtest.Server) *clocktest.Manual {
	clk := clocktest.New(time.Unix(1_000_000, 0))
	s.Client.Clock = clk
	return clk
}

// result is what a Run gave, handed over from its goroutine.
type result struct {
	out string
	err error
}

func runAsync(k *tmuxctl.ControlClient, args ...string) <-chan result {
	c := make(chan result, 1)
	go func() {
		out, err := k.Run(context.Background(), args...)
		c <- result{out, err}
	}()
	return c
}

func receive(t *testing.T, c <-chan result, what string) result {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(tmuxtest.Scale(5 * time.Second)):
		t.Fatalf("no result of %s", what)
		return result{}
	}
}

func TestControlContext(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	clk := manual(s)
	k := dial(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.Run(ctx, "display-message", "-p", "x"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	// A command that holds the client's queue: the Run times out when the clock passes its
	// Timeout, and not before; the connection stays usable and the late reply is not taken
	// for the next command's.
	cmd, started, gate := gated(s)
	slow := runAsync(k, "run-shell", cmd)
	tmuxtest.WaitFor(t, 5*time.Second, "run-shell to start", func() bool { return exists(started) })
	clk.Add(s.Client.Timeout - time.Millisecond)
	select {
	case r := <-slow:
		t.Fatalf("Run returned %q, %v before its timeout", r.out, r.err)
	default:
	}
	clk.Add(time.Millisecond)
	if r := receive(t, slow, "the held command"); !errors.Is(r.err, context.DeadlineExceeded) {
		t.Errorf("held command after its timeout: %q, %v; want a deadline error", r.out, r.err)
	}
	next := runAsync(k, "display-message", "-p", "next")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := receive(t, next, "the command after a timeout"); r.out != "next\n" || r.err != nil {
		t.Errorf("after a timeout: %q, %v; want %q", r.out, r.err, "next\n")
	}
	if k.Err() != nil {
		t.Errorf("Err() = %v", k.Err())
	}
}

// TestControlStuck: when the reply of an abandoned Run does not come in the next Run's time
// either, the connection is given up and the command is reported as not sent.
func TestControlStuck(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	clk := manual(s)
	k := dial(t, s)
	cmd, started, _ := gated(s) // the gate never opens
	stuck := runAsync(k, "run-shell", cmd)
	tmuxtest.WaitFor(t, 5*time.Second, "run-shell to start", func() bool { return exists(started) })
	clk.Add(s.Client.Timeout)
	if r := receive(t, stuck, "the stuck command"); !errors.Is(r.err, context.DeadlineExceeded) {
		t.Errorf("stuck command: %v", r.err)
	}
	next := runAsync(k, "display-message", "-p", "x")
	tmuxtest.WaitFor(t, 5*time.Second, "the next Run's timer", func() bool { return clk.Timers() == 1 })
	clk.Add(s.Client.Timeout)
	if r := receive(t, next, "the Run after a stuck one"); !errors.Is(r.err, tmuxctl.ErrClosed) {
		t.Errorf("Run after a stuck one: %v, want ErrClosed", r.err)
	}
	select {
	case <-k.Done():
	case <-time.After(tmuxtest.Scale(5 * time.Second)):
		t.Fatal("connection still up")
	}
}

// TestControlHooks: hooks print blocks of their own (and, at attach, bare lines); they are
// not taken for a command's reply.
func TestControlHooks(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	s.Tmux(t, "set-hook", "-g", "client-attached", "display-message -p attached-hook")
	s.Tmux(t, "set-hook", "-g", "after-set-option", "display-message -p option-hook")
	s.Tmux(t, "set-hook", "-g", "after-display-message", "set-option -g @hooked 1")
	k := dial(t, s)
	for i := range 3 {
		if got := run(t, k, "set-option", "-g", "@x", strconv.Itoa(i)); got != "" {
			t.Errorf("set-option: %q", got)
		}
		if got := run(t, k, "display-message", "-p", "d"+strconv.Itoa(i)); got != "d"+strconv.Itoa(i)+"\n" {
			t.Errorf("display-message: %q", got)
		}
	}
}

func TestControlKeepsWindowSize(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	s.Tmux(t, "new-window", "-d", "-t", "main")
	k := dial(t, s)
	run(t, k, "list-panes", "-a")
	run(t, k, "select-window", "-t", "main:1")
	run(t, k, "display-message", "-p", "x")
	if got := s.Tmux(t, "list-windows", "-a", "-F", "#{window_width}x#{window_height}"); got != "100x30\n100x30\n" {
		t.Errorf("window sizes after Dial: %q, want 100x30", got)
	}
	// What tmux shows of the connection: a control-mode client that does not size windows.
	if got := s.Tmux(t, "list-clients", "-F", "#{client_control_mode} #{client_flags}"); !strings.HasPrefix(got, "1 ") ||
		!strings.Contains(got, "ignore-size") || !strings.Contains(got, "no-output") {
		t.Errorf("list-clients: %q", got)
	}
}

func TestConn(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	n := &tmuxctl.Transport{Client: s.Client, Redial: 10 * time.Millisecond}
	defer n.Close()
	ctx := context.Background()
	if got, err := n.Run(ctx, "display-message", "-p", "a"); got != "a\n" || err != nil || !n.Connected() {
		t.Fatalf("first Run: %q, %v, connected %v", got, err, n.Connected())
	}
	s.Tmux(t, "detach-client", "-s", "main")
	tmuxtest.WaitFor(t, 10*time.Second, "the drop", func() bool { return !n.Connected() })
	// Dropped: the next Run redials (or uses exec); either way it answers.
	if got, err := n.Run(ctx, "display-message", "-p", "b"); got != "b\n" || err != nil {
		t.Errorf("Run after a drop: %q, %v", got, err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "a redial", func() bool {
		n.Run(ctx, "display-message", "-p", "c")
		return n.Connected()
	})
	// No session: no connection, exec answers, with exec's errors.
	s.Tmux(t, "kill-session", "-t", "main")
	tmuxtest.WaitFor(t, 10*time.Second, "the drop", func() bool { return !n.Connected() })
	if _, err := n.Run(ctx, "set-option", "-p", "-t", "%0", "@x", "1"); !errors.Is(err, tmuxctl.ErrNoTarget) {
		t.Errorf("Run without sessions: %v, want exec's ErrNoTarget", err)
	}
	if got, err := n.Run(ctx, "display-message", "-p", "d"); got != "d\n" || err != nil || n.Connected() {
		t.Errorf("Run without sessions: %q, %v, connected %v", got, err, n.Connected())
	}
	if err := n.Close(); err != nil || n.Connected() {
		t.Errorf("Close: %v", err)
	}
}

// events records what a Transport tells its Log.
type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) log(event string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil {
		event += ": " + err.Error()
	}
	e.list = append(e.list, event)
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.list, " | ")
}

// TestConnLog: Transport tells its Log when the connection comes up, when tmux drops it and when a
// dial fails, and dials no sooner than Redial after the last dial (on the Client's clock).
func TestConnLog(t *testing.T) {
	s := tmuxtest.Start(t, 100, 30)
	c := *s.Client
	clk := clocktest.New(time.Unix(1_000_000, 0))
	c.Clock = clk
	var ev events
	n := &tmuxctl.Transport{Client: &c, Log: ev.log}
	defer n.Close()
	ctx := context.Background()
	answers := func(when string) {
		t.Helper()
		if got, err := n.Run(ctx, "display-message", "-p", "b"); got != "b\n" || err != nil {
			t.Fatalf("Run %s = %q, %v; want an answer (by exec if need be)", when, got, err)
		}
	}
	answers("first")
	if got, want := ev.String(), "up"; got != want {
		t.Errorf("events after the first Run = %q, want %q", got, want)
	}
	s.Tmux(t, "kill-session", "-t", "main") // exit-empty off: the server stays, sessionless
	tmuxtest.WaitFor(t, 5*time.Second, "the drop", func() bool { return !n.Connected() })
	answers("right after the drop")
	if got := ev.String(); !strings.HasPrefix(got, "up | down: "+tmuxctl.ErrClosed.Error()) || strings.Contains(got, "dial") {
		t.Errorf("events = %q, want up, then down, and no dial within Redial of the last", got)
	}
	clk.Add(tmuxctl.DefaultRedial)
	answers("a Redial after the last dial")
	got := ev.String()
	if strings.Count(got, "dial: ") != 1 || !strings.Contains(got, "no sessions") {
		t.Errorf("events = %q, want one failed dial with its reason (no sessions)", got)
	}
	if clk.Timers() != 0 {
		t.Errorf("%d timers left on the clock after the calls returned", clk.Timers())
	}
}

// fakeTmux writes a tmux stand-in that logs each call's arguments to a file in dir and fails
// as tmux 3.3a does without a server.
func fakeTmux(t *testing.T) (bin, calls string) {
	t.Helper()
	dir := t.TempDir()
	bin, calls = filepath.Join(dir, "tmux"), filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho \"$*\" >> " + calls + "\necho \"no server running on /nonexistent/s\" >&2\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, calls
}

// TestConnBackoff drives Transport's redial waits on a manual clock, against a tmux that never
// has a server: after a failed dial the next comes 1 s later, then the waits double up to
// 10 s and stay there; in between, each command runs by exec, and no dial happens even a
// millisecond early.
func TestConnBackoff(t *testing.T) {
	bin, calls := fakeTmux(t)
	clk := clocktest.New(time.Unix(1_000_000, 0))
	var ev events
	n := &tmuxctl.Transport{Client: &tmuxctl.Client{Bin: bin, Clock: clk}, Log: ev.log}
	defer n.Close()
	dials := func() int { return strings.Count(ev.String(), "dial: ") }
	run := func(wantDials int, when string) {
		t.Helper()
		if _, err := n.Run(context.Background(), "list-panes", "-a"); !errors.Is(err, tmuxctl.ErrNoServer) {
			t.Fatalf("Run %s: %v, want exec's ErrNoServer", when, err)
		}
		if got := dials(); got != wantDials {
			t.Fatalf("Run %s: %d dials, want %d: %s", when, got, wantDials, ev.String())
		}
		if clk.Timers() != 0 {
			t.Fatalf("Run %s: %d timers left on the clock", when, clk.Timers())
		}
	}
	run(1, "first")
	run(1, "again at once")
	for i, gap := range []time.Duration{1, 2, 4, 8, 10, 10, 10} {
		gap *= time.Second
		clk.Add(gap - time.Millisecond)
		run(i+1, fmt.Sprintf("%s after dial %d", gap-time.Millisecond, i+1))
		clk.Add(time.Millisecond)
		run(i+2, fmt.Sprintf("%s after dial %d", gap, i+1))
	}
	if !strings.Contains(ev.String(), "no server running") {
		t.Errorf("events = %q, want the dial's reason", ev.String())
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	// Each Run: one exec of list-panes, plus the dial when one was due.
	if got, want := strings.Count(string(b), "list-panes -a\n"), 2+2*7; got != want {
		t.Errorf("%d execs of list-panes, want %d:\n%s", got, want, b)
	}
	if got, want := strings.Count(string(b), "attach-session"), dials(); got != want {
		t.Errorf("%d control clients started, want %d (one per dial):\n%s", got, want, b)
	}
}

// TestConnRefuses: on a server where an attached client keeps the server (exit-unattached)
// or a session (destroy-unattached) alive, Transport does not stay attached: it closes the
// connection, says why once and uses exec from then on.
func TestConnRefuses(t *testing.T) {
	for _, tc := range []struct{ set, want string }{
		{"set-option -g exit-unattached on", "exit-unattached is on"},
		{"set-option -t main destroy-unattached on", "destroy-unattached is on ("},
		// Choices since tmux 3.4 (off reads "off", not "0").
		{"set-option -t main destroy-unattached keep-last", "destroy-unattached is on (keep-last) for session main"},
		{"set-option -t main destroy-unattached keep-group", "destroy-unattached is on (keep-group) for session main"},
	} {
		t.Run(tc.set, func(t *testing.T) {
			s := tmuxtest.Start(t, 100, 30)
			// Another client stays attached, or tmux would end the server or session at once.
			keep := dial(t, s)
			if _, err := keep.Run(context.Background(), strings.Fields(tc.set)...); err != nil {
				if strings.Contains(tc.set, "keep-") && strings.Contains(err.Error(), "bad value") {
					t.Skipf("this tmux has no %s (before 3.4): %v", tc.set, err)
				}
				t.Fatal(err)
			}
			var ev events
			c := *s.Client
			clk := clocktest.New(time.Unix(1_000_000, 0))
			c.Clock = clk
			n := &tmuxctl.Transport{Client: &c, Log: ev.log}
			defer n.Close()
			for range 3 {
				if got, err := n.Run(context.Background(), "display-message", "-p", "a"); got != "a\n" || err != nil {
					t.Fatalf("Run = %q, %v; want exec's answer", got, err)
				}
				clk.Add(time.Hour) // long past any redial wait
			}
			if got := ev.String(); !strings.HasPrefix(got, "refused: ") || !strings.Contains(got, tc.want) || strings.Count(got, "|") != 0 {
				t.Errorf("events = %q, want one refusal naming %q", got, tc.want)
			}
			if got := s.Tmux(t, "list-clients", "-F", "#{client_pid}"); strings.Count(got, "\n") != 1 {
				t.Errorf("clients = %q, want only the other one", got)
			}
		})
	}
}

// benchServer is a server with 50 panes running cat.
func benchServer(b *testing.B) *tmuxtest.Server {
	s := tmuxtest.Start(b, 200, 50, "cat")
	for range 49 {
		s.Tmux(b, "new-window", "-d", "-t", "main", "cat")
	}
	return s
}

// cpu is the CPU time used so far by this process and its waited-for children, and by the
// processes pids (read from /proc: the tmux server, a control client), in nanoseconds.
func cpu(b *testing.B, pids ...int) (self, others time.Duration) {
	var ru, ch syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ch)
	self = time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime) +
		syscall.TimevalToNsec(ch.Utime) + syscall.TimevalToNsec(ch.Stime))
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			b.Fatalf("no /proc: %v", err)
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		ut, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14, in clock ticks (USER_HZ 100)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		others += time.Duration(ut+st) * 10 * time.Millisecond
	}
	return self, others
}

func pid(b *testing.B, s *tmuxtest.Server, args ...string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s.Tmux(b, args...)))
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// benchCPU runs op in the benchmark loop and reports the CPU per op of the client side (this
// process, its waited-for children and the control client clientPID when not 0) and of the
// tmux server.
func benchCPU(b *testing.B, s *tmuxtest.Server, clientPID int, op func(ctx context.Context)) {
	server := pid(b, s, "display-message", "-p", "#{pid}")
	pids := []int{server}
	if clientPID != 0 {
		pids = append(pids, clientPID)
	}
	ctx := context.Background()
	self0, others0 := cpu(b, pids...)
	_, server0 := cpu(b, server)
	for b.Loop() {
		op(ctx)
	}
	self1, others1 := cpu(b, pids...)
	_, server1 := cpu(b, server)
	n := float64(b.N)
	b.ReportMetric(float64(self1-self0+(others1-others0)-(server1-server0))/n, "client-cpu-ns/op")
	b.ReportMetric(float64(server1-server0)/n, "server-cpu-ns/op")
}

// benchList measures ListPanes' listing of benchServer's 50 panes.
func benchList(b *testing.B, s *tmuxtest.Server, runner func(context.Context, ...string) (string, error), clientPID int) {
	args := []string{"list-panes", "-a", "-F", tmuxctl.PaneFormat(tmuxctl.Search{})}
	benchCPU(b, s, clientPID, func(ctx context.Context) {
		out, err := runner(ctx, args...)
		if err != nil || strings.Count(out, "\n") != 50 {
			b.Fatalf("list-panes: %d rows, %v", strings.Count(out, "\n"), err)
		}
	})
}

func BenchmarkControlListPanes(b *testing.B) {
	s := benchServer(b)
	k := dial(b, s)
	client := pid(b, s, "list-clients", "-F", "#{client_pid}")
	benchList(b, s, k.Run, client)
}

func BenchmarkExecListPanes(b *testing.B) {
	s := benchServer(b)
	benchList(b, s, s.Client.Run, 0)
}

// benchSet measures a cheap command (set-option on a pane): the per-command overhead of each
// transport, the control connection's sync line included.
func benchSet(b *testing.B, s *tmuxtest.Server, runner func(context.Context, ...string) (string, error), clientPID int) {
	benchCPU(b, s, clientPID, func(ctx context.Context) {
		if _, err := runner(ctx, "set-option", "-p", "-t", "%0", "@cac_state", "waiting"); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkControlSetOption(b *testing.B) {
	s := tmuxtest.Start(b, 100, 30, "cat")
	k := dial(b, s)
	benchSet(b, s, k.Run, pid(b, s, "list-clients", "-F", "#{client_pid}"))
}

func BenchmarkExecSetOption(b *testing.B) {
	s := tmuxtest.Start(b, 100, 30, "cat")
	benchSet(b, s, s.Client.Run, 0)
}

// controlsAsQuestionMarks is s as a free-text field reads back: each control character
// (0x01–0x1f) as "?", every other byte as it is.
func controlsAsQuestionMarks(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 0x01 && c <= 0x1f {
			b[i] = '?'
		}
	}
	return string(b)
}

// TestControlDiesWithProcess: the tmux client of a process killed with a command in flight
// leaves the server. tmux (3.2a to next-3.8 alike) ends a control client whose stdin closed
// only once its pending output is written, and output to a reader that is gone is never
// written: without the kernel ending the client with its parent, a watcher killed by
// SIGKILL left a control client on the server until the server exited.
func TestControlDiesWithProcess(t *testing.T) {
	if socket := os.Getenv("CAC_TMUXCTL_DIE"); socket != "" {
		k, err := (&tmuxctl.Client{SocketPath: socket}).Dial(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("dialed")
		for range 50 {
			k.Send("list-keys")
		}
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "freebsd" {
		t.Skip("no Pdeathsig on " + runtime.GOOS + ": the client stays, as docs/how-it-works.md says")
	}
	s := tmuxtest.Start(t, 100, 30)
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestControlDiesWithProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "CAC_TMUXCTL_DIE="+s.Socket)
		out, _ := cmd.Output()
		if !strings.Contains(string(out), "dialed") || cmd.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("the helper process did not dial and die: %s %q", cmd.ProcessState, out)
		}
		tmuxtest.WaitFor(t, 10*time.Second, "the dead process's control client to leave", func() bool {
			return s.Tmux(t, "list-clients", "-F", "#{client_control_mode}") == ""
		})
	}
}
