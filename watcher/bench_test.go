package watcher_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// BenchmarkTick is one tick of the watcher against a fake server of n quiet Claude panes
// (the pre-filter found no limit text, no window activity), one of them stopped and
// waiting: the watcher's own work per tick, without tmux (go test ./watcher -run '^$'
// -bench Tick). Past the first, the ticks list what changed: nothing.
func BenchmarkTick(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			tmux := newFakeTmux()
			for i := range n {
				p := tmux.add(fmt.Sprintf("%%%d", i), 100+i, idle())
				p.info.Match = 0
			}
			first := tmux.panes["%0"]
			first.screen, first.info.Match = stopped("11:30pm", ""), 3
			clk := clocktest.New(t0)
			w := watcher.New(tmux, tmux, watcher.Config{Schedule: scheduler.Default, Clock: clk, Log: zerolog.Nop()})
			ctx := context.Background()
			if _, err := w.Tick(ctx); err != nil { // the first looks capture every pane
				b.Fatal(err)
			}
			tmux.notify.silent = true
			b.ReportAllocs()
			for b.Loop() {
				clk.Add(time.Second)
				if _, err := w.Tick(ctx); err != nil {
					b.Fatal(err)
				}
			}
			if got := len(w.Rows()); got != n {
				b.Fatalf("rows = %d, want %d", got, n)
			}
		})
	}
}
