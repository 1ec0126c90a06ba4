package accounts

import (
	"context"
	"errors"
	"sync"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/notify"
)

// Auto switches a session that stops to a free account by itself ([accounts] auto): the same
// switch as `cac-tmux switch PANE`, through the same gates and the same bound of max_per_day,
// started when the watcher tells of a stop. It sits among the watcher's notifiers (Send): every
// event goes on to Next unchanged, and a stop (notify.Stopped, notify.Again) of a pane also
// starts a switch of that pane in the background, so that the watcher's tick never waits on
// it (the switch itself waits for that watcher to take the pane's skip).
type Auto struct {
	// Next receives every event.
	Next interface{ Send(notify.Event) }
	// Switch switches the session in pane to the free account (Switch with the watcher's
	// server and settings, To empty).
	Switch func(ctx context.Context, pane string) (Switched, error)
	// Ctx ends the switches under way (the watcher stops); Log says how each one went.
	Ctx context.Context
	Log zerolog.Logger

	wg sync.WaitGroup
}

// Send passes e on, and starts the switch of a stopped pane.
func (a *Auto) Send(e notify.Event) {
	a.Next.Send(e)
	if e.Kind != notify.Stopped && e.Kind != notify.Again || e.Pane == "" || a.Ctx.Err() != nil {
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.run(e.Pane)
	}()
}

// run switches pane and logs the outcome: a refusal (no free account, the bound, a draft …)
// is the normal answer when the session has nowhere to go, at info; a failure at warn.
func (a *Auto) run(pane string) {
	s, err := a.Switch(a.Ctx, pane)
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		a.Log.Info().Str("pane", pane).Str("reason", refused.Reason).Msg("not switched to another account")
	case err != nil:
		a.Log.Warn().Err(err).Str("pane", pane).Msg("switching to another account failed")
	default:
		a.Log.Info().Str("pane", pane).Str("target", s.Pane.Target()).Str("account", s.Account.Name).Str("session", s.Session).
			Int("pid", s.PID).Msg("switched to another account")
	}
}

// Wait returns once every switch started has ended.
func (a *Auto) Wait() { a.wg.Wait() }
