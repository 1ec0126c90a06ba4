package records_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/records"
)

// The two rollouts in testdata/codex were written by the real Codex 0.171.0 against the
// loopback mock (testdata/codex/README.md), in the working directory rolloutCwd:
//   - threadX: a process started 12:40:36 UTC created it at 12:40:40.890; "do more" stopped at
//     12:40:47.308 (5-hour window at 100 %, resets 1795869686); after the reset "continue" ran
//     (12:41:36.699). Then `codex resume threadX` (a process started 12:42:03) typed
//     "reopened go", which stopped at 12:42:14.247 with rate_limits of null fields.
//   - threadY: a second process in the same directory, started 12:42:07, created it at
//     12:42:08.173; "second thread" stopped at 12:42:12.024, rate_limits null too.
const (
	threadX    = "01a2222c-0810-74f1-b0b2-948e10a8d168"
	threadY    = "01a2222d-5d1f-7cc3-8db8-4566838bd6b5"
	rolloutX   = "testdata/codex/rollout-2026-11-28T07-40-40-" + threadX + ".jsonl"
	rolloutY   = "testdata/codex/rollout-2026-11-28T07-42-08-" + threadY + ".jsonl"
	rolloutCwd = "/tmp/c33b/r1/w"
)

func utc(hms string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, "2026-11-28T"+hms+"Z")
	if err != nil {
		panic(err)
	}
	return t
}

// until is the rows written at or before t: the rollout as it was then.
func until(rows []records.CodexRow, t time.Time) []records.CodexRow {
	var out []records.CodexRow
	for _, r := range rows {
		if !r.At.After(t) {
			out = append(out, r)
		}
	}
	return out
}

func TestReadRolloutReal(t *testing.T) {
	rows, err := records.ReadRollout(rolloutX)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range rows {
		kinds = append(kinds, fmt.Sprint(r.Kind))
	}
	// user, rates, done; user, rates, limit; user, rates, done; user, rates (null), limit.
	if got := strings.Join(kinds, ""); got != "123124123124" {
		t.Fatalf("kinds %s", got)
	}
	first := until(rows, utc("12:40:48"))
	stop, ok := records.LatestCodexStop(first)
	want := records.CodexStop{At: utc("12:40:47.308"), Reset: time.Unix(1795869686, 0), Window: "primary", Plan: "plus"}
	if !ok || stop != want {
		t.Errorf("LatestCodexStop = %+v, %v; want %+v", stop, ok, want)
	}
	if got := records.CodexStopOf(first, utc("12:40:36")); got != records.StopOwn {
		t.Errorf("CodexStopOf at the stop = %v, want StopOwn", got)
	}
	// codex resume redraws the old stop before anything new is written.
	if got := records.CodexStopOf(first, utc("12:42:03")); got != records.StopEarlier {
		t.Errorf("CodexStopOf of a reopened thread = %v, want StopEarlier", got)
	}
	if got := records.CodexProof(rows, utc("12:41:30"), "continue"); got != records.Resumed {
		t.Errorf("CodexProof(continue) = %v, want Resumed", got)
	}
	if got := records.CodexProof(until(rows, utc("12:41:36.6")), utc("12:41:30"), "continue"); got != records.Unproven {
		t.Errorf("CodexProof before the turn ended = %v, want Unproven", got)
	}
	if got := records.CodexProof(rows, utc("12:42:00"), "reopened go"); got != records.LimitAgain {
		t.Errorf("CodexProof(reopened go) = %v, want LimitAgain", got)
	}
	if got := records.CodexProof(rows, utc("12:42:00"), "something else"); got != records.Unproven {
		t.Errorf("CodexProof(another text) = %v, want Unproven", got)
	}
	// The last stop: rate_limits of null fields, so no exact reset.
	stop, ok = records.LatestCodexStop(rows)
	if !ok || stop.At != utc("12:42:14.247") || !stop.Reset.IsZero() || stop.Plan != "" {
		t.Errorf("LatestCodexStop = %+v, %v; want the 12:42:14 stop without a reset", stop, ok)
	}
	if got := records.CodexStopOf(rows, utc("12:42:03")); got != records.StopOwn {
		t.Errorf("CodexStopOf of the reopened thread's own stop = %v", got)
	}
	if got := records.CodexStopOf(until(rows, utc("12:41:40")), utc("12:40:36")); got != records.StopNone {
		t.Errorf("CodexStopOf after the resumed turn = %v, want StopNone", got)
	}
	m, err := records.ReadRolloutMeta(rolloutX)
	if err != nil || m.Thread != threadX || m.Cwd != rolloutCwd || m.Created != utc("12:40:40.890") || m.Originator != "codex-tui" {
		t.Errorf("ReadRolloutMeta = %+v, %v", m, err)
	}
}

