package tmuxctl_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// eachTransport runs a test of the tmuxctl API twice: with every command its own tmux process,
// and over a control-mode connection (Client.Connect).
func eachTransport(t *testing.T, test func(t *testing.T, control bool)) {
	t.Run("exec", func(t *testing.T) { test(t, false) })
	t.Run("control", func(t *testing.T) { test(t, true) })
}

// start starts a private server (tmuxtest.Start) whose Client uses a control connection when
// control is set.
func start(t *testing.T, control bool, width, height int, command ...string) *tmuxtest.Server {
	t.Helper()
	s := tmuxtest.Start(t, width, height, command...)
	if control {
		s.Connect(t)
	}
	return s
}

func row(fields ...string) string { return strings.Join(fields, "\x1f") }

// opts are the nine @cac_* option fields of a listing row, its @cac_request, @cac_ignore and
// @cac_message, unset.
var opts = []string{"", "", "", "", "", "", "", "", "", "", "", ""}

// plainRow is a listing row of pane id with the given pid, session and title.
func plainRow(id, pid, window, session, title string) string {
	f := append([]string{id, pid, "@1", window, "0", "80", "24", "0", "0", "0", "0", "0", "0", "0", session, "bash"}, opts...)
	return row(append(f, "", title, id)...)
}

func TestParsePanes(t *testing.T) {
	base := []string{"%3", "4242", "@1", "0", "1", "120", "40", "0", "1", "0", "1", "1", "1795219800", "2", "main", "claude",
		"waiting", "2026-11-20T19:30:00+02:00", "2026-11-20T19:31:00+02:00", "session", "Asia/Nicosia", "a note", "transcript", "/home/u/.claude", "codex", "resume 42", "on", "go on", "4242:/run/x.pipe"}
	for _, tc := range []struct {
		name  string
		title string
	}{
		{"plain", "✳ Claude Code"},
		{"dash-colon-dash", "a-:-b -:- c"},
		{"tabs", "x\ty\tz"},
		{"empty", ""},
		{"braille spinner", "⠂ Claude Code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := row(append(base, tc.title, "%3")...) + "\n"
			got, err := tmuxctl.ParsePanes(out)
			if err != nil {
				t.Fatalf("ParsePanes(%q) error: %v", out, err)
			}
			want := []tmuxctl.Pane{{ID: "%3", PID: 4242, WindowID: "@1", WindowIndex: 0, PaneIndex: 1, Width: 120, Height: 40,
				InMode: true, Synced: true, WindowActivity: time.Unix(1795219800, 0), Match: 2,
				Session: "main", Command: "claude", Title: tc.title, Request: "resume 42", Ignore: "on", Message: "go on",
				Pipe: true, PipeMark: "/run/x.pipe", PipePID: 4242,
				Options: tmuxctl.Options{State: "waiting", Reset: "2026-11-20T19:30:00+02:00", Due: "2026-11-20T19:31:00+02:00",
					Kind: "session", Zone: "Asia/Nicosia", Note: "a note", Source: "transcript", Account: "/home/u/.claude", Agent: "codex"}}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ParsePanes(%q) = %+v, want %+v", out, got, want)
			}
		})
	}
}

func TestParsePanesExtraFieldIsAnError(t *testing.T) {
	// Free text cannot hold a separator (freeText makes it "?"): a row with one more field
	// than the format is not read at all.
	out := plainRow("%1", "1", "0", "s", "a\x1fb") + "\n"
	if got, err := tmuxctl.ParsePanes(out); err == nil {
		t.Errorf("ParsePanes(%q) = %+v, want an error", out, got)
	}
}

func TestParsePanesDedupesLinkedWindows(t *testing.T) {
	a := plainRow("%1", "1", "0", "one", "t")
	b := plainRow("%1", "1", "3", "two", "t")
	got, err := tmuxctl.ParsePanes(a + "\n" + b + "\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Session != "one" {
		t.Errorf("ParsePanes(two rows of %%1) = %+v, want the first row only", got)
	}
}

func TestParsePanesErrors(t *testing.T) {
	for _, out := range []string{
		row("%1", "1", "@1") + "\n",
		plainRow("%1", "x", "0", "s", "t") + "\n",
		plainRow("1", "1", "0", "s", "t") + "\n",
	} {
		if got, err := tmuxctl.ParsePanes(out); err == nil {
			t.Errorf("ParsePanes(%q) = %+v, want an error", out, got)
		}
	}
}

