// Package clocktest is a manual clock for tests: time moves only when the test says so, and
// timers fire when it passes their instant.
package clocktest

import (
	"context"
	"sync"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

// Manual is a clock.Clock whose time moves only by Set and Add. Safe for concurrent use.
type Manual struct {
	// AutoSleep makes Sleep move the clock on by d at once instead of waiting for someone
	// to: for code that sleeps in the test's own goroutine.
	AutoSleep bool

	mu     sync.Mutex
	now    time.Time
	timers []*timer
}

// New returns a manual clock at start.
func New(start time.Time) *Manual { return &Manual{now: start} }

// Now is the clock's current instant.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// Add moves the clock on by d and fires the timers due by then.
func (m *Manual) Add(d time.Duration) { m.Set(m.Now().Add(d)) }

// Set moves the clock to t (which may be earlier: a clock set back) and fires the timers due
// by then.
func (m *Manual) Set(t time.Time) {
	m.mu.Lock()
	m.now = t
	var keep []*timer
	var fire []*timer
	for _, tm := range m.timers {
		if !tm.at.After(t) {
			fire = append(fire, tm)
		} else {
			keep = append(keep, tm)
		}
	}
	m.timers = keep
	m.mu.Unlock()
	for _, tm := range fire {
		tm.c <- t
	}
}

// Timers is how many timers wait to fire: a test can wait for a sleeper to be asleep.
func (m *Manual) Timers() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.timers)
}

// NewTimer returns a timer that fires when the clock reaches now+d.
func (m *Manual) NewTimer(d time.Duration) clock.Timer {
	m.mu.Lock()
	tm := &timer{m: m, at: m.now.Add(d), c: make(chan time.Time, 1)}
	if d <= 0 {
		m.mu.Unlock()
		tm.c <- tm.at
		return tm
	}
	m.timers = append(m.timers, tm)
	m.mu.Unlock()
	return tm
}

// Sleep waits until the clock has moved on by d, or ctx ends; with AutoSleep it moves the
// clock on by d itself.
func (m *Manual) Sleep(ctx context.Context, d time.Duration) error {
	if m.AutoSleep {
		if err := ctx.Err(); err != nil {
			return err
		}
		m.Add(d)
		return nil
	}
	return clock.SleepOn(ctx, m, d)
}

type timer struct {
	m  *Manual
	at time.Time
	c  chan time.Time
}

func (t *timer) C() <-chan time.Time { return t.c }

func (t *timer) Stop() bool {
	t.m.mu.Lock()
	defer t.m.mu.Unlock()
	for i, tm := range t.m.timers {
		if tm == t {
			t.m.timers = append(t.m.timers[:i], t.m.timers[i+1:]...)
			return true
		}
	}
	return false
}
