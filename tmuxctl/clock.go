package tmuxctl

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

// clock is the time the client's timeouts and redial waits run on: c.Clock, else the real
// clock.
func (c *Client) clock() clock.Clock { return clock.Or(c.Clock) }

// withTimeout is context.WithTimeout on clk's time: the context ends with
// context.DeadlineExceeded when clk has moved on by d, and at once with its parent (as a
// child of context.WithCancel does). On the real clock it is context.WithTimeout itself.
func withTimeout(ctx context.Context, clk clock.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if clk == clock.Real {
		return context.WithTimeout(ctx, d)
	}
	inner, cancel := context.WithCancel(ctx)
	t := &timeoutCtx{Context: inner}
	timer := clk.NewTimer(d)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case <-timer.C():
			t.expired.Store(true) // before the cancel: Err never says Canceled for it
			cancel()
		case <-inner.Done():
		}
		timer.Stop()
	}()
	return t, func() {
		cancel()
		<-ended // the timer is stopped by then: a manual clock counts no stale timer
	}
}

// timeoutCtx is a context.WithCancel child whose Err says DeadlineExceeded when its
// clock's timer ended it. Its Deadline is its parent's: an instant of another clock would
// mean nothing to code that compares it with time.Now.
type timeoutCtx struct {
	context.Context
	expired atomic.Bool
}

func (t *timeoutCtx) Err() error {
	err := t.Context.Err()
	if err != nil && t.expired.Load() {
		return context.DeadlineExceeded
	}
	return err
}
