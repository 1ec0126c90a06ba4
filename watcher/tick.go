// The tick: one pass of the loop (list, look, judge, act, tell), and what a failed pass
// does: a server gone is waited for with a backoff, an error is logged once until it changes.

package watcher

import (
	"context"
	"errors"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// maxBackoff bounds the wait between two tries while no tmux server runs on the socket.
const maxBackoff = 10 * time.Second

// gone handles a listing that found no server on the socket: the first time it is logged and
// the sessions are kept as records (a server that comes back with the same processes takes
// them up; a new server never matches them); the next try is after a backoff.
func (w *Watcher) gone(now time.Time, err error) time.Time {
	if w.down == 0 {
		server := w.cfg.Server
		if server == "" {
			server = "the socket"
		}
		w.cfg.Log.Warn().Str("socket", w.cfg.Server).Msg("no tmux server on " + server +
			"; waiting for one to start there (the watcher keeps running). Another server: -L NAME or -S PATH, as tmux takes them")
		w.cfg.Log.Debug().Err(err).Msg("the listing that found no server")
		w.records(w.restore)
		clear(w.panes)
		clear(w.unsettled)
		clear(w.idents)
		w.announced = false
		w.cfg.Group.leave(w) // its waits hold no slot while no server is there
	}
	w.down++
	return now.Add(clock.Backoff(w.cfg.Interval, max(maxBackoff, w.cfg.Interval), w.down))
}

// report logs err under source when it differs from the last one logged there, and logs the
// recovery when a failing source works again.
func (w *Watcher) report(source string, err error) {
	last, failing := w.failing[source]
	switch {
	case err == nil && failing:
		delete(w.failing, source)
		w.cfg.Log.Info().Str("source", source).Msg("working again")
	case err != nil && (!failing || last != err.Error()):
		w.failing[source] = err.Error()
		w.cfg.Log.Error().Err(err).Str("source", source).Msg("failed; retrying every tick")
	}
}

// Tick lists the panes once, looks at the ones that need it, acts on the due ones and
// publishes their state. It returns when it wants to run next.
func (w *Watcher) Tick(ctx context.Context) (time.Time, error) {
	now, start := w.now(), w.cfg.Clock.Now()
	next := now.Add(w.cfg.Interval - w.listed.lead(w.cfg.Interval))
	w.load()
	list, full, err := w.list(ctx, now)
	switch {
	case errors.Is(err, tmuxctl.ErrNoServer):
		return w.gone(now, err), err
	case errors.Is(err, tmuxctl.ErrClosed):
		// The control client was dropped under the listing (the server killed, the client
		// detached): the next tick lists again, by exec until a new client is up, and tells
		// whether the server is gone.
		w.cfg.Log.Debug().Err(err).Msg("listing cut short by the control client's end; listing again next tick")
		return next, nil
	case errors.Is(err, tmuxctl.ErrNoSession):
		// The server has no session: it is being killed (the next tick finds it gone) or kept
		// empty, and has no pane to supervise either way.
		w.cfg.Log.Debug().Err(err).Msg("the server has no session; listing again next tick")
		return next, nil
	case err != nil:
		// A server that does not answer holds no slot of its group: the others' panes wake
		// as if it had none, and its own keep their slots (pane.slot) for its next listing.
		w.cfg.Group.leave(w)
		return next, err
	}
	var errs []error
	if w.down > 0 {
		w.cfg.Log.Info().Int("panes", len(list)).Msg("a tmux server runs on the socket; supervising it")
		w.down = 0
	}
	if !w.announced && w.cfg.PID != 0 && !w.cfg.DryRun {
		if err := w.announce(ctx); err != nil {
			return next, err
		}
	}
	requests, visitErrs := w.visitAll(ctx, list, full, now)
	errs = append(errs, visitErrs...)
	if took := w.cfg.Clock.Now().Sub(start); full {
		w.firstLook(took)
	} else {
		w.listed.looked(took, w.cfg.Interval)
	}
	for _, info := range requests {
		errs = append(errs, w.answer(ctx, info))
	}
	w.schedule()
	for _, p := range w.byDue() {
		if err := w.act(ctx, p, w.now()); err != nil {
			errs = append(errs, err)
		}
	}
	for id, p := range w.eachUnsettled() {
		if err := w.publish(ctx, p); err != nil {
			errs = append(errs, err)
		}
		if t := p.wake(); !t.IsZero() && t.Before(next) {
			next = t
		}
		w.settle(id, p)
	}
	if err := w.pipe(ctx); err != nil {
		errs = append(errs, err)
	}
	w.save()
	return next, errors.Join(errs...)
}
