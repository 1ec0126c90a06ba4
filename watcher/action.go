package watcher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/printable"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// What an action does to a session: the watcher's own code, whether the running watcher
// carries out a request (answer) or a command acts itself without one (Ask, actHere).

// do carries out an action on pane id now, and says how it went. The running watcher does it
// for a request handed to it through the pane option @cac_request (answer); a command does it
// itself through Ask, holding the watcher's lock, when no watcher runs (actHere). A resume
// goes through every gate of SAFETY.md but the reset and the due instant; it sends one resume
// at most. text is a Prompt's prompt ("" for the other actions).
func (w *Watcher) do(ctx context.Context, id string, a Action, text, binding string) (Outcome, error) {
	now := w.now()
	w.load()
	info, err := w.tmux.PaneInfo(ctx, id)
	if errors.Is(err, tmuxctl.ErrNoTarget) {
		return refused("there is no pane %s", id), nil
	}
	if err != nil {
		return Outcome{}, err
	}
	if err := w.visit(ctx, info, now); err != nil {
		return Outcome{}, err
	}
	p := w.panes[id]
	if p == nil {
		return refused("pane %s does not run Claude Code", id), nil
	}
	if p.state != Resuming && p.state != Verifying && !p.lookedAt.Equal(now) { // visit may have looked just now
		if err := w.look(ctx, p, now); err != nil || w.panes[id] != p {
			return refused("pane %s is gone", id), err
		}
	}
	if binding != "" {
		_, why, err := Bound(ctx, w.tmux, w.finder, id, binding)
		switch {
		case err != nil:
			return Outcome{}, err
		case why != "":
			return refused("%s; nothing was done", why), nil
		}
	}
	var out Outcome
	switch a {
	case Skip:
		out = p.skip()
	case Handover:
		out = p.handover()
	case Unskip:
		if out, err = w.unskip(ctx, p, now); err != nil {
			return out, err
		}
	case ResumeNow:
		if out, err = w.resumeNow(ctx, p, now); err != nil {
			return out, err
		}
	case Prompt:
		if out, err = w.prompt(ctx, p, text); err != nil {
			return out, err
		}
	}
	err = w.publish(ctx, p)
	w.save()
	return out, err
}

// skip marks a stopped session skipped: nothing is typed until its next stop.
func (p *pane) skip() Outcome {
	if !p.state.Paused() {
		return refused("pane %s is not stopped at a limit; there is nothing to skip", p.info.ID)
	}
	p.set(Skipped, "skipped by hand: left alone until its next stop")
	p.retryAt, p.manual = time.Time{}, false
	return Outcome{Done: true, Message: "skipped: " + p.info.Target() + " is left alone until its next stop"}
}

// handover is the skip of an automatic switch: refused once a person typed at the stop.
func (p *pane) handover() Outcome {
	if p.person {
		return refused("a person typed at pane %s after the stop; it is left to them (cac-tmux switch %s does it by hand)", p.info.ID, p.info.ID)
	}
	return p.skip()
}

// unskip takes back the skip of a stopped session: it is classified afresh from its screen
// and waits for its reset again, as it would have without the skip. What the skip did not
// clear stays: the attempts already made for this stop (the next one after the backoff, or
// failed when they are used up) and a hold that sticks. A session that is not skipped (it ran
// again, or stopped again, which ends the skip) is refused and left as it is.
func (w *Watcher) unskip(ctx context.Context, p *pane, now time.Time) (Outcome, error) {
	if p.state != Skipped {
		return refused("pane %s is not skipped (it is %s); there is nothing to unskip", p.info.ID, p.state), nil
	}
	p.state = Limited // classify decides afresh
	switch {
	case p.sticky:
		p.set(Held, "the keys sent for this stop were not taken; nothing more is typed until the stop changes (resume by hand)")
	case p.attempts > 0:
		p.retry(now, "the limit still holds after "+printable.Count(p.attempts, "attempt"))
	}
	if err := w.look(ctx, p, now); err != nil {
		return Outcome{}, err
	}
	if w.panes[p.info.ID] != p {
		return refused("pane %s is gone", p.info.ID), nil
	}
	w.schedule()
	msg := "unskipped: " + p.info.Target() + " is " + string(p.state)
	if p.note != "" {
		msg += ": " + p.note
	}
	if d := p.dueAt(); !d.IsZero() && p.retryAt.IsZero() {
		msg += "; due " + When(d, time.TimeOnly, now.Local())
	}
	return Outcome{Done: true, Message: msg}, nil
}

