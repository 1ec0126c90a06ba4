package detector

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/golden"
)

// FuzzDetect feeds the detector arbitrary screens, seeded with every shared real screen and a
// few hostile shapes. It must never panic, and what it reports must hold together: a limited
// verdict names its message and row, a known reset has an instant, a time-only reset is at
// most a day after the capture or appearance, and a menu's Stop digit is one of its rows, with
// a known Stop label that mentions nothing paid.
func FuzzDetect(f *testing.F) {
	if cases, err := golden.Read(golden.Dir()); err == nil {
		for _, c := range cases {
			if b, err := os.ReadFile(c.Path); err == nil {
				f.Add(string(b), c.Now.Unix(), true)
			}
		}
	}
	f.Add("  ⎿ \u00a0You've hit your limit · resets 4pm (Etc/GMT+5)", int64(1795219800), false)
	f.Add("  ⎿ \u00a0Claude AI usage limit reached|-1", int64(0), false)
	f.Add("  ⎿ \u00a0Claude AI usage limit reached|99999999999", int64(0), false)
	f.Add(strings.Repeat("  ⎿ \u00a0You've hit your limit · resets Dec 31, 12am (Pacific/Kiritimati)\n", 50), int64(1798675200), true)
	f.Add("─────────────\n❯\u00a0\n─────────────\n╭─\n│ What do you want to do?\n│ ❯ 1. Stop\n", int64(0), false)
	f.Fuzz(func(t *testing.T, screen string, now int64, appeared bool) {
		facts := Facts{Now: time.Unix(now, 0), Zone: time.UTC}
		if appeared {
			facts.Appeared = facts.Now
		}
		v := Detect(screen, facts)
		if v.Limited && (v.Message == "" || v.Line < 0) {
			t.Fatalf("Detect(%q) limited without a message or row: %+v", screen, v)
		}
		if v.Reset.Known && v.Reset.At.IsZero() {
			t.Fatalf("Detect(%q) known reset without an instant: %+v", screen, v.Reset)
		}
		if v.Reset.Known && v.Reset.Source == SourceClock && v.Reset.anchor != anchorSummary {
			if d := v.Reset.At.Sub(facts.Now); d > dayBound+2*time.Hour {
				t.Fatalf("Detect(%q) time-only reset %v is %v after the capture, want at most a day", screen, v.Reset.At, d)
			}
		}
		if d := v.Menu.StopDigit; d != 0 && (d > len(v.Menu.Rows) || !isStopLabel(v.Menu.Rows[d-1].Label) || paidWords.MatchString(v.Menu.Rows[d-1].Label)) {
			t.Fatalf("Detect(%q) StopDigit %d does not name a known Stop row in %+v", screen, d, v.Menu.Rows)
		}
	})
}
