package phone

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/internal/syncbuf"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// The endpoint against a hand-written Actor on a manual clock: a button is tapped by
// POSTing its body to its URL, as ntfy does; Handler.Wait waits for the action run in the
// background, so no test sleeps.

// fakeActor records what it is asked and answers as told.
type fakeActor struct {
	mu       sync.Mutex
	calls    []string // "act resume /sock %3", "screen /sock %3", "prompt /sock %3 TEXT"
	bindings []string // the session's binding of each call
	outcome  watcher.Outcome
	err      error
	screen   string
	place    watcher.Place // where the session runs (Where)
	gone     string        // why the pane no longer runs the session (Where), "" when it does
}

func (f *fakeActor) record(s Session, call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
	f.bindings = append(f.bindings, s.Binding)
}

func (f *fakeActor) Act(_ context.Context, s Session, a watcher.Action) (watcher.Outcome, error) {
	f.record(s, fmt.Sprintf("act %s %s %s", a, s.Server, s.Pane))
	return f.outcome, f.err
}

func (f *fakeActor) Screen(_ context.Context, s Session) (string, error) {
	f.record(s, fmt.Sprintf("screen %s %s", s.Server, s.Pane))
	return f.screen, f.err
}

func (f *fakeActor) Prompt(_ context.Context, s Session, text string) (watcher.Outcome, error) {
	f.record(s, fmt.Sprintf("prompt %s %s %s", s.Server, s.Pane, text))
	return f.outcome, f.err
}

func (f *fakeActor) Where(_ context.Context, s Session) (watcher.Place, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.gone != "" {
		return watcher.Place{}, f.gone, nil
	}
	return f.place, "", f.err
}

// Bindings are the bindings of the calls so far.
func (f *fakeActor) Bindings() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.bindings)
}

func (f *fakeActor) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// logBuf collects the JSON log lines of a Handler.
type logBuf struct{ syncbuf.Buffer }

// lines are the log lines so far, decoded.
func (l *logBuf) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// report is one Report call.
type report struct{ title, body string }

// rig is a Handler on an httptest server, with the Links of sock pointing at it.
type rig struct {
	clk     *clocktest.Manual
	signer  *Signer
	actor   *fakeActor
	h       *Handler
	srv     *httptest.Server
	links   *Links
	logs    *logBuf
	cancel  context.CancelFunc // ends the Handler's base context: the watcher stops
	mu      sync.Mutex
	reports []report
}

