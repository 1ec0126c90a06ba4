package table

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/watcher"
)

func TestFormatTable(t *testing.T) {
	now := time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)
	nicosia, err := time.LoadLocation("Asia/Nicosia")
	if err != nil {
		t.Fatal(err)
	}
	rows := []watcher.Row{
		{Pane: "%3", Target: "work:1.0", State: watcher.Waiting, Kind: "session", Reset: now.Add(90 * time.Minute).In(nicosia), Zone: "Asia/Nicosia", Due: now.Add(91 * time.Minute)},
		{Pane: "%12", Target: "a-very-long-session-name:3.1", State: watcher.Held, Kind: "weekly", Reset: now.Add(50 * time.Hour), Zone: "UTC", Note: "a draft is in the input box; it is left alone"},
	}
	// The reset shows in its printed zone, with the date when it is not today there.
	want := []string{
		"PANE  TARGET                        STATE    RESET               IN      KIND     NOTE",
		"%3    work:1.0                      waiting  01:30 Asia/Nicosia  1h31m   session",
		"%12   a-very-long-session-name:3.1  held     Nov 23 00:00 UTC    50h00m  weekly   a draft is in the input box; it is left alone",
	}
	if got := Format(Cells(rows, now), 0); !slices.Equal(got, want) {
		t.Errorf("Format(no width) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Narrow: the note is cut, then columns are left out from the right; pane, target and
	// state stay.
	if got := Format(Cells(rows, now), 100); !strings.HasSuffix(got[2], "…") || !strings.Contains(got[2], "weekly") {
		t.Errorf("Format(width 100) row = %q, want the note cut with …", got[2])
	}
	if got := Format(Cells(rows, now), 60); strings.Contains(got[0], "KIND") || !strings.Contains(got[0], "STATE") {
		t.Errorf("Format(width 60) header = %q, want pane, target, state and no kind", got[0])
	}
	for _, width := range []int{200, 90, 60, 30} {
		for _, l := range Format(Cells(rows, now), width) {
			if n := len([]rune(l)); n > width {
				t.Errorf("Format(width %d) line %q is %d runes wide", width, l, n)
			}
		}
	}
}

func TestCountdown(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "now"}, {0, "now"}, {300 * time.Millisecond, "1s"}, {59 * time.Second, "59s"},
		{61 * time.Second, "1m01s"}, {time.Hour + 12*time.Minute + 30*time.Second, "1h12m"}, {50 * time.Hour, "50h00m"},
	} {
		if got := Countdown(tc.d); got != tc.want {
			t.Errorf("Countdown(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
