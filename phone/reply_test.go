package phone

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/notify"
)

// get GETs u and returns the status and the page.
func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// send POSTs the reply form of button b with text, as the browser does.
func (r *rig) send(t *testing.T, b notify.Action, text string) (int, string) {
	t.Helper()
	u, _ := url.Parse(b.URL)
	q := u.Query()
	form := url.Values{"server": {q.Get("server")}, "pane": {q.Get("pane")}, "token": {q.Get("token")}, "text": {text}}
	resp, err := http.PostForm(r.srv.URL+"/v1/reply", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	r.h.Wait()
	return resp.StatusCode, string(body)
}

// TestReply: the Reply button opens a form (GET, any number of times: it never consumes the
// token, as a link previewer fetches it) that names the session as the popup does (its
// session:window.pane, its project, Claude Code); the form sent types the prompt once,
// trimmed, into the session the notification was about, and reports the outcome; sent again,
// it is refused.
func TestReply(t *testing.T) {
	r := newRig(t, nil)
	b := r.button(t, notify.Resumed, "Reply")
	token, _ := url.Parse(b.URL)
	for range 2 {
		status, page := get(t, b.URL)
		if status != http.StatusOK || !strings.Contains(page, `<form method="post" action="reply">`) ||
			!strings.Contains(page, `value="`+token.Query().Get("token")+`"`) || !strings.Contains(page, `maxlength="20"`) {
			t.Fatalf("GET %s: %d\n%s", b.URL, status, page)
		}
		for _, want := range []string{"<h1>Reply to Claude Code</h1>", `<strong id="target">main:1.0</strong>`, `<span id="project">cac-tmux</span>`} {
			if !strings.Contains(page, want) {
				t.Errorf("the form does not name the session: no %q in\n%s", want, page)
			}
		}
	}
	if len(r.actor.Calls()) != 0 {
		t.Fatalf("GET acted: %q", r.actor.Calls())
	}
	status, text := r.send(t, b, "  carry on, please  ")
	if status != http.StatusAccepted || !strings.Contains(text, "accepted") {
		t.Errorf("send: %d %q", status, text)
	}
	if got, want := r.actor.Calls(), []string{"prompt " + sock + " %3 carry on, please"}; !slices.Equal(got, want) {
		t.Errorf("Actor asked %q, want %q", got, want)
	}
	if got := r.actor.Bindings(); !slices.Equal(got, []string{bound}) {
		t.Errorf("the reply was asked for the sessions %q, want the notification's %q", got, bound)
	}
	if got := r.Reports(); len(got) != 1 || got[0].title != "cac-tmux: reply to %3: done" {
		t.Errorf("reports %q", got)
	}
	if strings.Contains(r.logs.String(), "carry on") {
		t.Error("the log shows the prompt")
	}
	if status, text := r.send(t, b, "again"); status != http.StatusForbidden || !strings.Contains(text, "used already") {
		t.Errorf("sent again: %d %q", status, text)
	}
	r.checkRefusal(t, "%3", "reply", "already used", token.Query().Get("token"))
	if status, _ := get(t, b.URL); status != http.StatusForbidden {
		t.Errorf("the form of a used link: %d, want 403", status)
	}
}

// TestReplyRefusesText: an empty reply, one longer than prompt_max characters, one with a
// newline or another control character, and one that Claude Code would read as a command
// (a shell command, a slash command), blanks before it
// included, is refused before the token is redeemed, so the link works after a fix.
func TestReplyRefusesText(t *testing.T) {
	r := newRig(t, nil)
	b := r.button(t, notify.Resumed, "Reply")
	for _, tc := range []struct{ text, answer string }{
		{"   ", "empty"},
		{strings.Repeat("é", 21), "21 characters"},
		{"one\ntwo", "one line"},
		{"tab\there", "control characters"},
		{"bell\a", "control characters"},
		{"!touch /tmp/x", "shell command"},
		{" \u00a0 !touch /tmp/x", "shell command"},
		{"/login", "slash command"},
	} {
		r.clk.Add(10 * time.Second) // a window of the refusals' log of its own: each is logged
		status, text := r.send(t, b, tc.text)
		if status != http.StatusBadRequest || !strings.Contains(text, tc.answer) {
			t.Errorf("send(%q): %d %q, want 400 and %q", tc.text, status, text, tc.answer)
		}
		r.checkRefusal(t, "%3", "reply", "reply refused")
	}
	if len(r.actor.Calls()) != 0 {
		t.Fatalf("a refused reply was typed: %q", r.actor.Calls())
	}
	if status, _ := r.send(t, b, strings.Repeat("é", 20)); status != http.StatusAccepted {
		t.Errorf("after the refusals, a good reply: %d", status)
	}
}

// TestRepliesOff: with prompts off no Reply button is offered, and both the form and its
// sending are refused.
func TestRepliesOff(t *testing.T) {
	on := newRig(t, nil)
	b := on.button(t, notify.Resumed, "Reply")
	u, _ := url.Parse(b.URL)
	r := newRig(t, func(c *Config) { c.Prompts = false })
	if got := r.links.Decorate(notify.Event{Kind: notify.Resumed, Pane: "%3", Binding: bound}); slices.ContainsFunc(got.Actions, func(a notify.Action) bool { return a.Label == "Reply" }) {
		t.Errorf("prompts off: buttons %+v", got.Actions)
	}
	tok := r.signer.mint(claim{Server: r.links.serverID(), Pane: "%3", Binding: bound, Action: reply, Expires: start.Add(time.Hour)})
	q := url.Values{"server": {u.Query().Get("server")}, "pane": {"%3"}, "token": {tok}}
	if status, text := get(t, r.srv.URL+"/v1/reply?"+q.Encode()); status != http.StatusForbidden || !strings.Contains(text, "replies are off") {
		t.Errorf("GET with prompts off: %d %q", status, text)
	}
	q.Set("text", "hello")
	resp, err := http.PostForm(r.srv.URL+"/v1/reply", q)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r.h.Wait()
	if resp.StatusCode != http.StatusForbidden || len(r.actor.Calls()) != 0 {
		t.Errorf("POST with prompts off: %d, Actor asked %q", resp.StatusCode, r.actor.Calls())
	}
	r.checkRefusal(t, "", "reply", "replies are off", tok)
}

// TestReplyFormSessionGone: the form of a Reply link whose pane no longer runs the session
// of its notification says so (409) instead of offering to type into another one; its token
// is left unused.
func TestReplyFormSessionGone(t *testing.T) {
	r := newRig(t, nil)
	b := r.button(t, notify.Resumed, "Reply")
	r.actor.gone = "pane %3 now runs another Claude Code session than the one this was asked for"
	status, page := get(t, b.URL)
	if status != http.StatusConflict || !strings.Contains(page, "another Claude Code session") || strings.Contains(page, "<form") {
		t.Errorf("GET: %d %q, want 409 naming the change", status, page)
	}
	r.checkRefusal(t, "%3", "reply", "gone")
	u, _ := url.Parse(b.URL)
	if _, err := r.signer.Check(u.Query().Get("token"), target{ServerID: r.links.serverID(), Pane: "%3", Action: reply}); err != nil {
		t.Errorf("the form of a gone session used its token: %v", err)
	}
}

// TestReplyNamesTheAgent: the form names the session's agent: Codex for a Codex session.
func TestReplyNamesTheAgent(t *testing.T) {
	r := newRig(t, nil)
	r.actor.place.Agent = agent.Codex
	status, page := get(t, r.button(t, notify.Resumed, "Reply").URL)
	for _, want := range []string{"<title>Reply to Codex in main:1.0</title>", "<h1>Reply to Codex</h1>", "Typed into this Codex session"} {
		if status != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("GET: %d, no %q in\n%s", status, want, page)
		}
	}
}
