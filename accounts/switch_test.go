package accounts

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The screens of the switch's tests: Claude Code stopped at a usage limit, and running.
const (
	limitedScreen = "❯ hello\n  ⎿  You've hit your limit · resets 4pm (UTC)\n\n────────\n❯ \n────────\n"
	runningScreen = "❯ hello\n  ⎿  Done\n\n────────\n❯ \n────────\n"
)

// The Claude Code processes of the switch's tests: the one stopped in account a, and the one
// the respawn starts.
var (
	oldClaude = proc.Identity{PID: 4242, Start: "ticks:123"}
	newClaude = proc.Identity{PID: 5353, Start: "ticks:456"}
)

// fakeTmux is a tmux server with one pane running the old Claude Code, until RespawnPane
// starts the new one there (through the finder).
type fakeTmux struct {
	pane      tmuxctl.Pane
	screen    string
	finder    *fakeFinder
	respawned []tmuxctl.Respawn
}

func (f *fakeTmux) PaneInfo(_ context.Context, pane string) (tmuxctl.Pane, error) {
	if pane != f.pane.ID {
		return tmuxctl.Pane{}, tmuxctl.ErrNoTarget
	}
	return f.pane, nil
}

func (f *fakeTmux) Capture(context.Context, string) (string, error) { return f.screen, nil }

func (f *fakeTmux) RespawnPane(_ context.Context, _ string, r tmuxctl.Respawn) error {
	f.respawned = append(f.respawned, r)
	f.finder.found = proc.Found{Identity: newClaude}
	return nil
}

func (f *fakeTmux) SocketFileHere() (string, error) { return "/tmp/tmux-0/default", nil }

// fakeFinder finds the Claude Code process found, whose records are in envs.
type fakeFinder struct {
	found proc.Found
	envs  map[proc.Identity]records.Env
}

func (f *fakeFinder) Find(context.Context, int) (proc.Found, bool, error) { return f.found, true, nil }

func (f *fakeFinder) Env(_ context.Context, id proc.Identity) (records.Env, error) {
	return f.envs[id], nil
}

// stepClock is a clock whose Sleep moves it on at once.
type stepClock struct {
	clock.Clock // NewTimer: unused by a switch
	now         time.Time
}

func (c *stepClock) Now() time.Time { return c.now }

func (c *stepClock) Sleep(_ context.Context, d time.Duration) error {
	c.now = c.now.Add(d)
	return nil
}

// switchWorld is the world of one switch: accounts a and b, the session stopped in a (its
// registry entry and transcript, its process in a fake /proc), and fakes of tmux, the finder
// and the watcher, which record what was asked of them.
type switchWorld struct {
	dir, a, b, work string
	tmux            *fakeTmux
	cfg             Config
	asked           []string // "skip" and "unskip", in order
	skip            Answer   // the watcher's answer to the skip
	notices         bytes.Buffer
	started         []Switched
}

func newSwitchWorld(t *testing.T) *switchWorld {
	t.Helper()
	w := &switchWorld{dir: t.TempDir(), skip: Answer{Done: true, Message: "skipped"}}
	home := filepath.Join(w.dir, "home")
	w.a, w.b, w.work = filepath.Join(home, "acct-a"), filepath.Join(home, "acct-b"), filepath.Join(w.dir, "work")
	write(t, filepath.Join(w.a, "sessions", "4242.json"), `{"pid":4242,"sessionId":"s-1","procStart":"123","cwd":"`+w.work+
		`","status":"idle","startedAt":`+strconv.FormatInt(now.Add(-time.Hour).UnixMilli(), 10)+`}`)
	transcript(t, w.a, project(w.work), "s-1", now.Add(-29*time.Minute),
		row("user", "s-1", now.Add(-30*time.Minute), time.Time{}), row("limit", "s-1", now.Add(-29*time.Minute), now.Add(time.Hour)))
	if err := os.MkdirAll(filepath.Join(w.b, "projects"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(w.work, 0o700); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(w.dir, "proc")
	if err := os.MkdirAll(filepath.Join(fake, "4242"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/opt/claude/versions/2.1.332", filepath.Join(fake, "4242", "exe")); err != nil {
		t.Fatal(err)
	}
	old := procDir
	procDir = fake
	t.Cleanup(func() { procDir = old })

	finder := &fakeFinder{found: proc.Found{Identity: oldClaude, Agent: agent.Claude},
		envs: map[proc.Identity]records.Env{oldClaude: {ConfigDir: w.a, Home: home}, newClaude: {ConfigDir: w.b, Home: home}}}
	w.tmux = &fakeTmux{pane: tmuxctl.Pane{ID: "%1", PID: 100, Session: "main", WindowIndex: 1}, screen: limitedScreen, finder: finder}
	accts, err := Expand([]string{"~/acct-a", "~/acct-b"}, home)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(w.dir, "state"), "XDG_RUNTIME_DIR": filepath.Join(w.dir, "run")}
	w.cfg = Config{Tmux: w.tmux, Finder: finder, Clock: &stepClock{now: now}, Getenv: func(k string) string { return env[k] },
		Notices: &w.notices, Accounts: accts, MaxPerDay: 2,
		Ask: func(_ context.Context, pane string, skip bool, _ io.Writer) (Answer, error) {
			if !skip {
				w.asked = append(w.asked, "unskip")
				return Answer{Message: "pane " + pane + " is not skipped"}, nil
			}
			w.asked = append(w.asked, "skip")
			return w.skip, nil
		},
		Started: func(s Switched) { w.started = append(w.started, s) }}
	return w
}

// project is the name of the project directory Claude Code makes for the working directory
// cwd: every character but letters and digits as "-".
func project(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
}

// registry replaces old with new in the registry entry of the old Claude Code.
func (w *switchWorld) registry(old, new string) {
	p := filepath.Join(w.a, "sessions", "4242.json")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o600)
}

// switchTo runs a switch of the world's pane to the account to names.
func (w *switchWorld) switchTo(to string) (Switched, error) {
	return Switch(context.Background(), w.cfg, Request{Pane: "%1", Target: "main:1", To: to})
}

// untouched checks that nothing was copied into b, recorded or respawned.
func (w *switchWorld) untouched(t *testing.T) {
	t.Helper()
	if copies, _ := filepath.Glob(filepath.Join(w.b, "projects", "*", "*.jsonl")); len(copies) > 0 {
		t.Errorf("copied into b: %q", copies)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "state", "cac-tmux", "switches.json")); !os.IsNotExist(err) {
		t.Errorf("a switch was recorded (%v)", err)
	}
	if len(w.tmux.respawned) > 0 {
		t.Errorf("the pane was respawned: %+v", w.tmux.respawned)
	}
}

