package watcher_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Restarts, crashes and a changing server, on the fake server and a manual clock (the same
// faults on a real server are in scenarios_test.go and cmd/cac-tmux).

// memStore is a state file in memory; full makes Save fail as a full disk does.
type memStore struct {
	recs map[string]store.Pane
	full bool
}

func (m *memStore) Load() (map[string]store.Pane, error) { return maps.Clone(m.recs), nil }
func (m *memStore) Save(r map[string]store.Pane) error {
	if m.full {
		return errors.New("write state.json.tmp: no space left on device")
	}
	m.recs = maps.Clone(r)
	return nil
}

// A state file that cannot be written sends no key: a restart would not know the attempt and
// would send it again, past the bound on attempts. Once it can be
// written again, the resume goes out, counted once.
func TestPersistFullDiskSendsNothing(t *testing.T) {
	st := &memStore{}
	r := newRig(t, withStore(st))
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	m := r.tmux.add("%2", 101, menuStopSecond())
	r.at(0)
	st.full = true
	for i := range 5 {
		r.at(31*time.Minute + time.Duration(i)*5*time.Second)
	}
	r.wantKeys(p)
	r.wantKeys(m)
	if row := r.row("%1"); row.State != watcher.Waiting || !strings.Contains(row.Note, "state file cannot be written") {
		t.Errorf("row with a full disk = %+v, want waiting, saying why nothing is sent", row)
	}
	st.full = false
	r.at(32 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
	if rec := st.recs["%1"]; rec.Attempts != 1 {
		t.Errorf("record after the disk freed = %+v, want attempt 1", rec)
	}
}

func withStore(st watcher.Store) func(*watcher.Config) {
	return func(c *watcher.Config) { c.Store = st }
}

func weekly(at, draft string) string {
	return screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your weekly limit · resets " + at + " (UTC)"}, prompt(draft)...)...)
}

// Every resume is in the state file before its first key reaches the pane.
func TestPersistRecordBeforeKeys(t *testing.T) {
	st := &memStore{}
	r := newRig(t, withStore(st))
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	var seen []store.Pane
	r.tmux.onKey = func(id, key string) { seen = append(seen, st.recs[id]) }
	r.at(0)
	if rec := st.recs["%1"]; rec.State != "waiting" || rec.PID != 100 || rec.Stop == "" || !rec.Due.Equal(t0.Add(31*time.Minute)) {
		t.Errorf("record while waiting = %+v, want waiting, pid 100, the stop, due 19:31", rec)
	}
	r.at(31 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
	for i, rec := range seen {
		if rec.State != "verifying" || rec.Attempts != 1 || !rec.Sent.Equal(t0.Add(31*time.Minute)) || !rec.Typed {
			t.Errorf("record when key %d went out = %+v, want verifying, attempt 1 sent at 19:31, typed", i, rec)
		}
	}
	p.draw(resumed("7:30pm"))
	r.at(31*time.Minute + 3*time.Second)
	if len(st.recs) != 0 {
		t.Errorf("records after the session resumed = %v, want none", st.recs)
	}
}

// A watcher killed right after sending (before it could verify) is replaced: the new one
// looks for the effect and never sends the same resume again at once.
func TestPersistCrashAfterKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		after string // the screen after the keys
		then  []string
		state watcher.State
	}{
		{"resumed", resumed("7:30pm"), nil, watcher.Running},
		{"keys lost", stopped("7:30pm", ""), []string{"continue", "Enter"}, watcher.Verifying},
		{"enter lost", stopped("7:30pm", "continue"), []string{"Enter"}, watcher.Verifying},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &memStore{}
			r := newRig(t, withStore(st))
			p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
			r.at(0)
			r.at(31 * time.Minute)
			r.wantKeys(p, "continue", "Enter")
			p.draw(tc.after)
			r.restart()
			r.at(31*time.Minute + time.Second)
			r.wantKeys(p, "continue", "Enter")
			if tc.state == watcher.Running {
				if got := r.state("%1"); got != watcher.Running {
					t.Errorf("state after restart = %s, want running", got)
				}
				r.at(2 * time.Hour)
				r.wantKeys(p, "continue", "Enter")
				return
			}
			if got := r.state("%1"); got != watcher.Waiting {
				t.Errorf("state after restart = %s, want waiting (for the backoff)", got)
			}
			r.at(31*time.Minute + 30*time.Second) // before the backoff ends
			r.wantKeys(p, "continue", "Enter")
			r.at(31*time.Minute + 31*time.Second)
			r.wantKeys(p, append([]string{"continue", "Enter"}, tc.then...)...)
			if got := r.state("%1"); got != tc.state {
				t.Errorf("state after the second attempt = %s, want %s", got, tc.state)
			}
			if rec := st.recs["%1"]; rec.Attempts != 2 {
				t.Errorf("attempts recorded = %d, want 2", rec.Attempts)
			}
		})
	}
}

