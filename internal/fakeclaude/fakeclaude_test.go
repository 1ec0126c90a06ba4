//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// binary is fakeclaude built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	tmuxtest.MainBuilding(m, func(dir string) error {
		binary = filepath.Join(dir, "fakeclaude")
		return tmuxtest.GoBuild(binary, ".")
	})
}

var berlin = func() *time.Location {
	l, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return l
}()

const pane = "main" // the only pane of the test server

// patience bounds every wait: generous, since a loaded CI machine can be slow and a passing
// test never waits for it.
const patience = 10 * time.Second

// fc is one fakeclaude running in a private tmux server.
type fc struct {
	s       *tmuxtest.Server
	log     string
	started time.Time
}

// start runs fakeclaude with args in a 120x40 pane of a private server.
func start(t *testing.T, args ...string) *fc {
	t.Helper()
	log := filepath.Join(t.TempDir(), "log")
	f := &fc{log: log, started: time.Now()}
	f.s = tmuxtest.Start(t, 120, 40, append([]string{binary, "--log", log}, args...)...)
	return f
}

// verdict polls the pane until Detect's verdict satisfies cond and returns it; on timeout
// the test fails and logs the last screen.
func (f *fc) verdict(t *testing.T, what string, cond func(detector.Verdict) bool) detector.Verdict {
	t.Helper()
	var screen string
	var v detector.Verdict
	defer func() {
		if t.Failed() {
			t.Logf("last screen:\n%s\nlog:\n%s", screen, f.readLog(t))
		}
	}()
	tmuxtest.WaitFor(t, patience, what, func() bool {
		out, err := f.s.Client.Capture(context.Background(), pane)
		if err != nil {
			return false
		}
		screen = out
		v = detector.Detect(out, detector.Facts{Now: time.Now(), Appeared: f.started, Zone: berlin})
		return cond(v)
	})
	return v
}

// screen polls the pane until its screen contains text and returns the screen.
func (f *fc) screen(t *testing.T, text string) string {
	t.Helper()
	var screen string
	tmuxtest.WaitFor(t, patience, fmt.Sprintf("%q on the screen", text), func() bool {
		screen, _ = f.s.Client.Capture(context.Background(), pane)
		return strings.Contains(screen, text)
	})
	return screen
}

func (f *fc) readLog(t *testing.T) string {
	b, err := os.ReadFile(f.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// reads returns the bytes of every read the fake logged, one string per read.
func (f *fc) reads(t *testing.T) []string {
	var out []string
	for _, l := range strings.Split(f.readLog(t), "\n") {
		stamp, quoted, ok := strings.Cut(l, "\t")
		if !ok {
			continue
		}
		if _, err := time.Parse(time.RFC3339Nano, stamp); err != nil {
			t.Fatalf("log line %q: bad timestamp: %v", l, err)
		}
		b, err := strconv.Unquote(quoted)
		if err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, b)
	}
	return out
}

// states returns the "# state NAME" lines of the log, in order.
func (f *fc) states(t *testing.T) []string {
	var out []string
	for _, l := range strings.Split(f.readLog(t), "\n") {
		if name, ok := strings.CutPrefix(l, "# state "); ok {
			out = append(out, name)
		}
	}
	return out
}

// send types text literally, or sends the named key when key is set, and waits until the
// fake has logged the bytes (want) that tmux delivered.
func (f *fc) send(t *testing.T, text, key, want string) {
	t.Helper()
	before := strings.Join(f.reads(t), "")
	var err error
	if key != "" {
		err = f.s.Client.SendKey(context.Background(), pane, key)
	} else {
		err = f.s.Client.SendLiteral(context.Background(), pane, text)
	}
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, patience, fmt.Sprintf("fakeclaude to read %q", want), func() bool {
		return strings.Join(f.reads(t), "") == before+want
	})
}

func (f *fc) waitState(t *testing.T, name string) {
	t.Helper()
	tmuxtest.WaitFor(t, patience, "state "+name, func() bool {
		return slices.Contains(f.states(t), name)
	})
}

func checkLog(t *testing.T, f *fc, reads, states []string) {
	t.Helper()
	if got := f.reads(t); !slices.Equal(got, reads) {
		t.Errorf("reads = %q, want %q", got, reads)
	}
	if got := f.states(t); !slices.Equal(got, states) {
		t.Errorf("states = %q, want %q", got, states)
	}
}

// inBerlin is a reset three hours ahead, on the minute, as Claude Code prints it.
func inBerlin() time.Time { return time.Now().Add(3 * time.Hour).Truncate(time.Minute).In(berlin) }

