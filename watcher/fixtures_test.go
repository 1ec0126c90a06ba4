package watcher_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/internal/golden"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// TestUnitFixtures puts every real screen of ../shared/fixtures/claude-screens in a pane of
// the fake server, the stop already on screen at the first look, and checks the watcher's
// state and reset, then the keys it sends once the reset, the margin and the native grace
// have passed on a screen that never changes: the Stop digit alone for a menu (which stays
// open, so it is held and never pressed again), continue and Enter for a prompt, and nothing
// for screens that are not stops or that waiting cannot clear.
func TestUnitFixtures(t *testing.T) {
	cases, err := golden.Read(golden.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			raw, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			v := detector.Detect(string(raw), detector.Facts{Now: c.Now, Zone: c.Zone})
			r := newRig(t, func(cfg *watcher.Config) { cfg.Zone = c.Zone })
			p := r.tmux.add("%1", 100, string(raw))
			r.at(c.Now.Sub(t0))

			want, keys := watcher.Waiting, []string{"continue", "Enter"}
			switch {
			case !c.Limited:
				want, keys = watcher.Running, nil
			case !c.Known:
				want, keys = watcher.Unwaitable, nil
			case strings.Contains(c.File, "armed"):
				want = watcher.Native // taken over once the grace is over
			case v.Menu.Open:
				keys = []string{strconv.Itoa(v.Menu.StopDigit)}
			}
			rows := r.w.Rows()
			if len(rows) != 1 || rows[0].State != want {
				t.Fatalf("rows after the first look = %+v, want one in state %s", rows, want)
			}
			if c.Known && !rows[0].Reset.Equal(c.Reset) {
				t.Errorf("reset = %s, want %s", rows[0].Reset, c.Reset)
			}
			after := c.Now
			if c.Known {
				after = c.Reset
			}
			after = after.Add(scheduler.Default.Margin + scheduler.Default.NativeGrace)
			for _, d := range []int{0, 1, 2, 60} { // the due tick, the menu's check, later ones
				r.at(after.Add(time.Duration(d) * time.Second).Sub(t0))
			}
			r.wantKeys(p, keys...)
		})
	}
}
