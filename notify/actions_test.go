package notify_test

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/notify"
)

// The buttons of an event reach ntfy as its X-Actions header, read back here by the grammar
// ntfy documents (https://docs.ntfy.sh/publish/#action-buttons) and parses: actions
// separated by ";", key=value pairs by ",", a value in double or single quotes may hold ","
// and ";", and the first pairs may leave out "action=", "label=" and "url=".

// parseActions reads an X-Actions header as ntfy does (its simple format): one map of
// key=value per action.
func parseActions(h string) ([]map[string]string, error) {
	keyRe := regexp.MustCompile(`^([-.\w]+)\s*=\s*`)
	var out []map[string]string
	for s := strings.TrimSpace(h); s != ""; {
		a := map[string]string{}
		for section, last := 0, false; !last; section++ {
			s = strings.TrimLeft(s, " \t")
			key := ""
			if m := keyRe.FindStringSubmatch(s); m != nil {
				key, s = m[1], s[len(m[0]):]
			}
			var value string
			if s != "" && (s[0] == '"' || s[0] == '\'') {
				q := s[0]
				end := strings.IndexByte(s[1:], q)
				if end < 0 {
					return nil, fmt.Errorf("unterminated quote in %q", s)
				}
				value, s = s[1:1+end], strings.TrimLeft(s[2+end:], " \t")
				if s != "" && s[0] != ',' && s[0] != ';' {
					return nil, fmt.Errorf("unexpected %q after a quoted value", s)
				}
			} else {
				end := strings.IndexAny(s, ",;")
				if end < 0 {
					end = len(s)
				}
				value, s = strings.TrimSpace(s[:end]), s[end:]
			}
			last = s == "" || s[0] == ';'
			if s != "" {
				s = s[1:]
			}
			if key == "" {
				key = [...]string{"action", "label", "url", ""}[min(section, 3)]
			}
			if key == "" {
				return nil, fmt.Errorf("term %q unknown", value)
			}
			a[key] = value
		}
		out = append(out, a)
	}
	return out, nil
}

// TestParseActionsAsNtfy: the reader follows ntfy's documented examples.
func TestParseActionsAsNtfy(t *testing.T) {
	got, err := parseActions(`view, Open portal, https://home.nest.com/, clear=true; http, Turn down, https://api.nest.com/, body='{"temperature": 65}'`)
	if err != nil || len(got) != 2 || got[0]["label"] != "Open portal" || got[0]["clear"] != "true" ||
		got[1]["action"] != "http" || got[1]["url"] != "https://api.nest.com/" || got[1]["body"] != `{"temperature": 65}` {
		t.Fatalf("parseActions = %q, %v", got, err)
	}
}

// TestNtfyActions: an http button POSTs its body and clears the notification, a view
// button opens its URL; values with "," and ";" survive the quoting; ntfy's limit of three
// is kept (a fourth is left out, not the message lost); an action whose text cannot be
// quoted is left out; the hook never sees a button.
func TestNtfyActions(t *testing.T) {
	srv := newServer(t, http.StatusOK, false)
	out := filepath.Join(t.TempDir(), "hook.jsonl")
	r := newRig(t, settings(func(s *notify.Settings) {
		s.URL = srv.URL + "/t"
		s.Command = []string{recorder, out, "ok"}
	}))
	e := notify.Event{Kind: notify.Held, Pane: "%3", Target: "main:1.0", Actions: []notify.Action{
		{Label: "Bad \"label\"", URL: "https://box.example/v1/act", Body: "x"},
		{Label: "Resume now", URL: "https://box.example/v1/act?action=resume&pane=%253&server=ab,cd;ef", Body: "TOKEN1.sig-_"},
		{Label: "Reply", URL: "https://box.example/v1/reply?pane=%253&token=TOKEN2", View: true},
		{Label: "Skip", URL: "https://box.example/v1/act?action=skip", Body: "TOKEN3"},
		{Label: "Fourth", URL: "https://box.example/v1/act?action=unskip", Body: "TOKEN4"},
	}}
	r.send(t, e)
	got := srv.waitRequests(t, 1)[0]
	acts, err := parseActions(got.Header.Get("X-Actions"))
	if err != nil {
		t.Fatalf("X-Actions %q: %v", got.Header.Get("X-Actions"), err)
	}
	want := []map[string]string{
		{"action": "http", "label": "Resume now", "url": e.Actions[1].URL, "method": "POST", "body": "TOKEN1.sig-_", "clear": "true"},
		{"action": "view", "label": "Reply", "url": e.Actions[2].URL, "clear": "false"},
		{"action": "http", "label": "Skip", "url": e.Actions[3].URL, "method": "POST", "body": "TOKEN3", "clear": "true"},
	}
	if fmt.Sprint(acts) != fmt.Sprint(want) {
		t.Errorf("X-Actions %q reads\n%v\nwant\n%v", got.Header.Get("X-Actions"), acts, want)
	}
	if got.Body != notify.Body(e) || got.Header.Get("Title") != notify.Title(e) {
		t.Errorf("the message changed with its buttons: %q %q", got.Header.Get("Title"), got.Body)
	}
	for _, rec := range waitRecords(t, out, 1) {
		if rec.Env["CAC_EVENT"] != "held" {
			t.Errorf("the hook's environment %q", rec.Env)
		}
		for k, v := range rec.Env {
			if strings.Contains(v, "TOKEN") || strings.Contains(v, "box.example") {
				t.Errorf("the hook's %s holds a button: %q", k, v)
			}
		}
		if a := strings.Join(rec.Args, " "); strings.Contains(a, "TOKEN") {
			t.Errorf("the hook's arguments hold a button: %q", a)
		}
	}

	// No buttons: no header.
	r.send(t, notify.Event{Kind: notify.Failed, Pane: "%4"})
	if h, ok := srv.waitRequests(t, 2)[1].Header["X-Actions"]; ok {
		t.Errorf("an event without buttons sent X-Actions %q", h)
	}
}

