package table

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/watcher"
)

// The live table fits the terminal: more rows than fit end in a line that says how many
// more, the last events come under it, and every line is erased to its end.
func TestLiveFitsTheTerminal(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var rows []watcher.Row
	for i := range 30 {
		rows = append(rows, watcher.Row{Pane: fmt.Sprintf("%%%d", i), Target: "main:1.0", State: "running"})
	}
	events := &Ring{Max: 3}
	for i := range 5 {
		fmt.Fprintf(events, "event %d\n", i)
	}
	var out strings.Builder
	l := &Live{Out: &out, Size: func() (int, int) { return 60, 12 }, Server: "server -L work",
		Interval: time.Second, Events: events, Now: func() time.Time { return now }}
	l.Draw(rows)
	lines := strings.Split(strings.TrimSuffix(strings.TrimPrefix(out.String(), "\x1b[H"), "\x1b[J"), "\r\n")
	if len(lines) > 12 {
		t.Errorf("%d lines on a terminal of 12:\n%s", len(lines), out.String())
	}
	text := out.String()
	for _, want := range []string{"server -L work · 30 panes, 0 paused", "more (cac-tmux list)", "event 4"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "event 1") {
		t.Errorf("an event the ring let go is shown:\n%s", text)
	}
	for _, line := range lines {
		if !strings.HasSuffix(line, "\x1b[K") {
			t.Errorf("line %q is not erased to its end", line)
		}
	}
}

// The live table of every server says so in its header; it hides the cursor and clears the
// terminal before the first table, and shows the cursor again on a line of its own at the end.
func TestLiveEveryServer(t *testing.T) {
	var out strings.Builder
	l := &Live{Out: &out, Size: func() (int, int) { return 80, 24 }, Server: "server -L work", All: true,
		Interval: time.Second, Now: time.Now}
	l.Begin()
	l.Draw(nil)
	l.End()
	text := out.String()
	if !strings.HasPrefix(text, "\x1b[?25l\x1b[H\x1b[2J") || !strings.HasSuffix(text, "\x1b[?25h\r\n") {
		t.Errorf("the terminal is not cleared first, or the cursor not shown at the end: %q", text)
	}
	if !strings.Contains(text, "cac-tmux watch · every tmux server · 0 panes") || strings.Contains(text, "-L work") {
		t.Errorf("the header does not name every server: %q", text)
	}
}
