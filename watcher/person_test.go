package watcher_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/watcher"
)

// A person who typed at a stopped pane is at the keyboard: the stop is theirs. Unit tests on
// the fake server and a manual clock (t0 is 19:00, the reset 19:30, due 19:31).

// typeThenClear has a person type a draft into pane p, stopped at 19:30, seen at t0+typed, and
// delete it, seen at t0+cleared.
func (r *rig) typeThenClear(p *fakePane, typed, cleared time.Duration) {
	r.t.Helper()
	p.draw(stopped("7:30pm", "a draft"))
	r.at(typed)
	p.draw(stopped("7:30pm", ""))
	r.at(cleared)
}

// The draft cleared is no invitation: no key at the reset or hours later, until the person
// resumes by hand; then one resume.
func TestUnitClearedDraftStaysHeld(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.typeThenClear(p, time.Minute, time.Minute+time.Second)
	for _, d := range []time.Duration{31 * time.Minute, 2 * time.Hour} {
		r.at(d)
	}
	r.wantKeys(p)
	row := r.row("%1")
	if row.State != watcher.Held || !strings.Contains(row.Note, "a person typed here") || !strings.Contains(row.Note, "resume by hand") {
		t.Fatalf("row after the draft was cleared = %+v, want held, naming the person and the way to resume", row)
	}
	if out := r.do("%1", watcher.ResumeNow); !out.Done {
		t.Fatalf("Do(resume) = %+v, want done", out)
	}
	r.wantKeys(p, "continue", "Enter")
}

// The person's own prompt ends the stop: the pane runs, and a later stop starts afresh.
func TestUnitPersonsOwnTurnEndsTheHold(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	p.draw(stopped("7:30pm", "one more thing"))
	r.at(time.Minute)
	p.draw(resumed("7:30pm"))
	r.at(32 * time.Minute)
	if got := r.state("%1"); got != watcher.Running {
		t.Fatalf("state after the person's turn = %s, want running", got)
	}
	p.draw(stopped("9:30pm", ""))
	r.at(33 * time.Minute)
	if got := r.state("%1"); got != watcher.Waiting {
		t.Errorf("state at a new stop = %s, want waiting (the person typed at the old one)", got)
	}
	r.wantKeys(p)
}

// With policy.untouched_after, a cleared box is resumed by itself, but only once the screen
// has been unchanged that long: a draft typed again restarts the count, and so does a key
// typed and deleted between two looks (the same screen, but window activity).
func TestUnitUntouchedAfterResumesAClearedBox(t *testing.T) {
	r := newRig(t, func(c *watcher.Config) { c.Policy.UntouchedAfter = 10 * time.Minute })
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.typeThenClear(p, 25*time.Minute, 28*time.Minute) // released at 19:38 at the earliest
	r.at(31 * time.Minute)                             // due, but not released
	r.wantKeys(p)
	if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, "19:38:00") {
		t.Fatalf("row = %+v, want held until 19:38:00", row)
	}
	r.typeThenClear(p, 35*time.Minute, 36*time.Minute) // released at 19:46
	r.at(38 * time.Minute)
	p.draw(stopped("7:30pm", "")) // typed and deleted unseen: released at 19:50
	for _, d := range []time.Duration{40 * time.Minute, 46 * time.Minute, 49*time.Minute + 59*time.Second} {
		r.at(d)
	}
	r.wantKeys(p)
	r.at(50 * time.Minute)
	r.at(50*time.Minute + time.Second)
	r.wantKeys(p, "continue", "Enter")
}

// The person's mark is kept in the state file: a watcher started again does not take the
// cleared box for an invitation either.
func TestUnitPersonSurvivesARestart(t *testing.T) {
	st := &memStore{}
	r := newRig(t, withStore(st))
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.typeThenClear(p, time.Minute, 2*time.Minute)
	r.restart()
	for _, d := range []time.Duration{3 * time.Minute, 31 * time.Minute, 2 * time.Hour} {
		r.at(d)
	}
	r.wantKeys(p)
	if got := r.state("%1"); got != watcher.Held {
		t.Errorf("state after a restart = %s, want held", got)
	}
}

// The automatic switch's skip (Handover) is refused once a person typed at the stop: a
// respawn would end their session under them. Before that, it is a skip.
func TestUnitHandoverLeavesAPersonsStop(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	q := r.tmux.add("%2", 200, stopped("7:30pm", ""))
	r.at(0)
	r.typeThenClear(p, time.Minute, 2*time.Minute)
	if out := r.do("%1", watcher.Handover); out.Done || !strings.Contains(out.Message, "a person typed") {
		t.Errorf("Do(handover) of a person's stop = %+v, want refused", out)
	}
	if got := r.state("%1"); got != watcher.Held {
		t.Errorf("state after the refused handover = %s, want held", got)
	}
	if out := r.do("%2", watcher.Handover); !out.Done || r.state("%2") != watcher.Skipped {
		t.Errorf("Do(handover) of an unattended stop = %+v (state %s), want skipped", out, r.state("%2"))
	}
	r.wantKeys(p)
	r.wantKeys(q)
}