// A watcher killed while the pane waits, replaced after the due instant, resumes at its
// first tick, once.
func TestPersistStartedAfterDue(t *testing.T) {
	st := &memStore{}
	r := newRig(t, withStore(st))
	p := r.tmux.add("%1", 100, idle())
	r.at(-time.Hour)
	p.draw(stopped("7:30pm", ""))
	r.at(-time.Hour + 2*time.Second)
	r.restart()
	r.at(70 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
	p.draw(resumed("7:30pm"))
	for _, d := range []time.Duration{70*time.Minute + 3*time.Second, 71 * time.Minute, 3 * time.Hour} {
		r.at(d)
	}
	r.wantKeys(p, "continue", "Enter")
}

// A time-only reset whose message appeared while a watcher looked: its successor uses the
// stored appearance; without it, the appearance is unknown and the conservative rule
// (docs/claude-code.md, Reset times) takes the next 7pm.
func TestPersistKeepsWhenTheStopAppeared(t *testing.T) {
	st := &memStore{}
	r := newRig(t, withStore(st))
	p := r.tmux.add("%1", 100, idle())
	r.at(-4 * time.Hour) // 15:00
	p.draw(weekly("7pm", ""))
	r.at(-4*time.Hour + 2*time.Second)
	if rec := st.recs["%1"]; !rec.Appeared.Equal(t0.Add(-4*time.Hour+2*time.Second)) || !rec.Reset.Equal(t0) {
		t.Fatalf("record = %+v, want appeared 15:00:02 and reset 19:00", rec)
	}

	fresh := newRig(t, nil) // the same screen, no state file
	q := fresh.tmux.add("%1", 100, weekly("7pm", ""))
	fresh.at(2 * time.Hour)
	if rows := fresh.w.Rows(); len(rows) != 1 || !rows[0].Reset.Equal(t0.Add(24*time.Hour)) {
		t.Fatalf("without a state file the reset is %v, want tomorrow 19:00 (the test needs the rules to differ)", rows)
	}
	fresh.wantKeys(q)

	r.restart()
	r.at(2 * time.Hour) // 21:00, after the reset
	r.wantKeys(p, "continue", "Enter")
}

// A pane id that another program (or a new claude) took over never inherits a stored wait.
func TestPersistRecycledPane(t *testing.T) {
	for _, tc := range []struct {
		name   string
		claude int
		screen string
	}{
		{"shell", 0, "$ ls\nnotes.md\n$ \n"},
		{"another claude", 200, stopped("7:30pm", "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &memStore{}
			r := newRig(t, withStore(st))
			p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
			r.at(0)
			r.at(31 * time.Minute)
			r.wantKeys(p, "continue", "Enter")
			// The watcher dies; the pane's program changes meanwhile.
			delete(r.tmux.panes, "%1")
			q := r.tmux.add("%1", tc.claude, tc.screen)
			if tc.claude == 0 {
				q.claude.PID = 0
			}
			r.restart()
			r.at(32 * time.Minute)
			if tc.claude == 0 {
				r.wantKeys(q)
				if len(st.recs) != 0 {
					t.Errorf("records = %v, want the old wait dropped", st.recs)
				}
				return
			}
			// A new session stopped at a reset that passed: resumed as its own first attempt
			// (had it inherited the old record it would be checking the old keys instead).
			r.wantKeys(q, "continue", "Enter")
			if rec := st.recs["%1"]; rec.PID != 200 || rec.Attempts != 1 || !rec.Appeared.IsZero() {
				t.Errorf("record = %+v, want the new session's (pid 200, attempt 1, appearance unknown)", rec)
			}
		})
	}
}

// The tmux server goes away and comes back: the watcher says so once, polls with backoff,
// takes up the new server's panes and announces itself there again.
func TestPersistServerGoneAndBack(t *testing.T) {
	var logs bytes.Buffer
	st := &memStore{}
	r := newRig(t, func(c *watcher.Config) {
		c.Store, c.PID, c.Log, c.Interval = st, 4321, zerolog.New(&logs), 2*time.Second
	})
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	if got := r.tmux.globals[tmuxctl.WatcherOption]; got != "4321" {
		t.Errorf("%s = %q, want the pid", tmuxctl.WatcherOption, got)
	}
	r.tmux.down = true
	delete(r.tmux.globals, tmuxctl.WatcherOption) // died with the server
	var waits []time.Duration
	now := t0.Add(time.Second)
	for range 7 {
		r.clk.Set(now)
		next, err := r.w.Tick(context.Background())
		if !errors.Is(err, tmuxctl.ErrNoServer) {
			t.Fatalf("Tick without a server = %v, want ErrNoServer", err)
		}
		waits = append(waits, next.Sub(now))
		now = next
	}
	want := []time.Duration{2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second, 10 * time.Second}
	if !slices.Equal(waits, want) {
		t.Errorf("waits between tries without a server = %v, want %v", waits, want)
	}
	if n := strings.Count(logs.String(), "no tmux server"); n != 1 {
		t.Errorf("log lines about the missing server = %d, want 1:\n%s", n, logs.String())
	}
	if rec := st.recs["%1"]; rec.State != "waiting" {
		t.Errorf("record while the server is away = %+v, want the wait kept", rec)
	}
	// A new server: pane ids start again, another claude stopped in %1's place.
	r.tmux.down = false
	delete(r.tmux.panes, "%1")
	q := r.tmux.add("%1", 300, stopped("9pm", ""))
	r.at(time.Hour)
	if got := r.tmux.globals[tmuxctl.WatcherOption]; got != "4321" {
		t.Errorf("%s on the new server = %q, want the pid", tmuxctl.WatcherOption, got)
	}
	if rec := st.recs["%1"]; rec.PID != 300 || !rec.Reset.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("record on the new server = %+v, want the new session's (pid 300, reset 21:00)", rec)
	}
	if !strings.Contains(logs.String(), "a tmux server runs on the socket") {
		t.Errorf("log does not say the server is back:\n%s", logs.String())
	}
	r.wantKeys(p)
	r.wantKeys(q)
}

