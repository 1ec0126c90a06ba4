package phone

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/notify"
)

// listening is the state of an endpoint that listens (LinksConfig.Up).
func listening() bool { return true }

// newLinks is the Links of sock with base URL base, on a manual clock, its endpoint up.
func newLinks(t *testing.T, s *Signer, base string, screen, prompts bool) *Links {
	t.Helper()
	l, err := NewLinks(LinksConfig{Signer: s, Socket: sock, URL: base, TTL: time.Hour, Screen: screen, Prompts: prompts, Up: listening})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestButtonsPerEvent: each event gets the buttons a person on a phone can use, three at
// most; Screen only with screen on, Reply only with prompts on.
func TestButtonsPerEvent(t *testing.T) {
	s := NewSigner(clocktest.New(start).Now)
	all, bare := newLinks(t, s, "https://box.example", true, true), newLinks(t, s, "https://box.example", false, false)
	for _, tc := range []struct {
		kind      notify.EventKind
		all, bare []string
	}{
		{notify.Stopped, []string{"Skip", "Screen"}, []string{"Skip"}},
		{notify.Again, []string{"Skip", "Screen"}, []string{"Skip"}},
		{notify.Held, []string{"Resume now", "Skip", "Screen"}, []string{"Resume now", "Skip"}},
		{notify.Failed, []string{"Resume now", "Screen"}, []string{"Resume now"}},
		{notify.Resumed, []string{"Screen", "Reply"}, nil},
		{notify.Skipped, []string{"Unskip", "Screen"}, []string{"Unskip"}},
	} {
		e := notify.Event{Kind: tc.kind, Pane: "%3", Target: "main:1.0", Binding: bound}
		for _, v := range []struct {
			l    *Links
			want []string
		}{{all, tc.all}, {bare, tc.bare}} {
			got := v.l.Decorate(e)
			var labels []string
			for _, a := range got.Actions {
				labels = append(labels, a.Label)
			}
			if !slices.Equal(labels, v.want) || len(labels) > 3 {
				t.Errorf("%s: buttons %q, want %q", tc.kind, labels, v.want)
			}
			if got.Pane != e.Pane || got.Target != e.Target || got.Kind != e.Kind {
				t.Errorf("%s: Decorate changed the event: %+v", tc.kind, got)
			}
		}
	}
}

// TestButtonURLs: a button POSTs its token to {url}/v1/act, naming the server by its ID
// (never the socket path), the pane and the action, and the token is valid for exactly that
// target for the TTL, bound to the event's session; Reply opens {url}/v1/reply with its token
// in the query. A base URL's path is kept as a prefix. Neither a URL nor a token's payload
// shows the socket's path.
func TestButtonURLs(t *testing.T) {
	clk := clocktest.New(start)
	s := NewSigner(clk.Now)
	l := newLinks(t, s, "https://box.example/cac/", true, true)
	if l.serverID() != s.serverID(sock) {
		t.Errorf("ServerID = %q", l.serverID())
	}
	held := l.Decorate(notify.Event{Kind: notify.Held, Pane: "%3", Binding: bound})
	for i, a := range append(held.Actions, l.Decorate(notify.Event{Kind: notify.Resumed, Pane: "%3", Binding: bound}).Actions...) {
		u, err := url.Parse(a.URL)
		if err != nil || strings.Contains(a.URL, "tmux") {
			t.Fatalf("button %q: URL %q (%v)", a.Label, a.URL, err)
		}
		q := u.Query()
		action := action(q.Get("action"))
		token := a.Body
		wantPath := "/cac/v1/act"
		if a.Label == "Reply" {
			action, token, wantPath = reply, q.Get("token"), "/cac/v1/reply"
			if !a.View || a.Body != "" {
				t.Errorf("Reply: View %v Body %q, want a view action", a.View, a.Body)
			}
		} else if a.View {
			t.Errorf("%s: a view action, want http", a.Label)
		}
		if u.Scheme != "https" || u.Host != "box.example" || u.Path != wantPath || q.Get("server") != l.serverID() || q.Get("pane") != "%3" {
			t.Errorf("button %d %q: URL %q", i, a.Label, a.URL)
		}
		want := target{ServerID: l.serverID(), Pane: "%3", Action: action}
		c, err := s.Check(token, want)
		if err != nil || c.Server != l.serverID() || c.Binding != bound || !c.Expires.Equal(start.Add(time.Hour)) {
			t.Errorf("button %q: Check = %+v, %v", a.Label, c, err)
		}
		payload, _, _ := strings.Cut(token, ".")
		if text, err := base64.RawURLEncoding.DecodeString(payload); err != nil || strings.Contains(string(text), "tmux") ||
			strings.Contains(string(text), url.QueryEscape(sock)) {
			t.Errorf("button %q: the token's payload %q (%v) shows the socket", a.Label, text, err)
		}
	}
	if got := []string{held.Actions[0].Body, held.Actions[1].Body}; got[0] == got[1] {
		t.Error("two buttons share a token")
	}
}

// TestDecorateWithout: a nil Links, an event without a pane id, without the binding of its
// session (its process is not known), or of a kind without buttons, get no buttons; nor does
// any event while the endpoint does not listen (another program may hold its port).
func TestDecorateWithout(t *testing.T) {
	var none *Links
	e := notify.Event{Kind: notify.Held, Pane: "%3", Binding: bound}
	if got := none.Decorate(e); got.Actions != nil {
		t.Errorf("nil Links: %+v", got.Actions)
	}
	s := NewSigner(clocktest.New(start).Now)
	l := newLinks(t, s, "https://box.example", true, true)
	for _, e := range []notify.Event{{Kind: notify.Held, Binding: bound}, {Kind: notify.Held, Pane: "main:1.0", Binding: bound},
		{Kind: "other", Pane: "%3", Binding: bound}, {Kind: notify.Held, Pane: "%3"}} {
		if got := l.Decorate(e); len(got.Actions) != 0 {
			t.Errorf("Decorate(%+v) = %+v, want no buttons", e, got.Actions)
		}
	}
	up := false
	down, err := NewLinks(LinksConfig{Signer: s, Socket: sock, URL: "https://box.example", TTL: time.Hour, Up: func() bool { return up }})
	if err != nil {
		t.Fatal(err)
	}
	if got := down.Decorate(e); len(got.Actions) != 0 {
		t.Errorf("endpoint down: Decorate = %+v, want no buttons", got.Actions)
	}
	up = true
	if got := down.Decorate(e); len(got.Actions) == 0 {
		t.Error("endpoint up again: no buttons")
	}
}

// TestNewLinksRefuses: a base URL the phone should not be sent to (plain http beyond this
// host, a query, credentials) and a missing signer, ttl or endpoint state are errors.
func TestNewLinksRefuses(t *testing.T) {
	s := NewSigner(clocktest.New(start).Now)
	for _, u := range []string{"http://box.example", "ftp://box.example", "https://box.example/?a=1", "https://box.example/#x",
		"https://me:pw@box.example", "box.example", "", "https://"} {
		if _, err := NewLinks(LinksConfig{Signer: s, Socket: sock, URL: u, TTL: time.Hour, Up: listening}); err == nil {
			t.Errorf("NewLinks(url %q) = nil error", u)
		}
	}
	for _, u := range []string{"https://box.example", "http://127.0.0.1:8765", "http://localhost:1/x", "http://[::1]:9"} {
		if _, err := NewLinks(LinksConfig{Signer: s, Socket: sock, URL: u, TTL: time.Hour, Up: listening}); err != nil {
			t.Errorf("NewLinks(url %q) = %v", u, err)
		}
	}
	if _, err := NewLinks(LinksConfig{Socket: sock, URL: "https://box.example", TTL: time.Hour, Up: listening}); err == nil {
		t.Error("NewLinks without a signer = nil error")
	}
	if _, err := NewLinks(LinksConfig{Signer: s, Socket: sock, URL: "https://box.example", Up: listening}); err == nil {
		t.Error("NewLinks without a ttl = nil error")
	}
	if _, err := NewLinks(LinksConfig{Signer: s, Socket: sock, URL: "https://box.example", TTL: time.Hour}); err == nil {
		t.Error("NewLinks without the endpoint's state (Up) = nil error")
	}
}