// TestSwitchMoves: the session goes to the free account b, after the skip; the pane is
// respawned with the same program resuming it there with the message, so that it goes on;
// Started hears of it before the pane's published state is renewed (an unskip, refused).
func TestSwitchMoves(t *testing.T) {
	w := newSwitchWorld(t)
	w.cfg.Message = "continue"
	got, err := w.switchTo("")
	if err != nil {
		t.Fatalf("Switch: %v", err)
	}
	if got.Account.Dir != w.b || got.Session != "s-1" || got.PID != newClaude.PID || got.Pane.Target() != "main:1.0" {
		t.Errorf("Switch = %+v, want session s-1 in b, pid %d", got, newClaude.PID)
	}
	if !slices.Equal(w.asked, []string{"skip", "unskip"}) || len(w.started) != 1 || w.started[0] != got {
		t.Errorf("asked %q, started %+v; want a skip, then the renewing unskip, and Started told once", w.asked, w.started)
	}
	if want := "switched %1 (main:1.0) to ~/acct-b: claude --resume s-1 runs (pid 5353)"; got.String() != want {
		t.Errorf("Switched says %q, want %q", got.String(), want)
	}
	want := []string{"/bin/sh", "-c", `"$@"; exec "${SHELL:-/bin/sh}"`, "sh", "/opt/claude/versions/2.1.332", "--resume", "s-1", "--", "continue"}
	if len(w.tmux.respawned) != 1 || !slices.Equal(w.tmux.respawned[0].Argv, want) || w.tmux.respawned[0].Dir != w.work ||
		!slices.Equal(w.tmux.respawned[0].Env, []string{"CLAUDE_CONFIG_DIR=" + w.b}) {
		t.Errorf("respawned %+v, want %q in %s with b", w.tmux.respawned, want, w.work)
	}
	if copies, _ := filepath.Glob(filepath.Join(w.b, "projects", "*", "s-1.jsonl")); len(copies) != 1 {
		t.Errorf("copies in b: %q, want the transcript", copies)
	}
	if w.notices.Len() > 0 {
		t.Errorf("notices: %q", w.notices.String())
	}
}

