package accounts

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/notify"
)

// Auto switches a session that stops to a free account by itself ([accounts] auto), with the
// gates and max_per_day of `cac-tmux switch`. As one of the watcher's notifiers it passes every
// event on to Next and queues a switch for a stop (notify.Stopped, notify.Again), so the tick
// never waits on a switch. Switches run one at a time in the order the panes stopped, so each
// counts against max_per_day before the next; a pane is queued once, and a switch that finds
// another process's running (errBusy) is tried again when that one ends.
type Auto struct {
	// Next receives every event.
	Next interface{ Send(notify.Event) }
	// Switch switches the session in pane to the free account (Switch with the watcher's
	// server and settings, To empty).
	Switch func(ctx context.Context, pane string) (Switched, error)
	// Clock is the one clock: the wait for another process's switch to end.
	Clock clock.Clock
	// Ctx ends the switches under way and queued (the watcher stops); Log says how each went.
	Ctx context.Context
	Log zerolog.Logger

	mu      sync.Mutex
	queue   []string // the panes to switch, in order; the first is being switched
	working bool     // a goroutine works through the queue
	wg      sync.WaitGroup
}

// AutoOf is next with [accounts] auto on one watcher's server: each session that stops there is
// switched to a free account of dirs by itself, as `cac-tmux switch PANE` would with cfg (the
// server's switch; its Accounts are made here, HOME from cfg.Getenv). restored, when set,
// gives the sessions its state file holds as stopped, queued first: a restarted watcher does
// not tell of them again. Without accounts (HOME is what config could not check) it is next,
// and log says so.
func AutoOf(ctx context.Context, dirs []string, cfg Config, next interface{ Send(notify.Event) }, restored func() ([]string, error), log zerolog.Logger) interface{ Send(notify.Event) } {
	accts, err := Expand(dirs, cfg.Getenv("HOME"))
	if err != nil {
		log.Error().Err(err).Msg("sessions that stop are not switched to another account")
		return next
	}
	cfg.Accounts = accts
	auto := &Auto{Next: next, Ctx: ctx, Log: log, Clock: cfg.Clock, Switch: func(ctx context.Context, pane string) (Switched, error) {
		return Switch(ctx, cfg, Request{Pane: pane, Target: pane})
	}}
	if restored == nil {
		return auto
	}
	panes, err := restored()
	if err != nil { // the watcher reads the same file, and says what is wrong with it
		log.Debug().Err(err).Msg("the stops of the state file are not switched to another account")
	}
	auto.Queue(panes...)
	return auto
}

// busyRetry is how often a switch refused by another process's switch is tried again: a
// switch takes seconds (the copy, the new Claude Code starting).
const busyRetry = 2 * time.Second

// Send passes e on, and queues the switch of a stopped Claude Code pane ("" is Claude Code:
// events of a state file written before there was a second agent).
func (a *Auto) Send(e notify.Event) {
	a.Next.Send(e)
	if (e.Kind == notify.Stopped || e.Kind == notify.Again) && (e.Agent == "" || e.Agent == agent.Claude) {
		a.Queue(e.Pane)
	}
}

// Queue queues the switch of each pane not queued yet, and starts working through the queue
// unless it is under way. It never waits.
func (a *Auto) Queue(panes ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, p := range panes {
		if p != "" && !slices.Contains(a.queue, p) && a.Ctx.Err() == nil {
			a.queue = append(a.queue, p)
		}
	}
	if a.working || len(a.queue) == 0 {
		return
	}
	a.working = true
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.work()
	}()
}

// work switches the queued panes one at a time until the queue is empty or Ctx ends.
func (a *Auto) work() {
	for {
		a.mu.Lock()
		if len(a.queue) == 0 || a.Ctx.Err() != nil {
			a.queue, a.working = nil, false
			a.mu.Unlock()
			return
		}
		pane := a.queue[0]
		a.mu.Unlock()
		a.run(pane)
		a.mu.Lock()
		a.queue = a.queue[1:]
		a.mu.Unlock()
	}
}

// run switches pane, again after busyRetry while another process's switch runs, and logs the
// outcome: a refusal (no free account, the bound, a draft …) is the normal answer when the
// session has nowhere to go, at info; a failure at warn.
func (a *Auto) run(pane string) {
	s, err := a.Switch(a.Ctx, pane)
	for waited := false; errors.Is(err, errBusy); waited = true {
		if !waited {
			a.Log.Info().Str("pane", pane).Err(err).Msg("waiting for another switch to end before switching to another account")
		}
		if a.Clock.Sleep(a.Ctx, busyRetry) != nil {
			return
		}
		s, err = a.Switch(a.Ctx, pane)
	}
	var refused *refusedError
	switch {
	case a.Ctx.Err() != nil:
	case errors.As(err, &refused):
		a.Log.Info().Str("pane", pane).Str("reason", refused.Reason).Msg("not switched to another account")
	case err != nil:
		a.Log.Warn().Err(err).Str("pane", pane).Msg("switching to another account failed")
	default:
		a.Log.Info().Str("pane", pane).Str("target", s.Pane.Target()).Str("account", s.Account.Name).Str("session", s.Session).
			Int("pid", s.PID).Msg("switched to another account")
	}
}

// wait returns once every switch started has ended.
func (a *Auto) wait() { a.wg.Wait() }
