package detector

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzDetectCodex feeds DetectCodex arbitrary screens, seeded with every golden Codex screen
// and a few hostile shapes. It must never panic, and what it reports must hold together: a
// limited verdict has an error cell ("■ ") at its row and a stop's wording as its message;
// Escape only with the menu open over a stop; no digit is ever offered; a known reset has an
// instant; and the dim placeholder of a composer is never part of the draft, whatever comes
// above it.
func FuzzDetectCodex(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(codexDir, "codex-*.txt"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(string(b), int64(1795869900), true)
		}
	}
	f.Add(cxRed+"■ You’ve hit your usage limit. Try again in 99999 days.\n", int64(0), false)
	f.Add(cxRed+"■ You’ve hit your usage limit for "+strings.Repeat("x", 90)+". Switch to another model now, or try again at 13:99 PM.\n", int64(0), true)
	f.Add("\x1b[38:5:1m■ You’ve hit your usage limit. Try again at Feb 30th, 2026 4:56 AM.\n\x1b]8;;x\x1b\\\n  Approaching rate limits\n› 1. Switch\n", int64(-1), true)
	f.Add(strings.Repeat(cxStop, 30)+"\x1b[2m› \x1b[38;2;1;2;3m", int64(1795869900), false)
	f.Fuzz(func(t *testing.T, screen string, now int64, appeared bool) {
		facts := Facts{Now: time.Unix(now, 0), Zone: time.UTC}
		if appeared {
			facts.Appeared = facts.Now
		}
		v := DetectCodex(screen, facts)
		rows, _ := readCodexRows(screen)
		if v.Limited {
			if v.Line < 0 || v.Line >= len(rows) || !rows[v.Line].startsWith("■ ") || !strings.Contains(screen, "■") {
				t.Fatalf("DetectCodex(%q) limited without a ■ error row at row %d", screen, v.Line)
			}
			if _, ok := parseCodexMessage(v.Message); !ok {
				t.Fatalf("DetectCodex(%q) limited on a message that is not a stop: %q", screen, v.Message)
			}
		}
		if v.Menu.Escape && !(v.Limited && v.Menu.Open) {
			t.Fatalf("DetectCodex(%q) Escape without an open menu over a stop: %+v", screen, v)
		}
		if v.Menu.StopDigit != 0 || v.Native != NativeNone || v.Prefilled {
			t.Fatalf("DetectCodex(%q) offers a digit or an auto-continue: %+v", screen, v)
		}
		if v.Reset.Known && v.Reset.At.IsZero() {
			t.Fatalf("DetectCodex(%q) known reset without an instant: %+v", screen, v.Reset)
		}
		// Any sequence left open by the fuzzed text ends at ESC \ (a string terminator; ESC
		// also cancels a CSI), and SGR 0 resets the pen: the composer below is drawn as Codex
		// draws it.
		const placeholder = "Ask Codex to do anything"
		composed := screen + "\x1b\\\x1b[0m\n" + cxPlaceholder + cxFooter
		if d := DetectCodex(composed, facts).Input.Draft; strings.Contains(d, placeholder) {
			t.Fatalf("DetectCodex(%q + composer) drafts the dim placeholder: %q", screen, d)
		}
	})
}
