package phone

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"time"

	"github.com/cac-tmux/cac-tmux/notify"
)

// buttons are the actions offered with each event, in the phone's order, before the settings
// leave out Screen ([phone] screen) and Reply ([phone] prompts); ntfy shows three at most.
// stopped, again: Skip or Screen; no Resume now, which before the reset meets the limit again.
// held: nothing is typed until someone acts: Resume now (through every gate), Skip or Screen.
// failed: every attempt used: Resume once more by hand, or Screen (Skip would change nothing).
// resumed: Screen, or Reply once idle. skipped: Unskip, or Screen.
var buttons = map[notify.EventKind][]action{
	notify.Stopped: {skip, screen},
	notify.Again:   {skip, screen},
	notify.Held:    {resume, skip, screen},
	notify.Failed:  {resume, screen},
	notify.Resumed: {screen, reply},
	notify.Skipped: {unskip, screen},
}

// labels are the buttons' texts.
var labels = map[action]string{resume: "Resume now", skip: "Skip", unskip: "Unskip", screen: "Screen", reply: "Reply"}

// LinksConfig is what the links of one tmux server are made of.
type LinksConfig struct {
	// Signer signs the tokens; one Signer serves every server of the process, and the
	// Handler checks with it.
	Signer *Signer
	// Socket is the tmux server's socket path: the tokens and the URLs carry its ServerID.
	Socket string
	// Up reports whether the endpoint listens now (Endpoint.Up): while it does not, no button
	// is offered, since a tap would reach whatever holds the address then.
	Up func() bool
	// URL is [phone] url: the public base URL at which the phone reaches the Handler
	// through the user's tunnel ("https://box.tail1234.ts.net"; a path is kept as a prefix).
	URL string
	// TTL is [phone] link_ttl: how long a link is accepted after its notification.
	TTL time.Duration
	// Screen and Prompts are [phone] screen and prompts: whether the Screen and Reply
	// buttons are offered.
	Screen, Prompts bool
}

// Links adds the phone's buttons to the notifications of one tmux server. A nil *Links adds
// none.
type Links struct {
	c    LinksConfig
	base *url.URL
	id   string
}

// NewLinks checks c and returns the Links of its server. The URL must be absolute, https, or
// http to a loopback host ([phone] url's rule), without a query or a fragment.
func NewLinks(c LinksConfig) (*Links, error) {
	u, err := url.Parse(c.URL)
	switch {
	case err != nil:
		return nil, fmt.Errorf("phone: links: url: %w", err)
	case !(u.Scheme == "https" || u.Scheme == "http" && loopbackHost(u.Hostname())) || u.Host == "" || u.User != nil:
		return nil, fmt.Errorf("phone: links: url %q: want https://HOST, or http:// to a loopback host", c.URL)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, fmt.Errorf("phone: links: url %q: want no query or fragment", c.URL)
	case c.Signer == nil || c.Socket == "" || c.TTL <= 0 || c.Up == nil:
		return nil, fmt.Errorf("phone: links: a signer, a socket, a positive ttl and the endpoint's state are needed")
	}
	return &Links{c: c, base: u, id: c.Signer.serverID(c.Socket)}, nil
}

// serverID is the server's ID in the links' URLs (serverID of its socket).
func (l *Links) serverID() string { return l.id }

// Decorate returns e with the buttons of its kind (buttons), each with a token of its own,
// bound to e's session (e.Binding) and valid for TTL from now. An event without a pane id
// ("%3") or a binding gets none, and so does an event of a kind without buttons, and every
// event while the endpoint does not listen. e's own Actions are replaced.
func (l *Links) Decorate(e notify.Event) notify.Event {
	if l == nil {
		return e
	}
	e.Actions = nil
	if !paneForm(e.Pane) || e.Binding == "" || !l.c.Up() {
		return e
	}
	expires := l.c.Signer.now().Add(l.c.TTL)
	for _, a := range buttons[e.Kind] {
		if a == screen && !l.c.Screen || a == reply && !l.c.Prompts {
			continue
		}
		token := l.c.Signer.mint(claim{Server: l.id, Pane: e.Pane, Binding: e.Binding, Action: a, Event: string(e.Kind), Expires: expires})
		e.Actions = append(e.Actions, l.action(e.Pane, a, token))
	}
	return e
}

// action is the button of a on pane: a POST of token to {url}/v1/act?server=ID&pane=…&action=…,
// or for Reply a link that opens the form, {url}/v1/reply?server=ID&pane=…&token=… (GET
// never acts, so a link previewer fetching it does nothing).
func (l *Links) action(pane string, a action, token string) notify.Action {
	q := url.Values{"server": {l.id}, "pane": {pane}}
	if a == reply {
		q.Set("token", token)
		return notify.Action{Label: labels[a], URL: l.endpoint("reply", q), View: true}
	}
	q.Set("action", string(a))
	return notify.Action{Label: labels[a], URL: l.endpoint("act", q), Body: token}
}

// endpoint is the URL of the Handler's path /v1/NAME under the base URL, with query q.
func (l *Links) endpoint(name string, q url.Values) string {
	u := l.base.JoinPath("v1", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// paneForm reports whether id is a tmux pane id: "%" and digits.
func paneForm(id string) bool {
	if len(id) < 2 || len(id) > 11 || id[0] != '%' {
		return false
	}
	return !slices.ContainsFunc([]byte(id[1:]), func(b byte) bool { return b < '0' || b > '9' })
}

// loopbackHost reports whether host (a name or an IP literal, without a port) is this host
// without a lookup: "localhost", or an address in 127.0.0.0/8 or ::1.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