func TestArgv(t *testing.T) {
	for _, tc := range []struct {
		c    tmuxctl.Client
		want []string
	}{
		{tmuxctl.Client{}, []string{"tmux", "-u", "ls"}},
		{tmuxctl.Client{SocketName: "work"}, []string{"tmux", "-u", "-L", "work", "ls"}},
		{tmuxctl.Client{SocketPath: "/tmp/x/s", SocketName: "work", Bin: "/usr/bin/tmux"}, []string{"/usr/bin/tmux", "-u", "-S", "/tmp/x/s", "ls"}},
	} {
		if got := tc.c.Argv("ls"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v.Argv(ls) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestRealServer drives a private tmux server: odd session names and titles never break a
// listing, the pre-filter finds limit text, literal text and keys arrive as sent, pane options
// round-trip, and errors are told apart.
func TestRealServer(t *testing.T) { eachTransport(t, testRealServer) }

func testRealServer(t *testing.T, control bool) {
	s := start(t, control, 100, 30)
	ctx := context.Background()
	c := s.Client

	// A second session with a name tmux rewrites, and a window linked into both sessions.
	// (tmux 3.7 keeps the name as given): the link goes by its session ID.
	odd := strings.TrimSpace(s.Tmux(t, "new-session", "-d", "-P", "-F", "#{session_id}", "-s", "odd.name:x y", "-x", "100", "-y", "30"))
	s.Tmux(t, "link-window", "-s", "main:0", "-t", odd+":5")

	// A title with -:- and control characters, and limit text on screen.
	s.Tmux(t, "send-keys", "-t", "main:0.0", "-l", "--", `printf '\033]2;ti-:-tle\tX\001Y\033\\'; printf 'You\047ve hit your limit \302\267 resets 4pm\n'`)
	s.Tmux(t, "send-keys", "-t", "main:0.0", "Enter")
	s.WaitScreen(t, "main:0.0", "resets 4pm\n")

	var panes []tmuxctl.Pane
	tmuxtest.WaitFor(t, 5*time.Second, "the title to be set", func() bool {
		var err error
		panes, err = c.ListPanes(ctx, tmuxctl.Search{Pattern: `hit your .*limit|limit reached`})
		if err != nil {
			t.Fatal(err)
		}
		return len(panes) > 0 && strings.Contains(panes[0].Title, "-:-")
	})
	if len(panes) != 2 {
		t.Fatalf("ListPanes = %d panes, want 2 (the linked window deduplicated): %+v", len(panes), panes)
	}
	byID := map[string]tmuxctl.Pane{}
	for _, p := range panes {
		byID[p.ID] = p
	}
	main := panes[0]
	if main.Session != "main" || main.Match == 0 || main.PID == 0 || main.Width != 100 || main.Height != 30 {
		t.Errorf("ListPanes()[0] = %+v, want session main, a pre-filter match, a pid, 100x30", main)
	}
	if main.Title != "ti-:-tleXY" {
		t.Errorf("ListPanes()[0].Title = %q, want %q (tmux strips control characters)", main.Title, "ti-:-tleXY")
	}
	if main.WindowActivity.IsZero() || time.Since(main.WindowActivity) > time.Minute {
		t.Errorf("ListPanes()[0].WindowActivity = %v, want about now", main.WindowActivity)
	}
	other := panes[1]
	if other.Session != "odd_name_x y" && other.Session != "odd.name:x y" || other.Match != 0 {
		t.Errorf("ListPanes()[1] = %+v, want session %q (%q since tmux 3.7) and no pre-filter match", other, "odd_name_x y", "odd.name:x y")
	}

	// Literal text that starts with "-" and contains key names arrives as typed.
	if err := c.SendLiteral(ctx, other.ID, "-n Enter C-c continue"); err != nil {
		t.Fatal(err)
	}
	s.WaitScreen(t, other.ID, "-n Enter C-c continue")

	// Pane options round-trip.
	if err := c.SetPaneOption(ctx, main.ID, "@cac_state", "waiting"); err != nil {
		t.Fatal(err)
	}
	if got, err := c.PaneOption(ctx, main.ID, "@cac_state"); err != nil || got != "waiting" {
		t.Errorf("PaneOption(@cac_state) = %q, %v; want %q", got, err, "waiting")
	}
	panes, err := c.ListPanes(ctx, tmuxctl.Search{})
	if err != nil {
		t.Fatal(err)
	}
	if panes[0].Options.State != "waiting" || panes[0].Match != -1 {
		t.Errorf("ListPanes(no search)[0] = %+v, want State waiting and Match -1", panes[0])
	}

	// Several options in one call, read back through the listing and PaneInfo; "" unsets.
	o := tmuxctl.Options{State: "held", Reset: "2026-11-20T19:30:00+02:00", Kind: "session", Zone: "Asia/Nicosia", Note: "draft in the input box; it stays"}
	if err := c.SetPaneOptions(ctx, main.ID, tmuxctl.OptionNames, o.Values()); err != nil {
		t.Fatal(err)
	}
	info, err := c.PaneInfo(ctx, main.ID)
	if err != nil || info.Options != o || info.ID != main.ID || info.Title != main.Title {
		t.Errorf("PaneInfo(%s) = %+v, %v; want options %+v", main.ID, info, err, o)
	}
	if err := c.SetPaneOptions(ctx, main.ID, tmuxctl.OptionNames, tmuxctl.Options{State: "waiting"}.Values()); err != nil {
		t.Fatal(err)
	}
	if info, err := c.PaneInfo(ctx, main.ID); err != nil || info.Options != (tmuxctl.Options{State: "waiting"}) {
		t.Errorf("PaneInfo(%s).Options after unsetting all but state = %+v, %v", main.ID, info.Options, err)
	}
	// set-option says "no such pane" where other commands say "can't find pane" (tmux 3.3a).
	if err := c.SetPaneOptions(ctx, "%999", tmuxctl.OptionNames, tmuxctl.Options{State: "held"}.Values()); !errors.Is(err, tmuxctl.ErrNoTarget) {
		t.Errorf("SetPaneOptions(%%999) error = %v, want ErrNoTarget", err)
	}
	if _, err := c.PaneInfo(ctx, "%999"); !errors.Is(err, tmuxctl.ErrNoTarget) {
		t.Errorf("PaneInfo(%%999) error = %v, want ErrNoTarget", err)
	}

	// The search limited to some commands leaves the other panes unsearched (-1).
	panes, err = c.ListPanes(ctx, tmuxctl.Search{Pattern: "resets 4pm", Commands: "^(nothing-runs-this)$"})
	if err != nil || panes[0].Match != -1 {
		t.Errorf("ListPanes(search limited to another command) = %+v, %v; want Match -1", panes, err)
	}
	// The other pane's login shell runs its profile (Debian root's calls mesg) before it is
	// the pane's command: wait for it. tmux reads pane_current_command afresh at each use in
	// the format, so a listing made as the profile's last command exits can filter on it and
	// report sh (seen once in CI): wait until the filter also searched both.
	tmuxtest.WaitFor(t, 10*time.Second, "sh in both panes", func() bool {
		panes, err = c.ListPanes(ctx, tmuxctl.Search{Pattern: "resets 4pm", Commands: "^(sh|bash)$"})
		return err == nil && len(panes) == 2 && panes[0].Command == "sh" && panes[1].Command == "sh" &&
			panes[0].Match != -1 && panes[1].Match != -1
	})
	if err != nil || panes[0].Match < 1 || panes[1].Match != 0 {
		t.Errorf("ListPanes(search limited to sh) = %+v, %v; want a match in %s, none in %s", panes, err, main.ID, other.ID)
	}
	// Limited to windows with activity since an instant: before the last activity the search
	// runs; after it, the panes are reported quiet.
	act := panes[0].WindowActivity
	for _, tc := range []struct {
		since time.Time
		quiet bool
	}{{act, false}, {act.Add(-time.Hour), false}, {act.Add(time.Second), true}} {
		got, err := c.ListPanes(ctx, tmuxctl.Search{Pattern: "resets 4pm", Commands: "^(sh|bash)$", Since: tc.since})
		if err != nil || (got[0].Match == tmuxctl.Quiet) != tc.quiet || !tc.quiet && got[0].Match != panes[0].Match {
			t.Errorf("ListPanes(since %s, last activity %s)[0].Match = %d, %v; want quiet %v", tc.since, act, got[0].Match, err, tc.quiet)
		}
	}

	// Global user options.
	if err := c.SetGlobalOption(ctx, "@cac_watcher", "123"); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GlobalOption(ctx, "@cac_watcher"); err != nil || got != "123" {
		t.Errorf("GlobalOption(@cac_watcher) = %q, %v; want 123", got, err)
	}
	if err := c.SetGlobalOption(ctx, "@cac_watcher", ""); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GlobalOption(ctx, "@cac_watcher"); err != nil || got != "" {
		t.Errorf("GlobalOption(@cac_watcher) after unset = %q, %v; want empty", got, err)
	}

	// No attached client: an empty list, not an error.
	if cs, err := c.Clients(ctx); err != nil || len(cs) != 0 {
		t.Errorf("Clients() = %+v, %v; want none", cs, err)
	}

	// A pane that does not exist.
	_, err = c.Capture(ctx, "%999")
	var te *tmuxctl.Error
	if !errors.Is(err, tmuxctl.ErrNoTarget) || !errors.As(err, &te) || !strings.Contains(te.Stderr, "can't find pane") {
		t.Errorf("Capture(%%999) error = %v, want ErrNoTarget with tmux's stderr", err)
	}
}

func TestNoServer(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "cxn")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	c := &tmuxctl.Client{SocketPath: filepath.Join(dir, "s")}
	_, err = c.ListPanes(context.Background(), tmuxctl.Search{})
	if !errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("ListPanes on an empty socket dir: error = %v, want ErrNoServer", err)
	}
	if errors.Is(err, tmuxctl.ErrNoTarget) {
		t.Errorf("ListPanes on an empty socket dir: error %v is also ErrNoTarget", err)
	}
}

// TestTimeout: a tmux that does not answer is killed after the Client's Timeout, on the
// real clock and on an injected one (where nothing times out until the clock moves).
func TestTimeout(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "slow-tmux")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("real clock", func(t *testing.T) {
		c := &tmuxctl.Client{Bin: bin, Timeout: 50 * time.Millisecond}
		_, err := c.Run(context.Background(), "ls")
		if err == nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run(sleep 60) with a 50ms timeout: error = %v, want a deadline error", err)
		}
	})
	t.Run("manual clock", func(t *testing.T) {
		clk := clocktest.New(time.Unix(1_000_000, 0))
		c := &tmuxctl.Client{Bin: bin, Timeout: time.Minute, Clock: clk}
		done := make(chan error, 1)
		go func() {
			_, err := c.Run(context.Background(), "ls")
			done <- err
		}()
		tmuxtest.WaitFor(t, 5*time.Second, "the call's timer", func() bool { return clk.Timers() == 1 })
		clk.Add(time.Minute - time.Millisecond)
		select {
		case err := <-done:
			t.Fatalf("Run returned %v before its timeout on the clock", err)
		default:
		}
		clk.Add(time.Millisecond)
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 1m0s") {
				t.Errorf("Run(sleep 60) after the clock passed its 1m timeout: error = %v, want a deadline error", err)
			}
		case <-time.After(tmuxtest.Scale(5 * time.Second)):
			t.Fatal("Run did not return after the clock passed its timeout")
		}
	})
}

