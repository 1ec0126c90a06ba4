package detector

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// relative says how far an instant is, to the minute, as people write it.
func TestRelative(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour + 52*time.Minute: "in 1h52m",
		2 * time.Hour:              "in 2h",
		-3 * time.Minute:           "3m ago",
		20 * time.Second:           "in 0m",
	} {
		if got := relative(d); got != want {
			t.Errorf("relative(%v) = %q, want %q", d, got, want)
		}
	}
}

// A report says null for what is unknown and names where a known reset comes from; the
// explanation names the decision and the reset.
func TestReport(t *testing.T) {
	now := time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)
	v := Verdict{Line: -1, Reason: "no limit message"}
	data, err := json.Marshal(NewReport(v, now, "screen", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"limited":false`, `"reset":null`, `"row":null`, `"menu":{"open":false,"rows":[]`, `"now":"2026-11-20T22:00:00Z"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("report %s: no %s", data, want)
		}
	}
	if strings.Contains(string(data), "reset_source") {
		t.Errorf("report %s names a source for no reset", data)
	}
	v = Verdict{Limited: true, Line: 3, Message: "limit reached", Kind: "session", Waitable: true,
		Reset: Reset{Known: true, At: now.Add(2 * time.Hour), Zone: "UTC"}}
	r := NewReport(v, now, "transcript", "/home/u/.claude")
	if r.Reset == nil || *r.Reset != "2026-11-21T00:00:00Z" || r.ResetSource != "transcript" || *r.Row != 4 || r.Account != "/home/u/.claude" {
		t.Errorf("report = %+v", r)
	}
	var b strings.Builder
	Explain(&b, v, now)
	for _, want := range []string{"limited:   yes", "message:   limit reached  (row 4)", "reset:     Sat 2026-11-21 00:00 UTC (UTC)", "in 2h"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explanation has no %q:\n%s", want, b.String())
		}
	}
}