func TestPlainLimitedAgain(t *testing.T) {
	t.Parallel()
	reset := inBerlin()
	f := start(t, "--scenario", "plain", "--reset", reset.Format(time.RFC3339), "--zone", "Europe/Berlin")
	v := f.verdict(t, "a limited screen", func(v detector.Verdict) bool { return v.Limited })
	if v.Kind != detector.KindSession || !v.Reset.Known || !v.Reset.At.Equal(reset) || v.Reset.Zone != "Europe/Berlin" {
		t.Errorf("kind %q reset %+v, want session at %s", v.Kind, v.Reset, reset)
	}
	if !v.Input.Visible || v.Input.Draft != "" || v.Native != detector.NativeNone || v.Menu.Open {
		t.Errorf("input %+v native %q menu %+v, want an empty prompt only", v.Input, v.Native, v.Menu)
	}
	first := v.Line
	f.send(t, "", "Enter", "\r") // a bare Enter does nothing
	f.send(t, "continue", "", "continue")
	f.verdict(t, "the draft", func(v detector.Verdict) bool { return v.Input.Draft == "continue" })
	f.send(t, "", "Enter", "\r")
	f.waitState(t, "limited-again")
	v = f.verdict(t, "a new stop below the echo", func(v detector.Verdict) bool { return v.Limited && v.Line > first })
	if v.Input.Draft != "" || !v.Reset.At.Equal(reset) {
		t.Errorf("after limited-again: draft %q reset %s", v.Input.Draft, v.Reset.At)
	}
	checkLog(t, f, []string{"\r", "continue", "\r"}, []string{"plain", "limited-again"})
}

func TestPlainResumes(t *testing.T) {
	t.Parallel()
	// A fixed offset prints as Etc/GMT-2; the detector must read the same instant back.
	reset := time.Now().Add(2 * time.Hour).Truncate(time.Minute).In(time.FixedZone("", 2*3600))
	f := start(t, "--scenario", "plain", "--reset", reset.Format(time.RFC3339),
		"--limit-until", time.Now().Add(-time.Minute).Format(time.RFC3339))
	v := f.verdict(t, "a limited screen", func(v detector.Verdict) bool { return v.Limited })
	if !v.Reset.At.Equal(reset) || v.Reset.Zone != "Etc/GMT-2" {
		t.Errorf("reset %+v, want %s in Etc/GMT-2", v.Reset, reset)
	}
	f.send(t, "continue", "", "continue")
	f.verdict(t, "the draft", func(v detector.Verdict) bool { return v.Input.Draft == "continue" })
	f.send(t, "", "Enter", "\r")
	f.waitState(t, "resumed")
	f.verdict(t, "a resumed, busy session", func(v detector.Verdict) bool {
		return !v.Limited && v.Resumed && v.Busy && v.Input.Draft == ""
	})
	checkLog(t, f, []string{"continue", "\r"}, []string{"plain", "resumed"})
}

func TestTextAndEnterInOneReadIsAPaste(t *testing.T) {
	t.Parallel()
	f := start(t, "--scenario", "plain", "--limit-until", time.Now().Add(-time.Minute).Format(time.RFC3339))
	f.verdict(t, "a limited screen", func(v detector.Verdict) bool { return v.Limited })
	f.send(t, "continue\r", "", "continue\r")
	f.waitState(t, "pasted-enter")
	f.verdict(t, "the unsent draft", func(v detector.Verdict) bool { return v.Limited && v.Input.Draft == "continue" })
	checkLog(t, f, []string{"continue\r"}, []string{"plain", "pasted-enter"})
}

func TestDraftEditing(t *testing.T) {
	t.Parallel()
	f := start(t, "--scenario", "draft", "--draft", "fix the tests")
	f.verdict(t, "the draft", func(v detector.Verdict) bool { return v.Limited && v.Input.Draft == "fix the tests" })
	f.send(t, "", "BSpace", "\x7f")
	f.verdict(t, "the edited draft", func(v detector.Verdict) bool { return v.Input.Draft == "fix the test" })
	f.send(t, "", "C-u", "\x15")
	f.verdict(t, "an empty box", func(v detector.Verdict) bool { return v.Input.Visible && v.Input.Draft == "" })
	checkLog(t, f, []string{"\x7f", "\x15"}, []string{"draft"})
}

