package simcodex

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func zoneOf(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestStopMessageWrapped: the stop's rows at 120 and 80 columns are the real 0.171.0's, as
// captured against the mock (plus, reset 1:43 PM in the daemon's zone).
func TestStopMessageWrapped(t *testing.T) {
	berlin := zoneOf(t, "Europe/Berlin")
	now := time.Date(2026, 11, 28, 13, 40, 47, 0, berlin)
	msg := "■ " + stopMessage("plus", time.Date(2026, 11, 28, 12, 43, 16, 0, time.UTC), berlin, now)
	for _, tc := range []struct {
		width int
		want  []string
	}{
		{120, []string{"■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/",
			"usage to purchase more credits or try again at 1:43 PM."}},
		{80, []string{"■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro),",
			"visit https://chatgpt.com/settings/usage to purchase more credits or try again", "at 1:43 PM."}},
	} {
		if got := wrapLines(msg, tc.width); !slices.Equal(got, tc.want) {
			t.Errorf("at %d columns:\n%q\nwant\n%q", tc.width, got, tc.want)
		}
	}
}

func TestStopMessagePlans(t *testing.T) {
	ny := zoneOf(t, "America/New_York")
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	reset := time.Date(2026, 11, 28, 14, 22, 0, 0, time.UTC) // 9:22 AM in New York
	for plan, want := range map[string]string{
		"pro":        "You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at 9:22 AM.",
		"team":       "You’ve hit your usage limit. To get more access now, send a request to your admin or try again at 9:22 AM.",
		"go":         "You’ve hit your usage limit. Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again at 9:22 AM.",
		"enterprise": "You’ve hit your usage limit. Try again at 9:22 AM.",
	} {
		if got := stopMessage(plan, reset, ny, now); got != want {
			t.Errorf("%s: %q, want %q", plan, got, want)
		}
	}
	if got := stopMessage("plus", time.Date(2026, 11, 30, 9, 56, 0, 0, time.UTC), ny, now); !strings.HasSuffix(got, "try again at Nov 30th, 2026 4:56 AM.") {
		t.Errorf("a reset two days ahead: %q", got)
	}
	if got := stopMessage("plus", time.Time{}, ny, now); !strings.HasSuffix(got, "or try again later.") {
		t.Errorf("no reset known: %q", got)
	}
	for d, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd", 30: "30th"} {
		if got := ordinal(d); got != want {
			t.Errorf("ordinal(%d) = %q, want %q", d, got, want)
		}
	}
}

// TestPasteBurst: characters in one read (or each within 8 ms) are a burst, and an Enter
// within 120 ms of it is a newline; an Enter after the window, or after fewer than three fast
// characters, submits.
func TestPasteBurst(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		name    string
		chars   []time.Time
		enter   time.Time
		newline bool
	}{
		{"one read, Enter in the same command", []time.Time{t0, t0, t0, t0}, ms(1), true},
		{"Enter 119 ms later", []time.Time{t0, t0, t0}, ms(119), true},
		{"Enter 120 ms later", []time.Time{t0, t0, t0}, ms(120), false},
		{"Enter after a 300 ms pause", []time.Time{t0, t0, t0, t0}, ms(300), false},
		{"two fast characters are typing", []time.Time{t0, t0}, ms(1), false},
		{"typed 50 ms apart", []time.Time{t0, ms(50), ms(100), ms(150)}, ms(151), false},
		{"fast, 7 ms apart", []time.Time{t0, ms(7), ms(14)}, ms(100), true},
	} {
		var b burst
		for _, at := range tc.chars {
			b.char(at)
		}
		if got := b.enterIsNewline(tc.enter); got != tc.newline {
			t.Errorf("%s: Enter is a newline = %v, want %v", tc.name, got, tc.newline)
		}
	}
}

// TestScreenFits: every frame is exactly the pane's height, the menu replaces the composer,
// and a draft replaces the placeholder and the shortcuts line.
func TestScreenFits(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	s := &sim{log: io.Discard, width: 80, height: 24, daemonZone: time.UTC, tuiZone: time.UTC, menuOnStop: true, model: "GPT-6.2-Sol default",
		reset: now.Add(time.Hour), until: now.Add(time.Hour), stopText: stopMessage("plus", now.Add(time.Hour), time.UTC, now), cwd: "/w"}
	s.setup(now, "")
	screen := strings.Join(s.screen(now), "\n")
	if len(s.screen(now)) != 24 || !strings.Contains(screen, "Approaching rate limits") || strings.Contains(screen, placeholder) {
		t.Fatalf("the first stop: want the menu over the composer in 24 rows:\n%s", screen)
	}
	s.menu = 0
	screen = strings.Join(s.screen(now), "\n")
	if !strings.Contains(screen, sgrDim+placeholder) || !strings.Contains(screen, "for shortcuts") || !strings.Contains(screen, "⚠ 5h limit: only <1% left · /status") {
		t.Errorf("menu closed: want the placeholder, the shortcuts and the status line:\n%s", screen)
	}
	for range 10 { // more stops than the pane holds: the oldest rows go
		s.draft = []rune("again")
		s.submit(now)
	}
	rows := s.screen(now)
	if screen = strings.Join(rows, "\n"); len(rows) != 24 || s.menu != 0 || !strings.Contains(screen, placeholder) || s.stops != 11 {
		t.Errorf("ten stops again: want 24 rows, no menu, an empty composer; %d rows, %d stops\n%s", len(rows), s.stops, screen)
	}
	s.draft = []rune("a draft")
	if screen = strings.Join(s.screen(now), "\n"); strings.Contains(screen, placeholder) || strings.Contains(screen, "for shortcuts") || !strings.Contains(screen, "›"+sgrReset+" a draft") {
		t.Errorf("a draft: want it in place of the placeholder and the shortcuts:\n%s", screen)
	}
}

// TestStatusLineInTheTUIZone: the status line prints the reset in the TUI's zone, 24-hour,
// while the stop prints it in the daemon's (a Tokyo pane of a New York daemon, as measured);
// below 100 columns it has no time, and it is gone once the limit lifted.
func TestStatusLineInTheTUIZone(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	reset := time.Date(2026, 11, 28, 5, 22, 0, 0, time.UTC)
	s := &sim{width: 120, tuiZone: zoneOf(t, "Asia/Tokyo"), reset: reset, until: reset, stops: 1}
	if got := s.statusLine(reset.Add(-time.Hour)); !strings.HasSuffix(got, "⚠ 5h limit: only <1% left · resets at 14:22 · /status"+sgrReset) {
		t.Errorf("status line %q, want the reset at 14:22 (Tokyo)", got)
	}
	if got := stopMessage("plus", reset, zoneOf(t, "America/New_York"), now); !strings.HasSuffix(got, "try again at 12:22 AM.") {
		t.Errorf("stop %q, want 12:22 AM (New York)", got)
	}
	if s.width = 80; !strings.HasSuffix(s.statusLine(reset.Add(-time.Hour)), "⚠ 5h limit: only <1% left · /status"+sgrReset) {
		t.Errorf("at 80 columns: %q", s.statusLine(reset.Add(-time.Hour)))
	}
	if got := s.statusLine(reset); got != "" {
		t.Errorf("after the reset: %q, want none", got)
	}
}
