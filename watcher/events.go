package watcher

import (
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/notify"
)

// Notifier receives the events of the supervised panes (notify.Notifier implements it). Send
// must not block.
type Notifier interface {
	Send(notify.Event)
}

// told is what the pane's last event said, so that each change is told once.
type told struct {
	state State
	again int           // p.again when last told
	kind  detector.Kind // the kind of the last stop told, for the resume's event
}

// eventOf is the event a change of state from prev to now is, "" for none: a stop (running
// to a paused state), a resume (back to running), a hold, a failure, a skip. A change between
// two paused states (waiting to verifying, held to waiting) is no event.
func eventOf(prev, now State) notify.EventKind {
	switch {
	case prev == now:
		return ""
	case now == Running:
		return notify.Resumed
	case now == Held:
		return notify.Held
	case now == Failed:
		return notify.Failed
	case now == Skipped:
		return notify.Skipped
	case prev == Running:
		return notify.Stopped
	}
	return ""
}

// tell sends the pane's event, if its state changed since it was last told, or its limit was
// found to hold again after the keys. Nothing is told in a dry run, nor a hold that the
// policy "never" asked for (it is meant to be silent).
func (w *Watcher) tell(p *pane) {
	kind := eventOf(p.told.state, p.state)
	if kind == "" && p.again > p.told.again {
		kind = notify.Again
	}
	limit := p.kind
	if p.state == Running {
		limit = p.told.kind
	}
	p.told = told{p.state, p.again, limit}
	if kind == "" || w.cfg.Notify == nil || w.cfg.DryRun || kind == notify.Held && p.silent {
		return
	}
	e := notify.Event{Kind: kind, Pane: p.info.ID, Target: p.info.Target(), Agent: p.agent, Limit: string(limit), State: string(p.state), Note: p.note, At: w.now(),
		Binding: p.binding()}
	if p.reset.Known {
		e.Reset = p.reset.At
	}
	w.cfg.Notify.Send(e)
}
