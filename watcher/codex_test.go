package watcher_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Codex CLI on the fake server: its screens are the real 0.171.0's (detector/testdata/
// codex-screens, captured with their escapes at 80 columns, the daemon in New York), and the
// fake moves between them as Codex does on the keys the watcher may send.

// codexScreen reads one of the real captures.
func codexScreen(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "detector", "testdata", "codex-screens", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The stop of these captures: it appeared at 13:03:09Z; "try again at 10:10 AM", New York's.
var (
	codexAppeared = time.Date(2026, 11, 28, 13, 3, 9, 0, time.UTC)
	codexReset    = time.Date(2026, 11, 28, 15, 10, 0, 0, time.UTC)
)

// placeholder is the composer's dim placeholder as captured.
const placeholder = "\x1b[2mAsk Codex to do anything"

// codexPane is a Codex TUI's part of a fake pane: the screens it goes through, what it does
// with keys, and what its process table and records say.
type codexPane struct {
	afterEsc, resumed string
	zone              *time.Location // the daemon's; nil: cannot be told
	home              string         // CODEX_HOME
	// harm is set by a key Codex would take for a choice in its menu or a submit too early.
	harm []string
}

// typed: text reaches an empty composer in place of its placeholder.
func (c *codexPane) typed(p *fakePane, text string) {
	if strings.Contains(p.screen, "Approaching rate limits") {
		c.harm = append(c.harm, "text into the menu: "+text)
		return
	}
	p.screen = strings.Replace(p.screen, placeholder, text, 1)
}

// pressed: Esc closes the menu; Enter submits the composer (resumed); anything else in the
// menu is a choice of the user's.
func (c *codexPane) pressed(p *fakePane, key string) {
	menu := strings.Contains(p.screen, "Approaching rate limits")
	switch {
	case menu && key == "Escape":
		p.draw(c.afterEsc)
	case menu:
		c.harm = append(c.harm, "a key in the menu: "+key)
	case key == "Enter" && strings.Contains(p.screen, "continue"):
		p.draw(c.resumed)
	}
}

// addCodex opens a pane where Codex (npm: the pane's command is node) stopped, its menu open.
func (r *rig) addCodex(id string, pid int, zone *time.Location) *fakePane {
	p := r.tmux.add(id, pid, codexScreen(r.t, "codex-stop-menu-first-80.txt"))
	p.info.Command, p.info.Width, p.agent = "node", 80, agent.Codex
	p.codex = &codexPane{afterEsc: codexScreen(r.t, "codex-stop-after-esc-80.txt"),
		resumed: codexScreen(r.t, "codex-resumed-after-stop-80.txt"), zone: zone, home: r.t.TempDir()}
	return p
}

// Codex implements the watcher's Codex questions of the process table: a TUI in /w, started
// before the stop, whose Codex home holds no rollout (the screen decides).
func (f *fakeTmux) Codex(_ context.Context, id proc.Identity) (proc.CodexTUI, error) {
	for _, p := range f.panes {
		if p.claude == id && p.codex != nil {
			return proc.CodexTUI{Env: records.Env{CodexHome: p.codex.home}, Cwd: "/w", Started: codexAppeared.Add(-time.Hour)}, nil
		}
	}
	return proc.CodexTUI{}, errors.New("proc: codex: not a codex process")
}

// DaemonZone is the zone of the daemon of the rig's Codex panes (one daemon, one home).
func (f *fakeTmux) DaemonZone(_ context.Context, _ string) (*time.Location, string, error) {
	for _, p := range f.panes {
		if p.codex != nil && p.codex.zone != nil {
			return p.codex.zone, "fake", nil
		}
	}
	return nil, "", errors.New("proc: daemon zone: no daemon.pid")
}

// atTime moves the rig's clock to t and ticks.
func (r *rig) atTime(t time.Time) {
	r.t.Helper()
	r.at(t.Sub(t0))
}

func newYork(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// A Codex stop with its "Approaching rate limits" menu open: the reset is read in the daemon's
// zone (New York: the watcher's own is Tokyo), nothing is sent before the reset plus the
// margin, then Esc alone closes the menu, and the message goes in with its Enter apart, at
// least EnterAfter after it; the resumed turn ends the wait.
func TestUnitCodexStopResumedThroughTheMenu(t *testing.T) {
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	r := newRig(t, func(c *watcher.Config) { c.Zone = tokyo })
	p := r.addCodex("%1", 100, newYork(t))
	r.atTime(codexAppeared.Add(time.Second))
	row := r.row("%1")
	if row.State != watcher.Waiting || !row.Reset.Equal(codexReset) {
		t.Fatalf("row = %+v, want waiting for the reset %s (New York's 10:10 AM)", row, codexReset)
	}
	due := codexReset.Add(time.Minute)
	r.atTime(due.Add(-time.Second))
	r.wantKeys(p)
	var typedAt, enterAt time.Time
	r.tmux.onKey = func(_, key string) {
		switch key {
		case "continue":
			typedAt = r.clk.Now()
		case "Enter":
			enterAt = r.clk.Now()
		}
	}
	r.atTime(due)
	r.wantKeys(p, "Escape")
	r.atTime(due.Add(2 * time.Second)) // the check after the key: the menu closed
	r.wantKeys(p, "Escape", "continue", "Enter")
	// Codex 0.171.0 takes an Enter within 120 ms of typed text for a paste's newline; 0.3 s
	// after the text submitted (SPEC §11).
	if d := enterAt.Sub(typedAt); d < 500*time.Millisecond {
		t.Errorf("Enter %s after the text, want at least 500ms (a paste's newline otherwise)", d)
	}
	r.atTime(due.Add(6 * time.Second))
	if got := r.state("%1"); got != watcher.Running {
		t.Errorf("state after the resumed turn = %s, want running", got)
	}
	if len(p.codex.harm) > 0 {
		t.Errorf("keys Codex takes for a choice: %q", p.codex.harm)
	}
}

// What holds a Codex stop: a draft in its composer; a daemon whose zone cannot be told (the
// printed time has no zone, and no rollout gives the exact reset); the menu opened as a
// warning, with no stop under it.
func TestUnitCodexNoKeys(t *testing.T) {
	for _, tc := range []struct {
		name   string
		screen string
		noZone bool
		state  watcher.State
	}{
		{"a draft", "codex-stop-with-draft-80.txt", false, watcher.Held},
		{"the daemon's zone unknown", "codex-stop-menu-first-80.txt", true, watcher.Held},
		{"the menu as a warning", "codex-menu-warning-no-stop-120.txt", false, watcher.Running},
		{"workspace credits", "codex-synth-stop-credits-owner-200.txt", false, watcher.Unwaitable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			p := r.addCodex("%1", 100, newYork(t))
			p.screen = codexScreen(t, tc.screen)
			if tc.noZone {
				p.codex.zone = nil
			}
			r.atTime(codexAppeared.Add(time.Second))
			if got := r.state("%1"); got != tc.state {
				t.Errorf("state = %s (%s), want %s", got, r.row("%1").Note, tc.state)
			}
			r.atTime(codexReset.Add(2 * time.Hour))
			r.wantKeys(p)
		})
	}
}

// A menu that stays open after Esc is held: Esc is not pressed again, and nothing is typed.
func TestUnitCodexMenuThatStaysOpenIsHeld(t *testing.T) {
	r := newRig(t, nil)
	p := r.addCodex("%1", 100, newYork(t))
	p.codex.afterEsc = p.screen // Esc changes nothing
	r.atTime(codexAppeared.Add(time.Second))
	due := codexReset.Add(time.Minute)
	for _, d := range []time.Duration{0, time.Second, 2 * time.Second, 4 * time.Second, 10 * time.Second, time.Hour} {
		r.atTime(due.Add(d))
	}
	r.wantKeys(p, "Escape")
	if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, "did not close after Esc") {
		t.Errorf("row = %+v, want held: the menu did not close", row)
	}
}

