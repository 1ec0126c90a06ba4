//go:build linux

package watcher_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// The scenarios of the design, each on its own private tmux server with the fake Claude Code.

var resumeKeys = []string{"continue", "\r"}

// clockText prints t like Claude Code: "7:31pm", "8pm".
func clockText(t time.Time) string {
	return strings.Replace(strings.ToLower(t.Format("3:04PM")), ":00", "", 1)
}

// keysNotBefore checks that no input reached the fake before the watcher-clock instant t.
func (f *fake) keysNotBefore(t time.Time) {
	f.wd.t.Helper()
	ins, _ := f.read()
	for _, in := range ins {
		if at := in.at.Add(time.Duration(f.wd.offset.Load())); at.Before(t) {
			f.wd.t.Errorf("pane %s received %q at %s (watcher clock), before %s", f.pane, in.bytes, at.Format(time.StampMilli), t.Format(time.StampMilli))
		}
	}
}

func (f *fake) wantInputs(want []string) {
	f.wd.t.Helper()
	if got := f.inputs(); !slices.Equal(got, want) {
		f.wd.t.Errorf("pane %s received %q, want %q", f.pane, got, want)
	}
}

func (wd *world) options(pane string) tmuxctl.Options {
	wd.t.Helper()
	info, err := wd.s.Client.PaneInfo(context.Background(), pane)
	if err != nil {
		wd.t.Fatal(err)
	}
	return info.Options
}

func TestPlainStopResumedOnceAfterReset(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	// A title with -:- and a tab on another pane of the server disturbs nothing.
	wd.s.Tmux(t, "select-pane", "-t", "main:0.0", "-T", "odd -:- title\twith\ttabs -:-")
	f := wd.claude(false)
	wd.start(nil)

	r := wd.waitState(f.pane, watcher.Waiting)
	if !r.Reset.Equal(wd.reset) || r.Kind != "session" || !r.Due.Equal(wd.reset.Add(testSchedule.Margin)) {
		t.Errorf("row while waiting = %+v, want reset %s, kind session, due reset + margin", r, wd.reset)
	}
	got := wd.options(f.pane)
	want := tmuxctl.Options{State: "waiting", Reset: wd.reset.Format(time.RFC3339), Due: wd.reset.Add(testSchedule.Margin).Format(time.RFC3339), Kind: "session", Zone: "UTC",
		Source: "screen", Account: wd.s.ClaudeDir, Agent: "claude"} // the fake keeps no records: the reset is the screen's
	if got != want {
		t.Errorf("pane options while waiting = %+v, want %+v", got, want)
	}
	f.reached("resumed")
	wd.waitState(f.pane, watcher.Running)
	f.wantInputs(resumeKeys)
	f.keysNotBefore(wd.reset.Add(testSchedule.Margin))
	if got := wd.options(f.pane); got != (tmuxctl.Options{}) {
		t.Errorf("pane options after resuming = %+v, want none", got)
	}
	if !wd.tmux.Connected() {
		t.Errorf("the watcher's tmux commands did not go over a control-mode client")
	}
}

// Claude Code's records, kept by the fake as 2.1.330 does (--records, under the server's
// CLAUDE_CONFIG_DIR): the limit lifts 2 s after the printed minute; the watcher finds the
// process's config directory in /proc/PID/environ, its registry entry by pid and start, and
// the usage-limit row in its transcript, and acts at the exact reset plus ExactMargin, after
// the screen's reset plus its margin would have let it.
func TestExactResetFromClaudeCodesRecords(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	exact := wd.reset.Add(2 * time.Second)
	f := wd.claude(false, "--records", "--reset", exact.Format(time.RFC3339), "--limit-until", wd.real(exact).Format(time.RFC3339Nano))
	wd.start(func(c *watcher.Config) { c.Schedule.ExactMargin = 1500 * time.Millisecond })

	r := wd.waitState(f.pane, watcher.Waiting)
	due := exact.Add(1500 * time.Millisecond)
	if !r.Reset.Equal(exact) || r.Source != watcher.SourceTranscript || !r.Due.Equal(due) || r.Account != wd.s.ClaudeDir {
		t.Errorf("row while waiting = %+v, want reset %s from the transcript, due %s, account %s", r, exact, due, wd.s.ClaudeDir)
	}
	if got := wd.options(f.pane); got.Source != "transcript" || got.Reset != exact.Format(time.RFC3339) {
		t.Errorf("pane options while waiting = %+v, want the exact reset from the transcript", got)
	}
	f.reached("resumed")
	wd.waitState(f.pane, watcher.Running)
	f.wantInputs(resumeKeys)
	f.keysNotBefore(due)
}

