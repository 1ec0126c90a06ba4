package scheduler

import (
	"reflect"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 0, 50, 0, 0, time.UTC)

func TestDue(t *testing.T) {
	c := Default
	for _, tc := range []struct {
		exact, native bool
		want          time.Time
	}{
		{false, false, t0.Add(time.Minute)},
		{false, true, t0.Add(4 * time.Minute)},
		{true, false, t0.Add(5 * time.Second)},
		{true, true, t0.Add(3*time.Minute + 5*time.Second)},
	} {
		if got := c.Due(t0, tc.exact, tc.native); !got.Equal(tc.want) {
			t.Errorf("Due(%v, exact=%v, native=%v) = %v, want %v", t0, tc.exact, tc.native, got, tc.want)
		}
	}
}

func TestSchedule(t *testing.T) {
	c := Default
	c.MaxPerReset = 3
	waits := []Wait{
		{Pane: "%4", Reset: t0, Stopped: t0.Add(-3 * time.Hour)},
		{Pane: "%2", Reset: t0.Add(20 * time.Second), Stopped: t0.Add(-4 * time.Hour)}, // same limit, printed a minute apart
		{Pane: "%9", Reset: t0.Add(2 * time.Hour), Stopped: t0.Add(-time.Hour)},        // another limit
		{Pane: "%1", Reset: t0, Stopped: t0.Add(-2 * time.Hour), Native: true},
		{Pane: "%7", Reset: t0, Stopped: t0.Add(-1 * time.Hour)},
	}
	got := c.Schedule(waits)
	due := t0.Add(time.Minute)
	want := []Slot{
		{Pane: "%4", Due: due, Slot: due},                                                           // first stopped
		{Pane: "%7", Due: due.Add(10 * time.Second), Slot: due.Add(10 * time.Second)},               // third in the group (%1 is second but native)
		{Pane: "%2", Due: due.Add(20 * time.Second), Slot: due.Add(15 * time.Second), Capped: true}, // slot +15 s, but never before its own reset+margin
		{Pane: "%1", Due: t0.Add(4 * time.Minute), Slot: due.Add(5 * time.Second)},                  // auto-continue armed: after the grace
		{Pane: "%9", Due: t0.Add(2*time.Hour + time.Minute), Slot: t0.Add(2*time.Hour + time.Minute)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Schedule(%+v) =\n%+v\nwant\n%+v", waits, got, want)
	}
}

// A pane keeps its slot: when the first panes of a group have woken and left it, the others
// are not moved up (the stagger does not collapse), and a pane that joins comes after them.
func TestScheduleKeepsSlots(t *testing.T) {
	c := Default
	due := t0.Add(time.Minute)
	first := c.Schedule([]Wait{
		{Pane: "%1", Reset: t0, Stopped: t0.Add(-3 * time.Hour)},
		{Pane: "%2", Reset: t0, Stopped: t0.Add(-2 * time.Hour)},
		{Pane: "%3", Reset: t0, Stopped: t0.Add(-1 * time.Hour)},
	})
	kept := map[string]time.Time{}
	for _, s := range first {
		kept[s.Pane] = s.Slot
	}
	// %1 woke and left; %4 stopped later at the same reset.
	got := c.Schedule([]Wait{
		{Pane: "%2", Reset: t0, Stopped: t0.Add(-2 * time.Hour), Kept: kept["%2"]},
		{Pane: "%3", Reset: t0, Stopped: t0.Add(-1 * time.Hour), Kept: kept["%3"]},
		{Pane: "%4", Reset: t0, Stopped: t0.Add(-30 * time.Minute)},
	})
	want := []Slot{
		{Pane: "%2", Due: due.Add(5 * time.Second), Slot: due.Add(5 * time.Second)},
		{Pane: "%3", Due: due.Add(10 * time.Second), Slot: due.Add(10 * time.Second)},
		{Pane: "%4", Due: due.Add(15 * time.Second), Slot: due.Add(15 * time.Second)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Schedule with kept slots =\n%+v\nwant\n%+v", got, want)
	}
}

// A wait seen after the others have their slots may sort before them (another server's
// watcher saw its stop first, or the state file gave it an older stop): it never shares a
// slot the group holds, it comes Stagger after it, and the cap falls on it, not on a pane
// that has its slot.
func TestScheduleNewWaitBeforeKeptSlots(t *testing.T) {
	c := Default
	c.MaxPerReset = 2
	due := t0.Add(time.Minute)
	got := c.Schedule([]Wait{
		{Pane: "a %1", Reset: t0, Stopped: t0.Add(-time.Minute), Kept: due},
		{Pane: "b %1", Reset: t0, Stopped: t0.Add(-time.Minute), Kept: due.Add(5 * time.Second)},
		{Pane: "c %1", Reset: t0, Stopped: t0.Add(-2 * time.Minute)}, // stopped first, slotted last
	})
	want := []Slot{
		{Pane: "a %1", Due: due, Slot: due},
		{Pane: "b %1", Due: due.Add(5 * time.Second), Slot: due.Add(5 * time.Second)},
		{Pane: "c %1", Due: due.Add(10 * time.Second), Slot: due.Add(10 * time.Second), Capped: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Schedule of a new wait before kept slots =\n%+v\nwant\n%+v", got, want)
	}
}

// Accounts are scheduled apart: the stagger and the cap count within an account, and one
// account's waits never delay another's, even at the same reset.
func TestScheduleAccounts(t *testing.T) {
	c := Default
	c.MaxPerReset = 1
	exact := t0.Add(17 * time.Second) // 0:50:17, printed "12:50am"
	got := c.Schedule([]Wait{
		{Pane: "%1", Account: "/home/u/.claude", Reset: t0, Stopped: t0.Add(-3 * time.Hour)},
		{Pane: "%2", Account: "/home/u/.claude", Reset: t0, Stopped: t0.Add(-2 * time.Hour)},
		{Pane: "%3", Account: "/srv/work", Reset: exact, Exact: true, Stopped: t0.Add(-time.Hour)},
		{Pane: "%4", Account: "/srv/work", Reset: exact, Exact: true, Stopped: t0.Add(-time.Minute)},
	})
	due, work := t0.Add(time.Minute), exact.Add(5*time.Second)
	want := []Slot{
		{Pane: "%3", Due: work, Slot: work},
		{Pane: "%4", Due: work.Add(5 * time.Second), Slot: work.Add(5 * time.Second), Capped: true},
		{Pane: "%1", Due: due, Slot: due},
		{Pane: "%2", Due: due.Add(5 * time.Second), Slot: due.Add(5 * time.Second), Capped: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Schedule of two accounts =\n%+v\nwant\n%+v", got, want)
	}
}

func TestScheduleEmpty(t *testing.T) {
	if got := Default.Schedule(nil); len(got) != 0 {
		t.Errorf("Schedule(nil) = %+v, want none", got)
	}
}

func TestRetry(t *testing.T) {
	c := Default
	c.RetryBase, c.RetryMax, c.MaxAttempts = 30*time.Second, 90*time.Second, 4
	for _, tc := range []struct {
		attempts int
		want     time.Duration
		ok       bool
	}{
		{1, 30 * time.Second, true},
		{2, 60 * time.Second, true},
		{3, 90 * time.Second, true}, // 120 s capped
		{4, 0, false},
	} {
		got, ok := c.Retry(t0, tc.attempts)
		if ok != tc.ok || (ok && got.Sub(t0) != tc.want) {
			t.Errorf("Retry(t0, %d) = t0+%v, %v; want t0+%v, %v", tc.attempts, got.Sub(t0), ok, tc.want, tc.ok)
		}
	}
}

// TestIsDueClockJump: due instants are wall-clock instants checked each tick, so a clock that
// jumps forward (suspend, NTP) makes a past due instant due on the next tick, and one that
// jumps back delays it.
func TestIsDueClockJump(t *testing.T) {
	due := Default.Due(t0, false, false)
	clock := []struct {
		now  time.Time
		want bool
	}{
		{due.Add(-time.Hour), false},
		{due.Add(-time.Nanosecond), false},
		{due.Add(9 * time.Hour), true}, // woke from sleep long after
		{due.Add(-2 * time.Minute), false},
		{due, true},
	}
	for _, tc := range clock {
		if got := IsDue(due, tc.now); got != tc.want {
			t.Errorf("IsDue(%v, %v) = %v, want %v", due, tc.now, got, tc.want)
		}
	}
	if IsDue(time.Time{}, t0) {
		t.Errorf("IsDue(zero, %v) = true, want false", t0)
	}
}
