package records_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/records"
)

const session = "264f8e32-63d3-431e-876a-e8f6653fa2c3"

// limitRow is a usage-limit row shaped like 2.1.330's (testdata/transcript-2.1.330.jsonl).
func limitRow(at time.Time, resetsAt int64, typ string) string {
	return fmt.Sprintf(`{"parentUuid":"4f1f","isSidechain":false,"type":"assistant","uuid":"814b","timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":"You've hit your 5-hour limit · resets 8:30pm (America/New_York)"}]},"apiError":"usage_limit_reached","quotaLimits":{"status":"rejected","resetsAt":%d,"unifiedRateLimitFallbackAvailable":false,"rateLimitType":%q,"overageStatus":"rejected","isUsingOverage":false},"error":"rate_limit","isApiErrorMessage":true,"apiErrorStatus":429,"sessionId":%q}`,
		at.UTC().Format(time.RFC3339Nano), resetsAt, typ, session)
}

func userRow(at time.Time, text string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q},"timestamp":%q,"sessionId":%q}`, text, at.UTC().Format(time.RFC3339Nano), session)
}

func TestParseRow(t *testing.T) {
	at := time.Date(2026, 11, 24, 1, 28, 38, 293e6, time.UTC)
	ts := at.Format(time.RFC3339Nano)
	cases := []struct {
		name string
		line string
		want records.Row
		ok   bool
	}{
		{"usage limit", limitRow(at, 1795483853, "five_hour"),
			records.Row{Kind: records.RowLimit, At: at, SessionID: session, ResetsAt: time.Unix(1795483853, 0), RateLimitType: "five_hour"}, true},
		{"usage limit with CRLF", limitRow(at, 1795483853, "seven_day") + "\r\n",
			records.Row{Kind: records.RowLimit, At: at, SessionID: session, ResetsAt: time.Unix(1795483853, 0), RateLimitType: "seven_day"}, true},
		{"user prompt", userRow(at, "do more"),
			records.Row{Kind: records.RowUser, At: at, SessionID: session, Prompt: records.Digest("do more")}, true},
		{"user prompt in a text block", `{"type":"user","message":{"content":[{"type":"text","text":"continue"}]},"timestamp":"` + ts + `"}`,
			records.Row{Kind: records.RowUser, At: at, Prompt: records.Digest("continue")}, true},
		{"tool result", `{"type":"user","message":{"content":[{"type":"tool_result","content":"x"}]},"timestamp":"` + ts + `"}`,
			records.Row{Kind: records.RowUser, At: at}, true},
		{"a reply", `{"type":"assistant","message":{"content":[{"text":"ok","type":"text"}]},"timestamp":"` + ts + `"}`,
			records.Row{Kind: records.RowAssistant, At: at}, true},
		{"transient 429", `{"type":"assistant","isApiErrorMessage":true,"apiErrorIsTransient":true,"error":"rate_limit","apiErrorStatus":429,"quotaLimits":{"status":"rejected","resetsAt":1795483853},"timestamp":"` + ts + `"}`,
			records.Row{Kind: records.RowError, At: at}, true},
		{"usage credits", `{"type":"assistant","isApiErrorMessage":true,"apiError":"model_requires_usage_credits","timestamp":"` + ts + `"}`,
			records.Row{Kind: records.RowError, At: at}, true},
		{"allowed quota", `{"type":"assistant","isApiErrorMessage":true,"quotaLimits":{"status":"allowed_warning","resetsAt":1795483853},"timestamp":"` + ts + `"}`,
			records.Row{Kind: records.RowError, At: at}, true},
		{"no reset", `{"type":"assistant","isApiErrorMessage":true,"quotaLimits":{"status":"rejected"},"timestamp":"` + ts + `"}`,
			records.Row{Kind: records.RowError, At: at}, true},
		{"truncated", limitRow(at, 1795483853, "five_hour")[:200], records.Row{}, false},
		{"no timestamp", `{"type":"user","message":{"content":"x"}}`, records.Row{}, false},
		{"bad timestamp", `{"type":"user","timestamp":"yesterday"}`, records.Row{}, false},
		{"another shape: resetsAt a string", `{"type":"assistant","isApiErrorMessage":true,"quotaLimits":{"status":"rejected","resetsAt":"soon"},"timestamp":"` + ts + `"}`, records.Row{}, false},
		{"other row", `{"type":"attachment","timestamp":"` + ts + `","attachment":{"type":"user"}}`, records.Row{}, false},
		{"not JSON", `"user" "assistant"`, records.Row{}, false},
		{"empty", ``, records.Row{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := records.ParseRow([]byte(c.line))
			if ok != c.ok || !got.At.Equal(c.want.At) || !got.ResetsAt.Equal(c.want.ResetsAt) {
				t.Fatalf("ParseRow = %+v, %v, want %+v, %v", got, ok, c.want, c.ok)
			}
			got.At, got.ResetsAt, c.want.At, c.want.ResetsAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			if got != c.want {
				t.Errorf("ParseRow = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestRealTranscript reads the transcript Claude Code 2.1.330 wrote against the mock API: a
// prompt stopped at a five_hour limit, "continue" typed before the reset (the limit again),
// then "continue" after it (a reply).
func TestRealTranscript(t *testing.T) {
	path := filepath.Join("testdata", "transcript-2.1.330.jsonl")
	rows, err := records.ReadTail(path, session)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []records.RowKind
	for _, r := range rows {
		kinds = append(kinds, r.Kind)
	}
	u, a, l := records.RowUser, records.RowAssistant, records.RowLimit
	if want := []records.RowKind{u, l, u, l, u, a}; fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("kinds = %v, want %v", kinds, want)
	}
	if _, ok := records.LatestLimit(rows); ok {
		t.Error("LatestLimit after the last prompt: a limit, want none (the session went on)")
	}
	if r, ok := records.LatestLimit(rows[:4]); !ok || r.ResetsAt.Unix() != 1795483853 || r.RateLimitType != "five_hour" || !r.At.Equal(rows[3].At) {
		t.Errorf("LatestLimit(first four) = %+v, %v, want the second limit row, resetsAt 1795483853", r, ok)
	}
	// The first continue came back limited; the second one got a reply.
	if got := records.Proof(rows, rows[2].At, "continue"); got != records.LimitAgain {
		t.Errorf("Proof after the first continue = %v, want LimitAgain", got)
	}
	if got := records.Proof(rows, rows[4].At, "continue"); got != records.Resumed {
		t.Errorf("Proof after the second continue = %v, want Resumed", got)
	}
	if got := records.Proof(rows[:5], rows[4].At, "continue"); got != records.Unproven {
		t.Errorf("Proof before the reply = %v, want Unproven", got)
	}
	if got := records.Proof(rows, rows[4].At, "go on"); got != records.Unproven {
		t.Errorf("Proof of another message = %v, want Unproven", got)
	}
	if got := records.Proof(rows, rows[4].At, ""); got != records.Resumed {
		t.Errorf("Proof of a menu key (any prompt) = %v, want Resumed", got)
	}
	if rows, _ := records.ReadTail(path, "another-session"); len(rows) != 0 {
		t.Errorf("rows of another session: %d, want none", len(rows))
	}
}

func TestRealSessionEntry(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", "session-2.1.330.json"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "sessions", "21077.json"), string(b))
	e := records.Env{ConfigDir: dir}
	en, err := e.Session(21077, "943725")
	if err != nil || en.SessionID != session || en.Cwd != "/tmp/rec/h/work.dir" || en.Status != "idle" || en.Busy() {
		t.Fatalf("Session = %+v, %v", en, err)
	}
	if want := time.UnixMilli(1795483708419); !en.Started().Equal(want) {
		t.Errorf("Started = %s, want startedAt %s", en.Started(), want)
	}
	if !(records.Entry{}).Started().IsZero() {
		t.Error("an entry without startedAt has a start")
	}
	if _, err := e.Session(21077, "1"); !errors.Is(err, records.ErrNoRecord) {
		t.Errorf("Session of another process with the same pid = %v, want ErrNoRecord", err)
	}
	tr := filepath.Join(dir, "projects", "-tmp-rec-h-work-dir", session+".jsonl")
	write(t, tr, "")
	if p, err := e.Transcript(en); p != tr || err != nil {
		t.Errorf("Transcript = %q, %v, want %q", p, err, tr)
	}
	// Found by its session id when the directory name is encoded otherwise.
	if err := os.Rename(filepath.Dir(tr), filepath.Join(dir, "projects", "-tmp-rec-h-work.dir")); err != nil {
		t.Fatal(err)
	}
	if p, err := e.Transcript(en); err != nil || filepath.Base(p) != session+".jsonl" {
		t.Errorf("Transcript under another encoding = %q, %v", p, err)
	}
	for _, bad := range []string{"", "../x", "*", "a/b"} {
		if _, err := records.TranscriptPath(dir, "/tmp", bad); !errors.Is(err, records.ErrNoRecord) {
			t.Errorf("TranscriptPath(session %q) = %v, want ErrNoRecord", bad, err)
		}
	}
}

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestReadTailBounds: the reader takes the end of the file, grows its window only while it
// holds nothing useful, and survives what a file can hold.
func TestReadTailBounds(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC)
	big := `{"type":"api-request-blob","pad":"` + strings.Repeat("x", 300<<10) + "\"}\n"
	cases := []struct {
		name  string
		text  string
		kinds int
		limit bool
	}{
		{"empty file", "", 0, false},
		{"one row, no newline", limitRow(at, 1, "five_hour"), 1, true},
		{"a row cut short by a write in progress", userRow(at, "x") + "\n" + limitRow(at, 1, "five_hour")[:150], 1, false},
		{"CRLF lines", userRow(at, "x") + "\r\n" + limitRow(at, 9, "five_hour") + "\r\n", 2, true},
		{"a row behind a line longer than the first window", limitRow(at, 9, "five_hour") + "\n" + big, 1, true},
		{"binary junk", "\x00\xff{\n\n\x00", 0, false},
		{"only big rows", big + big, 0, false},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprint(i)+".jsonl")
			write(t, p, c.text)
			rows, err := records.ReadTail(p, session)
			if err != nil || len(rows) != c.kinds {
				t.Fatalf("ReadTail = %d rows, %v; want %d", len(rows), err, c.kinds)
			}
			if _, ok := records.LatestLimit(rows); ok != c.limit {
				t.Errorf("LatestLimit found = %v, want %v", ok, c.limit)
			}
		})
	}
	if _, err := records.ReadTail(filepath.Join(dir, "none.jsonl"), session); !errors.Is(err, records.ErrNoRecord) {
		t.Errorf("ReadTail of a missing file = %v, want ErrNoRecord", err)
	}
	if _, err := records.ReadTail(dir, session); err == nil {
		t.Error("ReadTail of a directory: no error")
	}
}

