package clock_test

import (
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

func TestBackoffDoublesUpToItsBound(t *testing.T) {
	want := []time.Duration{time.Second, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for n, w := range want {
		if got := clock.Backoff(time.Second, 10*time.Second, n); got != w {
			t.Errorf("Backoff(1s, 10s, %d) = %s, want %s", n, got, w)
		}
	}
	if got := clock.Backoff(time.Minute, 10*time.Second, 3); got != 10*time.Second {
		t.Errorf("Backoff(1m, 10s, 3) = %s, want the bound 10s", got)
	}
	if got := clock.Backoff(time.Second, time.Hour, 1000); got != time.Hour {
		t.Errorf("Backoff(1s, 1h, 1000) = %s, want the bound 1h", got)
	}
}
