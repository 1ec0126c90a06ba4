// The settled and the unsettled panes, and when each one is due.
//
// A tick goes over its listing's panes and the unsettled ones only, not every supervised pane
// (a loop over a thousand idle panes costs a cache miss each: docs/costs.md). A calm pane
// (running, nothing published on it, nothing due) stays calm until a listing shows it again,
// for its state changes only when it is looked at; settings reloaded unsettle every pane. Due
// panes are spread over the reset's slots (schedule, cap) and acted on in due order (byDue).

package watcher

import (
	"fmt"
	"iter"
	"slices"

	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// eachUnsettled yields the unsettled panes that are still supervised, dropping the others
// (a pane forgotten since it was unsettled).
func (w *Watcher) eachUnsettled() iter.Seq2[string, *pane] {
	return func(yield func(string, *pane) bool) {
		for id, p := range w.unsettled {
			if w.panes[id] != p {
				delete(w.unsettled, id)
				continue
			}
			if !yield(id, p) {
				return
			}
		}
	}
}

// settle forgets a pane that has become calm. It comes after publish, which has told the
// pane's state (tell) and published its options when it could.
func (w *Watcher) settle(id string, p *pane) {
	if p.state == Running && p.published == (tmuxctl.Options{}) && p.wake().IsZero() {
		delete(w.unsettled, id)
	}
}

// schedule gives every waiting pane its due instant: reset + margin, staggered between panes
// of one account due at the same reset (on every server of its Group), later for panes whose
// own auto-continue goes first. A pane keeps its place in the stagger, and a capped pane its
// cap, until its stop changes.
func (w *Watcher) schedule() {
	var waits []scheduler.Wait
	for id, p := range w.eachUnsettled() {
		if (p.state == Waiting || p.state == Native) && p.retryAt.IsZero() && !p.pressEnter {
			waits = append(waits, scheduler.Wait{Pane: id, Account: p.account(), Reset: p.reset.At, Exact: p.exact(),
				Stopped: p.stopped, Native: p.state == Native, Kept: p.slot})
		}
	}
	for _, s := range w.cfg.Group.schedule(w, w.cfg.Schedule, waits) {
		p := w.panes[s.Pane]
		// A capped pane stays capped for its stop: the panes before it wake and leave the
		// group, which would otherwise bring it under the cap.
		p.due, p.slot = s.Due, s.Slot
		if s.Capped && !p.capped {
			w.cap(p)
		}
	}
}

// cap keeps a pane beyond watch.max_per_reset from waking by itself, and says so on the pane
// and in the log once, rather than show "waiting" with no due instant and no word.
func (w *Watcher) cap(p *pane) {
	p.capped = true
	p.capNote = fmt.Sprintf("not woken by itself: %d panes of its account already wake at this reset (watch.max_per_reset); cac-tmux resume %s wakes it",
		w.cfg.Schedule.MaxPerReset, p.info.ID)
	if p.state == Waiting && p.note == "" {
		p.note = p.capNote
	}
	p.event(w.cfg.Log.Warn()).Str("state", string(p.state)).Int("max_per_reset", w.cfg.Schedule.MaxPerReset).
		Msg("capped: beyond the panes that wake at this reset; it waits for a resume by hand")
}

// byDue returns the panes that may act (those with a due or check instant), earliest first;
// an idle pane is not even sorted.
func (w *Watcher) byDue() []*pane {
	var ps []*pane
	for _, p := range w.eachUnsettled() {
		if !p.wake().IsZero() {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b *pane) int {
		if c := a.wake().Compare(b.wake()); c != 0 {
			return c
		}
		return compareIDs(a.info.ID, b.info.ID)
	})
	return ps
}
