package tmuxctl

import (
	"context"
	"sync"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

// clock is the time the client's timeouts and redial waits run on: c.Clock, else the real
// clock.
func (c *Client) clock() clock.Clock {
	if c.Clock == nil {
		return clock.Real
	}
	return c.Clock
}

// withTimeout is context.WithTimeout on clk's time: the context ends with
// context.DeadlineExceeded when clk has moved on by d. On the real clock it is
// context.WithTimeout itself.
func withTimeout(ctx context.Context, clk clock.Clock, d time.Duration) (context.Context, context.CancelFunc) {
	if clk == clock.Real {
		return context.WithTimeout(ctx, d)
	}
	t := &timeoutCtx{Context: ctx, done: make(chan struct{}), stop: make(chan struct{})}
	timer := clk.NewTimer(d)
	go func() {
		var err error
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-timer.C():
			err = context.DeadlineExceeded
		case <-t.stop:
			err = context.Canceled
		}
		timer.Stop()
		t.end(err)
	}()
	var once sync.Once
	return t, func() {
		once.Do(func() { close(t.stop) })
		<-t.done // the timer is stopped by then: a manual clock counts no stale timer
	}
}

// timeoutCtx is a context ended by a timer of any clock. Its Deadline is its parent's: an
// instant of another clock would mean nothing to code that compares it with time.Now.
type timeoutCtx struct {
	context.Context // the parent: Value and Deadline
	done, stop      chan struct{}
	mu              sync.Mutex
	err             error
}

func (t *timeoutCtx) end(err error) {
	t.mu.Lock()
	t.err = err
	t.mu.Unlock()
	close(t.done)
}

func (t *timeoutCtx) Done() <-chan struct{} { return t.done }

func (t *timeoutCtx) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