// TestNtfyActionsNotASCII: a label beyond ASCII makes the header RFC 2047, which ntfy
// decodes before it parses.
func TestNtfyActionsNotASCII(t *testing.T) {
	srv := newServer(t, http.StatusOK, false)
	r := newRig(t, settings(func(s *notify.Settings) { s.URL = srv.URL + "/t" }))
	r.send(t, notify.Event{Kind: notify.Stopped, Pane: "%1", Actions: []notify.Action{{Label: "Reprendre ▶", URL: "https://box.example/a", Body: "T"}}})
	raw := srv.waitRequests(t, 1)[0].Header.Get("X-Actions")
	h, err := new(mime.WordDecoder).DecodeHeader(raw)
	if err != nil || h == raw {
		t.Fatalf("X-Actions %q is not RFC 2047 (%v)", raw, err)
	}
	acts, err := parseActions(h)
	if err != nil || len(acts) != 1 || acts[0]["label"] != "Reprendre ▶" || acts[0]["body"] != "T" {
		t.Errorf("X-Actions %q reads %v, %v", h, acts, err)
	}
}

// TestSay: a message that is no event (the phone's outcome) goes to the url channel at once,
// even when url_events takes no event, with its title and body as given, no buttons, and
// nothing of it in the log; a failed POST is an error.
func TestSay(t *testing.T) {
	srv := newServer(t, http.StatusOK, false)
	r := newRig(t, settings(func(s *notify.Settings) { s.URL, s.URLEvents = srv.URL+"/t", nil }))
	if err := r.n.Say(context.Background(), "cac-tmux: resume of %3: done", "resumed main:1.0\nsecret screen line"); err != nil {
		t.Fatalf("Say = %v", err)
	}
	got := srv.requests()
	if len(got) != 1 || got[0].Path != "/t" || got[0].Header.Get("Title") != "cac-tmux: resume of %3: done" ||
		got[0].Body != "resumed main:1.0\nsecret screen line" || got[0].Header.Get("Tags") != "iphone" || got[0].Header.Get("X-Actions") != "" {
		t.Errorf("Say posted %+v", got)
	}
	if strings.Contains(r.logs.String(), "secret") {
		t.Errorf("the log shows the message:\n%s", r.logs)
	}

	failing := newServer(t, http.StatusInternalServerError, false)
	r = newRig(t, settings(func(s *notify.Settings) { s.URL = failing.URL + "/t" }))
	if err := r.n.Say(context.Background(), "t", "b"); err == nil || !strings.Contains(err.Error(), "notify: say: post to http://127.0.0.1") || !strings.Contains(err.Error(), "500") {
		t.Errorf("Say to a failing server = %v", err)
	}
	if n := len(failing.requests()); n != 1 {
		t.Errorf("Say tried %d times, want once", n)
	}
	r.n.Close(context.Background())
	if err := r.n.Say(context.Background(), "t", "b"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Say after Close = %v", err)
	}
	var none *notify.Notifier
	if err := none.Say(context.Background(), "t", "b"); err == nil {
		t.Error("Say on a nil Notifier = nil")
	}
	r = newRig(t, settings(func(s *notify.Settings) {}))
	if err := r.n.Say(context.Background(), "t", "b"); err == nil || !strings.Contains(err.Error(), "notify.url") {
		t.Errorf("Say without url = %v", err)
	}
}

// TestSayTimesOut: a Say whose POST hangs ends at the timeout on the clock.
func TestSayTimesOut(t *testing.T) {
	srv := newServer(t, http.StatusOK, true)
	r := newRig(t, settings(func(s *notify.Settings) { s.URL = srv.URL + "/t" }))
	done := make(chan error, 1)
	go func() { done <- r.n.Say(context.Background(), "t", "b") }()
	srv.waitRequests(t, 1)
	waitFor(t, "the POST's timeout on the clock", func() bool { return r.clk.Timers() == 1 })
	r.clk.Add(10 * time.Second)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "timed out after 10s") {
			t.Errorf("Say = %v, want a timeout", err)
		}
	case <-time.After(patience):
		t.Fatal("Say did not return at its timeout")
	}
}
