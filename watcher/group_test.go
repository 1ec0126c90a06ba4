package watcher_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Three watchers of three servers in one process (watch --all-servers) share one Group: the
// panes of one account, one on each server and each %1 there, wake Stagger apart in the
// order their watchers saw them, and the cap of wakes per reset counts all three.
func TestUnitGroupStaggersAcrossServers(t *testing.T) {
	clk := clocktest.New(t0)
	clk.AutoSleep = true
	group, account := watcher.NewGroup(), t.TempDir()
	var rigs []*rig
	var panes []*fakePane
	for i := range 3 {
		r := newRig(t, func(c *watcher.Config) { c.Clock, c.Group, c.Schedule.MaxPerReset = clk, group, 2 })
		r.clk, r.tmux.dir = clk, account // one clock; one config directory, so one account
		p := r.tmux.add("%1", 100+i, stopped("7:30pm", ""))
		rigs, panes = append(rigs, r), append(panes, p)
	}
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