func TestMenuWithStopLastPressesOnlyItsDigit(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false, "--scenario", "menu", "--rows", "Switch to usage credits,Upgrade your plan,Stop and wait for limit to reset")
	wd.start(nil)
	wd.waitState(f.pane, watcher.Waiting)
	f.reached("resumed")
	f.wantInputs(append([]string{"3"}, resumeKeys...))
	f.keysNotBefore(wd.reset.Add(testSchedule.Margin))
	if _, states := f.read(); slices.Contains(states, "harm") || !slices.Contains(states, "menu-stopped") {
		t.Errorf("fake states = %q, want menu-stopped and no harm", states)
	}
}

func TestAutoContinueArmedGetsNoKey(t *testing.T) {
	// Auto-continue fires on real time, 11.5 s from here: the watcher's first look must come
	// before it, however slow the start (3.5 s was too little on a loaded machine).
	wd := newWorld(t, 10*time.Second)
	fire := wd.real(wd.reset).Add(1500 * time.Millisecond)
	f := wd.claude(false, "--scenario", "armed", "--fire-at", fire.Format(time.RFC3339Nano))
	wd.start(nil)
	r := wd.waitState(f.pane, watcher.Native)
	if want := wd.reset.Add(testSchedule.Margin + testSchedule.NativeGrace); !r.Due.Equal(want) {
		t.Errorf("due while armed = %s, want reset + margin + grace = %s", r.Due, want)
	}
	f.reached("native-fired")
	wd.waitState(f.pane, watcher.Running)
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + testSchedule.NativeGrace))
	f.wantInputs(nil)
}

func TestAutoContinueStoppedIsTakenOver(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false, "--scenario", "stopped")
	wd.start(nil)
	r := wd.waitState(f.pane, watcher.Waiting)
	if want := wd.reset.Add(testSchedule.Margin); !r.Due.Equal(want) {
		t.Errorf("due after auto-continue stopped = %s, want reset + margin = %s (no grace)", r.Due, want)
	}
	f.reached("resumed")
	f.wantInputs(resumeKeys)
	f.keysNotBefore(wd.reset.Add(testSchedule.Margin))
}

func TestClaudeExitedToShellGetsNoKey(t *testing.T) {
	// The fake exits 5 s after it starts: the watcher's first look must come before that,
	// however slow the start (a second was too little on a loaded machine).
	wd := newWorld(t, 8*time.Second)
	f := wd.claude(true, "--exit-after", "5s") // sh -c 'claude …; exec sh'
	wd.start(nil)
	wd.waitState(f.pane, watcher.Waiting) // seen through the wrapper shell
	f.reached("exit")
	wd.waitRow(f.pane, "the pane to be forgotten", func(_ watcher.Row, ok bool) bool { return !ok })
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + time.Second))
	screen := wd.s.Tmux(t, "capture-pane", "-p", "-t", f.pane)
	if !strings.Contains(screen, "You've hit your session limit") || strings.Contains(screen, "continue") {
		t.Errorf("shell pane after the due instant, want the old stop and no %q:\n%s", "continue", screen)
	}
	if o := wd.options(f.pane); o != (tmuxctl.Options{}) {
		t.Errorf("shell pane options = %+v, want none", o)
	}
}

func TestDraftIsHeldUntouched(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false, "--scenario", "draft", "--draft", "half-written idea")
	wd.start(nil)
	r := wd.waitState(f.pane, watcher.Held)
	if !strings.Contains(r.Note, "draft") {
		t.Errorf("held note = %q, want it to name the draft", r.Note)
	}
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + time.Second))
	f.wantInputs(nil)
	if r, _ := wd.row(f.pane); r.State != watcher.Held {
		t.Errorf("state after the due instant = %s, want held", r.State)
	}
	if o := wd.options(f.pane); o.State != "held" || !strings.Contains(o.Note, "draft") {
		t.Errorf("pane options = %+v, want state held and a note about the draft", o)
	}
}

// The person deletes the draft: the pane stays held through its due instant, and the only
// input the fake ever read is the person's own C-u.
func TestClearedDraftStaysHeld(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false, "--scenario", "draft", "--draft", "half-written idea")
	wd.start(nil)
	wd.waitState(f.pane, watcher.Held)
	wd.s.Tmux(t, "send-keys", "-t", f.pane, "C-u")
	wd.waitRow(f.pane, "the note of a person at the pane", func(r watcher.Row, ok bool) bool {
		return ok && strings.Contains(r.Note, "a person typed here")
	})
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + 3*time.Second))
	f.wantInputs([]string{"\x15"})
	if r, _ := wd.row(f.pane); r.State != watcher.Held {
		t.Errorf("state after the due instant = %s, want held", r.State)
	}
}

