package watcher_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/scheduler"
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
	noDaemon          bool           // codex --no-daemon
	started           time.Time      // the process's start; zero: an hour before the stop
	thread            string         // the thread its argv names (codex resume ID)
	// harm is set by a key Codex would take for a choice in its menu or a submit too early.
	harm []string
	// rollout is the thread's rollout (writeRollout); a submitted prompt is written there,
	// then its turn's end: at the limit again when again is set, else done.
	rollout string
	again   bool
	now     func() time.Time // the rig's clock
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
		c.submitted(c.now(), "continue")
	}
}

// submitted writes a submitted prompt and its turn's end into the rollout, as Codex's daemon
// does (at the limit again, or done).
func (c *codexPane) submitted(at time.Time, text string) {
	stamp := func(d time.Duration) string { return at.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") }
	end := `{"timestamp":"%s","type":"event_msg","payload":{"type":"task_complete","turn_id":"y","last_agent_message":"ok"}}`
	if c.again {
		end = `{"timestamp":"%s","type":"event_msg","payload":{"type":"task_complete","turn_id":"y","last_agent_message":null,"error":{"message":"You’ve hit your usage limit.","codex_error_info":"usage_limit_exceeded"}}}`
	}
	rows := fmt.Sprintf(`{"timestamp":"%s","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":%q}]}}}`+"\n"+end+"\n", stamp(0), text, stamp(100*time.Millisecond))
	f, err := os.OpenFile(c.rollout, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(rows)
		f.Close()
	}
	if err != nil {
		c.harm = append(c.harm, "the rollout could not be written: "+err.Error())
	}
}

// addCodex opens a pane where Codex (npm: the pane's command is node) stopped, its menu open,
// and its daemon wrote the stop into its thread's rollout (writeRollout).
func (r *rig) addCodex(id string, pid int, zone *time.Location) *fakePane {
	p := r.tmux.add(id, pid, codexScreen(r.t, "codex-stop-menu-first-80.txt"))
	p.info.Command, p.info.Width, p.agent = "node", 80, agent.Codex
	p.codex = &codexPane{afterEsc: codexScreen(r.t, "codex-stop-after-esc-80.txt"),
		resumed: codexScreen(r.t, "codex-resumed-after-stop-80.txt"), zone: zone, home: r.t.TempDir()}
	p.codex.rollout, p.codex.now = writeRollout(r.t, p.codex.home), r.clk.Now
	return p
}

// writeRollout writes, in home, the rollout of a thread in /w whose turn stopped at the usage
// limit at 13:03:08.5Z (the captures' stop), its primary window full, resetting at codexReset,
// in the shape Codex 0.171.0 writes (records/testdata/codex).
func writeRollout(t *testing.T, home string) string {
	t.Helper()
	return writeRolloutReset(t, home, codexReset)
}

// writeRolloutReset is writeRollout with the stop's reset at reset.
func writeRolloutReset(t *testing.T, home string, reset time.Time) string {
	t.Helper()
	dir := filepath.Join(home, "sessions", "2026", "11", "28")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	id := "01a2222c-0000-7000-8000-000000000001"
	rows := fmt.Sprintf(`{"timestamp":"2026-11-28T12:30:00.000Z","type":"session_meta","payload":{"id":"%s","cwd":"/w","timestamp":"2026-11-28T12:30:00.000Z","originator":"codex-tui","source":"cli"}}
{"timestamp":"2026-11-28T13:03:07.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"do more"}]}}}
{"timestamp":"2026-11-28T13:03:08.000Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"limit_id":"codex","primary":{"used_percent":100.0,"window_minutes":300,"resets_at":%d},"secondary":{"used_percent":5.0,"window_minutes":10080,"resets_at":%d},"plan_type":"plus","rate_limit_reached_type":null}}}
{"timestamp":"2026-11-28T13:03:08.500Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"x","last_agent_message":null,"error":{"message":"You’ve hit your usage limit.","codex_error_info":"usage_limit_exceeded"}}}
`, id, reset.Unix(), reset.Add(96*time.Hour).Unix())
	path := filepath.Join(dir, "rollout-2026-11-28T07-30-00-"+id+".jsonl")
	if err := os.WriteFile(path, []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, codexAppeared, codexAppeared); err != nil {
		t.Fatal(err)
	}
	return path
}

// Codex implements the watcher's Codex questions of the process table: a TUI in /w, started
// an hour before the stop unless the pane says otherwise.
func (f *fakeTmux) Codex(_ context.Context, id proc.Identity) (proc.CodexTUI, error) {
	for _, p := range f.panes {
		if p.claude == id && p.codex != nil {
			return proc.CodexTUI{Env: records.Env{CodexHome: p.codex.home}, Args: proc.CodexArgs{NoDaemon: p.codex.noDaemon, Thread: p.codex.thread},
				Cwd: "/w", Started: cmp.Or(p.codex.started, codexAppeared.Add(-time.Hour))}, nil
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
	if row.State != watcher.Waiting || !row.Reset.Equal(codexReset) || row.Source != watcher.SourceRollout {
		t.Fatalf("row = %+v, want waiting for the reset %s (New York's 10:10 AM) from the rollout", row, codexReset)
	}
	due := codexReset.Add(scheduler.Default.ExactMargin)
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
		{"the daemon's zone unknown and no rollout", "codex-stop-menu-first-80.txt", true, watcher.Held},
		{"the menu as a warning", "codex-menu-warning-no-stop-120.txt", false, watcher.Running},
		{"workspace credits", "codex-synth-stop-credits-owner-200.txt", false, watcher.Unwaitable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			p := r.addCodex("%1", 100, newYork(t))
			p.screen = codexScreen(t, tc.screen)
			if tc.noZone {
				p.codex.zone = nil
				os.RemoveAll(filepath.Join(p.codex.home, "sessions"))
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
	p.codex.resumed, p.codex.again = again, true
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

// A thread reopened after its reset (codex resume ID, --last or the picker) redraws its old
// stop, and Codex writes nothing to its rollout until the next turn: no rollout written since
// the process started is no stop of its own, and it gets no key.
func TestUnitCodexReopenedThreadGetsNoKey(t *testing.T) {
	for _, thread := range []string{"01a2222c-0000-7000-8000-000000000001", ""} {
		t.Run("argv thread "+cmp.Or(thread, "none"), func(t *testing.T) {
			r := newRig(t, nil)
			p := r.addCodex("%1", 100, newYork(t))
			p.screen = codexScreen(t, "codex-stop-after-esc-80.txt") // the old stop, no menu
			opened := codexReset.Add(50 * time.Minute)
			p.codex.started, p.codex.thread = opened.Add(-5*time.Second), thread
			for _, at := range []time.Time{opened, opened.Add(2 * time.Minute), opened.Add(2*time.Minute + 2*time.Second), opened.Add(3 * time.Hour)} {
				r.atTime(at)
			}
			r.wantKeys(p)
			if row := r.row("%1"); row.State != watcher.Held {
				t.Errorf("row = %+v, want held", row)
			}
		})
	}
}

// A Codex reset is never read in the watcher's own zone (São Paulo here, where the printed
// 10:10 AM would be 13:10Z, two hours early): the daemon's zone unknown but the rollout's
// reset exact; --no-daemon (the embedded server prints in the TUI's zone, not read), with a
// rollout and without; the process's environment unreadable. With the rollout, the resume
// comes at its reset.
func TestUnitCodexResetNeverInTheWatchersZone(t *testing.T) {
	saoPaulo, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name                           string
		daemonZone, noDaemon, noRecord bool
		noRollout                      bool
	}{
		{name: "the daemon's zone unknown, the rollout exact"},
		{name: "no daemon, the rollout exact", daemonZone: true, noDaemon: true},
		{name: "no daemon, no rollout", daemonZone: true, noDaemon: true, noRollout: true},
		{name: "the environment unreadable", daemonZone: true, noRecord: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, func(c *watcher.Config) { c.Zone = saoPaulo })
			var zone *time.Location
			if tc.daemonZone {
				zone = newYork(t)
			}
			p := r.addCodex("%1", 100, zone)
			p.codex.noDaemon, r.tmux.editorUnknown = tc.noDaemon, tc.noRecord
			if tc.noRollout {
				os.RemoveAll(filepath.Join(p.codex.home, "sessions"))
			}
			r.atTime(codexAppeared.Add(time.Second))
			for at := codexAppeared.Add(time.Minute); at.Before(codexReset); at = at.Add(10 * time.Minute) {
				r.atTime(at)
				r.atTime(at.Add(2 * time.Second))
			}
			if len(p.keys) > 0 {
				t.Errorf("keys %q before the reset %s (row %+v)", p.keys, codexReset, r.row("%1"))
			}
			r.atTime(codexReset.Add(10 * time.Second))
			r.atTime(codexReset.Add(12 * time.Second))
			if got := r.row("%1"); strings.HasSuffix(tc.name, "the rollout exact") && !slices.Equal(p.keys, []string{"Escape", "continue", "Enter"}) {
				t.Errorf("after the reset: keys %q (row %+v), want the resume: the rollout's reset stands", p.keys, got)
			}
		})
	}
}

// A Codex session is bound by its process: the binding of its events is accepted for the
// same process, refused for another in the pane.
func TestUnitCodexBindingIsHonoured(t *testing.T) {
	told := &events{}
	r := newRig(t, func(c *watcher.Config) { c.Notify = told })
	p := r.addCodex("%1", 100, newYork(t))
	r.atTime(codexAppeared.Add(time.Second))
	if len(*told) == 0 {
		t.Fatal("no event told")
	}
	binding := (*told)[0].Binding
	if _, why, err := watcher.Bound(context.Background(), r.tmux, r.tmux, "%1", binding); err != nil || why != "" {
		t.Errorf("Bound of the event's own binding = %q, %v; want the pane accepted", why, err)
	}
	p.claude.Start = "ticks:999" // another codex process in the pane
	if _, why, _ := watcher.Bound(context.Background(), r.tmux, r.tmux, "%1", binding); why == "" {
		t.Error("Bound for another process in the pane accepted the binding")
	}
}

// [codex] enabled = false, at start and at a reload while a Codex stop waits: no key, and the
// pane is no longer supervised.
func TestUnitCodexTurnedOff(t *testing.T) {
	off := map[agent.Name]agent.Settings{agent.Codex: {Off: true}}
	for _, reload := range []bool{false, true} {
		t.Run(fmt.Sprint("reload ", reload), func(t *testing.T) {
			r := newRig(t, func(c *watcher.Config) {
				if !reload {
					c.Agents = off
				}
			})
			p := r.addCodex("%1", 100, newYork(t))
			r.atTime(codexAppeared.Add(time.Second))
			if reload {
				if st := r.state("%1"); st != watcher.Waiting {
					t.Fatalf("state = %s, want waiting", st)
				}
				cfg := r.cfg
				cfg.Agents = off
				r.w.Apply(cfg)
			}
			for _, d := range []time.Duration{0, 10 * time.Second, 12 * time.Second, time.Hour} {
				r.atTime(codexReset.Add(d))
			}
			r.wantKeys(p)
			if st := r.state("%1"); st != "" {
				t.Errorf("state = %s, want the pane not supervised", st)
			}
		})
	}
}

// After the reset Codex replaces its rate-limit menu by a notice that closes itself 5 s later
// ("You’re no longer close to your usage limit", one row "› 1. Dismiss"; real 0.171.0): the
// stop waits while it is open, no key sent and no hold, then is resumed with the message alone.
func TestUnitCodexNoticeAfterTheResetIsWaitedOut(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	reset := time.Date(2026, 11, 28, 13, 22, 0, 0, time.UTC) // the captures' "2:22 PM", Berlin's
	r := newRig(t, nil)
	p := r.addCodex("%1", 100, berlin)
	p.codex.rollout = writeRolloutReset(t, p.codex.home, reset)
	p.screen = codexScreen(t, "codex-stop-notice-no-longer-close-120.txt")
	p.codex.resumed = codexScreen(t, "codex-resumed-after-stop-80.txt")
	r.atTime(reset.Add(-time.Minute))
	due := reset.Add(scheduler.Default.ExactMargin)
	r.atTime(due)
	r.atTime(due.Add(2 * time.Second))
	r.wantKeys(p)
	if row := r.row("%1"); row.State != watcher.Waiting || !strings.Contains(row.Note, "until it closes") {
		t.Errorf("while the notice is open: row %+v, want waiting for it to close", row)
	}
	p.draw(codexScreen(t, "codex-stop-notice-dismissed-120.txt"))
	r.atTime(due.Add(5 * time.Second))
	r.wantKeys(p, "continue", "Enter")
	if len(p.codex.harm) > 0 {
		t.Errorf("keys Codex takes for a choice: %q", p.codex.harm)
	}
}

// The notice can take the place of the menu just as Esc closes it: the resume waits for the
// notice to close, then types the message; Esc is never pressed again, nothing is held.
func TestUnitCodexNoticeAfterEsc(t *testing.T) {
	r := newRig(t, nil)
	p := r.addCodex("%1", 100, newYork(t))
	notice := codexScreen(t, "codex-stop-notice-no-longer-close-120.txt")
	notice = strings.Replace(notice, "at 2:22 PM.", "at 10:10 AM.", 1)
	p.codex.afterEsc = notice
	r.atTime(codexAppeared.Add(time.Second))
	due := codexReset.Add(scheduler.Default.ExactMargin)
	r.atTime(due)
	r.atTime(due.Add(2 * time.Second))
	r.atTime(due.Add(4 * time.Second))
	r.wantKeys(p, "Escape")
	if row := r.row("%1"); row.State != watcher.Waiting {
		t.Errorf("under the notice: row %+v, want waiting", row)
	}
	p.draw(strings.Replace(codexScreen(t, "codex-stop-notice-dismissed-120.txt"), "at 2:22 PM.", "at 10:10 AM.", 1))
	r.atTime(due.Add(6 * time.Second))
	r.wantKeys(p, "Escape", "continue", "Enter")
}

// inspect --pane reads a Codex pane's printed reset in its daemon's zone (New York), not the
// zone the caller read it in (UTC here): with the rollout, the exact reset; without, the
// printed time placed right.
func TestRefineCodexInTheDaemonsZone(t *testing.T) {
	for _, rollout := range []bool{true, false} {
		r := newRig(t, nil)
		p := r.addCodex("%1", 100, newYork(t))
		if !rollout {
			os.RemoveAll(filepath.Join(p.codex.home, "sessions"))
		}
		v := detector.DetectCodex(p.screen, detector.Facts{Now: codexAppeared, Zone: time.UTC})
		got, src, _ := watcher.Refine(context.Background(), r.tmux, r.tmux, "%1", v, codexAppeared)
		want := watcher.SourceScreen
		if rollout {
			want = watcher.SourceRollout
		}
		if !got.Reset.At.Equal(codexReset) || src != want {
			t.Errorf("rollout %v: Refine = reset %s (%s), want %s (%s)", rollout, got.Reset.At.UTC(), src, codexReset, want)
		}
	}
}
