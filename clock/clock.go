// Package clock is cac-tmux's one clock. Code that reads the time, waits or sleeps takes a
// Clock; Real is the only place that calls the time package's clock functions, and
// clocktest.Manual (internal/clocktest) stands in for it in tests.
package clock

import (
	"context"
	"time"
)

// Clock tells the time and waits.
type Clock interface {
	// Now is the current instant.
	Now() time.Time
	// NewTimer returns a timer that fires once after d.
	NewTimer(d time.Duration) Timer
	// Sleep waits d, or until ctx ends (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
}

// Timer fires once on C, unless stopped first.
type Timer interface {
	C() <-chan time.Time
	// Stop prevents the timer from firing; false when it already fired or was stopped.
	Stop() bool
}

// Real is the system clock.
var Real Clock = real{}

// Or is c, or Real when c is nil: the default of every Clock field left unset.
func Or(c Clock) Clock {
	if c == nil {
		return Real
	}
	return c
}

type real struct{}

func (real) Now() time.Time { return time.Now() }

func (real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

func (real) Sleep(ctx context.Context, d time.Duration) error { return SleepOn(ctx, Real, d) }

type realTimer struct{ t *time.Timer }

func (t realTimer) C() <-chan time.Time { return t.t.C }
func (t realTimer) Stop() bool          { return t.t.Stop() }

// Backoff is the wait before the try after n failed ones: base after the first, then doubled
// with each further failure, never more than most (base 1 s, most 10 s: 1, 2, 4, 8, 10, 10 s).
func Backoff(base, most time.Duration, n int) time.Duration {
	wait := base
	for i := 1; i < n && wait < most; i++ {
		wait *= 2
	}
	return min(wait, most)
}

// SleepOn waits d on c's timers, or until ctx ends (then it returns ctx's error). Clocks
// implement Sleep with it.
func SleepOn(ctx context.Context, c Clock, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C():
		return nil
	}
}