// newRig starts a Handler with screen, prompts and prompt_max as given (edit may change its
// Config).
func newRig(t *testing.T, edit func(c *Config)) *rig {
	t.Helper()
	r := &rig{clk: clocktest.New(start), logs: &logBuf{}, actor: &fakeActor{outcome: watcher.Outcome{Done: true, Message: "resumed main:1.0"},
		place: watcher.Place{Target: "main:1.0", Dir: "/home/u/src/cac-tmux", Agent: agent.Claude}}}
	r.signer = NewSigner(r.clk.Now)
	c := Config{Signer: r.signer, Actor: r.actor, Log: zerolog.New(r.logs).Level(zerolog.DebugLevel), Clock: r.clk,
		Screen: true, Prompts: true, PromptMax: 20,
		Report: func(_ context.Context, title, body string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.reports = append(r.reports, report{title, body})
		}}
	if edit != nil {
		edit(&c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.h, r.cancel = NewHandler(ctx, c), cancel
	r.srv = httptest.NewServer(r.h)
	t.Cleanup(func() { r.srv.Close(); cancel(); r.h.Wait() })
	l, err := NewLinks(LinksConfig{Signer: r.signer, Socket: sock, URL: r.srv.URL, TTL: time.Hour, Screen: c.Screen, Prompts: c.Prompts, Up: listening})
	if err != nil {
		t.Fatal(err)
	}
	r.links = l
	return r
}

// button is the button labelled label on event kind of pane %3.
func (r *rig) button(t *testing.T, kind notify.EventKind, label string) notify.Action {
	t.Helper()
	for _, a := range r.links.Decorate(notify.Event{Kind: kind, Pane: "%3", Binding: bound}).Actions {
		if a.Label == label {
			return a
		}
	}
	t.Fatalf("%s has no button %q", kind, label)
	return notify.Action{}
}

// post POSTs body to u as text/plain, as an ntfy http action does, and returns the status
// and the answer's text once any action it started has run.
func (r *rig) post(t *testing.T, u, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(u, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r.h.Wait()
	return resp.StatusCode, string(b)
}

// tap is what ntfy does when button a is tapped: POST its body to its URL.
func (r *rig) tap(t *testing.T, a notify.Action) (int, string) {
	t.Helper()
	return r.post(t, a.URL, a.Body)
}

// Reports are the Report calls so far.
func (r *rig) Reports() []report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reports)
}

// checkRefusal fails the test unless the last refusal logged is at warn, names pane and
// action, gives a reason containing reason, and unless the log shows none of tokens.
func (r *rig) checkRefusal(t *testing.T, pane, action, reason string, tokens ...string) {
	t.Helper()
	var last map[string]any
	for _, l := range r.logs.lines(t) {
		if l["message"] == "phone: request refused" {
			last = l
		}
	}
	if last == nil || last["level"] != "warn" || last["pane"] != pane || last["action"] != action ||
		!strings.Contains(fmt.Sprint(last["reason"]), reason) {
		t.Errorf("refusal logged as %v; want warn, pane %s, action %s, reason with %q", last, pane, action, reason)
	}
	for _, tok := range tokens {
		if tok != "" && strings.Contains(r.logs.String(), tok) {
			t.Errorf("the log shows a token:\n%s", r.logs)
		}
	}
}

// TestButtonActsOnce: a button's tap is answered 202 at once, the action goes to the Actor
// once, with the pane's server and id, and its outcome is reported; a second tap is refused
// and logged, and the Actor is not asked again.
func TestButtonActsOnce(t *testing.T) {
	r := newRig(t, nil)
	b := r.button(t, notify.Held, "Resume now")
	status, text := r.tap(t, b)
	if status != http.StatusAccepted || text != "accepted: resume of %3; the outcome follows as a notification\n" {
		t.Errorf("tap: %d %q", status, text)
	}
	if got, want := r.actor.Calls(), []string{"act resume " + sock + " %3"}; !slices.Equal(got, want) {
		t.Errorf("Actor asked %q, want %q", got, want)
	}
	if got, want := r.Reports(), []report{{"cac-tmux: resume of %3: done", "resumed main:1.0"}}; !slices.Equal(got, want) {
		t.Errorf("reports %q, want %q", got, want)
	}
	status, text = r.tap(t, b)
	if status != http.StatusForbidden || !strings.Contains(text, "used already") || strings.Contains(text, b.Body) {
		t.Errorf("second tap: %d %q", status, text)
	}
	r.checkRefusal(t, "%3", "resume", "already used", b.Body)
	if n := len(r.actor.Calls()); n != 1 {
		t.Errorf("the Actor was asked %d times, want once", n)
	}

	skip := r.button(t, notify.Skipped, "Unskip")
	if status, _ := r.tap(t, skip); status != http.StatusAccepted || !slices.Contains(r.actor.Calls(), "act unskip "+sock+" %3") {
		t.Errorf("Unskip: %d, Actor asked %q", status, r.actor.Calls())
	}
}

// TestRefusedTaps: an expired, forged, malformed, or other pane's, action's or server's
// token is refused with its status and reason, logged at warn without the token, and the
// Actor is never asked.
func TestRefusedTaps(t *testing.T) {
	r := newRig(t, nil)
	other := NewSigner(r.clk.Now)
	otherLinks, err := NewLinks(LinksConfig{Signer: r.signer, Socket: "/tmp/tmux-1000/work", URL: r.srv.URL, TTL: time.Hour, Up: listening})
	if err != nil {
		t.Fatal(err)
	}
	retarget := func(a notify.Action, key, value string) string {
		u, _ := url.Parse(a.URL)
		q := u.Query()
		q.Set(key, value)
		u.RawQuery = q.Encode()
		return u.String()
	}
	for _, tc := range []struct {
		name           string
		tap            func() (string, string) // URL, body
		status         int
		action, reason string
		answer         string
	}{
		{"forged", func() (string, string) {
			b := r.button(t, notify.Held, "Skip")
			return b.URL, other.mint(claim{Server: r.links.serverID(), Pane: "%3", Binding: bound, Action: skip, Expires: start.Add(time.Hour)})
		}, 403, "skip", "not signed", "not valid here"},
		{"malformed", func() (string, string) { return r.button(t, notify.Held, "Skip").URL, "hello" }, 400, "skip", "malformed", "malformed"},
		{"other pane", func() (string, string) {
			b := r.button(t, notify.Held, "Skip")
			return retarget(b, "pane", "%4"), b.Body
		}, 403, "skip", "another", "not valid here"},
		{"other action", func() (string, string) {
			return r.button(t, notify.Held, "Resume now").URL, r.button(t, notify.Held, "Skip").Body
		}, 403, "resume", "another", "not valid here"},
		{"other server", func() (string, string) {
			b := r.button(t, notify.Held, "Skip")
			return retarget(b, "server", otherLinks.serverID()), b.Body
		}, 403, "skip", "another", "not valid here"},
		{"unknown action", func() (string, string) {
			b := r.button(t, notify.Held, "Skip")
			return retarget(b, "action", "delete"), b.Body
		}, 400, "delete", "unknown action", "malformed"},
		{"reply by act", func() (string, string) {
			b := r.button(t, notify.Held, "Skip")
			return retarget(b, "action", "reply"), b.Body
		}, 400, "reply", "form", "malformed"},
		{"extra parameter", func() (string, string) {
			b := r.button(t, notify.Held, "Skip")
			return retarget(b, "token", "x"), b.Body
		}, 400, "skip", "unexpected", "malformed"},
		{"huge body", func() (string, string) { return r.button(t, notify.Held, "Skip").URL, strings.Repeat("A", 5000) }, 400, "skip", "malformed", "malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r.clk.Add(10 * time.Second) // a window of the refusals' log of its own: each is logged
			u, body := tc.tap()
			status, text := r.post(t, u, body)
			if status != tc.status || !strings.HasPrefix(text, "refused: ") || !strings.Contains(text, tc.answer) || len(body) > 20 && strings.Contains(text, body) {
				t.Errorf("%d %q; want %d and %q", status, text, tc.status, tc.answer)
			}
			r.checkRefusal(t, map[bool]string{true: "%4", false: "%3"}[tc.name == "other pane"], tc.action, tc.reason, body)
		})
	}
	// Expired: a button tapped after link_ttl.
	b := r.button(t, notify.Held, "Skip")
	r.clk.Add(time.Hour)
	if status, text := r.tap(t, b); status != 403 || !strings.Contains(text, "expired") {
		t.Errorf("expired: %d %q", status, text)
	}
	r.checkRefusal(t, "%3", "skip", "expired", b.Body)
	if calls := r.actor.Calls(); len(calls) != 0 {
		t.Errorf("the Actor was asked %q", calls)
	}
}

