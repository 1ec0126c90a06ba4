package clocktest_test

import (
	"context"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
)

func TestTimersFireWhenTheClockPassesThem(t *testing.T) {
	m := clocktest.New(time.Unix(100, 0))
	a, b := m.NewTimer(time.Second), m.NewTimer(3*time.Second)
	m.Add(2 * time.Second)
	select {
	case at := <-a.C():
		if !at.Equal(time.Unix(102, 0)) {
			t.Errorf("fired at %v, want the clock's time", at)
		}
	default:
		t.Fatal("a 1s timer did not fire after 2s")
	}
	select {
	case <-b.C():
		t.Fatal("a 3s timer fired after 2s")
	default:
	}
	if !b.Stop() || b.Stop() {
		t.Error("Stop: want true once, then false")
	}
	if m.Timers() != 0 {
		t.Errorf("Timers() = %d after all fired or stopped", m.Timers())
	}
}

func TestSleepHonoursTheContext(t *testing.T) {
	m := clocktest.New(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- m.Sleep(ctx, time.Hour) }()
	for m.Timers() == 0 {
		time.Sleep(time.Millisecond) // until the sleeper's timer exists
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("Sleep = %v, want context.Canceled", err)
	}
	go func() { done <- m.Sleep(context.Background(), time.Minute) }()
	for m.Timers() == 0 {
		time.Sleep(time.Millisecond)
	}
	m.Add(time.Minute)
	if err := <-done; err != nil {
		t.Errorf("Sleep = %v after the clock passed it", err)
	}
}

func TestAutoSleepMovesTheClock(t *testing.T) {
	m := clocktest.New(time.Unix(0, 0))
	m.AutoSleep = true
	if err := m.Sleep(context.Background(), 200*time.Millisecond); err != nil || !m.Now().Equal(time.Unix(0, 200e6)) {
		t.Errorf("Sleep = %v, clock at %v; want nil and 200ms on", err, m.Now())
	}
}
