package agent

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/records"
)

// realRollout is a rollout the real Codex 0.171.0 wrote against the mock (records/testdata):
// "hello there" (ok), "do more" (usage limit at 12:40:47, resets_at 1795869686), "continue"
// (ok, 12:41:36), then a reopened process's stop with null rate limits (12:42:14).
const realRollout = "../records/testdata/codex/rollout-2026-11-28T07-40-40-01a2222c-0810-74f1-b0b2-948e10a8d168.jsonl"

// codexHome writes the first n rows of the real rollout where Codex keeps it, and returns
// the environment whose Codex home that is.
func codexHome(t *testing.T, n int) (records.Env, string) {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "sessions", "2026", "11", "28")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(realRollout)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var kept []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for len(kept) < n && sc.Scan() {
		kept = append(kept, sc.Text())
	}
	path := filepath.Join(dir, filepath.Base(realRollout))
	if err := os.WriteFile(path, []byte(strings.Join(kept, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return records.Env{CodexHome: home}, path
}

// rowsUpTo is how many rows of the real rollout end with the row stamped at.
func rowsUpTo(t *testing.T, at string) int {
	t.Helper()
	b, err := os.ReadFile(realRollout)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, `"timestamp":"`+at) {
			return i + 1
		}
	}
	t.Fatalf("no row at %s", at)
	return 0
}

type fakeHost struct {
	env      records.Env
	q        records.CodexQuery
	noDaemon bool
	zone     *time.Location
	zerr     error
}

func (h fakeHost) Codex() (CodexProcess, error) {
	return CodexProcess{Env: h.env, Query: h.q, NoDaemon: h.noDaemon}, nil
}
func (h fakeHost) DaemonZone(string) (*time.Location, error) { return h.zone, h.zerr }

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// The stop on screen is the process's own when its thread's rollout ends at its usage-limit
// turn: the exact reset is that turn's resets_at, and the zone is the daemon's.
func TestCodexJudgeOwnStop(t *testing.T) {
	env, _ := codexHome(t, rowsUpTo(t, "2026-11-28T12:40:47.308Z"))
	ny, _ := time.LoadLocation("America/New_York")
	h := fakeHost{env: env, q: records.CodexQuery{Cwd: "/tmp/c33b/r1/w", Started: utc("2026-11-28T12:40:36Z")}, zone: ny}
	s := openCodex(records.Env{}, Process{PID: 1, Host: h})
	j := s.Judge(Seen{Kind: detector.KindUsage, Appeared: utc("2026-11-28T12:40:48Z")})
	if j.Foreign != "" || j.Limit == nil || j.Limit.ResetsAt.Unix() != 1795869686 || j.Limit.Source != "rollout" || j.Limit.Type != "primary" {
		t.Fatalf("Judge = %+v (limit %+v), want the process's own stop, reset 1795869686 from the rollout", j, j.Limit)
	}
	if s.Zone() != ny || s.Account() != env.CodexHome {
		t.Errorf("zone %v, account %q; want the daemon's zone and the Codex home", s.Zone(), s.Account())
	}
	if id, dir := s.Conversation(); id != "" || dir != "/tmp/c33b/r1/w" {
		t.Errorf("Conversation = %q, %q; want the directory, and no id (bound by process)", id, dir)
	}
}

// A thread reopened after its stop redraws an old stop: not the process's own.
func TestCodexJudgeReopenedThread(t *testing.T) {
	env, _ := codexHome(t, rowsUpTo(t, "2026-11-28T12:40:47.308Z"))
	h := fakeHost{env: env, q: records.CodexQuery{Cwd: "/tmp/c33b/r1/w", Started: utc("2026-11-28T12:41:00Z"), Thread: "01a2222c-0810-74f1-b0b2-948e10a8d168"}, zone: time.UTC}
	j := openCodex(env, Process{PID: 1, Host: h}).Judge(Seen{Kind: detector.KindUsage, Appeared: time.Time{}})
	if !strings.Contains(j.Foreign, "older than this codex process") || j.Limit != nil {
		t.Errorf("Judge = %+v, want a foreign stop (written before the process started)", j)
	}
}

