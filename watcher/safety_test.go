package watcher_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Unit tests of the safety case (SAFETY.md) on the fake server and a manual clock.
// Each finding has its scenario on a real tmux server too (safety_tmux_test.go).

func (r *rig) row(id string) watcher.Row {
	r.t.Helper()
	for _, row := range r.w.Rows() {
		if row.Pane == id {
			return row
		}
	}
	r.t.Fatalf("no row for pane %s", id)
	return watcher.Row{}
}

// Finding 2: between the typed message and its Enter the pane is looked at again; what
// happened there stops the Enter.
func TestUnitNothingChangesBetweenTextAndEnter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(p *fakePane)
		note   string
		sticky bool // held until the user acts, whatever happens to the pane
	}{
		{"the user typed", func(p *fakePane) { p.edit(func(d string) string { return d + "XYZ" }) }, "held more than what was typed", true},
		// A pane that stops taking keys safely waits until it does again.
		{"synchronize-panes turned on", func(p *fakePane) { p.info.Synced = true }, "synchronize-panes", false},
		{"copy mode entered", func(p *fakePane) { p.info.InMode = true }, "copy mode", false},
		{"the pane's input disabled", func(p *fakePane) { p.info.InputOff = true }, "input is disabled", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
			typed := false
			r.tmux.onKey = func(_, key string) { typed = typed || key == "continue" }
			r.at(0)
			r.tmux.onKey = func(_, key string) {
				if key == "continue" {
					// After the text reaches the pane, before the watcher looks again.
					r.tmux.onKey = nil
					defer tc.change(p)
				}
			}
			r.at(31 * time.Minute)
			r.wantKeys(p, "continue")
			want := watcher.Waiting
			if tc.sticky {
				want = watcher.Held
			}
			r.at(31*time.Minute + time.Second) // and it stays so
			r.wantKeys(p, "continue")
			row := r.row("%1")
			if row.State != want || !strings.Contains(row.Note, tc.note) {
				t.Fatalf("after the change: %s %q, want %s, note with %q", row.State, row.Note, want, tc.note)
			}
			p.info.Synced, p.info.InMode, p.info.InputOff = false, false, false
			p.draw(p.screen) // the pane is safe again; its window shows activity
			r.at(32 * time.Minute)
			r.at(40 * time.Minute)
			if tc.sticky {
				r.wantKeys(p, "continue")
				if got := r.state("%1"); got != watcher.Held {
					t.Errorf("state once the pane is safe again = %s, want held", got)
				}
				return
			}
			// Safe again, with exactly the message in the box: its Enter goes out, after
			// every gate.
			r.wantKeys(p, "continue", "Enter")
		})
	}
}

// Finding 4: a stop that comes back after the keys with the same printed reset, or one that
// has passed, is the limit still holding: attempts carry on to failed, never tomorrow.
func TestUnitLimitStillHoldsIsNeverTomorrow(t *testing.T) {
	for _, tc := range []struct{ limit, again string }{
		{"session limit", "7:30pm"}, {"session limit", "7:29pm"}, {"session limit", "7:31pm"}, {"session limit", "6pm"},
		{"Opus limit", "7:30pm"}, // a kind without the 5-hour bound: the same printed time is today's
	} {
		t.Run(tc.limit+" "+tc.again, func(t *testing.T) {
			r := newRig(t, nil)
			stop := func(at string) string {
				return "  ⎿ \u00a0You've hit your " + tc.limit + " · resets " + at + " (UTC)"
			}
			p := r.tmux.add("%1", 100, screen(append([]string{"❯ hello", stop("7:30pm")}, prompt("")...)...))
			hits := 0
			r.tmux.onKey = func(_, key string) {
				if key == "Enter" {
					hits++
					p.draw(screen(append([]string{"❯ hello", stop("7:30pm"), "", strings.Repeat("❯ continue\n", hits) + stop(tc.again)},
						prompt("continue")...)...)) // the box is cleared by the fake's Enter
				}
			}
			r.at(0)
			for d := 31 * time.Minute; d < 40*time.Minute; d += time.Second {
				r.at(d)
			}
			var want []string
			for range scheduler.Default.MaxAttempts {
				want = append(want, "continue", "Enter")
			}
			r.wantKeys(p, want...)
			row := r.row("%1")
			if row.State != watcher.Failed || row.Reset.After(t0.Add(31*time.Minute)) {
				t.Errorf("after %d attempts: %s reset %s (%q), want failed with today's reset", hits, row.State, row.Reset, row.Note)
			}
			r.at(26 * time.Hour)
			r.wantKeys(p, want...)
		})
	}
}

