package records

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Rollout is one thread's rollout: its path and what its first line (session_meta) says.
type Rollout struct {
	Path       string
	Thread     string    // payload.id, the thread id
	Cwd        string    // payload.cwd, the thread's working directory
	Created    time.Time // payload.timestamp, else the line's: when the thread was created
	Originator string    // "codex-tui" for the TUI
	Source     string    // "cli", "vscode", "exec", … as Codex names the client
}

// metaMax bounds the first line read: 0.171.0's session_meta is about 27 kB (it holds the
// base instructions).
const metaMax = 1 << 20

// ReadRolloutMeta reads the first line of the rollout at path, which must be its
// session_meta.
func ReadRolloutMeta(path string) (Rollout, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Rollout{}, fmt.Errorf("records: read %s: %w", path, ErrNoRecord)
	}
	if err != nil {
		return Rollout{}, fmt.Errorf("records: read %s: %w", path, err)
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, metaMax), 64<<10).ReadBytes('\n')
	if err != nil {
		return Rollout{}, fmt.Errorf("records: read %s: no whole first line within %d bytes: %w", path, metaMax, err)
	}
	var x struct {
		Timestamp string `json:"timestamp"`
		Type      string `json:"type"`
		Payload   struct {
			ID         string `json:"id"`
			Cwd        string `json:"cwd"`
			Timestamp  string `json:"timestamp"`
			Originator string `json:"originator"`
			Source     any    `json:"source"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(line, &x); err != nil || x.Type != "session_meta" || x.Payload.ID == "" || x.Payload.Cwd == "" {
		return Rollout{}, fmt.Errorf("records: read %s: the first line is not a session_meta with an id and a cwd", path)
	}
	r := Rollout{Path: path, Thread: x.Payload.ID, Cwd: filepath.Clean(x.Payload.Cwd), Originator: x.Payload.Originator}
	if s, ok := x.Payload.Source.(string); ok {
		r.Source = s
	}
	for _, ts := range []string{x.Payload.Timestamp, x.Timestamp} {
		if at, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			r.Created = at
			break
		}
	}
	if r.Created.IsZero() {
		return Rollout{}, fmt.Errorf("records: read %s: the session_meta has no timestamp", path)
	}
	return r, nil
}

// CodexQuery is what is known of a pane's Codex process, to find the thread it shows.
type CodexQuery struct {
	Cwd     string    // the thread's working directory: the process's, or its -C
	Started time.Time // when the process started
	Thread  string    // the thread its argv names (codex resume ID), "" when none
	// Stop is when the stop appeared on screen; zero when no stop is being matched. When
	// more than one thread could be the pane's, those whose latest stop is written within
	// StopWindow of it are kept.
	Stop time.Time
	// Prompt is the last prompt the screen shows, exactly as typed, "" when not known for
	// sure: only a thread whose last user message it is can be the pane's (it tells apart
	// two threads that stopped together, and a thread reopened from the picker from another
	// pane's thread in the same directory).
	Prompt string
}

// Matching slack: the process's start is known to 10 ms from /proc (to 1 s from ps), a
// rollout's times to the millisecond; a stop is written within a second of the screen
// showing it, and the watcher looks every few seconds.
const (
	startSlack = 2 * time.Second
	StopWindow = 15 * time.Second
)

// ErrAmbiguous means that more than one thread could be the one a pane shows: the records
// cannot say which, and none is taken.
var ErrAmbiguous = errors.New("ambiguous")

// FindRollout finds the rollout of the thread a Codex process shows, under CodexDir's
// sessions/ (sessions/YYYY/MM/DD/rollout-<daemon-local time>-<thread id>.jsonl). The thread
// q.Thread names, when it names one; else a thread whose cwd is q.Cwd and whose rollout was
// written since the process started (one it created, or one it reopened from the picker). With
// q.Stop, not one created after the stop was on screen, nor one whose latest stop was written
// more than StopWindow after it. With q.Prompt, only one whose last user message is that
// text. When more than one remains, those whose latest stop is within StopWindow of q.Stop;
// still more than one is ErrAmbiguous, never a guess; none is ErrNoRecord. Whose stop the
// screen shows is then CodexStopOf's (a thread whose last turn ended without an error shows a
// quoted line, not a stop; a reopened thread's old stop is StopEarlier). It reads the names
// and modification times of the files under sessions/, and the first line and the tail of
// the few rollouts written since the process started.
func (e Env) FindRollout(q CodexQuery) (Rollout, error) {
	dir := e.CodexDir()
	if dir == "" || q.Cwd == "" || q.Started.IsZero() {
		return Rollout{}, fmt.Errorf("records: find rollout: %w (no Codex home, cwd or start)", ErrNoRecord)
	}
	paths, err := recentRollouts(filepath.Join(dir, "sessions"), q.Started.Add(-startSlack), q.Thread)
	if err != nil {
		return Rollout{}, err
	}
	var cands []candidate
	for _, p := range paths {
		c, ok, err := q.candidate(p)
		if err != nil {
			return Rollout{}, err
		}
		if ok {
			cands = append(cands, c)
		}
	}
	return pick(cands, q)
}

// candidate is a rollout FindRollout could take, with its latest stop.
type candidate struct {
	Rollout
	stop time.Time
}

// candidate reads the rollout at path and says whether it could be the thread q asks for.
func (q CodexQuery) candidate(path string) (candidate, bool, error) {
	r, err := ReadRolloutMeta(path)
	if err != nil || r.Cwd != filepath.Clean(q.Cwd) || (q.Thread != "" && r.Thread != q.Thread) {
		return candidate{}, false, nil
	}
	if !q.Stop.IsZero() && r.Created.After(q.Stop.Add(startSlack)) {
		return candidate{}, false, nil // created after the stop was on screen
	}
	c := candidate{Rollout: r}
	if q.Stop.IsZero() && q.Prompt == "" {
		return c, true, nil
	}
	rows, err := ReadRollout(path)
	if err != nil {
		return candidate{}, false, err
	}
	if stop, ok := LatestCodexStop(rows); ok {
		if !q.Stop.IsZero() && stop.At.After(q.Stop.Add(StopWindow)) {
			return candidate{}, false, nil // stopped after the stop on screen
		}
		c.stop = stop.At
	}
	if q.Prompt != "" && lastPrompt(rows) != Digest(q.Prompt) {
		return candidate{}, false, nil
	}
	return c, true, nil
}

// pick narrows the candidates as FindRollout says.
func pick(cands []candidate, q CodexQuery) (Rollout, error) {
	if len(cands) > 1 && !q.Stop.IsZero() {
		var near []candidate
		for _, c := range cands {
			if !c.stop.IsZero() && c.stop.Sub(q.Stop).Abs() <= StopWindow {
				near = append(near, c)
			}
		}
		if len(near) > 0 {
			cands = near
		}
	}
	switch len(cands) {
	case 0:
		return Rollout{}, fmt.Errorf("records: find rollout of the Codex process in %s started %s: %w", q.Cwd, q.Started.UTC().Format(time.RFC3339), ErrNoRecord)
	case 1:
		return cands[0].Rollout, nil
	}
	ids := make([]string, len(cands))
	for i, c := range cands {
		ids[i] = c.Thread
	}
	return Rollout{}, fmt.Errorf("records: find rollout of the Codex process in %s started %s: %w: threads %s",
		q.Cwd, q.Started.UTC().Format(time.RFC3339), ErrAmbiguous, strings.Join(ids, ", "))
}

// lastPrompt is the digest of the last user message of the rows, 0 when none.
func lastPrompt(rows []CodexRow) uint64 {
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Kind == CodexUser {
			return rows[i].Prompt
		}
	}
	return 0
}

// recentRollouts lists the rollouts under sessions (YYYY/MM/DD/rollout-*.jsonl) modified at
// or after since; when thread is not "", the rollout of that thread only, however old (a
// thread reopened by codex resume may not be written to yet). A missing sessions directory
// lists none.
func recentRollouts(sessions string, since time.Time, thread string) ([]string, error) {
	var paths []string
	years, err := os.ReadDir(sessions)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("records: list %s: %w", sessions, err)
	}
	for _, y := range years {
		for _, m := range subdirs(filepath.Join(sessions, y.Name()), y) {
			for _, d := range subdirs(m, nil) {
				paths = append(paths, rolloutsIn(d, since, thread)...)
			}
		}
	}
	return paths, nil
}

// subdirs lists the directories in dir (entry: dir's own entry, nil when dir is one already
// known to be a directory); an unreadable one lists none.
func subdirs(dir string, entry os.DirEntry) []string {
	if entry != nil && !entry.IsDir() {
		return nil
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// rolloutsIn lists the rollout files of one day directory as recentRollouts says.
func rolloutsIn(day string, since time.Time, thread string) []string {
	es, err := os.ReadDir(day)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") ||
			(thread != "" && !strings.HasSuffix(name, "-"+thread+".jsonl")) {
			continue
		}
		if info, err := e.Info(); err == nil && (thread != "" || !info.ModTime().Before(since)) {
			out = append(out, filepath.Join(day, name))
		}
	}
	return out
}
