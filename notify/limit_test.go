package notify

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newLimiter(time.Minute, 2)
	steps := []struct {
		at   time.Duration
		pane string
		kind EventKind
		want verdict
	}{
		{0, "%1", Stopped, allow},
		{59 * time.Second, "%1", Stopped, tooSoon},
		{time.Minute, "%1", Stopped, allow},
		{2 * time.Minute, "%1", Resumed, capped},
		{3 * time.Minute, "%1", Held, stillOver},
		{3 * time.Minute, "%2", Held, allow},
		{time.Hour, "%1", Held, allow}, // the one at 0 left the hour
		{time.Hour + time.Second, "%1", Failed, capped},
		{time.Hour + time.Minute, "%1", Failed, allow}, // the one at 1m left too: a new run
		{time.Hour + 2*time.Minute, "%1", Again, capped},
		// The clock set back by a day: the pane's history is forgotten, not held for a day.
		{-24 * time.Hour, "%1", Again, allow},
	}
	for i, s := range steps {
		if got := l.take(s.pane, s.kind, t0.Add(s.at)); got != s.want {
			t.Errorf("step %d (%s %s at %s): %d, want %d", i, s.pane, s.kind, s.at, got, s.want)
		}
	}
}

func TestLimiterForgets(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newLimiter(time.Minute, 0)
	for i := range 100 {
		l.take(string(rune('a'+i%26))+"x", Stopped, t0.Add(time.Duration(i)*time.Second))
	}
	l.take("%1", Stopped, t0.Add(2*time.Hour))
	if len(l.panes) != 1 {
		t.Errorf("%d panes remembered two hours on, want only the last one", len(l.panes))
	}
	if l.take("%1", Stopped, t0.Add(2*time.Hour+time.Second)) != tooSoon || l.take("%1", Resumed, t0.Add(2*time.Hour+time.Second)) != allow {
		t.Error("with max_per_hour 0, only min_gap applies")
	}
}
