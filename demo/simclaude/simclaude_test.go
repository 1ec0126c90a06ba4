package simclaude

import (
	"io"
	"os"
	"strings"
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

// TestResume: --resume ID reopens a simulated session: it draws the conversation from the
// transcript (the prompt and the old stop), behaves as idle, and appends to the same
// transcript; an unknown session is refused as Claude Code refuses it; a session id the
// simulator did not make keeps no records without --records.
func TestResume(t *testing.T) {
	dir, work := t.TempDir(), t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", dir)
	t.Chdir(work)
	first, err := newRecorder(true, "five_hour", "")
	if err != nil {
		t.Fatal(err)
	}
	reset := time.Date(2026, 11, 26, 19, 30, 0, 0, time.UTC)
	first.prompt("hello")
	first.limit(reset)
	first.close()

	if _, err := newRecorder(false, "five_hour", simSession+"0000-4000-8000-000000000000"); err == nil ||
		!strings.Contains(err.Error(), "No conversation found with session ID") {
		t.Errorf("--resume of an unknown session = %v, want No conversation found", err)
	}
	if r, err := newRecorder(false, "five_hour", "0b7c1e2a-real-uuid"); r != nil || err != nil {
		t.Errorf("--resume of a session the simulator did not make, without --records = %v, %v; want no records", r, err)
	}

	f := &fake{log: io.Discard, width: 120, height: 40, out: io.Discard}
	fl := flags{rows: "Stop", stop: "You've hit your session limit", name: "fakeclaude", limitType: "five_hour", resume: first.session}
	if err := f.configure(fl); err != nil {
		t.Fatal(err)
	}
	screen := strings.Join(f.screen(), "\n")
	if f.scenario != "reopened" || f.limited || f.rec.transcript != first.transcript ||
		!strings.Contains(screen, "❯ hello\n") || !strings.Contains(screen, "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)") ||
		!strings.Contains(screen, "❯\u00a0\n") {
		t.Fatalf("reopened session %s: scenario %s, limited %v, transcript %s; screen\n%s", first.session, f.scenario, f.limited, f.rec.transcript, screen)
	}
	f.draft = []byte("go on")
	f.submit()
	b, err := os.ReadFile(first.transcript)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if err != nil || len(lines) != 4 || !strings.Contains(lines[2], `"content":"go on"`) || !strings.Contains(lines[3], `"Got it"`) ||
		!strings.Contains(lines[3], first.session) {
		t.Errorf("the transcript after a prompt in the reopened session:\n%s", b)
	}
	f.rec.close()
}
