package records_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/records"
)

// FuzzParseRollout: any line gives a row that keeps its promises, or no row; never a panic.
func FuzzParseRollout(f *testing.F) {
	at := utc("20:00:00")
	f.Add([]byte(userItem(at, "continue")))
	f.Add([]byte(tokenCount(at, rates(100, 5, 1795900000, 1796300000, "null"))))
	f.Add([]byte(tokenCount(at, "null")))
	f.Add([]byte(taskComplete(at, "usage_limit_exceeded")))
	f.Add([]byte(taskComplete(at, "")))
	f.Add([]byte(`{"timestamp":"2026-11-28T12:40:47.308Z","type":"event_msg","payload":{"type":"user_message","message":"x"}}` + "\r\n"))
	f.Add([]byte(`{"timestamp":"2026-11-28T12:40:47.308Z","type":"event_msg","payload":{"type":"task_complete","error":{"codex_error_info":{"other":1}}}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		r, ok := records.ParseRollout(line)
		if !ok {
			if r != (records.CodexRow{}) {
				t.Errorf("no row but %+v", r)
			}
			return
		}
		if r.At.IsZero() || r.Kind < records.CodexUser || r.Kind > records.CodexError {
			t.Errorf("row %+v: no instant or no kind", r)
		}
		if (r.Kind == records.CodexLimit) != (r.ErrorInfo == "usage_limit_exceeded") {
			t.Errorf("row %+v: a limit without its error info, or that info on another kind", r)
		}
		if r.Kind != records.CodexRates && r.Rates != nil || r.Kind != records.CodexUser && r.Prompt != 0 {
			t.Errorf("row %+v: rates or a prompt on a row of another kind", r)
		}
	})
}

// FuzzReadRollout: any file reads without an error or a panic, and what the stop, whose
// stop and proof functions return is consistent with the rows.
func FuzzReadRollout(f *testing.F) {
	at := utc("20:00:00")
	f.Add([]byte(userItem(at, "x") + "\n" + tokenCount(at, rates(100, 5, 9, 10, "null")) + "\n" + taskComplete(at, "usage_limit_exceeded") + "\n"))
	f.Add([]byte("\n\n\r\n{"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "rollout.jsonl")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		rows, err := records.ReadRollout(p)
		if err != nil {
			t.Fatalf("ReadRollout: %v", err)
		}
		stop, ok := records.LatestCodexStop(rows)
		if ok && (stop.At.IsZero() || (stop.Window == "") != stop.Reset.IsZero()) {
			t.Errorf("LatestCodexStop = %+v: no instant, or a reset without its window", stop)
		}
		if records.CodexStopOf(rows, time.Time{}) == records.StopOwn {
			t.Error("CodexStopOf without a start said StopOwn")
		}
		records.CodexProof(rows, time.Time{}, "continue")
	})
}
