package detector

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/golden"
)

func benchScreen(b *testing.B, name string) string {
	b.Helper()
	raw, err := os.ReadFile(golden.Dir() + "/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return string(raw)
}

// pad120x50 makes a 120×50 screen: the real 120×40 capture with transcript rows added above.
func pad120x50(screen string) string {
	rows := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	filler := "● " + strings.Repeat("lorem ipsum dolor sit amet ", 5)[:118]
	for len(rows) < 50 {
		rows = append([]string{filler}, rows...)
	}
	return strings.Join(rows[len(rows)-50:], "\n")
}

var benchFacts = Facts{Now: time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC), Zone: time.UTC}

// BenchmarkDetect measures Detect on full 120×50 screens: a stop with auto-continue armed (the
// most work: message, reset, native state), a menu, and an idle session with no stop.
func BenchmarkDetect(b *testing.B) {
	for _, tc := range []struct{ name, file string }{
		{"stop-armed", "pos-18-v2.1.329-5hour-armed-fullscreen.txt"},
		{"menu", "pos-20-v2.1.329-weekly-date-menu.txt"},
		{"idle", "neg-04-v2.1.329-assistant-quotes-session-limit.txt"},
	} {
		screen := pad120x50(benchScreen(b, tc.file))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(screen)))
			for b.Loop() {
				Detect(screen, benchFacts)
			}
		})
	}
}

// BenchmarkDetect1MB measures a 1 MB screen (the fuzz bound: it must classify in well under
// 100 ms): many repeated stops, and one single 1 MB row.
func BenchmarkDetect1MB(b *testing.B) {
	stop := benchScreen(b, "pos-22-v2.1.329-repeat-hits-after-enter.txt")
	many := strings.Repeat(stop, 1<<20/len(stop)+1)[:1<<20]
	row := "  ⎿ \u00a0" + strings.Repeat("You've hit your limit · ", 1<<20/26)
	for _, tc := range []struct{ name, screen string }{{"many-stops", many}, {"one-row", row}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.screen)))
			for b.Loop() {
				Detect(tc.screen, benchFacts)
			}
		})
	}
}

// BenchmarkDetectCodex measures DetectCodex on real Codex captures with their escapes (a stop
// at 80 columns, the menu over a stop, a busy turn) and on 1 MB: repeated red stops, and one
// row.
func BenchmarkDetectCodex(b *testing.B) {
	stop := readCodexScreen(b, "codex-stop-second-80.txt")
	for _, tc := range []struct{ name, screen string }{
		{"stop", stop},
		{"menu", readCodexScreen(b, "codex-stop-menu-first-80.txt")},
		{"busy", readCodexScreen(b, "codex-busy-after-stop-80.txt")},
		{"1MB-stops", strings.Repeat(stop, 1<<20/len(stop)+1)[:1<<20]},
		{"1MB-row", "\x1b[38;5;1m■ " + strings.Repeat("You’ve hit your usage limit. ", 1<<20/31)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.screen)))
			for b.Loop() {
				DetectCodex(tc.screen, benchFacts)
			}
		})
	}
}