// TestErrorText: an error names the tmux command and its target and says what tmux said,
// without the long -F format, which stays on the error (Args) for debug logs.
func TestErrorText(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "cxe")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "s")
	_, err = (&tmuxctl.Client{SocketPath: sock}).ListPanes(context.Background(), tmuxctl.Search{Pattern: "limit"})
	var e *tmuxctl.Error
	if !errors.As(err, &e) || !errors.Is(err, tmuxctl.ErrNoServer) {
		t.Fatalf("ListPanes without a server: %v, want an *Error wrapping ErrNoServer", err)
	}
	format := tmuxctl.PaneFormat(tmuxctl.Search{Pattern: "limit"})
	// tmux 3.3a, with no socket file: "error connecting to SOCKET (No such file or directory)".
	if want := "tmuxctl: list-panes -a: error connecting to " + sock + " ("; !strings.HasPrefix(err.Error(), want) ||
		strings.Contains(err.Error(), "#{") {
		t.Errorf("Error() = %q, want it to start %q and hold no format", err.Error(), want)
	}
	if len(e.Args) != 4 || e.Args[3] != format {
		t.Errorf("Args = %q; want the whole argv with the format", e.Args)
	}
	for _, tc := range []struct {
		e    tmuxctl.Error
		want string
	}{
		{tmuxctl.Error{Args: []string{"capture-pane", "-p", "-J", "-t", "%9"}, Stderr: "can't find pane: %9\n"},
			"tmuxctl: capture-pane -t %9: can't find pane: %9"},
		{tmuxctl.Error{Args: []string{"set-option", "-p", "-t", "%3", "@a", "x", ";", "set-option", "-p", "-u", "-t", "%3", "@b"},
			Stderr: "no such pane: %3"}, "tmuxctl: set-option -t %3 (and 1 more): no such pane: %3"},
		{tmuxctl.Error{Args: []string{"send-keys", "-t", "%1", "-l", "--", "-t x"}, Err: errors.New("exit status 1")},
			"tmuxctl: send-keys -t %1: exit status 1"},
		{tmuxctl.Error{Args: []string{"-N", "-C", "attach-session", "-f", "no-output,ignore-size"}, Stderr: "no sessions\n"},
			"tmuxctl: attach-session: no sessions"},
		{tmuxctl.Error{Args: []string{"-f", "/x/conf", "new-session", "-d", "-s", "odd name"}, Stderr: "a\nb"},
			`tmuxctl: new-session -s "odd name": a; b`},
		{tmuxctl.Error{Args: []string{"display-popup", "-c", "/dev/pts/3", "-E", "x;"}, Err: tmuxctl.ErrNoClient},
			"tmuxctl: display-popup -c /dev/pts/3: " + tmuxctl.ErrNoClient.Error()},
		{tmuxctl.Error{}, "tmuxctl: tmux: "},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%q.Error() = %q, want %q", tc.e.Args, got, tc.want)
		}
	}
}