func TestMenu(t *testing.T) {
	stopLast := "Switch to usage credits,Upgrade your plan,Stop and wait for limit to reset"
	stopFirst := "Stop and wait for limit to reset,Switch to usage credits,Upgrade your plan"
	type key struct{ text, key, want string }
	for _, tc := range []struct {
		name, rows string
		stop       int
		keys       []key
		state      string
	}{
		{"stop digit", stopLast, 3, []key{{"3", "", "3"}}, "menu-stopped"},
		{"typing is lost", stopLast, 3, []key{{"continue", "", "continue"}, {"3", "", "3"}}, "menu-stopped"},
		{"enter on stop", stopFirst, 1, []key{{"", "Enter", "\r"}}, "menu-stopped"},
		{"escape", stopLast, 3, []key{{"", "Escape", "\x1b"}}, "menu-escaped"},
		{"other digit", stopFirst, 1, []key{{"2", "", "2"}}, "harm"},
		{"enter on upgrade", stopLast, 3, []key{{"", "Enter", "\r"}}, "harm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := start(t, "--scenario", "menu", "--rows", tc.rows)
			v := f.verdict(t, "the open menu", func(v detector.Verdict) bool { return v.Menu.Open })
			if !v.Limited || v.Input.Visible || v.Menu.StopDigit != tc.stop || v.Menu.Focused != 1 || len(v.Menu.Rows) != 3 {
				t.Errorf("verdict %+v, want limited, menu with Stop at %d focused on 1", v, tc.stop)
			}
			var reads []string
			for _, k := range tc.keys {
				f.send(t, k.text, k.key, k.want)
				reads = append(reads, k.want)
			}
			f.waitState(t, tc.state)
			if tc.state == "harm" {
				f.screen(t, "UPGRADE FLOW STARTED")
			} else {
				f.verdict(t, "an empty prompt", func(v detector.Verdict) bool {
					return v.Limited && !v.Menu.Open && v.Input.Visible && v.Input.Draft == ""
				})
			}
			checkLog(t, f, reads, []string{"menu", tc.state})
		})
	}
}

func TestArmedCancelledByAnyKey(t *testing.T) {
	t.Parallel()
	f := start(t, "--scenario", "armed", "--reset", inBerlin().Format(time.RFC3339), "--zone", "Europe/Berlin")
	f.verdict(t, "native armed", func(v detector.Verdict) bool { return v.Native == detector.NativeArmed })
	f.send(t, "x", "", "x")
	f.waitState(t, "native-cancelled")
	f.verdict(t, "native cancelled", func(v detector.Verdict) bool {
		return v.Native == detector.NativeCancelled && v.Limited && v.Input.Visible && v.Input.Draft == ""
	})
	checkLog(t, f, []string{"x"}, []string{"armed", "native-cancelled"})
}

func TestArmedFires(t *testing.T) {
	t.Parallel()
	fire := time.Now().Add(10 * time.Second) // armed seen first, however slow the start
	f := start(t, "--scenario", "armed", "--fire-at", fire.Format(time.RFC3339Nano))
	f.verdict(t, "native armed", func(v detector.Verdict) bool { return v.Native == detector.NativeArmed })
	tmuxtest.WaitFor(t, time.Until(fire)+patience, "state native-fired", func() bool {
		return slices.Contains(f.states(t), "native-fired")
	})
	f.verdict(t, "native fired", func(v detector.Verdict) bool {
		return v.Native == detector.NativeFired && !v.Limited && v.Resumed && v.Busy
	})
	checkLog(t, f, nil, []string{"armed", "native-fired"})
}

func TestStoppedThenResumes(t *testing.T) {
	t.Parallel()
	f := start(t, "--scenario", "stopped", "--limit-until", time.Now().Add(-time.Minute).Format(time.RFC3339))
	f.verdict(t, "native stopped", func(v detector.Verdict) bool {
		return v.Native == detector.NativeStopped && v.Limited && v.Input.Visible && v.Input.Draft == ""
	})
	f.send(t, "continue", "", "continue")
	f.verdict(t, "the draft", func(v detector.Verdict) bool { return v.Input.Draft == "continue" })
	f.send(t, "", "Enter", "\r")
	f.waitState(t, "resumed")
	f.verdict(t, "resumed", func(v detector.Verdict) bool { return !v.Limited && v.Busy })
	checkLog(t, f, []string{"continue", "\r"}, []string{"stopped", "resumed"})
}

func TestIdle(t *testing.T) {
	t.Parallel()
	f := start(t, "--scenario", "idle")
	v := f.verdict(t, "an idle prompt", func(v detector.Verdict) bool { return v.Input.Visible })
	if v.Limited || v.Message != "" || v.Busy {
		t.Errorf("idle verdict %+v", v)
	}
	f.send(t, "hi", "", "hi")
	f.send(t, "", "Enter", "\r")
	f.waitState(t, "replied")
	f.screen(t, "● Got it: hi")
	checkLog(t, f, []string{"hi", "\r"}, []string{"idle", "replied"})
}

