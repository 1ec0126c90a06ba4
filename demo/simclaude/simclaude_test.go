package simclaude

import (
	"testing"
	"time"
)

var berlin = func() *time.Location {
	l, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return l
}()

func TestResetText(t *testing.T) {
	now := time.Date(2026, 11, 20, 22, 0, 0, 0, berlin)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 11, 21, 16, 0, 0, 0, berlin), "4pm"},
		{time.Date(2026, 11, 21, 16, 30, 0, 0, berlin), "4:30pm"},
		{time.Date(2026, 11, 21, 0, 0, 0, 0, berlin), "12am"},
		{time.Date(2026, 11, 21, 0, 5, 0, 0, berlin), "12:05am"},
		{time.Date(2026, 11, 21, 12, 0, 0, 0, berlin), "12pm"},
		{time.Date(2026, 11, 23, 23, 0, 0, 0, berlin), "Nov 23, 11pm"},
		{time.Date(2027, 1, 2, 17, 0, 0, 0, berlin), "Jan 2, 2027, 5pm"},
	} {
		if got := resetText(tc.at, now); got != tc.want {
			t.Errorf("resetText(%s) = %q, want %q", tc.at, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, zone, clock, name string }{
		{"2026-11-21T16:00:00+02:00", "", "4pm", "Etc/GMT-2"},
		{"2026-11-21T16:00:00-05:00", "", "4pm", "Etc/GMT+5"},
		{"2026-11-21T16:00:00Z", "", "4pm", "UTC"},
		{"2026-11-21T16:00:00+05:30", "", "10:30am", "UTC"},
		{"2026-11-21T16:00:00Z", "Asia/Tokyo", "1am", "Asia/Tokyo"},
	} {
		at, _ := time.Parse(time.RFC3339, tc.in)
		z, name, err := zoned(at, tc.zone)
		if err != nil || clockText(z) != tc.clock || name != tc.name || !z.Equal(at) {
			t.Errorf("zoned(%s, %q) = %s %q %v, want %s %s", tc.in, tc.zone, clockText(z), name, err, tc.clock, tc.name)
		}
	}
}

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Entry
		ok   bool
	}{
		{"# state menu-stopped", Entry{State: "menu-stopped"}, true},
		{"2026-11-20T22:00:01.123456789+01:00\t\"continue\"", Entry{At: time.Date(2026, 11, 20, 22, 0, 1, 123456789, time.FixedZone("", 3600)), Read: "continue"}, true},
		{"2026-11-20T22:00:01Z\t\"\\r\"", Entry{At: time.Date(2026, 11, 20, 22, 0, 1, 0, time.UTC), Read: "\r"}, true},
		{"", Entry{}, false},
		{"soon\t\"x\"", Entry{}, false},
		{"2026-11-20T22:00:01Z\tx", Entry{}, false},
	} {
		got, ok := ParseLine(tc.line)
		if ok != tc.ok || got.State != tc.want.State || got.Read != tc.want.Read || !got.At.Equal(tc.want.At) {
			t.Errorf("ParseLine(%q) = %+v, %v; want %+v, %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}