// TestSocketFile checks the worked-out socket path against the one the server reports.
func TestSocketFile(t *testing.T) {
	s := tmuxtest.Start(t, 80, 24)
	c := &tmuxctl.Client{SocketPath: s.Socket}
	got, err := c.SocketFileHere()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "#{socket_path}")); got != want {
		t.Errorf("SocketFile(-S) = %q, want %q", got, want)
	}

	// -L: a server in $TMUX_TMPDIR (private to this test process, see tmuxtest.Isolate).
	named := &tmuxctl.Client{SocketName: "cxsock", Timeout: tmuxtest.Scale(tmuxctl.DefaultTimeout)}
	if _, err := named.Run(context.Background(), "-f", "/dev/null", "new-session", "-d", "-x", "20", "-y", "5", "cat"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { named.Run(context.Background(), "kill-server") })
	out, err := named.Run(context.Background(), "display-message", "-p", "#{socket_path}")
	if err != nil {
		t.Fatal(err)
	}
	got, err = named.SocketFileHere()
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(out); got != want {
		t.Errorf("SocketFile(-L cxsock) = %q, want %q", got, want)
	}

	for _, tc := range []struct {
		c    tmuxctl.Client
		env  map[string]string
		want string
	}{
		{tmuxctl.Client{}, map[string]string{"TMUX": "/run/x/tmux-7/work,123,0"}, "/run/x/tmux-7/work"},
		{tmuxctl.Client{SocketName: "a"}, map[string]string{"TMUX": "/run/x/tmux-7/work,123,0", "TMUX_TMPDIR": "/nonexistent/t"}, "/nonexistent/t/tmux-7/a"},
		{tmuxctl.Client{}, map[string]string{"TMUX_TMPDIR": "/nonexistent/t"}, "/nonexistent/t/tmux-7/default"},
		{tmuxctl.Client{SocketPath: "/x/y/s", SocketName: "a"}, nil, "/x/y/s"},
	} {
		got, err := tc.c.SocketFile(func(k string) string { return tc.env[k] }, 7)
		if err != nil || got != tc.want {
			t.Errorf("SocketFile(%+v, %v) = %q, %v, want %q", tc.c, tc.env, got, err, tc.want)
		}
	}
}