func TestExitLeavesTheScreen(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	pid := filepath.Join(t.TempDir(), "pid")
	f := &fc{log: log, started: time.Now()}
	f.s = tmuxtest.Start(t, 120, 40, "sh", "-c",
		fmt.Sprintf("'%s' --log '%s' --pidfile '%s' --exit-after 500ms; exec sh", binary, log, pid))
	f.verdict(t, "the exited session", func(v detector.Verdict) bool { return v.Exited && !v.Limited && v.Message != "" })
	if b, err := os.ReadFile(pid); err != nil || strings.TrimSpace(string(b)) == "" {
		t.Errorf("pidfile: %q, %v", b, err)
	}
	checkLog(t, f, nil, []string{"plain", "exit"})
}

func TestSpinnerAndResize(t *testing.T) {
	t.Parallel()
	f := start(t, "--scenario", "idle", "--spinner")
	f.verdict(t, "a busy session", func(v detector.Verdict) bool { return v.Busy && !v.Limited })
	first := f.screen(t, "esc to interrupt")
	tmuxtest.WaitFor(t, patience, "the spinner to move", func() bool {
		out, _ := f.s.Client.Capture(context.Background(), pane)
		return out != first && strings.Contains(out, "esc to interrupt")
	})
	f.s.Tmux(t, "resize-window", "-t", pane, "-x", "80", "-y", "20")
	f.screen(t, "\n"+strings.Repeat("─", 80)+"\n")
	checkLog(t, f, nil, []string{"idle"})
}

// TestPressEnter: "press enter to continue" with a draft: the detector sees press-enter and the
// draft; an Enter submits the draft (harm), as Claude Code would.
func TestPressEnter(t *testing.T) {
	t.Parallel()
	f := start(t, "--scenario", "pressenter", "--draft", "half-written idea", "--reset", inBerlin().Format(time.RFC3339))
	v := f.verdict(t, "press-enter with a draft", func(v detector.Verdict) bool {
		return v.Limited && v.Native == detector.NativePressEnter && v.Input.Draft == "half-written idea"
	})
	if v.Menu.Open || !v.Input.Visible {
		t.Errorf("menu %+v input %+v, want the input box", v.Menu, v.Input)
	}
	f.send(t, "", "Enter", "\r")
	f.waitState(t, "draft-submitted")
	g := start(t, "--scenario", "pressenter", "--reset", inBerlin().Format(time.RFC3339))
	g.verdict(t, "press-enter, empty box", func(v detector.Verdict) bool {
		return v.Limited && v.Native == detector.NativePressEnter && v.Input.Draft == ""
	})
	g.send(t, "", "Enter", "\r")
	g.waitState(t, "resumed")
}

// TestVimMode: NORMAL mode eats typed text and shows no label; i enters INSERT mode, which the
// footer shows as the real 2.1.330 does; Esc goes back.
func TestVimMode(t *testing.T) {
	t.Parallel()
	f := start(t, "--vim", "normal", "--reset", inBerlin().Format(time.RFC3339))
	f.verdict(t, "NORMAL mode", func(v detector.Verdict) bool { return v.Limited && !v.Input.VimInsert })
	f.send(t, "continue", "", "continue")
	f.send(t, "i", "", "i")
	f.waitState(t, "vim-insert")
	f.verdict(t, "INSERT mode, an empty box", func(v detector.Verdict) bool { return v.Input.VimInsert && v.Input.Draft == "" })
	f.send(t, "continue", "", "continue")
	f.verdict(t, "the message", func(v detector.Verdict) bool { return v.Input.VimInsert && v.Input.Draft == "continue" })
	f.send(t, "", "Escape", "\x1b")
	f.verdict(t, "NORMAL mode again", func(v detector.Verdict) bool { return !v.Input.VimInsert })
	checkLog(t, f, []string{"continue", "i", "continue", "\x1b"}, []string{"plain", "vim-insert", "vim-normal"})
}

// TestMenuStopLikeRowIsHarm: a row whose label only starts with "Stop" is not Stop.
func TestMenuStopLikeRowIsHarm(t *testing.T) {
	t.Parallel()
	f := start(t, "--scenario", "menu", "--rows", "Upgrade your plan,Stop waiting and switch to usage credits ($)", "--reset", inBerlin().Format(time.RFC3339))
	v := f.verdict(t, "the menu", func(v detector.Verdict) bool { return v.Menu.Open })
	if v.Menu.StopDigit != 0 {
		t.Errorf("StopDigit = %d, want none", v.Menu.StopDigit)
	}
	f.send(t, "2", "", "2")
	f.waitState(t, "harm")
}