// resumeNow resumes a stopped session at once, through every gate but the reset. Once keys
// went out the outcome is Done and Pending while their effect is looked for, else what the
// pane came to (outcome); when none went out, the pane is as it was.
func (w *Watcher) resumeNow(ctx context.Context, p *pane, now time.Time) (Outcome, error) {
	switch {
	case !p.state.Paused():
		return refused("pane %s is not stopped at a limit (a turn runs or ran after the stop); nothing to resume", p.info.ID), nil
	case p.state == Unwaitable:
		return refused("%s", p.note), nil
	case p.state == Resuming || p.state == Verifying:
		return refused("keys already went out for this stop; the watcher is looking for their effect"), nil
	}
	keep := *p
	if p.state == Failed || p.state == Skipped || p.state == Held {
		p.state = Limited // classify decides afresh
	}
	p.attempts, p.sticky, p.manual, p.retryAt = 0, false, true, now
	if err := w.resume(ctx, p, now); err != nil {
		return Outcome{}, err
	}
	// send counts an attempt before its keys, and presses a menu's digit as resuming.
	sent := p.attempts > 0 || p.state == Resuming
	switch {
	case sent:
		return w.outcome(p.info.ID, p, false), nil
	case w.panes[p.info.ID] != p:
		return refused("the Claude Code process that stopped is no longer in the foreground of pane %s; nothing was typed", p.info.ID), nil
	}
	why := p.note
	if why == "" {
		why = "pane " + p.info.ID + " is " + string(p.state)
	}
	*p = keep // a refused request changes nothing
	return refused("%s", why), nil
}

// outcome is where a resume whose keys went to session p in pane id stands: its keys'
// effect not seen yet (Done, Pending), resumed (a turn runs), or not (Sent, Held when the pane
// is held). A session no longer in the pane (p nil, or another one there) did not resume.
// Without promise the note leaves out the next attempt's time (no watcher will make it).
func (w *Watcher) outcome(id string, p *pane, promise bool) Outcome {
	switch {
	case p == nil || w.panes[id] != p:
		return Outcome{Sent: true, Message: "the claude session that was sent the keys no longer runs in pane " + id + "; nothing more is typed there"}
	case p.state == Resuming:
		return Outcome{Done: true, Pending: true, Message: p.note + " in " + p.info.Target()}
	case p.state == Verifying:
		return Outcome{Done: true, Pending: true, Message: "keys sent to " + p.info.Target() + "; looking for a resumed turn"}
	case p.state == Running:
		return Outcome{Done: true, Message: "resumed: a turn runs in " + p.info.Target()}
	}
	note := p.note
	if !promise && !p.retryAt.IsZero() {
		if i := strings.LastIndex(note, "; next attempt "); i >= 0 {
			note = note[:i]
		}
	}
	return Outcome{Sent: true, Held: p.state == Held, Message: p.info.Target() + " is " + string(p.state) + ": " + note}
}

// follow acts on pane id until the keys a resume sent have shown their effect (the menu
// closed and the message typed, a resumed turn seen), at most for limit: how a command that
// acts without a watcher reports the outcome (actHere). No watcher will make another attempt,
// so none is promised; keys whose effect is not seen in time did not resume the session, as
// far as anyone will know.
func (w *Watcher) follow(ctx context.Context, id string, limit time.Duration) (Outcome, error) {
	deadline := w.now().Add(limit)
	p := w.panes[id]
	for {
		out := w.outcome(id, p, false)
		late := !w.now().Before(deadline)
		if !out.Pending || late {
			if w.panes[id] == p && p != nil {
				w.save()
				if err := w.publish(ctx, p); err != nil {
					return Outcome{}, err
				}
			}
			if out.Pending {
				return Outcome{Sent: true, Message: fmt.Sprintf("keys sent to %s; no resumed turn seen within %s", p.info.Target(), limit)}, nil
			}
			return out, nil
		}
		if err := w.cfg.Clock.Sleep(ctx, max(p.checkAt.Sub(w.now()), 10*time.Millisecond)); err != nil {
			return Outcome{}, err
		}
		if err := w.act(ctx, p, w.now()); err != nil {
			return Outcome{}, err
		}
	}
}