// A server that appears on the socket already claimed by another live watcher (it started
// while this one waited for a server, its lock elsewhere): this watcher sends nothing there and
// Run ends with ErrAnotherWatcher, leaving the other's claim alone.
func TestPersistServerClaimedByAnotherWatcher(t *testing.T) {
	r := newRig(t, func(c *watcher.Config) { c.PID = 4321 })
	p := r.tmux.add("%1", 100, stopped("6:30pm", ""))
	r.tmux.globals[tmuxctl.WatcherOption] = "999"
	r.clk.Set(t0)
	err := r.w.Run(context.Background(), nil)
	if !errors.Is(err, watcher.ErrAnotherWatcher) || !strings.Contains(err.Error(), "999") {
		t.Errorf("Run = %v, want ErrAnotherWatcher naming pid 999", err)
	}
	r.wantKeys(p)
	if got := r.tmux.globals[tmuxctl.WatcherOption]; got != "999" {
		t.Errorf("%s = %q after Run, want the other watcher's claim kept", tmuxctl.WatcherOption, got)
	}
}

// Due instants are wall-clock instants: after a suspend the first tick resumes a pane whose
// due instant passed while asleep, once; a clock set back does not delay a check for the
// effect of keys.
func TestClockJumps(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.clk.Set(t0)
	next, err := r.w.Tick(context.Background())
	if err != nil || next.Sub(t0) != watcher.Defaults.Interval {
		t.Fatalf("Tick() = %v, %v, want the next tick one interval (%s) later", next, err, watcher.Defaults.Interval)
	}
	r.at(3 * time.Hour) // asleep from 19:00 to 22:00
	r.wantKeys(p, "continue", "Enter")
	p.draw(resumed("7:30pm"))
	r.at(2 * time.Hour) // NTP sets the clock back an hour
	if got := r.state("%1"); got != watcher.Running {
		t.Errorf("state after the clock went back = %s, want running (checked at once)", got)
	}
	r.at(5 * time.Hour)
	r.wantKeys(p, "continue", "Enter")
}

