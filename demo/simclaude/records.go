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

// newRecorder starts the records of this process; nil when --records is off.
func newRecorder(on bool, limitType string) (*recorder, error) {
	if !on {
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
	r := &recorder{session: fmt.Sprintf("5e551011-%04x-4000-8000-%012x", pid&0xffff, now.UnixNano()&0xffffffffffff), limitType: limitType}
	r.entry = filepath.Join(dir, "sessions", fmt.Sprint(pid)+".json")
	enc := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '-'
	}, cwd)
	r.transcript = filepath.Join(dir, "projects", enc, r.session+".jsonl")
	entry := map[string]any{"pid": pid, "sessionId": r.session, "cwd": cwd, "startedAt": now.UnixMilli(), "procStart": start,
		"version": "2.1.330", "kind": "interactive", "entrypoint": "cli", "status": "idle", "updatedAt": now.UnixMilli()}
	if err := r.write(r.entry, entry, false); err != nil {
		return nil, err
	}
	return r, nil
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