func TestQuotedMessageGetsNoKey(t *testing.T) {
	wd := newWorld(t, time.Second)
	stop := "You've hit your session limit · resets " + clockText(wd.reset) + " (UTC)"
	tool := wd.claude(false, "--scenario", "idle", "--add", "❯ show me the notes\\n● Bash(cat notes.md)\\n  ⎿  "+stop)
	quoted := wd.claude(false, "--scenario", "idle", "--add", "❯ what did it say?\\n● It said: \""+stop+"\"")
	wd.start(nil)
	for _, f := range []*fake{tool, quoted} {
		wd.waitState(f.pane, watcher.Running)
	}
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + time.Second))
	for _, f := range []*fake{tool, quoted} {
		f.wantInputs(nil)
		if r, _ := wd.row(f.pane); r.State != watcher.Running {
			t.Errorf("pane %s state = %s, want running", f.pane, r.State)
		}
	}
}

func TestSecondStopIsRescheduledFromItsMessage(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	next := wd.reset.Add(time.Minute)
	f := wd.claude(false, "--again", "1", "--next-reset", next.Format(time.RFC3339))
	wd.start(nil)
	f.reached("limited-again")
	r := wd.waitRow(f.pane, "waiting on the new reset", func(r watcher.Row, ok bool) bool {
		return ok && r.State == watcher.Waiting && r.Reset.Equal(next)
	})
	if want := next.Add(testSchedule.Margin); !r.Due.Equal(want) {
		t.Errorf("due after the second stop = %s, want its reset + margin = %s", r.Due, want)
	}
	f.wantInputs(resumeKeys) // one resume so far: no retry of the first
	wd.jump(next.Sub(wd.now()) - time.Second)
	f.reached("resumed")
	f.wantInputs(append(resumeKeys, resumeKeys...))
	ins, _ := f.read()
	if at := ins[2].at.Add(time.Duration(wd.offset.Load())); at.Before(next.Add(testSchedule.Margin)) {
		t.Errorf("second resume at %s, before the new reset + margin %s", at, next.Add(testSchedule.Margin))
	}
}

func TestLimitThatHoldsFailsAfterMaxAttempts(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false, "--again", "99")
	wd.start(nil)
	r := wd.waitState(f.pane, watcher.Failed)
	var want []string
	for range testSchedule.MaxAttempts {
		want = append(want, resumeKeys...)
	}
	f.wantInputs(want)
	if !strings.Contains(r.Note, "3 attempts") {
		t.Errorf("failed note = %q, want the number of attempts", r.Note)
	}
	wd.waitUntil(wd.now().Add(2 * testSchedule.RetryMax))
	f.wantInputs(want)
}

func TestCopyModeWaitsUntilSafe(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false)
	wd.start(nil)
	wd.waitState(f.pane, watcher.Waiting)
	wd.s.Tmux(t, "copy-mode", "-t", f.pane)
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + time.Second))
	f.wantInputs(nil)
	if r, _ := wd.row(f.pane); !strings.Contains(r.Note, "copy mode") {
		t.Errorf("note in copy mode = %q, want it to say copy mode", r.Note)
	}
	wd.s.Tmux(t, "send-keys", "-t", f.pane, "-X", "cancel")
	f.reached("resumed")
	f.wantInputs(resumeKeys)
}

func TestSynchronizedPanesWaitUntilSafe(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false)
	sibling := strings.TrimSpace(wd.s.Tmux(t, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", f.pane, "cat"))
	wd.s.Tmux(t, "set-window-option", "-t", f.pane, "synchronize-panes", "on")
	wd.start(nil)
	wd.waitState(f.pane, watcher.Waiting)
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + time.Second))
	f.wantInputs(nil)
	if r, _ := wd.row(f.pane); !strings.Contains(r.Note, "synchronize-panes") {
		t.Errorf("note with synchronize-panes on = %q, want it to say so", r.Note)
	}
	wd.s.Tmux(t, "set-window-option", "-t", f.pane, "synchronize-panes", "off")
	f.reached("resumed")
	f.wantInputs(resumeKeys)
	if screen := wd.s.Tmux(t, "capture-pane", "-p", "-t", sibling); strings.Contains(screen, "continue") {
		t.Errorf("the sibling pane received keys:\n%s", screen)
	}
}