// codexHome lays the real rollouts out under a Codex home as Codex does, as they were at the
// instant at: their first line (session_meta) and the rows written by then, modified at
// their last row.
func codexHome(t *testing.T, at time.Time) records.Env {
	t.Helper()
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "11", "28")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{rolloutX, rolloutY} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var kept []byte
		var mtime time.Time
		for i, line := range strings.SplitAfter(string(b), "\n") {
			stamp, _, _ := strings.Cut(strings.TrimPrefix(line, `{"timestamp":"`), `"`)
			when, err := time.Parse(time.RFC3339Nano, stamp)
			if err == nil && (i == 0 || !when.After(at)) {
				kept, mtime = append(kept, line...), when
			}
		}
		p := filepath.Join(day, filepath.Base(src))
		if err := os.WriteFile(p, kept, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	// An old thread in the same directory, not written since.
	old := filepath.Join(home, "sessions", "2026", "10", "01", "rollout-2026-10-01T09-00-00-0199aaaa-0000-7000-8000-000000000000.jsonl")
	if err := os.MkdirAll(filepath.Dir(old), 0o700); err != nil {
		t.Fatal(err)
	}
	meta := `{"timestamp":"2026-10-01T13:00:00.000Z","type":"session_meta","payload":{"id":"0199aaaa-0000-7000-8000-000000000000","timestamp":"2026-10-01T13:00:00.000Z","cwd":"` + rolloutCwd + `","originator":"codex-tui","source":"cli"}}` + "\n"
	if err := os.WriteFile(old, []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	oldAt := utc("12:00:00").AddDate(0, -1, 0)
	if err := os.Chtimes(old, oldAt, oldAt); err != nil {
		t.Fatal(err)
	}
	return records.Env{CodexHome: home}
}

func TestFindRolloutReal(t *testing.T) {
	for _, c := range []struct {
		name      string
		at        time.Time // the rollouts as they were then
		q         records.CodexQuery
		want      string
		ambiguous bool
	}{
		{"the first stop: the other thread created after it", utc("12:40:49"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:40:36"), Stop: utc("12:40:49")}, threadX, false},
		{"the first stop, its prompt on screen", utc("12:40:49"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:40:36"), Stop: utc("12:40:49"), Prompt: "do more"}, threadX, false},
		{"the first stop, another prompt on screen", utc("12:40:49"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:40:36"), Stop: utc("12:40:49"), Prompt: "hello there"}, "", false},
		{"reopened, before anything is written: named by its argv", utc("12:42:05"),
			records.CodexQuery{Cwd: rolloutCwd + "/", Started: utc("12:42:03"), Thread: threadX, Stop: utc("12:42:05")}, threadX, false},
		{"reopened, its own stop", utc("12:42:16"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:42:03"), Thread: threadX, Stop: utc("12:42:15")}, threadX, false},
		// codex resume --last redraws threadX's old stop, its prompt "do more"; threadY, another
		// pane's thread, stopped meanwhile in the same directory.
		{"reopened from the picker: another pane's thread created after its stop was seen", utc("12:42:13"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:42:03"), Stop: utc("12:42:05")}, "", false},
		{"reopened from the picker, seen late: another pane's thread, not its prompt", utc("12:42:13"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:42:03"), Stop: utc("12:42:13"), Prompt: "do more"}, "", false},
		{"two threads stopped together, told by the prompt on screen", utc("12:42:16"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:42:07"), Stop: utc("12:42:13"), Prompt: "second thread"}, threadY, false},
		{"two threads stopped together, no prompt", utc("12:42:16"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:42:07"), Stop: utc("12:42:13")}, "", true},
		{"two threads, a prompt in neither", utc("12:42:16"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:42:03"), Stop: utc("12:42:15"), Prompt: "hello"}, "", false},
		{"a thread whose latest stop came after the one on screen", utc("12:42:16"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:41:00"), Stop: utc("12:41:50")}, "", false},
		{"another directory", utc("12:42:16"),
			records.CodexQuery{Cwd: "/tmp/elsewhere", Started: utc("12:42:07"), Stop: utc("12:42:13")}, "", false},
		{"a process started after every write", utc("12:42:16"),
			records.CodexQuery{Cwd: rolloutCwd, Started: utc("12:50:00")}, "", false},
	} {
		got, err := codexHome(t, c.at).FindRollout(c.q)
		switch {
		case c.ambiguous && !errors.Is(err, records.ErrAmbiguous):
			t.Errorf("%s: FindRollout = %+v, %v; want ErrAmbiguous", c.name, got, err)
		case c.want == "" && !c.ambiguous && !errors.Is(err, records.ErrNoRecord):
			t.Errorf("%s: FindRollout = %+v, %v; want ErrNoRecord", c.name, got, err)
		case c.want != "" && (err != nil || got.Thread != c.want):
			t.Errorf("%s: FindRollout = %+v, %v; want thread %s", c.name, got, err, c.want)
		}
	}
	if _, err := (records.Env{}).FindRollout(records.CodexQuery{Cwd: "/", Started: utc("12:00:00")}); !errors.Is(err, records.ErrNoRecord) {
		t.Errorf("FindRollout without a home = %v", err)
	}
}

func TestCodexDir(t *testing.T) {
	e := records.ParseEnviron([]byte("HOME=/home/u\x00CODEX_HOME=/srv/codex2\x00"))
	if e.CodexDir() != "/srv/codex2" || e.Dir() != "/home/u/.claude" {
		t.Errorf("CodexDir() = %q, Dir() = %q", e.CodexDir(), e.Dir())
	}
	if e = records.ParseEnviron([]byte("HOME=/home/u")); e.CodexDir() != "/home/u/.codex" {
		t.Errorf("CodexDir() = %q, want $HOME/.codex", e.CodexDir())
	}
	if (records.Env{}).CodexDir() != "" {
		t.Error("CodexDir() of nothing is not empty")
	}
}

// Rows shaped like 0.171.0's (testdata/codex), reduced to the fields read and a few others.
func userItem(at time.Time, text string) string {
	return fmt.Sprintf(`{"timestamp":%q,"ordinal":22,"type":"event_msg","payload":{"type":"item_completed","thread_id":"t","turn_id":"u","item":{"type":"UserMessage","id":"i","content":[{"type":"text","text":%q,"text_elements":[]}]}}}`,
		stamp(at), text)
}

func agentItem(at time.Time, text string) string {
	return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","id":"msg_1","content":[{"type":"Text","text":%q}]}}}`, stamp(at), text)
}

func tokenCount(at time.Time, rateLimits string) string {
	return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1200}},"rate_limits":%s}}`, stamp(at), rateLimits)
}

func rates(primary, secondary float64, pReset, sReset int64, reached string) string {
	return fmt.Sprintf(`{"limit_id":"codex","limit_name":null,"primary":{"used_percent":%v,"window_minutes":300,"resets_at":%d},"secondary":{"used_percent":%v,"window_minutes":10080,"resets_at":%d},"credits":{"has_credits":false,"unlimited":false,"balance":"0"},"individual_limit":null,"spend_control_reached":null,"plan_type":"pro","rate_limit_reached_type":%s}`,
		primary, pReset, secondary, sReset, reached)
}

func taskComplete(at time.Time, info string) string {
	if info == "" {
		return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"task_complete","turn_id":"u","last_agent_message":"ok"}}`, stamp(at))
	}
	return fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"task_complete","turn_id":"u","last_agent_message":null,"error":{"message":"You’ve hit your usage limit. Try again at 9:33 PM.","codex_error_info":%q}}}`, stamp(at), info)
}

func stamp(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05.000Z") }

func writeRollout(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rollout.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCodexStopEdges(t *testing.T) {
	at := utc("20:00:00")
	started := at.Add(-time.Hour)
	sec := func(n int) time.Time { return at.Add(time.Duration(n) * time.Second) }
	for _, c := range []struct {
		name    string
		lines   []string
		stopOf  records.Stop
		want    records.CodexStop
		stopped bool
	}{
		{"a quoted limit line in a reply", []string{userItem(sec(0), "what does codex print at a limit?"),
			agentItem(sec(1), "■ You’ve hit your usage limit. Try again at 9:33 PM."), tokenCount(sec(1), rates(10, 5, 1, 2, "null")), taskComplete(sec(1), "")},
			records.StopNone, records.CodexStop{}, false},
		{"rate_limits null", []string{userItem(sec(0), "x"), tokenCount(sec(1), "null"), taskComplete(sec(1), "usage_limit_exceeded")},
			records.StopOwn, records.CodexStop{At: sec(1)}, true},
		{"the weekly window full", []string{userItem(sec(0), "x"), tokenCount(sec(1), rates(40, 100, 1795900000, 1796300000, "null")), taskComplete(sec(1), "usage_limit_exceeded")},
			records.StopOwn, records.CodexStop{At: sec(1), Reset: time.Unix(1796300000, 0), Window: "secondary", Plan: "pro"}, true},
		{"both full: the later reset", []string{userItem(sec(0), "x"), tokenCount(sec(1), rates(100, 100, 1795900000, 1796300000, `"rate_limit_reached"`)), taskComplete(sec(1), "usage_limit_exceeded")},
			records.StopOwn, records.CodexStop{At: sec(1), Reset: time.Unix(1796300000, 0), Window: "secondary", Plan: "pro"}, true},
		{"workspace credits depleted", []string{userItem(sec(0), "x"), tokenCount(sec(1), rates(100, 5, 1795900000, 1796300000, `"workspace_member_credits_depleted"`)), taskComplete(sec(1), "usage_limit_exceeded")},
			records.StopOwn, records.CodexStop{At: sec(1), Reset: time.Unix(1795900000, 0), Window: "primary", Plan: "pro", Credits: true}, true},
		{"rates of an earlier turn are not this stop's", []string{userItem(sec(0), "x"), tokenCount(sec(1), rates(100, 5, 1795900000, 1796300000, "null")), taskComplete(sec(1), ""),
			userItem(sec(5), "y"), taskComplete(sec(6), "usage_limit_exceeded")},
			records.StopOwn, records.CodexStop{At: sec(6)}, true},
		{"another error", []string{userItem(sec(0), "x"), taskComplete(sec(1), "server_overloaded")}, records.StopUnknown, records.CodexStop{}, false},
		{"a prompt typed after the stop", []string{userItem(sec(0), "x"), taskComplete(sec(1), "usage_limit_exceeded"), userItem(sec(9), "y")}, records.StopNone, records.CodexStop{}, false},
	} {
		rows, err := records.ReadRollout(writeRollout(t, c.lines...))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := records.CodexStopOf(rows, started); got != c.stopOf {
			t.Errorf("%s: CodexStopOf = %v, want %v", c.name, got, c.stopOf)
		}
		if got, ok := records.LatestCodexStop(rows); ok != c.stopped || got != c.want {
			t.Errorf("%s: LatestCodexStop = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.stopped)
		}
	}
}

// TestReadRolloutBig: the stop at the end of a rollout far larger than the largest window is
// read from its tail; a user message further back than the first window is found by a larger
// one.
func TestReadRolloutBig(t *testing.T) {
	at := utc("20:00:00")
	blob := `{"timestamp":"2026-11-28T20:00:00.500Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"` + strings.Repeat("x", 40<<10) + `"}]}}`
	big := []string{userItem(at, "old")}
	for range 500 { // 20 MB
		big = append(big, blob)
	}
	big = append(big, userItem(at.Add(time.Second), "do more"), taskComplete(at.Add(2*time.Second), "usage_limit_exceeded"))
	rows, err := records.ReadRollout(writeRollout(t, big...))
	if err != nil || len(rows) != 2 || rows[1].Kind != records.CodexLimit || rows[0].Prompt != records.Digest("do more") {
		t.Fatalf("ReadRollout = %+v, %v; want the last prompt and its stop only", rows, err)
	}
	far := []string{userItem(at, "do more")}
	for range 20 { // 800 kB: beyond the first window, within the third
		far = append(far, blob)
	}
	far = append(far, taskComplete(at.Add(2*time.Second), ""))
	rows, err = records.ReadRollout(writeRollout(t, far...))
	if err != nil || len(rows) != 2 || rows[0].Kind != records.CodexUser {
		t.Fatalf("ReadRollout = %+v, %v; want the prompt before the blobs", rows, err)
	}
}

// TestFindRolloutStopWindow: of two threads in one directory written since the process
// started, the one whose stop is within StopWindow of the stop on screen is the pane's; the
// other ended its turn without one (a reply quoting a limit line) or stopped long before.
func TestFindRolloutStopWindow(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "11", "28")
	if err := os.MkdirAll(day, 0o700); err != nil {
		t.Fatal(err)
	}
	started := utc("20:00:00")
	sec := func(n int) time.Time { return started.Add(time.Duration(n) * time.Second) }
	meta := func(id string) string {
		return `{"timestamp":"` + stamp(sec(1)) + `","type":"session_meta","payload":{"id":"` + id + `","timestamp":"` + stamp(sec(1)) + `","cwd":"/w","originator":"codex-tui","source":"cli"}}`
	}
	for id, lines := range map[string][]string{
		"0199aaaa-0000-7000-8000-00000000000a": {meta("0199aaaa-0000-7000-8000-00000000000a"), userItem(sec(10), "x"), taskComplete(sec(11), "usage_limit_exceeded")},
		"0199aaaa-0000-7000-8000-00000000000b": {meta("0199aaaa-0000-7000-8000-00000000000b"), userItem(sec(300), "y"), agentItem(sec(301), "You’ve hit your usage limit."), taskComplete(sec(301), "")},
		"0199aaaa-0000-7000-8000-00000000000c": {meta("0199aaaa-0000-7000-8000-00000000000c"), userItem(sec(200), "z"), taskComplete(sec(201), "usage_limit_exceeded")},
	} {
		p := filepath.Join(day, "rollout-2026-11-28T20-00-01-"+id+".jsonl")
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, sec(400), sec(400)); err != nil {
			t.Fatal(err)
		}
	}
	e := records.Env{CodexHome: home}
	got, err := e.FindRollout(records.CodexQuery{Cwd: "/w", Started: started, Stop: sec(205)})
	if err != nil || got.Thread != "0199aaaa-0000-7000-8000-00000000000c" {
		t.Errorf("FindRollout = %+v, %v; want the thread stopped at 20:03:21", got, err)
	}
	if got, err := e.FindRollout(records.CodexQuery{Cwd: "/w", Started: started, Stop: sec(600)}); !errors.Is(err, records.ErrAmbiguous) {
		t.Errorf("FindRollout with no stop near = %+v, %v; want ErrAmbiguous", got, err)
	}
}