// TestSwitchRefusals: a gate refuses with its reason and leaves nothing behind; a refusal
// after the skip takes it back, one before it asks nothing of the watcher; a bad --to is
// bad input.
func TestSwitchRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		to     string
		change func(w *switchWorld)
		want   string // in the reason; "" for bad input
		asked  []string
	}{
		{name: "running", change: func(w *switchWorld) { w.tmux.screen = runningScreen },
			want: "pane %1 is not stopped at a usage limit", asked: []string{"skip", "unskip"}},
		{name: "an entry of an earlier process", change: func(w *switchWorld) { w.registry(`"procStart":"123"`, `"procStart":"99"`) },
			want: "Claude Code's session registry has no entry for pid 4242", asked: nil},
		{name: "the watcher refuses the skip", change: func(w *switchWorld) {
			w.skip = Answer{Message: "pane %1 is running; there is nothing to skip"}
		}, want: "pane %1 is running", asked: []string{"skip"}},
		{name: "busy", change: func(w *switchWorld) { w.registry(`"idle"`, `"busy"`) }, want: "Claude Code's session registry says a turn runs (pid 4242)", asked: []string{"skip", "unskip"}},
		{name: "bound", change: func(w *switchWorld) { w.cfg.MaxPerDay = 0 },
			want: "session s-1 was switched 0 times within 24 hours, and accounts.max_per_day is 0"},
		{name: "a link planted in the target account", change: func(w *switchWorld) {
			os.Symlink(w.dir, filepath.Join(w.b, "projects", project(w.work)))
		}, want: "copy to ", asked: []string{"skip", "unskip"}},
		{name: "a Codex pane", change: func(w *switchWorld) { w.tmux.finder.found.Agent = agent.Codex },
			want: "pane %1 runs Codex: switch moves Claude Code sessions only"},
		{name: "unknown account", to: "acct-c"},
		{name: "the session's own account", to: "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newSwitchWorld(t)
			if tc.change != nil {
				tc.change(w)
			}
			_, err := w.switchTo(tc.to)
			var refused *refusedError
			var bad *BadInputError
			switch {
			case tc.want == "" && !errors.As(err, &bad):
				t.Errorf("Switch = %v, want bad input", err)
			case tc.want != "" && (!errors.As(err, &refused) || refused.Target != "main:1" || !strings.HasPrefix(refused.Reason, tc.want)):
				t.Errorf("Switch = %v, want refused: %s…", err, tc.want)
			}
			if !slices.Equal(w.asked, tc.asked) {
				t.Errorf("asked the watcher %q, want %q", w.asked, tc.asked)
			}
			w.untouched(t)
		})
	}
}

// TestSwitchRespawn: the pane runs the program with --resume and, after "--", the message (its
// first prompt, none when "") through a shell that gets every word as a positional parameter,
// then the user's shell; the default account is reached by unsetting CLAUDE_CONFIG_DIR, any
// other by setting it. A message that looks like an option stays a prompt.
func TestSwitchRespawn(t *testing.T) {
	t.Parallel()
	script := `"$@"; exec "${SHELL:-/bin/sh}"`
	r := respawn("/w d", "/h/.claude-work", "/h", []string{"/usr/bin/node", "/l/cli.js"}, "s1", "go on; $(rm -rf ~)")
	want := []string{"/bin/sh", "-c", script, "sh", "/usr/bin/node", "/l/cli.js", "--resume", "s1", "--", "go on; $(rm -rf ~)"}
	if r.Dir != "/w d" || !slices.Equal(r.Env, []string{"CLAUDE_CONFIG_DIR=/h/.claude-work"}) || !slices.Equal(r.Argv, want) {
		t.Errorf("respawn to another account = %+v, want %q with CLAUDE_CONFIG_DIR set", r, want)
	}
	r = respawn("/w", "/h/.claude/", "/h", []string{"/bin/claude"}, "s1", "")
	want = []string{"/bin/sh", "-c", "unset CLAUDE_CONFIG_DIR; " + script, "sh", "/bin/claude", "--resume", "s1"}
	if r.Env != nil || !slices.Equal(r.Argv, want) {
		t.Errorf("respawn to the default account = %+v, want %q and no CLAUDE_CONFIG_DIR", r, want)
	}
	r = respawn("/w", "/h/b", "/h", []string{"/bin/claude"}, "s1", "--version")
	if want = []string{"/bin/claude", "--resume", "s1", "--", "--version"}; !slices.Equal(r.Argv[4:], want) {
		t.Errorf("respawn with the message --version = %q, want %q", r.Argv[4:], want)
	}
}

// TestUntil: a reset within a day is its time of day, a later one has its date.
func TestUntil(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 19, 30, 0, 0, time.Local)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{at, "7:30pm"},
		{at.Add(-30 * time.Minute), "7pm"},
		{at.Add(48 * time.Hour), "Nov 28, 7:30pm"},
	} {
		if got := until(tc.t, at.Add(-time.Hour)); got != tc.want {
			t.Errorf("until(%s) = %q, want %q", tc.t, got, tc.want)
		}
	}
}

// TestSwitchMessage: the new Claude Code's first prompt is the pane's own @cac_message when it
// is a valid message, else the configured one (as the watcher types them).
func TestSwitchMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ pane, want string }{{"", "continue"}, {"go on", "go on"}, {"two\x7flines", "continue"}, {"   ", "continue"},
		{"--version", "continue"}, {" -p", "continue"}, {"!sh", "continue"}, {"/login", "continue"}, {"go -on", "go -on"}} {
		sw := &switching{Config: Config{Message: "continue"}}
		sw.pane.Message = tc.pane
		if got := sw.message(); got != tc.want {
			t.Errorf("message with @cac_message %q = %q, want %q", tc.pane, got, tc.want)
		}
	}
}
