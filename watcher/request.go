package watcher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// Action is what a user asks of one Claude Code session (`cac-tmux resume`, `skip`, the
// popup's r and s).
type Action string

// The actions.
const (
	// ResumeNow resumes the session at once: every gate of SPEC §5 but the reset.
	ResumeNow Action = "resume"
	// Skip leaves the session alone until its next stop.
	Skip Action = "skip"
)

// ParseAction reads an action's name.
func ParseAction(s string) (Action, error) {
	switch a := Action(s); a {
	case ResumeNow, Skip:
		return a, nil
	}
	return "", fmt.Errorf("watcher: parse action %q: not resume or skip", s)
}

// Outcome is the answer to an action: Done when it was carried out, else Message says which
// gate refused it, or (Sent) what the keys a resume sent came to.
type Outcome struct {
	Done    bool
	Sent    bool // keys went out, but the session did not resume
	Message string
}

func refused(format string, a ...any) Outcome { return Outcome{Message: fmt.Sprintf(format, a...)} }

// Do carries out an action on pane id now, and says how it went. The running watcher does it
// for a request handed to it through the pane option @cac_request (Tick); a command does it
// itself, holding the watcher's lock, when no watcher runs. A resume goes through every gate
// of SPEC §5 but the reset and the due instant; it sends one resume at most.
func (w *Watcher) Do(ctx context.Context, id string, a Action) (Outcome, error) {
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
	var out Outcome
	switch a {
	case Skip:
		out = p.skip()
	case ResumeNow:
		if out, err = w.resumeNow(ctx, p, now); err != nil {
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

// resumeNow resumes a stopped session at once, through every gate but the reset.
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
	if w.panes[p.info.ID] != p {
		return refused("the Claude Code process that stopped is no longer in the foreground of pane %s; nothing was typed", p.info.ID), nil
	}
	if p.state != Resuming && p.state != Verifying {
		why := p.note
		if why == "" {
			why = "pane " + p.info.ID + " is " + string(p.state)
		}
		*p = keep // a refused request changes nothing
		return refused("%s", why), nil
	}
	return Outcome{Done: true, Message: "resumed by hand: " + p.info.Target() + ": " + p.note}, nil
}

// answer carries out a request a command left in the pane option @cac_request ("ACTION
// NONCE") and answers it in @cac_reply ("NONCE ok|refused MESSAGE"). The request is
// withdrawn first, so it is carried out once.
func (w *Watcher) answer(ctx context.Context, info tmuxctl.Pane) error {
	if err := w.tmux.SetPaneOptions(ctx, info.ID, []string{tmuxctl.RequestOption}, []string{""}); err != nil {
		return err
	}
	name, nonce, _ := strings.Cut(info.Request, " ")
	out := refused("unknown request %q", name)
	a, err := ParseAction(name)
	if err == nil {
		if out, err = w.Do(ctx, info.ID, a); err != nil {
			out = refused("the watcher failed: %v", err)
		}
	}
	reply := nonce + " refused " + out.Message
	if out.Done {
		reply = nonce + " ok " + out.Message
	}
	w.cfg.Log.Info().Str("pane", info.ID).Str("request", name).Bool("done", out.Done).Str("outcome", out.Message).Msg("request")
	return w.tmux.SetPaneOptions(ctx, info.ID, []string{tmuxctl.ReplyOption}, []string{oneLine(reply)})
}

// Follow acts on pane id until the keys a resume sent have shown their effect (the menu
// closed and the message typed, a resumed turn seen), at most for limit: how a command that
// acts without a watcher reports the outcome.
func (w *Watcher) Follow(ctx context.Context, id string, limit time.Duration) (Outcome, error) {
	deadline := w.now().Add(limit)
	for {
		p := w.panes[id]
		if p == nil {
			return refused("pane %s is gone", id), nil
		}
		if p.state != Resuming && p.state != Verifying {
			w.save()
			if err := w.publish(ctx, p); err != nil {
				return Outcome{}, err
			}
			if p.state == Running {
				return Outcome{Done: true, Message: "resumed: a turn runs in " + p.info.Target()}, nil
			}
			return Outcome{Sent: true, Message: fmt.Sprintf("%s is %s: %s", p.info.Target(), p.state, p.note)}, nil
		}
		if !w.now().Before(deadline) {
			return Outcome{Done: true, Message: "sent; no resumed turn seen yet in " + p.info.Target()}, nil
		}
		if err := w.cfg.Clock.Sleep(ctx, max(p.checkAt.Sub(w.now()), 10*time.Millisecond)); err != nil {
			return Outcome{}, err
		}
		if err := w.act(ctx, p, w.now()); err != nil {
			return Outcome{}, err
		}
	}
}
