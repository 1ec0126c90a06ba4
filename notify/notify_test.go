package notify_test

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/notify"
)

// stop is a stop event with a reset.
var stop = notify.Event{Kind: notify.Stopped, Pane: "%3", Target: "main:1.0", Limit: "weekly",
	Reset: time.Date(2026, 11, 24, 1, 10, 0, 0, time.FixedZone("CET", 3600)), State: "waiting", Note: "resets Nov 24 1:10am"}

func TestHookGetsTheEventInItsEnvironment(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hook.jsonl")
	t.Setenv("CAC_STALE", "from the watcher's own environment")
	r := newRig(t, settings(func(s *notify.Settings) { s.Command = []string{recorder, out, "ok", "--flag", "two words"} }))

	r.send(t, stop)
	resumed := notify.Event{Kind: notify.Resumed, Pane: "%3", Target: "main:1.0", Agent: agent.Codex, Limit: "weekly", State: "running",
		At: time.Date(2026, 11, 20, 22, 5, 0, 0, time.FixedZone("CET", 3600))}
	r.send(t, resumed)
	rs := waitRecords(t, out, 2)

	if want := []string{out, "ok", "--flag", "two words"}; !slices.Equal(rs[0].Args, want) {
		t.Errorf("argv %q, want %q", rs[0].Args, want)
	}
	wantEnv := map[string]string{"CAC_EVENT": "stopped", "CAC_PANE": "%3", "CAC_TARGET": "main:1.0", "CAC_AGENT": "claude", "CAC_KIND": "weekly",
		"CAC_RESET": "2026-11-24T01:10:00+01:00", "CAC_STATE": "waiting", "CAC_NOTE": "resets Nov 24 1:10am",
		"CAC_AT": "2026-11-20T22:00:00Z"} // At left zero: the clock's now
	if !mapsEqual(rs[0].Env, wantEnv) {
		t.Errorf("stopped: env %q, want %q", rs[0].Env, wantEnv)
	}
	wantEnv = map[string]string{"CAC_EVENT": "resumed", "CAC_PANE": "%3", "CAC_TARGET": "main:1.0", "CAC_AGENT": "codex", "CAC_KIND": "weekly",
		"CAC_RESET": "", "CAC_STATE": "running", "CAC_NOTE": "", "CAC_AT": "2026-11-20T22:05:00+01:00"}
	if !mapsEqual(rs[1].Env, wantEnv) {
		t.Errorf("resumed (reset unknown): env %q, want %q", rs[1].Env, wantEnv)
	}
	for i, rec := range rs {
		if !rec.StdinDevNull {
			t.Errorf("run %d: stdin is not /dev/null", i)
		}
		if rec.PGID != rec.PID {
			t.Errorf("run %d: process group %d, want its own (%d): a timeout kills the group", i, rec.PGID, rec.PID)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// evil is screen text that a shell would run: quotes, $(...), backticks, semicolons, a
// pipe, a newline. The commands would create files in dir.
func evil(dir string) string {
	return `He said "stop" and 'wait' $(touch ` + dir + `/dollar) ` + "`touch " + dir + "/backtick`" +
		`; touch ` + dir + `/semicolon && touch ` + dir + `/and | touch ` + dir + `/pipe` + "\ntouch " + dir + "/newline #"
}

// TestPaneTextNeverRuns: a note and a target holding shell syntax reach every channel as
// text, never as a command, even through a hook that is itself a shell script using them.
func TestPaneTextNeverRuns(t *testing.T) {
	dir := t.TempDir()
	e := notify.Event{Kind: notify.Held, Pane: "%7", Target: "x$(touch " + dir + "/target);y:0.0", Limit: "session",
		State: "held", Note: evil(dir)}
	hookOut := filepath.Join(t.TempDir(), "hook.jsonl")
	shOut := filepath.Join(t.TempDir(), "sh.out")
	desktopOut := desktopPath(t, "notify-send")
	srv := newServer(t, http.StatusOK, false)

	r := newRig(t, settings(func(s *notify.Settings) {
		s.Command = []string{recorder, hookOut, "ok"}
		s.URL, s.Desktop = srv.URL+"/cac", notify.DesktopAuto
	}))
	// A user's own shell hook that quotes the variables as it should.
	sh := newRig(t, settings(func(s *notify.Settings) {
		s.Command = []string{"/bin/sh", "-c", `printf '%s|%s' "$CAC_NOTE" "$CAC_TARGET" > "$0"`, shOut}
	}))
	r.send(t, e)
	sh.send(t, e)

	hook := waitRecords(t, hookOut, 1)[0]
	if hook.Env["CAC_NOTE"] != e.Note || hook.Env["CAC_TARGET"] != e.Target {
		t.Errorf("hook: CAC_NOTE %q, CAC_TARGET %q; want them as sent", hook.Env["CAC_NOTE"], hook.Env["CAC_TARGET"])
	}
	if want := []string{hookOut, "ok"}; !slices.Equal(hook.Args, want) {
		t.Errorf("hook argv %q, want %q: the event must not reach argv", hook.Args, want)
	}
	desk := waitRecords(t, desktopOut, 1)[0]
	if want := []string{"--app-name=cac-tmux", "--urgency=critical", "--", notify.Title(e), notify.Body(e)}; !slices.Equal(desk.Args, want) {
		t.Errorf("notify-send argv %q, want %q", desk.Args, want)
	}
	if body := srv.waitRequests(t, 1)[0].Body; !strings.Contains(body, e.Note) {
		t.Errorf("POST body %q does not hold the note as text", body)
	}
	var shGot []byte
	waitFile(t, shOut, &shGot)
	if want := e.Note + "|" + e.Target; string(shGot) != want {
		t.Errorf("shell hook wrote %q, want %q", shGot, want)
	}
	r.n.Close(context.Background())
	sh.n.Close(context.Background())
	for _, f := range []string{"dollar", "backtick", "semicolon", "and", "pipe", "newline", "target"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("pane text ran a command: %s was created", f)
		}
	}
}

// waitFile waits until path exists with content and reads it into got.
func waitFile(t *testing.T, path string, got *[]byte) {
	t.Helper()
	waitFor(t, "the shell hook's output", func() bool {
		b, err := os.ReadFile(path)
		*got = b
		return err == nil && len(b) > 0
	})
}

func TestNtfyPost(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	cases := []struct {
		name  string
		edit  func(s *notify.Settings)
		token string // the Authorization header wanted, "" none
	}{
		{"no token", func(s *notify.Settings) {}, ""},
		{"token_file", func(s *notify.Settings) { s.TokenFile = tokenFile }, "Bearer tk_fromfile"},
		{"token_env", func(s *notify.Settings) { s.TokenEnv = "CAC_TEST_NTFY_TOKEN" }, "Bearer tk_fromenv"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(tokenFile, []byte("  tk_fromfile\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("CAC_TEST_NTFY_TOKEN", "tk_fromenv")
			srv := newServer(t, http.StatusOK, false)
			r := newRig(t, settings(func(s *notify.Settings) { s.URL = srv.URL + "/cac-topic"; c.edit(s) }))
			r.send(t, stop)
			got := srv.waitRequests(t, 1)[0]
			checkPost(t, got, stop, c.token)

			// The token is read at each POST: a new one is used at once.
			os.WriteFile(tokenFile, []byte("tk_rotated"), 0o600)
			t.Setenv("CAC_TEST_NTFY_TOKEN", "tk_rotated")
			r.send(t, notify.Event{Kind: notify.Resumed, Pane: "%3"})
			if got := srv.waitRequests(t, 2)[1].Header.Get("Authorization"); c.token != "" && got != "Bearer tk_rotated" {
				t.Errorf("after rotation: Authorization %q, want the new token", got)
			}
			r.n.Close(context.Background())
			for _, secret := range []string{"tk_", "cac-topic"} {
				if strings.Contains(r.logs.String(), secret) {
					t.Errorf("the logs show %q:\n%s", secret, r.logs)
				}
			}
		})
	}
}

// checkPost checks one ntfy POST for e.
func checkPost(t *testing.T, got request, e notify.Event, auth string) {
	t.Helper()
	if got.Method != http.MethodPost || got.Path != "/cac-topic" {
		t.Errorf("%s %s, want POST /cac-topic", got.Method, got.Path)
	}
	want := map[string]string{"Title": notify.Title(e), "Priority": "3", "Tags": "hourglass_flowing_sand,weekly",
		"Content-Type": "text/plain; charset=utf-8", "Authorization": auth}
	for h, v := range want {
		if g := got.Header.Get(h); g != v {
			t.Errorf("header %s: %q, want %q", h, g, v)
		}
	}
	if got.Body != notify.Body(e) {
		t.Errorf("body %q, want %q", got.Body, notify.Body(e))
	}
	if !strings.Contains(got.Body, "pane %3 (main:1.0) stopped at its limit. It resets at ") {
		t.Errorf("body %q does not say what happened and when it resets", got.Body)
	}
}

// TestNtfyTitleNotASCII: a title that is not ASCII is RFC 2047-encoded, which ntfy decodes.
func TestNtfyTitleNotASCII(t *testing.T) {
	srv := newServer(t, http.StatusOK, false)
	r := newRig(t, settings(func(s *notify.Settings) { s.URL = srv.URL + "/t" }))
	e := notify.Event{Kind: notify.Failed, Pane: "%1", Target: "café ☕:0.0", Note: "x"}
	r.send(t, e)
	got := srv.waitRequests(t, 1)[0]
	title, err := new(mime.WordDecoder).DecodeHeader(got.Header.Get("Title"))
	if err != nil || title != notify.Title(e) || got.Header.Get("Title") == title {
		t.Errorf("Title %q decodes to %q (%v), want RFC 2047 of %q", got.Header.Get("Title"), title, err, notify.Title(e))
	}
	if got.Header.Get("Priority") != "4" || got.Header.Get("Tags") != "x" {
		t.Errorf("failed: Priority %q Tags %q, want 4 and x", got.Header.Get("Priority"), got.Header.Get("Tags"))
	}
}

// TestFailingChannelsRetryOnce: HTTP 500 and a hook exiting 1 are each logged at warn,
// retried once after RetryPause, then dropped.
func TestFailingChannelsRetryOnce(t *testing.T) {
	srv := newServer(t, http.StatusInternalServerError, false)
	out := filepath.Join(t.TempDir(), "hook.jsonl")
	r := newRig(t, settings(func(s *notify.Settings) {
		s.URL, s.Command = srv.URL+"/cac-topic", []string{recorder, out, "exit=1"}
	}))
	r.send(t, stop)
	r.logs.waitLog(t, 1, `"level":"warn"`, `"channel":"url"`, "500 Internal Server Error", "retrying once")
	r.logs.waitLog(t, 1, `"level":"warn"`, `"channel":"command"`, "run the hook: exit status 1", "retrying once")
	waitFor(t, "both retries to wait on the clock", func() bool { return r.clk.Timers() == 2 })
	if n := len(srv.requests()) + len(records(t, out)); n != 2 {
		t.Fatalf("%d attempts before the pause, want 1 per channel", n)
	}
	r.clk.Add(notify.RetryPause)
	r.logs.waitLog(t, 1, `"level":"warn"`, `"channel":"url"`, "after a retry; dropped")
	r.logs.waitLog(t, 1, `"level":"warn"`, `"channel":"command"`, "after a retry; dropped")
	if err := r.n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a, b := len(srv.requests()), len(records(t, out)); a != 2 || b != 2 {
		t.Errorf("%d POSTs and %d hook runs, want 2 each (one retry)", a, b)
	}
	if strings.Contains(r.logs.String(), "cac-topic") {
		t.Errorf("an error shows the URL's path (the topic):\n%s", r.logs)
	}
}

// TestHangingHook: a hook that never exits delays neither Send nor the URL channel; at the
// timeout its whole process group is killed, and it is retried once.
func TestHangingHook(t *testing.T) {
	srv := newServer(t, http.StatusOK, false)
	out := filepath.Join(t.TempDir(), "hook.jsonl")
	r := newRig(t, settings(func(s *notify.Settings) {
		s.URL, s.Command = srv.URL+"/t", []string{recorder, out, "hang-child"}
		s.MinGap, s.MaxPerHour = 0, 0
	}))
	r.send(t, stop)
	first := waitRecords(t, out, 2) // the hook and its child
	r.send(t, notify.Event{Kind: notify.Resumed, Pane: "%3"})
	srv.waitRequests(t, 2) // both events went out on the other channel meanwhile
	for _, rec := range first {
		if gone(rec.PID) {
			t.Fatalf("hook process %d ended by itself", rec.PID)
		}
	}

	r.clk.Add(10 * time.Second) // the timeout
	waitFor(t, "the hook's process group to be killed", func() bool { return gone(first[0].PID) && gone(first[1].PID) })
	r.logs.waitLog(t, 1, `"channel":"command"`, "timed out after 10s", "retrying once")
	waitFor(t, "the retry to wait on the clock", func() bool { return r.clk.Timers() == 1 })
	r.clk.Add(notify.RetryPause)
	second := waitRecords(t, out, 4)[2:]

	// A full queue drops events, and says so once.
	for i := range notify.QueueSize + 5 {
		r.send(t, notify.Event{Kind: notify.Held, Pane: "%" + string(rune('a'+i))})
	}
	if n := r.logs.count(`"channel":"command"`, "queue is full"); n != 1 {
		t.Errorf("%d warnings of a full queue, want 1", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no time left: Close cuts what runs
	if err := r.n.Close(ctx); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "not done") {
		t.Errorf("Close with no time left: %v, want how many deliveries were not done", err)
	}
	// The kill is sent before Close returns; a grandchild (not ours to wait for) may take a
	// moment to end.
	for _, rec := range append(first, second...) {
		waitFor(t, "hook process "+strconv.Itoa(rec.PID)+" to end after Close", func() bool { return gone(rec.PID) })
	}
}

// TestHangingURL: an endpoint that never answers delays neither Send nor the hook; the POST
// is cut at the timeout and retried once.
func TestHangingURL(t *testing.T) {
	srv := newServer(t, http.StatusOK, true)
	out := filepath.Join(t.TempDir(), "hook.jsonl")
	r := newRig(t, settings(func(s *notify.Settings) { s.URL, s.Command = srv.URL+"/t", []string{recorder, out, "ok"} }))
	r.send(t, stop)
	srv.waitRequests(t, 1)
	r.send(t, notify.Event{Kind: notify.Resumed, Pane: "%3"})
	waitRecords(t, out, 2) // the hook got both meanwhile
	waitFor(t, "only the POST's timeout left on the clock", func() bool { return r.clk.Timers() == 1 })
	r.clk.Add(10 * time.Second)
	r.logs.waitLog(t, 1, `"channel":"url"`, "timed out after 10s", "retrying once")
	waitFor(t, "the retry to wait on the clock", func() bool { return r.clk.Timers() == 1 })
	r.clk.Add(notify.RetryPause)
	srv.waitRequests(t, 2)
}

// TestCloseDrains: Close returns once the queued events are delivered.
func TestCloseDrains(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hook.jsonl")
	r := newRig(t, settings(func(s *notify.Settings) { s.Command = []string{recorder, out, "ok"} }))
	for _, k := range []notify.EventKind{notify.Stopped, notify.Held, notify.Failed} {
		r.send(t, notify.Event{Kind: k, Pane: "%1"})
	}
	if err := r.n.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, rec := range records(t, out) {
		got = append(got, rec.Env["CAC_EVENT"])
	}
	if want := []string{"stopped", "held", "failed"}; !slices.Equal(got, want) {
		t.Errorf("delivered before Close returned: %q, want %q in order", got, want)
	}
	r.send(t, stop) // after Close: nothing, no panic
	if n := len(records(t, out)); n != 3 {
		t.Errorf("%d runs after a Send after Close, want 3", n)
	}
}

// TestRateLimit: per pane, the same event within min_gap is dropped and at most
// max_per_hour are sent in an hour; other panes and other events go through.
func TestRateLimit(t *testing.T) {
	srv := newServer(t, http.StatusOK, false)
	r := newRig(t, settings(func(s *notify.Settings) { s.URL, s.MinGap, s.MaxPerHour = srv.URL+"/t", time.Minute, 3 }))
	ev := func(pane string, k notify.EventKind) notify.Event {
		return notify.Event{Kind: k, Pane: pane, Target: "s:" + pane}
	}
	steps := []struct {
		at   time.Duration
		e    notify.Event
		sent bool
	}{
		{0, ev("%1", notify.Stopped), true},
		{10 * time.Second, ev("%1", notify.Stopped), false}, // within min_gap
		{10 * time.Second, ev("%1", notify.Resumed), true},  // another event
		{10 * time.Second, ev("%2", notify.Stopped), true},  // another pane
		{61 * time.Second, ev("%1", notify.Stopped), true},  // min_gap passed: the 3rd of the hour
		{3 * time.Minute, ev("%1", notify.Held), false},     // over max_per_hour
		{4 * time.Minute, ev("%1", notify.Failed), false},   // still over
		{time.Hour + time.Second, ev("%1", notify.Failed), true},
	}
	var want []string
	for _, s := range steps {
		r.clk.Set(start.Add(s.at))
		r.send(t, s.e)
		if s.sent {
			want = append(want, notify.Title(s.e))
		}
		// Before the clock moves on, the POST is done: moving it past the timeout of a POST
		// in flight would cut it.
		waitFor(t, "the POSTs so far to be done", func() bool { return len(srv.requests()) == len(want) && r.clk.Timers() == 0 })
	}
	last := ev("%9", notify.Stopped) // one channel delivers in order: once it is there, all are
	r.send(t, last)
	want = append(want, notify.Title(last))
	reqs := srv.waitRequests(t, len(want))
	var got []string
	for _, q := range reqs {
		got = append(got, q.Header.Get("Title"))
	}
	if !slices.Equal(got, want) {
		t.Errorf("sent:\n%q\nwant:\n%q", got, want)
	}
	if n := r.logs.count(`"level":"warn"`, "max_per_hour"); n != 1 {
		t.Errorf("%d warnings of the hourly cap, want 1:\n%s", n, r.logs)
	}
}

func TestDesktop(t *testing.T) {
	e := notify.Event{Kind: notify.Stopped, Pane: "%2", Target: "w:0.1", Limit: "session"}
	t.Run("notify-send", func(t *testing.T) {
		out := desktopPath(t, "notify-send")
		r := newRig(t, settings(func(s *notify.Settings) { s.Desktop = notify.DesktopOn }))
		r.send(t, e)
		want := []string{"--app-name=cac-tmux", "--urgency=normal", "--", notify.Title(e), notify.Body(e)}
		if got := waitRecords(t, out, 1)[0].Args; !slices.Equal(got, want) {
			t.Errorf("argv %q, want %q", got, want)
		}
	})
	t.Run("osascript", func(t *testing.T) {
		notify.SetGOOS(t, "darwin")
		out := desktopPath(t, "osascript")
		r := newRig(t, settings(func(s *notify.Settings) { s.Desktop = notify.DesktopAuto }))
		r.send(t, e)
		want := append(slices.Clone(notify.OsaScript), notify.Title(e), notify.Body(e))
		if got := waitRecords(t, out, 1)[0].Args; !slices.Equal(got, want) {
			t.Errorf("argv %q, want %q", got, want)
		}
		if want := []string{"-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run"}; !slices.Equal(notify.OsaScript, want) {
			t.Errorf("script %q: the text must come from argv, never from the script", notify.OsaScript)
		}
	})
	t.Run("auto without the program", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		r := newRig(t, settings(func(s *notify.Settings) { s.Desktop = notify.DesktopAuto }))
		if n := r.logs.count("no notify-send on PATH"); n != 1 {
			t.Errorf("no notice that desktop notifications are off:\n%s", r.logs)
		}
		r.send(t, e) // nothing to send to
	})
}

// TestSendChecksTheEvent: an unknown event is logged and sent nowhere; a nil Notifier and
// the defaults send nothing.
func TestSendChecksTheEvent(t *testing.T) {
	srv := newServer(t, http.StatusOK, false)
	r := newRig(t, settings(func(s *notify.Settings) { s.URL = srv.URL + "/t" }))
	r.send(t, notify.Event{Kind: "stoped", Pane: "%1"})
	r.send(t, stop)
	if reqs := srv.waitRequests(t, 1); len(reqs) != 1 || reqs[0].Header.Get("Title") != notify.Title(stop) {
		t.Errorf("requests %v, want only the stop", reqs)
	}
	if r.logs.count(`"level":"warn"`, `parse event \"stoped\"`) != 1 {
		t.Errorf("the unknown event is not logged:\n%s", r.logs)
	}

	var nilN *notify.Notifier
	nilN.Send(stop)
	if err := nilN.Close(context.Background()); err != nil {
		t.Error(err)
	}
	d := newRig(t, notify.Default())
	d.send(t, stop)
	if err := d.n.Close(context.Background()); err != nil || d.logs.String() != "" {
		t.Errorf("the defaults: Close %v, logs %q; want nothing at all", err, d.logs)
	}
}

// A notification names the pane's agent, in its title and its body: Codex for a Codex pane,
// Claude Code for a Claude Code pane and for an event that names none.
func TestTitleAndBodyNameTheAgent(t *testing.T) {
	for _, tc := range []struct {
		agent agent.Name
		title string
		body  string
	}{
		{agent.Codex, "cac-tmux: Codex in main:1.0 stopped at its limit (weekly)", "Codex in pane %3 (main:1.0) stopped at its limit."},
		{agent.Claude, "cac-tmux: Claude Code in main:1.0 stopped at its limit (weekly)", "Claude Code in pane %3 (main:1.0) stopped at its limit."},
		{"", "cac-tmux: Claude Code in main:1.0 stopped at its limit (weekly)", "Claude Code in pane %3 (main:1.0) stopped at its limit."},
	} {
		e := stop
		e.Agent = tc.agent
		if got := notify.Title(e); got != tc.title {
			t.Errorf("Title(agent %q) = %q, want %q", tc.agent, got, tc.title)
		}
		if got := notify.Body(e); !strings.HasPrefix(got, tc.body) {
			t.Errorf("Body(agent %q) = %q, want it to start %q", tc.agent, got, tc.body)
		}
	}
}