// bigTranscript writes a transcript of size bytes whose tail holds a prompt and its
// usage-limit row after 4 MB of filler rows; what lies before is a hole (a sparse file), so
// the test writes little while a reader that read the whole file would read it all.
func bigTranscript(tb testing.TB, size int64) string {
	p := filepath.Join(tb.TempDir(), "big.jsonl")
	at := time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC)
	filler := []byte(`{"type":"attachment","timestamp":"2026-11-24T00:00:00Z","attachment":{"type":"skill_listing","content":"` + strings.Repeat("lorem ipsum ", 400) + "\"}}\n")
	var b bytes.Buffer
	b.WriteByte('\n')
	for b.Len() < 4<<20 {
		b.Write(filler)
	}
	b.WriteString(userRow(at, "do more") + "\n" + limitRow(at.Add(time.Second), 1795483853, "five_hour") + "\n")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b.Bytes(), size-int64(b.Len())); err != nil {
		tb.Fatal(err)
	}
	return p
}

func TestHugeTranscript(t *testing.T) {
	rows, err := records.ReadTail(bigTranscript(t, 100<<20), session)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := records.LatestLimit(rows); !ok || r.ResetsAt.Unix() != 1795483853 {
		t.Errorf("LatestLimit of a 100 MB transcript = %+v, %v", r, ok)
	}
}

