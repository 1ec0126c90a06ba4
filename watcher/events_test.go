package watcher_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// events records what the watcher tells.
type events []notify.Event

func (e *events) Send(ev notify.Event) { *e = append(*e, ev) }

func (e events) kinds() []string {
	var out []string
	for _, ev := range e {
		out = append(out, fmt.Sprintf("%s %s %s", ev.Kind, ev.Pane, ev.Limit))
	}
	return out
}

// sorted are the events of one tick, whose panes are told in no particular order.
func (e events) sorted() []string {
	k := e.kinds()
	slices.Sort(k)
	return k
}

// Each change is told once: a stop, its resume; a hold; a limit that holds again after the
// keys, then a failure; a skip. Nothing while a pane just waits or runs.
func TestUnitEvents(t *testing.T) {
	var got events
	r := newRig(t, func(c *watcher.Config) { c.Notify = &got; c.Schedule.MaxAttempts = 2 })
	a := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	b := r.tmux.add("%2", 101, stopped("7:30pm", "my draft"))
	c := r.tmux.add("%3", 102, idle())
	r.at(0)
	r.at(time.Minute)
	if want := []string{"held %2 session", "stopped %1 session"}; !slices.Equal(got.sorted(), want) {
		t.Fatalf("events = %q, want %q", got.kinds(), want)
	}
	i := slices.IndexFunc(got, func(e notify.Event) bool { return e.Kind == notify.Stopped })
	if e := got[i]; e.Target != "s:0.0" || e.State != "waiting" || !e.Reset.Equal(time.Date(2026, 11, 20, 19, 30, 0, 0, time.UTC)) {
		t.Errorf("stopped event = %+v", e)
	}
	got = nil
	r.at(31 * time.Minute) // %1's keys
	a.draw(resumed("7:30pm"))
	r.at(31*time.Minute + 3*time.Second)
	if want := []string{"resumed %1 session"}; !slices.Equal(got.kinds(), want) {
		t.Errorf("events after the resume = %q, want %q", got.kinds(), want)
	}

	// %3 stops; its limit holds after each try (the same reset comes back), then it fails.
	got = nil
	c.draw(stopped("8:30pm", ""))
	r.at(40 * time.Minute)
	r.tmux.onKey = func(id, key string) {
		if id == "%3" && key == "Enter" {
			c.draw(stopped("8:30pm", "") + "\n❯ continue\n  ⎿ \u00a0You've hit your session limit · resets 8:30pm (UTC)\n" + stopped("8:30pm", ""))
		}
	}
	for m := 91; m < 100; m++ {
		r.at(time.Duration(m) * time.Minute)
	}
	if want := []string{"stopped %3 session", "again %3 session", "failed %3 session"}; !slices.Equal(got.kinds(), want) {
		t.Errorf("events of a limit that holds = %q, want %q", got.kinds(), want)
	}
	got = nil
	if out, err := r.w.Do(t.Context(), "%2", watcher.Skip); err != nil || !out.Done {
		t.Fatalf("skip %%2: %+v, %v", out, err)
	}
	if want := []string{"skipped %2 session"}; !slices.Equal(got.kinds(), want) {
		t.Errorf("events of a skip = %q, want %q", got.kinds(), want)
	}
	r.wantKeys(b) // the draft was never touched
}