// No rollout written since the process started is a thread reopened (its old stop redrawn)
// or a stop not written yet: held, whatever the zone. Without the process table, held too.
func TestCodexJudgeNoRollout(t *testing.T) {
	env := records.Env{CodexHome: t.TempDir()}
	h := fakeHost{env: env, q: records.CodexQuery{Cwd: "/nowhere", Started: utc("2026-11-28T12:40:36Z")}, zone: time.UTC}
	if j := openCodex(env, Process{PID: 1, Host: h}).Judge(Seen{Kind: detector.KindUsage, Appeared: time.Time{}}); !strings.Contains(j.Foreign, "no rollout") {
		t.Errorf("Judge = %+v, want a hold: no rollout since the process started", j)
	}
	if j := openCodex(env, Process{PID: 1}).Judge(Seen{Kind: detector.KindUsage, Appeared: time.Time{}}); j.Err == nil || !strings.Contains(j.Foreign, "zone") {
		t.Errorf("without the process table, Judge = %+v, want a hold naming the zone", j)
	}
}

// The zone cannot be told (no daemon.pid, or --no-daemon: the embedded server prints in the
// TUI's zone): the rollout's reset is the only reading (Limit.Sure); without a rollout, held.
func TestCodexJudgeZoneUnknown(t *testing.T) {
	env, _ := codexHome(t, rowsUpTo(t, "2026-11-28T12:40:47.308Z"))
	q := records.CodexQuery{Cwd: "/tmp/c33b/r1/w", Started: utc("2026-11-28T12:40:36Z")}
	for _, h := range []fakeHost{{env: env, q: q, zerr: errors.New("no daemon.pid")}, {env: env, q: q, noDaemon: true, zone: time.UTC}} {
		s := openCodex(env, Process{PID: 1, Host: h})
		j := s.Judge(Seen{Kind: detector.KindUsage, Appeared: utc("2026-11-28T12:40:48Z")})
		if j.Foreign != "" || j.Limit == nil || !j.Limit.Sure || s.Zone() != nil {
			t.Errorf("no daemon %v: Judge = %+v (limit %+v), zone %v; want the rollout's reset, sure, no zone", h.noDaemon, j, j.Limit, s.Zone())
		}
	}
}

// The proof of a resume: the typed message, then a turn that ended without an error; a turn
// the rollout shows running is a reason not to type.
func TestCodexProofAndBefore(t *testing.T) {
	env, path := codexHome(t, rowsUpTo(t, "2026-11-28T12:40:47.308Z"))
	h := fakeHost{env: env, q: records.CodexQuery{Cwd: "/tmp/c33b/r1/w", Started: utc("2026-11-28T12:40:36Z")}, zone: time.UTC}
	s := openCodex(env, Process{PID: 1, Host: h})
	s.Judge(Seen{Kind: detector.KindUsage, Appeared: utc("2026-11-28T12:40:48Z")})
	sent := utc("2026-11-28T12:41:30Z")
	if got := s.Proof(sent, "continue"); got != records.Unproven {
		t.Errorf("before the resume, Proof = %v, want Unproven", got)
	}
	if changed, note := s.Before(); changed || note != "" {
		t.Errorf("at the stop, Before = %v, %q", changed, note)
	}
	full, _ := os.ReadFile(realRollout)
	lines := strings.Split(string(full), "\n")
	// The resume's user message (item_completed, 12:41:36.557), its turn not ended yet.
	if err := os.WriteFile(path, []byte(strings.Join(lines[:rowsUpTo(t, "2026-11-28T12:41:36.557Z")], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, note := s.Before(); !strings.Contains(note, "turn is running") {
		t.Errorf("after the user message, Before's note = %q, want a turn running", note)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines[:rowsUpTo(t, "2026-11-28T12:41:36.699Z")], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.Proof(sent, "continue"); got != records.Resumed {
		t.Errorf("after the resumed turn, Proof = %v, want Resumed", got)
	}
}

// A thread reopened from the picker or by codex resume --last (argv names no thread) redraws
// its old stop, and Codex writes nothing to its rollout until the next turn: held, as a thread
// named in argv is.
func TestCodexJudgeReopenedFromPicker(t *testing.T) {
	env, path := codexHome(t, rowsUpTo(t, "2026-11-28T12:40:47.308Z"))
	last := utc("2026-11-28T12:40:47.308Z")
	if err := os.Chtimes(path, last, last); err != nil { // as Codex left it
		t.Fatal(err)
	}
	for _, thread := range []string{"01a2222c-0810-74f1-b0b2-948e10a8d168", ""} {
		h := fakeHost{env: env, q: records.CodexQuery{Cwd: "/tmp/c33b/r1/w", Started: utc("2026-11-28T12:42:03Z"), Thread: thread}, zone: time.UTC}
		if j := openCodex(env, Process{PID: 1, Host: h}).Judge(Seen{Kind: detector.KindUsage, Appeared: utc("2026-11-28T12:42:05Z")}); j.Foreign == "" {
			t.Errorf("reopened, argv thread %q: Judge = %+v (err %v), want the old stop held", thread, j, j.Err)
		}
	}
}
