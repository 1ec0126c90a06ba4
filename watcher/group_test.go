package watcher_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// fleetRigs are n watchers of n servers sharing one Group, as watch --all-servers runs them,
// with a cap of perReset wakes per reset; each server has one pane, %1, stopped at 7:30pm, all of
// one account (one config directory). With clk they share that clock; without, each has its
// own (the instant its tick began), and nothing but the Group is shared.
func fleetRigs(t *testing.T, n, perReset int, clk *clocktest.Manual) ([]*rig, []*fakePane) {
	group, account := watcher.NewGroup(), t.TempDir()
	var rigs []*rig
	var panes []*fakePane
	for i := range n {
		r := newRig(t, func(c *watcher.Config) {
			c.Group, c.Schedule.MaxPerReset = group, perReset
			if clk != nil {
				c.Clock = clk
			}
		})
		r.tmux.dir = account
		if clk != nil {
			r.clk = clk
		}
		p := r.tmux.add("%1", 100+i, stopped("7:30pm", ""))
		rigs, panes = append(rigs, r), append(panes, p)
	}
	return rigs, panes
}

// Three watchers of three servers in one process (watch --all-servers) share one Group: the
// panes of one account, one on each server and each %1 there, wake Stagger apart in the
// order their watchers saw them, and the cap of wakes per reset counts all three.
func TestUnitGroupStaggersAcrossServers(t *testing.T) {
	clk := clocktest.New(t0)
	clk.AutoSleep = true
	rigs, panes := fleetRigs(t, 3, 2, clk)
	at := func(d time.Duration) {
		t.Helper()
		for _, r := range rigs {
			r.at(d)
		}
	}
	at(0)
	first := t0.Add(31 * time.Minute) // 7:30pm plus the margin
	at(first.Sub(t0))
	rigs[0].wantKeys(panes[0], "continue", "Enter")
	rigs[1].wantKeys(panes[1])
	rigs[2].wantKeys(panes[2])
	at(first.Sub(t0) + scheduler.Default.Stagger - time.Second)
	rigs[1].wantKeys(panes[1])
	at(first.Sub(t0) + scheduler.Default.Stagger)
	rigs[1].wantKeys(panes[1], "continue", "Enter")
	at(first.Sub(t0) + time.Hour)
	rigs[2].wantKeys(panes[2]) // the account's third: beyond the cap of 2
	if row := rigs[2].row("%1"); !strings.Contains(row.Note, "max_per_reset") {
		t.Errorf("third server's pane: note %q, want the cap", row.Note)
	}
}

// Watchers that see their stops at the same instant and schedule at once (each server's
// watcher runs in a goroutine of its own) get slots the stagger apart: whichever schedules
// later never takes the slot one already has. Run with -race, it checks the Group's lock too.
func TestUnitGroupSchedulesAtOnce(t *testing.T) {
	rigs, _ := fleetRigs(t, 4, 0, nil)
	var wg sync.WaitGroup
	for _, r := range rigs {
		wg.Go(func() {
			if _, err := r.w.Tick(context.Background()); err != nil {
				t.Errorf("Tick: %v", err)
			}
		})
	}
	wg.Wait()
	for _, r := range rigs { // each sees the others' slots now
		r.at(time.Second)
	}
	var dues []time.Time
	for _, r := range rigs {
		dues = append(dues, r.row("%1").Due)
	}
	slices.SortFunc(dues, time.Time.Compare)
	for i := 1; i < len(dues); i++ {
		if gap := dues[i].Sub(dues[i-1]); gap < scheduler.Default.Stagger {
			t.Errorf("due instants %v: %s apart, want the stagger (%s) at least", dues, gap, scheduler.Default.Stagger)
		}
	}
}

// A pane whose stop its watcher saw first but scheduled last (its tick began before another
// server's and reached the schedule after it) never shares the other pane's slot.
func TestUnitGroupEarlierStopScheduledLater(t *testing.T) {
	rigs, panes := fleetRigs(t, 2, 0, nil)
	a, pa, b, pb := rigs[0], panes[0], rigs[1], panes[1]
	a.at(2 * time.Second) // each rig has its own clock: the instant its tick began
	b.at(time.Second)
	first := 31 * time.Minute // 7:30pm plus the margin
	a.at(first)
	b.at(first)
	a.wantKeys(pa, "continue", "Enter")
	b.wantKeys(pb)
	b.at(first + scheduler.Default.Stagger)
	b.wantKeys(pb, "continue", "Enter")
}

// A server whose listing fails (it hangs) gives up its place in the group: with a cap of one
// wake per reset, the pane of the other server wakes in its stead.
func TestUnitGroupHungServerHoldsNoSlot(t *testing.T) {
	clk := clocktest.New(t0)
	clk.AutoSleep = true
	rigs, panes := fleetRigs(t, 2, 1, clk)
	rigs[0].at(0)
	rigs[0].tmux.onList = func() error { return &tmuxctl.Error{Stderr: "timed out", Err: context.DeadlineExceeded} }
	if _, err := rigs[0].w.Tick(context.Background()); err == nil {
		t.Fatal("Tick of a hung server: no error")
	}
	rigs[1].at(time.Second)
	rigs[1].at(31 * time.Minute)
	rigs[1].wantKeys(panes[1], "continue", "Enter")
}