// A resume that meets the same limit again (Codex's printed reset can be early: the second
// stop prints the same time) is a failed attempt, retried with backoff, never a loop: at most
// the scheduler's attempts, then failed.
func TestUnitCodexSecondStopIsAgainNotALoop(t *testing.T) {
	r := newRig(t, nil)
	p := r.addCodex("%1", 100, newYork(t))
	again := codexScreen(t, "codex-stop-second-80.txt")
	again = strings.Replace(strings.Replace(again, "at 9:33 AM.", "at 10:10 AM.", 1), "next plus", "continue", 1)
	p.codex.resumed = again
	r.atTime(codexAppeared.Add(time.Second))
	due := codexReset.Add(time.Minute)
	for d := time.Duration(0); d < 2*time.Hour; d += 2 * time.Second {
		r.atTime(due.Add(d))
	}
	typed := 0
	for _, k := range p.keys {
		if k == "continue" {
			typed++
		}
	}
	if typed == 0 || typed > 3 || p.keys[0] != "Escape" {
		t.Errorf("keys %q: want Esc, then at most 3 attempts", p.keys)
	}
	if got := r.state("%1"); got != watcher.Failed {
		t.Errorf("state after the limit held through every attempt = %s (%s), want failed", got, r.row("%1").Note)
	}
	if len(p.codex.harm) > 0 {
		t.Errorf("keys Codex takes for a choice: %q", p.codex.harm)
	}
}
