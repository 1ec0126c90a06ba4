package records_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/records"
)

// FuzzParseRow: any line gives a row that keeps its promises, or no row; never a panic.
func FuzzParseRow(f *testing.F) {
	at := time.Date(2026, 11, 24, 1, 28, 38, 0, time.UTC)
	f.Add([]byte(limitRow(at, 1795483853, "five_hour")))
	f.Add([]byte(userRow(at, "continue")))
	f.Add([]byte(`{"type":"assistant","isApiErrorMessage":true,"apiErrorIsTransient":true,"timestamp":"2026-11-24T01:28:38Z"}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"text","text":"x"}]},"timestamp":"2026-11-24T01:28:38Z"}` + "\r\n"))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, ok := records.ParseRow(line)
		if !ok {
			if r != (records.Row{}) {
				t.Errorf("no row but %+v", r)
			}
			return
		}
		if r.At.IsZero() || r.Kind < records.RowUser || r.Kind > records.RowError {
			t.Errorf("row %+v: no instant or no kind", r)
		}
		if (r.Kind == records.RowLimit) != !r.ResetsAt.IsZero() {
			t.Errorf("row %+v: a reset on a row that is not a limit, or a limit without one", r)
		}
		if r.Kind != records.RowUser && r.Prompt != 0 {
			t.Errorf("row %+v: a prompt on a row that is not a user's", r)
		}
	})
}

// FuzzReadTail: any file content reads without an error or a panic, and what LatestLimit and
// Proof return is consistent with the rows.
func FuzzReadTail(f *testing.F) {
	at := time.Date(2026, 11, 24, 1, 28, 38, 0, time.UTC)
	f.Add([]byte(userRow(at, "x") + "\n" + limitRow(at, 9, "five_hour") + "\n"))
	f.Add([]byte("\n\n\r\n{"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		rows, err := records.ReadTail(p, session)
		if err != nil {
			t.Fatalf("ReadTail: %v", err)
		}
		if r, ok := records.LatestLimit(rows); ok && r.Kind != records.RowLimit {
			t.Errorf("LatestLimit returned a %v row", r.Kind)
		}
		records.Proof(rows, time.Time{}, "continue")
	})
}
