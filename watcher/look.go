// The look: each listed pane is visited, the panes that run Claude Code are captured and
// the detector reads their screens.

package watcher

import (
	"context"
	"errors"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// visitAll visits every listed pane and, after a full listing, forgets what it no longer
// shows: closed panes, and stored waits whose session is gone. After a listing of what changed
// (full false) the supervised panes it does not show that are not running are visited with the
// row they had, quiet (tmuxctl.Quiet): a stopped one is still looked at every revisit. It
// returns the panes that carry a request.
func (w *Watcher) visitAll(ctx context.Context, list []tmuxctl.Pane, full bool, now time.Time) (requests []tmuxctl.Pane, errs []error) {
	seen := make(map[string]bool, len(list))
	if full {
		w.latest = time.Time{}
	}
	for _, info := range list {
		seen[info.ID] = true
		if info.WindowActivity.After(w.latest) {
			w.latest = info.WindowActivity
		}
	}
	if !full {
		for id, p := range w.eachUnsettled() {
			// A quiet running session needs no look (needsLook): only the others are visited.
			if !seen[id] && p.state != Running {
				info := p.info
				info.Match = tmuxctl.Quiet
				list = append(list, info)
			}
		}
	}
	ids, fresh := w.prefetch(ctx, list, now, func() ([]identity, []bool) {
		ids := make([]identity, len(list))
		fresh := make([]bool, len(list))
		for i, info := range list {
			ids[i], fresh[i] = w.maybeClaude(ctx, info)
		}
		return ids, fresh
	})
	for i, info := range list {
		if err := w.visitAs(ctx, info, ids[i], fresh[i], now); err != nil {
			errs = append(errs, err)
		}
		if info.Request != "" && !w.cfg.DryRun {
			requests = append(requests, info)
		}
		if p := w.panes[info.ID]; p != nil {
			w.unsettled[info.ID] = p // looked at, or about to be answered: settled again at the end of the tick
		}
	}
	clear(w.screens) // a later look (before keys, for a request) captures afresh
	if !full {
		return requests, errs
	}
	for id := range w.restore {
		// The session of the record no longer runs in its pane (closed, or another program).
		w.cfg.Log.Debug().Str("pane", id).Msg("a stored wait whose session is gone; dropped")
		delete(w.restore, id)
	}
	for id := range w.panes {
		if !seen[id] {
			w.cfg.Log.Debug().Str("pane", id).Msg("pane closed; forgotten")
			delete(w.panes, id)
		}
	}
	for id := range w.idents {
		if !seen[id] {
			delete(w.idents, id)
		}
	}
	return requests, errs
}

// visit identifies one listed pane and looks at it when it needs a look.
func (w *Watcher) visit(ctx context.Context, info tmuxctl.Pane, now time.Time) error {
	id, fresh := w.maybeClaude(ctx, info)
	return w.visitAs(ctx, info, id, fresh, now)
}

// visitAs is visit of a pane whose identity maybeClaude has just given (fresh: asked of the
// process table).
func (w *Watcher) visitAs(ctx context.Context, info tmuxctl.Pane, id identity, fresh bool, now time.Time) error {
	if why := w.outOfScope(info); why != "" {
		return w.leave(ctx, info, why)
	}
	p := w.panes[info.ID]
	if !id.ok {
		return w.notClaude(ctx, info)
	}
	if p != nil {
		p.info = info
		// A fresh answer naming another process is a new session: look at it now.
		renewed := fresh && (p.Identity != id.Identity || p.unknown != id.unknown)
		if !renewed && !p.needsLook(now) {
			return nil
		}
	}
	// A look: confirm the process first, so a pane id reused by a new claude starts afresh.
	if !fresh {
		if id, _ = w.identify(ctx, info); !id.ok {
			return w.notClaude(ctx, info)
		}
	}
	if p == nil || p.Identity != id.Identity || p.unknown != id.unknown {
		if p != nil {
			w.cfg.Log.Info().Str("pane", info.ID).Str("target", info.Target()).Msg("a new claude session in the pane")
		}
		p = newPane(info, id, w.cfg.Schedule, w.cfg.Policy)
		w.panes[info.ID], w.unsettled[info.ID] = p, p
		w.cfg.Log.Info().Str("pane", info.ID).Str("target", info.Target()).Int("pid", id.PID).Str("how", id.how).Msg("supervising claude")
		if r, ok := w.restore[info.ID]; ok {
			delete(w.restore, info.ID)
			if !id.unknown && r.PID == id.PID && r.Start == id.Start {
				if err := p.restore(r); err != nil {
					p.event(w.cfg.Log.Warn()).Err(err).Msg("a stored wait not taken up; the pane is looked at afresh")
					return w.look(ctx, p, now)
				}
				p.event(w.cfg.Log.Info()).Str("state", r.State).Int("attempts", r.Attempts).Msg("taken up from the state file")
				if p.state == Resuming || p.state == Verifying {
					// Keys went out (or were about to) before the last watcher ended: look
					// for their effect now; they are never sent twice.
					p.checkAt = now
					return nil
				}
			}
		}
	}
	return w.look(ctx, p, now)
}

// notClaude forgets a pane where Claude Code does not run, and clears the options that say it is
// supervised: this watcher's, from a look before, or an earlier watcher's or session's. Left
// set, `list` and the popup would show the pane waiting until some output lists it again: on
// tmux 3.8, where a tick with no output lists nothing, for good.
func (w *Watcher) notClaude(ctx context.Context, info tmuxctl.Pane) error {
	supervised := w.panes[info.ID] != nil
	if supervised {
		w.cfg.Log.Info().Str("pane", info.ID).Str("target", info.Target()).Msg("claude no longer runs in the pane")
		delete(w.panes, info.ID)
	}
	// info may be a row listed before this watcher set the options: a pane it supervised is
	// cleared whatever the row says.
	if (!supervised && info.Options == (tmuxctl.Options{})) || w.cfg.DryRun {
		return nil
	}
	err := w.tmux.SetPaneOptions(ctx, info.ID, tmuxctl.OptionNames, tmuxctl.Options{}.Values())
	if errors.Is(err, tmuxctl.ErrNoTarget) {
		return nil // closed since: nothing to clear
	}
	return err
}

// look captures a pane, runs the detector and moves its state machine.
func (w *Watcher) look(ctx context.Context, p *pane, now time.Time) error {
	screen, v, ok, err := w.read(ctx, p, now)
	if !ok {
		return err
	}
	if v.Limited && v.Message != p.stop {
		// A stop the pane is not waiting on: it appeared since the last look, or is already
		// on screen at the first look (appearance unknown: docs/claude-code.md, Reset times).
		appeared := now
		if p.looks == 1 {
			appeared = time.Time{}
		}
		w.recordsOf(ctx, p) // they say the zone of a reset printed without one (zone)
		v = w.detect(p, screen, now, appeared)
		p.newStop(v, appeared, now)
	}
	if v.Limited {
		w.consult(ctx, p)
	}
	p.observe(v, now, w.message(p), w.cfg.Log)
	return nil
}

// read captures the pane's screen and runs the detector with the appearance instant of the
// stop the pane is handling. ok is false when the screen could not be read; a pane that is
// gone is forgotten without an error.
func (w *Watcher) read(ctx context.Context, p *pane, now time.Time) (text string, v detector.Verdict, ok bool, err error) {
	a := p.program()
	s, ok := w.screens[p.info.ID]
	delete(w.screens, p.info.ID)
	if !ok || s.styled != a.Styled {
		s.taken = w.cfg.Wall.Now()
		s.text, s.err = w.capture(ctx, p.info.ID, a)
	}
	if errors.Is(s.err, tmuxctl.ErrNoTarget) {
		delete(w.panes, p.info.ID)
		return "", v, false, nil
	}
	if s.err != nil {
		return "", v, false, s.err
	}
	v = w.detect(p, s.text, now, p.appeared)
	// tmux stamps window_activity with the system clock: lookedReal is read from it too, just
	// before the capture, so that activity in the second of the capture counts as a change.
	p.lookedReal = s.taken
	return s.text, v, true, nil
}

// detect runs the detector on a pane's screen with the given appearance instant of its stop
// and records the look.
func (w *Watcher) detect(p *pane, screen string, now, appeared time.Time) detector.Verdict {
	v := p.program().Detect(screen, detector.Facts{Now: now, Appeared: appeared, Zone: w.zone(p)})
	// A change the looks did not catch (a key typed and deleted between two) still shows as
	// window activity: either starts the count of policy.untouched_after again.
	if d := digest(screen); d != p.shown || p.active() {
		p.shown, p.shownSince = d, now
	}
	p.lookedAt, p.activity, p.match = now, p.info.WindowActivity, p.info.Match
	p.looks++
	return v
}

// capture captures a pane's screen as its agent's screen reads (styled or not).
func (w *Watcher) capture(ctx context.Context, id string, a agent.Agent) (string, error) {
	if a.Styled {
		return w.tmux.CaptureStyled(ctx, id)
	}
	return w.tmux.Capture(ctx, id)
}

// zone is the zone the pane's agent prints a reset without a zone in: its records' (Codex's
// daemon's), else the host's.
func (w *Watcher) zone(p *pane) *time.Location {
	if p.recs.s != nil {
		if z := p.recs.s.Zone(); z != nil {
			return z
		}
	}
	return w.cfg.Zone
}