// TestCLocale: a watcher started without a UTF-8 locale (systemd, cron) still reads the
// listing; tmux 3.3a would otherwise print the field separator and non-ASCII as "_".
func TestCLocale(t *testing.T) {
	t.Setenv("LC_ALL", "C")
	t.Setenv("LANG", "C")
	eachTransport(t, testCLocale)
}

func testCLocale(t *testing.T, control bool) {
	s := start(t, control, 80, 24)
	s.Tmux(t, "rename-session", "-t", "main", "café ✳")
	s.Tmux(t, "select-pane", "-t", "café ✳:0.0", "-T", "✳ Claude Code")
	panes, err := s.Client.ListPanes(context.Background(), tmuxctl.Search{Pattern: "x"})
	if err != nil || len(panes) != 1 || panes[0].Session != "café ✳" || panes[0].Title != "✳ Claude Code" {
		t.Errorf("ListPanes() under LC_ALL=C = %+v, %v; want one pane of session %q titled %q", panes, err, "café ✳", "✳ Claude Code")
	}
}

// TestTrailingSemicolon: text and option values that end in ";" arrive whole (tmux reads a
// final ";" of an argument as a command separator).
func TestTrailingSemicolon(t *testing.T) { eachTransport(t, testTrailingSemicolon) }

func testTrailingSemicolon(t *testing.T, control bool) {
	s := start(t, control, 80, 24, "cat")
	ctx := context.Background()
	pane := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", "main:0.0", "#{pane_id}"))
	// Each line shows twice, the terminal's echo and cat's copy; the next is typed only once
	// both show, or the echo of the next could come before cat's copy of this one.
	var screen string
	for _, text := range []string{"go on;", `a\;`, ";"} {
		if err := s.Client.SendLiteral(ctx, pane, text); err != nil {
			t.Fatal(err)
		}
		if err := s.Client.SendKey(ctx, pane, "Enter"); err != nil {
			t.Fatal(err)
		}
		screen += text + "\n" + text + "\n"
		s.WaitScreen(t, pane, screen)
	}
	o := tmuxctl.Options{State: "held", Note: "see notes;"}
	if err := s.Client.SetPaneOptions(ctx, pane, tmuxctl.OptionNames, o.Values()); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Client.PaneOption(ctx, pane, "@cac_note"); got != "see notes;" || err != nil {
		t.Errorf("@cac_note = %q, %v; want %q", got, err, "see notes;")
	}
	if err := s.Client.SetGlobalOption(ctx, "@cac_x", "v;"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Client.GlobalOption(ctx, "@cac_x"); got != "v;" {
		t.Errorf("@cac_x = %q, want %q", got, "v;")
	}
}

// TestCaptureTabs: a tab a program writes reads as the spaces it moved over, on every tmux
// (3.6 and later print the tab itself), by Capture and by Captures, wide characters counted
// as two columns.
func TestCaptureTabs(t *testing.T) { eachTransport(t, testCaptureTabs) }

func testCaptureTabs(t *testing.T, control bool) {
	s := start(t, control, 80, 10, "sh", "-c", `printf 'a\tb\n日本\tc\n\tx\ty\n12345678\tz\nend\n'; exec cat`)
	s.WaitScreen(t, "%0", "end")
	want := "a       b\n日本    c\n        x       y\n12345678        z\nend\n"
	got, err := s.Client.Capture(context.Background(), "%0")
	if err != nil || !strings.HasPrefix(tmuxtest.TrimLines(got), want) {
		t.Errorf("Capture = %q, %v; want it to start with %q", got, err, want)
	}
	screens, err := s.Client.Captures(context.Background(), shots([]string{"%0", "%0"}))
	if err != nil || len(screens) != 2 || !strings.HasPrefix(tmuxtest.TrimLines(screens[0].Text), want) || screens[1].Text != screens[0].Text {
		t.Errorf("Captures = %+v, %v; want two screens starting with %q", screens, err, want)
	}
}

// TestFindPane: a pane is found exactly by its id or session:window.pane, the window by its
// index or its whole name, under each session its window is linked into; a window of one pane
// by session:window; anything that does not exist, a name several windows share, or a target
// named otherwise is an error, never the current pane.
func TestFindPane(t *testing.T) {
	s := tmuxtest.Start(t, 80, 24)
	ctx := context.Background()
	s.Tmux(t, "split-window", "-d", "-t", "main:0")
	s.Tmux(t, "new-window", "-d", "-t", "main:3", "-n", "draft")
	s.Tmux(t, "new-window", "-d", "-t", "main:10", "-n", "dup")
	s.Tmux(t, "new-window", "-d", "-t", "main:11", "-n", "dup")
	s.Tmux(t, "rename-window", "-t", "main:0", "two panes")
	s.NewSession(t, "work", 80, 24)
	s.Tmux(t, "link-window", "-d", "-s", "main:3", "-t", "work:7")
	id := func(target string) string {
		return strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", target, "#{pane_id}"))
	}
	for target, want := range map[string]string{
		"main:0.0": id("main:0.0"), "main:0.1": id("main:0.1"), "main:3.0": id("main:3.0"), "main:3": id("main:3.0"),
		"work:7.0": id("main:3.0"), "work:7": id("main:3.0"), "work:0": id("work:0.0"), id("main:0.1"): id("main:0.1"),
		"main:draft": id("main:3.0"), "main:draft.0": id("main:3.0"), "work:draft": id("main:3.0"), "main:two panes.1": id("main:0.1"),
	} {
		if p, err := s.Client.FindPane(ctx, target); err != nil || p.ID != want {
			t.Errorf("FindPane(%q) = %s, %v; want %s", target, p.ID, err, want)
		}
	}
	for target, want := range map[string]error{
		"main:9.9": tmuxctl.ErrNoTarget, "main:0.7": tmuxctl.ErrNoTarget, "main:5": tmuxctl.ErrNoTarget, "mai:0.0": tmuxctl.ErrNoTarget,
		"ma*:0.0": tmuxctl.ErrNoTarget, "%999": tmuxctl.ErrNoTarget, "main:0": tmuxctl.ErrAmbiguous, "main": tmuxctl.ErrBadTarget,
		"main:x.0": tmuxctl.ErrNoTarget, ":0.0": tmuxctl.ErrBadTarget, "%x": tmuxctl.ErrBadTarget, "{marked}": tmuxctl.ErrBadTarget,
		"main:0.0.1": tmuxctl.ErrBadTarget, "main:-1.0": tmuxctl.ErrBadTarget, "main:": tmuxctl.ErrBadTarget,
		"main:dra": tmuxctl.ErrNoTarget, "main:dra*": tmuxctl.ErrBadTarget, "main:draft.1": tmuxctl.ErrNoTarget, "mai:draft": tmuxctl.ErrNoTarget,
		"main:two panes": tmuxctl.ErrAmbiguous, "main:{last}": tmuxctl.ErrBadTarget, "main:dup": tmuxctl.ErrAmbiguous, "main:dup.0": tmuxctl.ErrAmbiguous,
	} {
		if p, err := s.Client.FindPane(ctx, target); !errors.Is(err, want) {
			t.Errorf("FindPane(%q) = %+v, %v; want an error wrapping %v", target, p, err, want)
		}
	}
	// A name two windows share is refused naming both; a window of two panes names one.
	for target, want := range map[string]string{
		"main:dup":       `tmuxctl: pane "main:dup" names more than one pane: windows main:10, main:11 are all named "dup" (name one by its index)`,
		"main:two panes": `tmuxctl: pane "main:two panes" names more than one pane: window main:0 has 2 (name one: main:0.0)`,
	} {
		if _, err := s.Client.FindPane(ctx, target); err == nil || err.Error() != want {
			t.Errorf("FindPane(%q) = %v, want %s", target, err, want)
		}
	}
}

// A tmux client that printed its output and exited 0 while something else still holds its
// stdout (a loaded server slow to let the pipes go) succeeded: its output is returned, after
// the bound on that wait, not an error.
func TestExecOutputHeldPastExit(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tmux")
	script := "#!/bin/sh\necho hello\nsleep 3 &\nexit 0\n" // the sleep keeps stdout open
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	c := &tmuxctl.Client{Bin: bin, SocketPath: "/nonexistent"} // not connected: each call runs the binary
	out, err := c.Run(context.Background(), "display-message", "-p", "x")
	if err != nil || strings.TrimSpace(out) != "hello" {
		t.Errorf("Run = %q, %v; want hello and no error", out, err)
	}
}

func TestClientName(t *testing.T) {
	t.Setenv("TMUX", "/tmp/tmux-1000/work,123,0")
	for _, tc := range []struct {
		c    tmuxctl.Client
		want string
	}{
		{tmuxctl.Client{SocketPath: "/run/s", SocketName: "x"}, "server /run/s"},
		{tmuxctl.Client{SocketName: "work"}, "server -L work"},
		{tmuxctl.Client{}, "server /tmp/tmux-1000/work"},
	} {
		if got := tc.c.Name(); got != tc.want {
			t.Errorf("%+v.Name() = %q, want %q", tc.c, got, tc.want)
		}
	}
	t.Setenv("TMUX", "")
	if got := (&tmuxctl.Client{}).Name(); got != "the default tmux server" {
		t.Errorf("Name() outside tmux = %q, want the default tmux server", got)
	}
}
