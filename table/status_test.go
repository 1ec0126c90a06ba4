package table

import (
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/watcher"
)

// The status line counts the paused panes of every server together with the soonest due
// one; a server with paused panes and no watcher says so; no server says nothing.
func TestStatusLine(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tmpl, err := ParseStatus(DefaultStatusFormat)
	if err != nil {
		t.Fatal(err)
	}
	watched := watcher.Status{Paused: 2, Waiting: 2, Next: now.Add(72 * time.Minute), Watching: true}
	later := watcher.Status{Paused: 1, Held: 1, Next: now.Add(3 * time.Hour), Watching: true}
	for _, tc := range []struct {
		name    string
		servers []watcher.Status
		want    string
	}{
		{"no server", nil, ""},
		{"nothing paused", []watcher.Status{{}}, ""},
		{"two servers", []watcher.Status{later, watched}, "⏸ 3 · 1h12m\n"},
		{"one unwatched", []watcher.Status{watched, {Paused: 1, Held: 1}}, "⏸ 3 · no watcher\n"},
		{"unwatched, nothing paused", []watcher.Status{watched, {}}, "⏸ 2 · 1h12m\n"},
	} {
		if got, err := StatusLine(tc.servers, tmpl, now); err != nil || got != tc.want {
			t.Errorf("%s: StatusLine = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := ParseStatus("{{.Nope}}"); err == nil {
		t.Error("ParseStatus took a template with an unknown field")
	}
}
