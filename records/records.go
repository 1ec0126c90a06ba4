// Package records reads what Claude Code keeps about its sessions (docs/claude-code.md):
// which config directory a claude process uses, its entry in the session registry, its global
// settings and its transcript. The screen stays the authority; these records confirm and
// refine it. Seen with Claude Code 2.1.330: a running interactive claude keeps
// <config dir>/sessions/<pid>.json ({"pid":4650,"sessionId":"…","kind":"interactive",…});
// the global config is $CLAUDE_CONFIG_DIR/.claude.json, else $HOME/.claude.json; vim mode
// ("editorMode": "vim") is set there or in the settings files (EditorMode).
//
// For Codex CLI it reads the rollouts of its threads under its home (Env.CodexDir): which
// thread a pane's Codex process shows (FindRollout), its stop and exact reset
// (LatestCodexStop), whose stop it is (CodexStopOf) and whether a resume ran (CodexProof).
package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Env is the part of an agent process's environment that locates its records.
type Env struct {
	ConfigDir string // CLAUDE_CONFIG_DIR, "" when unset
	Home      string // HOME
	CodexHome string // CODEX_HOME, "" when unset
}

// ParseEnviron reads Env from /proc/PID/environ's NUL-separated text.
func ParseEnviron(b []byte) Env {
	var e Env
	for kv := range strings.SplitSeq(string(b), "\x00") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "CLAUDE_CONFIG_DIR":
			e.ConfigDir = v
		case "HOME":
			e.Home = v
		case "CODEX_HOME":
			e.CodexHome = v
		}
	}
	return e
}

// Dir is the process's config directory: CLAUDE_CONFIG_DIR, else $HOME/.claude; "" when
// neither is known. Each config directory is one account.
func (e Env) Dir() string {
	switch {
	case e.ConfigDir != "":
		return e.ConfigDir
	case e.Home != "":
		return filepath.Join(e.Home, ".claude")
	}
	return ""
}

// settingsPath is the global config file: $CLAUDE_CONFIG_DIR/.claude.json, else
// $HOME/.claude.json.
func (e Env) settingsPath() string {
	switch {
	case e.ConfigDir != "":
		return filepath.Join(e.ConfigDir, ".claude.json")
	case e.Home != "":
		return filepath.Join(e.Home, ".claude.json")
	}
	return ""
}

// Entry is a claude process's entry in the session registry.
type Entry struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	ProcStart string `json:"procStart"` // field 22 of /proc/PID/stat: clock ticks since boot
	Version   string `json:"version"`
	Kind      string `json:"kind"`
	Cwd       string `json:"cwd"`
	// Status is "busy" while a turn runs, "idle" or "waiting" (a dialog is open) otherwise.
	Status string `json:"status"`
	// StartedAt is when the process started, in Unix milliseconds by the host's clock (the
	// clock that stamps the transcript's rows); 0 when the entry does not say.
	StartedAt int64 `json:"startedAt"`
}

// Started is when the process started; zero when the entry does not say.
func (en Entry) Started() time.Time {
	if en.StartedAt <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(en.StartedAt)
}

// Busy reports whether the entry says a turn is running.
func (en Entry) Busy() bool { return en.Status == "busy" }

// Session reads the registry entry of the claude process pid whose start (field 22 of
// /proc/PID/stat) is procStart; an entry left by an earlier process with the same pid is
// ErrNoRecord.
func (e Env) Session(pid int, procStart string) (Entry, error) {
	en, err := e.ReadEntry(pid)
	if err != nil {
		return Entry{}, err
	}
	if en.ProcStart != procStart {
		return Entry{}, fmt.Errorf("records: session of pid %d: %w (the entry is of another process, started at %q)", pid, ErrNoRecord, en.ProcStart)
	}
	return en, nil
}

// Transcript is the path of the entry's transcript (see transcriptPath).
func (e Env) Transcript(en Entry) (string, error) {
	return transcriptPath(e.Dir(), en.Cwd, en.SessionID)
}

// ErrNoRecord means the record does not exist (no such file, or no location known).
var ErrNoRecord = errors.New("no record")

// ReadEntry reads <config dir>/sessions/<pid>.json.
func (e Env) ReadEntry(pid int) (Entry, error) {
	dir := e.Dir()
	if dir == "" {
		return Entry{}, fmt.Errorf("records: read entry of pid %d: %w (no CLAUDE_CONFIG_DIR or HOME)", pid, ErrNoRecord)
	}
	path := filepath.Join(dir, "sessions", strconv.Itoa(pid)+".json")
	var en Entry
	if err := readJSON(path, &en); err != nil {
		return Entry{}, err
	}
	if en.PID != pid {
		return Entry{}, fmt.Errorf("records: read %s: pid %d in the file", path, en.PID)
	}
	return en, nil
}

// EditorMode is Claude Code's "editorMode" setting ("vim", "normal" or "" when unset) for a
// process started in the directory cwd ("" when unknown: the project's files are not read).
// Seen in 2.1.332's code: the merged settings win over the global config, and /config writes
// there. So the first of these that sets it counts: the project's
// .claude/settings.local.json, its .claude/settings.json, <config dir>/settings.json, then
// the global config (settingsPath). A file that does not exist is skipped; one that cannot be
// read or parsed is an error.
func (e Env) EditorMode(cwd string) (string, error) {
	global := e.settingsPath()
	if global == "" {
		return "", fmt.Errorf("records: read settings: %w (no CLAUDE_CONFIG_DIR or HOME)", ErrNoRecord)
	}
	var paths []string
	if cwd != "" {
		paths = append(paths, filepath.Join(cwd, ".claude", "settings.local.json"), filepath.Join(cwd, ".claude", "settings.json"))
	}
	paths = append(paths, filepath.Join(e.Dir(), "settings.json"), global)
	for _, path := range paths {
		var s struct {
			EditorMode string `json:"editorMode"`
		}
		err := readJSON(path, &s)
		switch {
		case errors.Is(err, ErrNoRecord):
			continue
		case err != nil:
			return "", err
		case s.EditorMode != "":
			return s.EditorMode, nil
		}
	}
	return "", nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("records: read %s: %w", path, ErrNoRecord)
	}
	if err != nil {
		return fmt.Errorf("records: read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("records: read %s: %w", path, err)
	}
	return nil
}