// TestGatesRefusalReported: the watcher's gates refusing a resume (a draft in the box) is
// reported to the phone as a refusal with the watcher's words, not hidden; an Actor error
// is reported as a failure.
func TestGatesRefusalReported(t *testing.T) {
	r := newRig(t, nil)
	r.actor.outcome = watcher.Outcome{Message: "the input box holds a draft; nothing was typed"}
	if status, _ := r.tap(t, r.button(t, notify.Held, "Resume now")); status != http.StatusAccepted {
		t.Fatalf("tap: %d", status)
	}
	r.actor.outcome, r.actor.err = watcher.Outcome{}, errors.New("tmuxctl: no server on /tmp/tmux-1000/default")
	if status, _ := r.tap(t, r.button(t, notify.Held, "Skip")); status != http.StatusAccepted {
		t.Fatalf("tap: %d", status)
	}
	want := []report{
		{"cac-tmux: resume of %3: refused", "the input box holds a draft; nothing was typed"},
		{"cac-tmux: skip of %3 failed", "tmuxctl: no server on /tmp/tmux-1000/default"},
	}
	if got := r.Reports(); !slices.Equal(got, want) {
		t.Errorf("reports %q, want %q", got, want)
	}
}

// TestScreen: with screen on, the Screen button reports the end of the pane's text; with it
// off, no Screen button is offered and a screen request is refused, its token left unused.
func TestScreen(t *testing.T) {
	r := newRig(t, nil)
	r.actor.screen = strings.Repeat("line\n", 2000) + "❯ last line\n\n"
	if status, _ := r.tap(t, r.button(t, notify.Stopped, "Screen")); status != http.StatusAccepted {
		t.Fatalf("tap: %d", status)
	}
	got := r.Reports()
	if len(got) != 1 || got[0].title != "cac-tmux: screen of %3" || !strings.HasSuffix(got[0].body, "line\n❯ last line") ||
		len(got[0].body) > 3500 || !strings.HasPrefix(got[0].body, "line\n") {
		t.Errorf("report %q", got)
	}
	if strings.Contains(r.logs.String(), "last line") {
		t.Error("the log shows the screen")
	}

	off := newRig(t, func(c *Config) { c.Screen = false })
	for _, kind := range []notify.EventKind{notify.Stopped, notify.Held, notify.Skipped} {
		for _, a := range off.links.Decorate(notify.Event{Kind: kind, Pane: "%3", Binding: bound}).Actions {
			if a.Label == "Screen" {
				t.Errorf("%s offers Screen with screen off", kind)
			}
		}
	}
	tok := off.signer.mint(claim{Server: off.links.serverID(), Pane: "%3", Binding: bound, Action: screen, Expires: start.Add(time.Hour)})
	u := off.srv.URL + "/v1/act?" + url.Values{"server": {off.links.serverID()}, "pane": {"%3"}, "action": {"screen"}}.Encode()
	if status, text := off.post(t, u, tok); status != http.StatusForbidden || !strings.Contains(text, "screen is off") {
		t.Errorf("screen off: %d %q", status, text)
	}
	off.checkRefusal(t, "%3", "screen", "screen is off", tok)
	if _, err := off.signer.Check(tok, target{ServerID: off.links.serverID(), Pane: "%3", Action: screen}); err != nil {
		t.Errorf("a refused screen request used its token: %v", err)
	}
	if calls := off.actor.Calls(); len(calls) != 0 {
		t.Errorf("the Actor was asked %q", calls)
	}
}

