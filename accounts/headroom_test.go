package accounts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)

// row is a transcript row as Claude Code 2.1.330 writes it (records/testdata), reduced to
// what the reader looks at: a prompt ("user"), a reply ("assistant") or a usage-limit stop
// ("limit") that lifts at reset.
func row(kind, session string, at, reset time.Time) string {
	v := map[string]any{"sessionId": session, "timestamp": at.UTC().Format(time.RFC3339Nano)}
	switch kind {
	case "user":
		v["type"], v["message"] = "user", map[string]any{"role": "user", "content": "go on"}
	case "assistant":
		v["type"], v["message"] = "assistant", map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "ok"}}}
	case "limit":
		v["type"], v["isApiErrorMessage"], v["error"] = "assistant", true, "rate_limit"
		v["message"] = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "You've hit your limit"}}}
		v["quotaLimits"] = map[string]any{"status": "rejected", "resetsAt": reset.Unix(), "rateLimitType": "five_hour"}
	}
	b, _ := json.Marshal(v)
	return string(b) + "\n"
}

// transcript writes a transcript of session in the config directory dir, modified at mod.
func transcript(t *testing.T, dir, project, session string, mod time.Time, rows ...string) string {
	t.Helper()
	p := filepath.Join(dir, "projects", project, session+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	var text string
	for _, r := range rows {
		text += r
	}
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mod, mod); err != nil {
		t.Fatal(err)
	}
	return p
}

func look(t *testing.T, a Account, copied map[string]time.Time) Headroom {
	t.Helper()
	h, err := Look(a, now, copied)
	if err != nil {
		t.Fatalf("Look(%s): %v", a.Dir, err)
	}
	return h
}

func TestHeadroom(t *testing.T) {
	root := t.TempDir()
	a, b, c := Account{"~/a", filepath.Join(root, "a")}, Account{"~/b", filepath.Join(root, "b")}, Account{"~/c", filepath.Join(root, "c")}
	hitA, resetA := now.Add(-time.Hour), now.Add(2*time.Hour)
	transcript(t, a.Dir, "-w", "s1", now.Add(-time.Hour), row("user", "s1", hitA.Add(-time.Minute), time.Time{}), row("limit", "s1", hitA, resetA))
	// B was limited until an hour ago: free; its other session is older still.
	hitB := now.Add(-3 * time.Hour)
	transcript(t, b.Dir, "-w", "s2", now.Add(-3*time.Hour), row("user", "s2", hitB, time.Time{}), row("limit", "s2", hitB, now.Add(-time.Hour)))
	transcript(t, b.Dir, "-x", "s3", now.Add(-5*time.Hour), row("user", "s3", now.Add(-5*time.Hour), time.Time{}), row("assistant", "s3", now.Add(-5*time.Hour), time.Time{}))

	ha, hb, hc := look(t, a, nil), look(t, b, nil), look(t, c, nil)
	if !ha.Limited(now) || !ha.Until.Equal(resetA) || !ha.Last.Equal(hitA) {
		t.Errorf("A = %+v, want limited until %s, last limit %s", ha, resetA, hitA)
	}
	if hb.Limited(now) || !hb.Last.Equal(hitB) {
		t.Errorf("B = %+v, want free, last limit %s", hb, hitB)
	}
	if hc.Limited(now) || !hc.Last.IsZero() {
		t.Errorf("C (no transcripts) = %+v, want free, never limited", hc)
	}
	if got, ok := pick([]Headroom{ha, hb, hc}, now); !ok || got.Dir != c.Dir {
		t.Errorf("pick(A, B, C) = %v %v, want C, never limited", got.Dir, ok)
	}
	if got, ok := pick([]Headroom{hc, hb}, now); !ok || got.Dir != c.Dir {
		t.Errorf("pick(C, B) = %v %v, want C", got.Dir, ok)
	}
	hb2 := hb
	hb2.Last = hitA.Add(time.Minute) // limited later than the other free one
	older := Headroom{Account: c, Last: hitB.Add(-time.Hour), Until: hitB}
	if got, ok := pick([]Headroom{ha, hb2, older}, now); !ok || got.Dir != c.Dir {
		t.Errorf("pick = %v %v, want the free account whose last limit is oldest (C)", got.Dir, ok)
	}
	if got, ok := pick([]Headroom{ha}, now); ok {
		t.Errorf("pick(A limited) = %v, want none", got.Dir)
	}
	// Once the reset has passed, A is free.
	if !ha.Limited(resetA.Add(-time.Second)) || ha.Limited(resetA) {
		t.Errorf("A limited until %s: Limited just before = %v, at = %v", resetA, ha.Limited(resetA.Add(-time.Second)), ha.Limited(resetA))
	}
}

func TestHeadroomLifted(t *testing.T) {
	root := t.TempDir()
	a := Account{"~/a", filepath.Join(root, "a")}
	hit := now.Add(-time.Hour)
	// A limit whose session got a reply to a later prompt has lifted (early, or it was a model's own).
	transcript(t, a.Dir, "-w", "s1", now, row("limit", "s1", hit, now.Add(4*time.Hour)),
		row("user", "s1", hit.Add(time.Minute), time.Time{}), row("assistant", "s1", hit.Add(2*time.Minute), time.Time{}))
	if h := look(t, a, nil); h.Limited(now) || !h.Last.Equal(hit) {
		t.Errorf("a limit followed by a turn = %+v, want free, last limit %s", h, hit)
	}
	// A reply that answers a prompt sent before the limit does not lift it.
	transcript(t, a.Dir, "-w", "s1", now, row("user", "s1", hit.Add(-time.Minute), time.Time{}), row("limit", "s1", hit, now.Add(4*time.Hour)))
	transcript(t, a.Dir, "-y", "s2", now, row("user", "s2", hit.Add(-time.Minute), time.Time{}), row("assistant", "s2", hit.Add(time.Second), time.Time{}))
	if h := look(t, a, nil); !h.Limited(now) {
		t.Errorf("a reply to an earlier prompt = %+v, want limited", h)
	}
}

func TestHeadroomBounds(t *testing.T) {
	root := t.TempDir()
	a := Account{"~/a", filepath.Join(root, "a")}
	hit := now.Add(-time.Hour)
	// A transcript not modified for over a week is not read.
	transcript(t, a.Dir, "-w", "old", now.Add(-Recent-time.Minute), row("limit", "old", hit, now.Add(time.Hour)))
	if h := look(t, a, nil); h.Limited(now) || !h.Last.IsZero() {
		t.Errorf("a transcript older than %s = %+v, want it not read", Recent, h)
	}
	// Rows a switch copied into the account (before it switched in) are not the account's.
	switched := now.Add(-30 * time.Minute)
	transcript(t, a.Dir, "-w", "moved", now, row("limit", "moved", hit, now.Add(time.Hour)), row("user", "moved", switched.Add(time.Minute), time.Time{}))
	if h := look(t, a, map[string]time.Time{"moved": switched}); h.Limited(now) || !h.Last.IsZero() {
		t.Errorf("rows copied in at %s = %+v, want them left out", switched, h)
	}
	if h := look(t, a, nil); !h.Limited(now) {
		t.Errorf("the same rows not copied in = %+v, want limited", h)
	}
}