// BenchmarkReadTail: the usage-limit row at the end of a 100 MB transcript.
func BenchmarkReadTail(b *testing.B) {
	p := bigTranscript(b, 100<<20)
	b.ResetTimer()
	for b.Loop() {
		rows, err := records.ReadTail(p, session)
		if _, ok := records.LatestLimit(rows); err != nil || !ok {
			b.Fatal("no limit row")
		}
	}
}

// StopOf: a stop on screen is the process's own only when its transcript ends in a
// usage-limit row written after the process started.
func TestStopOf(t *testing.T) {
	start := time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return start.Add(d) }
	user := records.Row{Kind: records.RowUser, At: at(time.Minute)}
	limit := records.Row{Kind: records.RowLimit, At: at(2 * time.Minute), ResetsAt: at(3 * time.Hour)}
	reply := records.Row{Kind: records.RowAssistant, At: at(3 * time.Minute)}
	apiError := records.Row{Kind: records.RowError, At: at(2 * time.Minute)}
	for _, tc := range []struct {
		name    string
		rows    []records.Row
		started time.Time
		want    records.Stop
	}{
		{"a usage-limit row after the start", []records.Row{user, limit}, start, records.StopOwn},
		{"written in the start's millisecond", []records.Row{user, {Kind: records.RowLimit, At: start}}, start, records.StopOwn},
		{"a usage-limit row before the start (reopened)", []records.Row{user, limit}, at(time.Hour), records.StopEarlier},
		{"a reply after the usage-limit row (quoted)", []records.Row{user, limit, user, reply}, start, records.StopNone},
		{"a prompt after the usage-limit row", []records.Row{user, limit, user}, start, records.StopNone},
		{"no usage-limit row at all", []records.Row{user, reply}, start, records.StopNone},
		{"no start known", []records.Row{user, limit}, time.Time{}, records.StopUnknown},
		{"no start known, a reply last", []records.Row{user, limit, reply}, time.Time{}, records.StopNone},
		{"another API error last", []records.Row{user, apiError}, start, records.StopUnknown},
		{"no rows", nil, start, records.StopUnknown},
	} {
		if got := records.StopOf(tc.rows, tc.started); got != tc.want {
			t.Errorf("%s: StopOf = %d, want %d", tc.name, got, tc.want)
		}
	}
}
