package tmuxctl

import (
	"strings"
	"testing"
)

// BenchmarkParsePanes500 parses one listing of 500 Claude panes, as the watcher does every
// tick (go test ./tmuxctl -run '^$' -bench ParsePanes).
func BenchmarkParsePanes500(b *testing.B) {
	rows := make([]string, 500)
	for i := range rows {
		rows[i] = mustRow(b, paneValues(i).with("pane_current_command", "claude", "%MATCH%", "0"))
	}
	out := strings.Join(rows, "\n") + "\n"
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if ps, err := parsePanes(out); err != nil || len(ps) != 500 {
			b.Fatalf("parsePanes = %d panes, %v", len(ps), err)
		}
	}
}
