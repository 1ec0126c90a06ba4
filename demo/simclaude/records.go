package simclaude

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

// recorder writes Claude Code's records as 2.1.330 does (records/testdata): the session
// registry entry <CLAUDE_CONFIG_DIR>/sessions/<pid>.json while the session runs, and the
// transcript's user, reply and usage-limit rows. With --records only, and only under
// CLAUDE_CONFIG_DIR, so a simulated session never writes into a real one's directory.
type recorder struct {
	entry      string // the registry entry's path
	transcript string
	session    string
	limitType  string
}

// simSession starts the session ids the simulator makes: --resume of one of them keeps
// records even without --records, since its transcript is a simulated one (a real Claude
// Code session id is a random UUID).
const simSession = "5e551011-"

// newRecorder starts the records of this process; nil when --records is off. With --resume
// ID it continues that session: its transcript must exist in the project directory of the
// working directory (Claude Code says "No conversation found" otherwise), and its rows go
// on there.
func newRecorder(on bool, limitType, resume string) (*recorder, error) {
	if !on && !strings.HasPrefix(resume, simSession) {
		return nil, nil
	}
	dir := os.Getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		return nil, errors.New("simclaude: --records: CLAUDE_CONFIG_DIR is not set")
	}
	start, err := procStart()
	if err != nil {
		return nil, fmt.Errorf("simclaude: --records: %w", err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("simclaude: --records: %w", err)
	}
	pid, now := os.Getpid(), clock.Real.Now()
	r := &recorder{session: fmt.Sprintf("%s%04x-4000-8000-%012x", simSession, pid&0xffff, now.UnixNano()&0xffffffffffff), limitType: limitType}
	if resume != "" {
		r.session = resume
	}
	r.entry = filepath.Join(dir, "sessions", fmt.Sprint(pid)+".json")
	enc := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '-'
	}, cwd)
	r.transcript = filepath.Join(dir, "projects", enc, r.session+".jsonl")
	if _, err := os.Stat(r.transcript); resume != "" && err != nil {
		return nil, fmt.Errorf("simclaude: --resume: No conversation found with session ID: %s", resume)
	}
	entry := map[string]any{"pid": pid, "sessionId": r.session, "cwd": cwd, "startedAt": now.UnixMilli(), "procStart": start,
		"version": "2.1.330", "kind": "interactive", "entrypoint": "cli", "status": "idle", "updatedAt": now.UnixMilli()}
	if err := r.write(r.entry, entry, false); err != nil {
		return nil, err
	}
	return r, nil
}

// history draws the rows of the transcript as a reopened conversation shows them: each
// prompt ("❯ text"), each reply ("● text") and each usage-limit stop in its gutter, as Claude
// Code redraws them after --resume. Other rows are not drawn.
func (r *recorder) history() []string {
	b, err := os.ReadFile(r.transcript)
	if err != nil {
		return nil
	}
	var rows []string
	for line := range strings.SplitSeq(string(b), "\n") {
		var x struct {
			Type        string `json:"type"`
			IsAPIError  bool   `json:"isApiErrorMessage"`
			QuotaLimits *struct {
				ResetsAt int64 `json:"resetsAt"`
			} `json:"quotaLimits"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &x) != nil {
			continue
		}
		switch text := contentText(x.Message.Content); {
		case x.Type == "user" && text != "":
			rows = append(rows, "", "❯ "+text)
		case x.Type == "assistant" && x.IsAPIError && x.QuotaLimits != nil:
			at := time.Unix(x.QuotaLimits.ResetsAt, 0).UTC()
			rows = append(rows, "  ⎿ "+nbsp+"You've hit your session limit · resets "+clockText(at)+" (UTC)")
		case x.Type == "assistant" && text != "":
			rows = append(rows, "", "● "+text)
		}
	}
	return rows
}

// contentText is the text of a row's content: a string, or its text blocks joined.
func contentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []struct {
		Type, Text string
	}
	json.Unmarshal(c, &blocks)
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, " ")
}

// procStart is field 22 of /proc/self/stat, the process's start in clock ticks.
func procStart() (string, error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return "", err
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return "", fmt.Errorf("/proc/self/stat: %d fields after the name", len(fields))
	}
	return fields[19], nil
}

func (r *recorder) write(path string, v any, appendLine bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("simclaude: records: %w", err)
	}
	if !appendLine {
		return os.WriteFile(path, b, 0o600)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("simclaude: records: %w", err)
	}
	defer f.Close()
	_, err = f.Write(append(b, '\n'))
	return err
}

// row appends a transcript row; errors are the simulator's to ignore (a record it could not
// write is a record Claude Code could not write either: the watcher must cope).
func (r *recorder) row(v map[string]any) {
	if r == nil {
		return
	}
	v["sessionId"], v["timestamp"] = r.session, clock.Real.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	r.write(r.transcript, v, true)
}

func (r *recorder) prompt(text string) {
	r.row(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (r *recorder) reply(text string) {
	r.row(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}})
}

// limit is the usage-limit row of a stop that lifts at reset (nothing without --records, as
// the other rows: r is nil then).
func (r *recorder) limit(reset time.Time) {
	if r == nil {
		return
	}
	r.row(map[string]any{"type": "assistant", "apiError": "usage_limit_reached", "error": "rate_limit", "isApiErrorMessage": true, "apiErrorStatus": 429,
		"message":     map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "You've hit your limit"}}},
		"quotaLimits": map[string]any{"status": "rejected", "resetsAt": reset.Unix(), "rateLimitType": r.limitType, "overageStatus": "rejected"}})
}

// close removes the registry entry, as Claude Code does when it exits.
func (r *recorder) close() {
	if r != nil {
		os.Remove(r.entry)
	}
}