// TestTail: the end of a screen within n bytes, at a line's start, else a rune's.
func TestTail(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want string
	}{
		{"a\nb\n\n  \n", 10, "a\nb"},
		{"aaaa\nbb\ncc", 6, "bb\ncc"},
		{"aaaa\nbbbbbbb", 6, "bbbbbb"},
		{"ééé", 3, "é"},
	} {
		if got := Tail(tc.text, tc.n); got != tc.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", tc.text, tc.n, got, tc.want)
		}
	}
}

// TestPathsAndMethods: other paths are 404, other methods 405.
func TestPathsAndMethods(t *testing.T) {
	r := newRig(t, nil)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/act", 405}, {"PUT", "/v1/act", 405}, {"DELETE", "/v1/reply", 405},
		{"GET", "/", 404}, {"POST", "/v1/other", 404}, {"POST", "/v2/act", 404},
	} {
		req, _ := http.NewRequest(tc.method, r.srv.URL+tc.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, resp.StatusCode, tc.status)
		}
	}
}

// TestStopping: once the watcher stops (the Handler's context ended), a tap is refused
// with 503 and its token is left unused.
func TestStopping(t *testing.T) {
	r := newRig(t, nil)
	b := r.button(t, notify.Held, "Skip")
	r.cancel()
	if status, text := r.tap(t, b); status != http.StatusServiceUnavailable || !strings.Contains(text, "stopping") {
		t.Errorf("tap: %d %q", status, text)
	}
	r.checkRefusal(t, "%3", "skip", "stopping", b.Body)
	if _, err := r.signer.Check(b.Body, target{ServerID: r.links.serverID(), Pane: "%3", Action: skip}); err != nil || len(r.actor.Calls()) != 0 {
		t.Errorf("Check = %v, Actor asked %q", err, r.actor.Calls())
	}
}

// TestRefusalsBounded: a flood of forged tokens writes the first five refusals of a window
// one line each, then nothing until the window ends, and then one line that counts the rest
// by reason; the next window logs its first refusals again.
func TestRefusalsBounded(t *testing.T) {
	r := newRig(t, nil)
	u := r.button(t, notify.Held, "Skip").URL
	forged := NewSigner(r.clk.Now).mint(claim{Server: r.links.serverID(), Pane: "%3", Binding: bound, Action: skip, Expires: start.Add(time.Hour)})
	for range 300 {
		if status, _ := r.post(t, u, forged); status != http.StatusForbidden {
			t.Fatalf("forged: %d", status)
		}
	}
	r.post(t, u, "junk")
	lines := func(msg string) (n int, last string) {
		for _, l := range r.logs.lines(t) {
			if m := fmt.Sprint(l["message"]); strings.HasPrefix(m, msg) {
				n, last = n+1, m
			}
		}
		return n, last
	}
	if n, _ := lines("phone: request refused"); n != 5 || strings.Count(r.logs.String(), "\n") != 5 {
		t.Fatalf("%d refusals logged one by one, %d lines in all; want 5:\n%s", n, strings.Count(r.logs.String(), "\n"), r.logs)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the summariser asleep on the clock", func() bool { return r.clk.Timers() > 0 })
	r.clk.Add(10 * time.Second) // the window ends: its summary is logged without another request
	want := "phone: refused 296 more requests in the last 10s (forged token 295, malformed 1)"
	tmuxtest.WaitFor(t, 10*time.Second, "the window's summary", func() bool { n, _ := lines(want); return n == 1 })
	r.post(t, u, forged)
	if n, _ := lines("phone: request refused"); n != 6 {
		t.Errorf("the next window's first refusal: %d lines one by one, want 6", n)
	}
	if strings.Contains(r.logs.String(), forged) {
		t.Error("the log shows a token")
	}
}