// Finding 5: with vim mode on and the input in NORMAL mode, i goes first and INSERT mode is
// confirmed on screen before the message; where it does not show, nothing more is typed.
func TestUnitVimMode(t *testing.T) {
	for _, tc := range []struct {
		vim, in string // in: where /config wrote editorMode
		keys    []string
		want    watcher.State
	}{
		{"insert", "", []string{"continue", "Enter"}, watcher.Verifying},
		{"normal", "", []string{"i", "continue", "Enter"}, watcher.Verifying},
		{"normal", "user", []string{"i", "continue", "Enter"}, watcher.Verifying},
		{"normal", "project", []string{"i", "continue", "Enter"}, watcher.Verifying},
		{"stuck", "", []string{"i"}, watcher.Held},
	} {
		t.Run(tc.vim+" "+tc.in, func(t *testing.T) {
			r := newRig(t, nil)
			p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
			p.vim, p.vimIn = tc.vim, tc.in
			if tc.in == "project" {
				p.session(t, sess, "idle") // the registry gives the project's directory
				p.row(t, userLine(t0.Add(-2*time.Second), "hello"))
				p.row(t, limitLine(t0.Add(-time.Second), time.Date(2026, 11, 20, 19, 30, 0, 0, time.UTC), "five_hour"))
			}
			r.at(0)
			r.at(31 * time.Minute)
			r.wantKeys(p, tc.keys...)
			if row := r.row("%1"); row.State != tc.want {
				t.Errorf("state = %s (%q), want %s", row.State, row.Note, tc.want)
			}
		})
	}
}

// Vim mode that cannot be read (no settings) with the input in NORMAL mode: the message is
// eaten, the look before Enter finds the box empty, and no Enter goes out.
func TestUnitEatenMessageGetsNoEnter(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	p.vim = "normal"
	r.tmux.editorUnknown = true
	r.at(0)
	r.at(31 * time.Minute)
	r.at(2 * time.Hour)
	r.wantKeys(p, "continue")
	if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, "did not show what was typed") {
		t.Errorf("state = %s (%q), want held", row.State, row.Note)
	}
}

// Finding 1 on the fake server: "press enter to continue" with a draft gets no key, and the
// state says why.
func TestUnitPressEnterOverADraftIsHeld(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 6:30pm (UTC)",
		"", "● Your usage limit has reset · press enter to continue"}, prompt("half-written idea")...)...))
	r.at(0)
	r.at(time.Hour)
	r.wantKeys(p)
	if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, "draft") {
		t.Errorf("state = %s (%q), want held for the draft", row.State, row.Note)
	}
	if o := p.info.Options; o.State != "held" {
		t.Errorf("published state = %+v, want held", o)
	}
}

// Claude Code takes a moment to draw what it reads: the look before Enter waits for the
// message to show (up to Settle), then sends the Enter; a message that never shows gets none.
func TestUnitSlowDrawingIsWaitedFor(t *testing.T) {
	for _, tc := range []struct {
		lag     int
		partial bool
		keys    []string
	}{
		{3, false, []string{"continue", "Enter"}}, // drawn after 3 looks, 200ms apart
		{3, true, []string{"continue", "Enter"}},  // and drawn in part at the look before: no person's draft
		{100, false, []string{"continue"}},        // never within Settle (3s)
	} {
		r := newRig(t, func(c *watcher.Config) { c.Pause = 200 * time.Millisecond })
		p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
		p.lag, p.partial = tc.lag, tc.partial
		r.at(0)
		r.at(31 * time.Minute)
		r.wantKeys(p, tc.keys...)
	}
}