// A corrupt state file is set aside with a warning; the watcher starts afresh and writes a
// good one.
func TestCorruptStateFile(t *testing.T) {
	dir := t.TempDir()
	st := store.New(dir, "/tmp/tmux-1/default")
	if err := os.WriteFile(st.Path, []byte("{\"version\":1,\"panes\":{\"%1\":"), 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	r := newRig(t, func(c *watcher.Config) { c.Store, c.Log = st, zerolog.New(&logs) })
	r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	if got := r.state("%1"); got != watcher.Waiting {
		t.Errorf("state = %s, want waiting", got)
	}
	if !strings.Contains(logs.String(), `"level":"warn"`) || !strings.Contains(logs.String(), "set aside") {
		t.Errorf("log has no warning about the state file:\n%s", logs.String())
	}
	recs, err := store.New(dir, "/tmp/tmux-1/default").Load()
	if err != nil || recs["%1"].State != "waiting" {
		t.Errorf("state file after the tick = %v, %v, want the wait", recs, err)
	}
}

// Pane text a user typed or Claude Code printed never reaches the log above debug level,
// the state file or the pane options; at debug level only the stop message is logged.
func TestNoPrivateTextLeaks(t *testing.T) {
	const secret = "sk-ant-PRIVATE-7731"
	for _, level := range []zerolog.Level{zerolog.InfoLevel, zerolog.DebugLevel} {
		var logs bytes.Buffer
		st := &memStore{}
		r := newRig(t, func(c *watcher.Config) { c.Store, c.Log = st, zerolog.New(&logs).Level(level) })
		transcript := []string{"❯ deploy with key " + secret, "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)"}
		draft := r.tmux.add("%1", 100, screen(append(transcript, prompt("and rotate "+secret)...)...))
		plain := r.tmux.add("%2", 200, screen(append(transcript, prompt("")...)...))
		r.at(0)
		r.at(31 * time.Minute)
		r.wantKeys(draft)
		r.wantKeys(plain, "continue", "Enter")
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log at %s contains pane text:\n%s", level, logs.String())
		}
		if level == zerolog.DebugLevel && !strings.Contains(logs.String(), "You've hit your session limit") {
			t.Errorf("the debug log lacks the stop message (the test would not see a leak):\n%s", logs.String())
		}
		if fmt.Sprint(st.recs) == "map[]" || strings.Contains(fmt.Sprintf("%+v", st.recs), secret) {
			t.Errorf("state records = %+v, want records without pane text", st.recs)
		}
		if o := fmt.Sprintf("%+v %+v", draft.info.Options, plain.info.Options); strings.Contains(o, secret) || draft.info.Options.State != "held" {
			t.Errorf("pane options = %s, want held and no pane text", o)
		}
	}
}

// A record whose state is not one this watcher knows (another version wrote it) is not taken
// up: the pane is looked at afresh, and no key goes out on the record's word.
func TestPersistUnknownStateIsNotTakenUp(t *testing.T) {
	var logs bytes.Buffer
	st := &memStore{recs: map[string]store.Pane{"%1": {PID: 100, Start: "ticks:100", State: "resuming-v2", Stop: "x", Attempts: 1, Typed: true}}}
	r := newRig(t, func(c *watcher.Config) { c.Store, c.Log = st, zerolog.New(&logs) })
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	if got := r.state("%1"); got != watcher.Waiting || !strings.Contains(logs.String(), "not taken up") {
		t.Errorf("state = %s, want waiting afresh with a warning:\n%s", got, logs.String())
	}
	r.wantKeys(p)
}

// The state file names each record's agent: a record written for a Claude Code pane says
// claude; one without an agent (written before there was a second) is taken up as Claude
// Code's; one of another agent, or of an agent this version does not know, is not.
func TestPersistAgent(t *testing.T) {
	st := &memStore{}
	r := newRig(t, withStore(st))
	r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	if rec := st.recs["%1"]; rec.Agent != "claude" {
		t.Errorf("record = %+v, want agent claude", rec)
	}
	for _, tc := range []struct {
		agent string
		taken bool
	}{{"", true}, {"claude", true}, {"codex", false}, {"gemini", false}} {
		var logs bytes.Buffer
		rec := store.Pane{PID: 100, Start: "ticks:100", Agent: tc.agent, State: "held", Note: "by hand", Stop: "x", Kind: "session", Sticky: true}
		st := &memStore{recs: map[string]store.Pane{"%1": rec}}
		r := newRig(t, func(c *watcher.Config) { c.Store, c.Log = st, zerolog.New(&logs) })
		r.tmux.add("%1", 100, stopped("7:30pm", ""))
		r.at(0)
		if taken := strings.Contains(logs.String(), "taken up from the state file") && !strings.Contains(logs.String(), "not taken up"); taken != tc.taken {
			t.Errorf("a record of agent %q: taken up %v, want %v:\n%s", tc.agent, taken, tc.taken, logs.String())
		}
	}
}
