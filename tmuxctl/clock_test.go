package tmuxctl

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
)

// TestWithTimeoutManual: a timeout on a manual clock ends when the clock passes it, not
// before, and with its parent at once; cancelling it leaves no timer on the clock.
func TestWithTimeoutManual(t *testing.T) {
	clk := clocktest.New(time.Unix(1_000_000, 0))
	bg := context.Background()

	ctx, cancel := withTimeout(bg, clk, time.Second)
	clk.Add(time.Second - time.Nanosecond)
	if err := ctx.Err(); err != nil {
		t.Fatalf("Err() before the timeout = %v", err)
	}
	clk.Add(time.Nanosecond)
	<-ctx.Done() // the clock fired the timer: Done closes (a hang here is the failure)
	if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err() after the timeout = %v, want DeadlineExceeded", err)
	}
	cancel()
	if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Err() after cancel of an expired context = %v, want DeadlineExceeded still", err)
	}

	parent, stop := context.WithCancel(bg)
	stop()
	ctx, cancel = withTimeout(parent, clk, time.Second)
	if err := ctx.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err() under a cancelled parent = %v, want Canceled at once", err)
	}
	cancel()

	parent, stop = context.WithCancel(bg)
	ctx, cancel = withTimeout(parent, clk, time.Second)
	stop()
	if err := ctx.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err() right after the parent's cancel = %v, want Canceled", err)
	}
	cancel()

	ctx, cancel = withTimeout(bg, clk, time.Second)
	cancel()
	if err := ctx.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err() after cancel = %v, want Canceled", err)
	}
	if n := clk.Timers(); n != 0 {
		t.Errorf("%d timers left on the clock after every cancel returned", n)
	}
}
