package config

import (
	"net"
	"net/url"
	"strconv"
	"time"
)

// Phone is [phone]: actions from a phone. With Listen set, `cac-tmux watch`
// answers the buttons of its ntfy notifications on a loopback HTTP endpoint that the user's
// own tunnel makes reachable at URL (package phone).
type Phone struct {
	// Listen is the endpoint's address, host:port ("127.0.0.1:8765"); "" is off.
	Listen string
	// Public allows a Listen address that is not loopback (reachable from other hosts).
	Public bool
	// URL is the public base URL at which the phone reaches Listen through the tunnel
	// ("https://box.tail1234.ts.net"): https, or http to a loopback host (for tests).
	URL string
	// LinkTTL is how long a button works after its notification, 1m to 24h.
	LinkTTL time.Duration
	// Screen offers a Screen button: the pane's text is sent through the ntfy server.
	Screen bool
	// Prompts offers a Reply button: a form that types a prompt into an idle Claude Code.
	Prompts bool
	// PromptMax is the longest reply in characters, 1 to MaxPrompt.
	PromptMax int
}

// On says whether [phone] is on: Listen set (url and notify.url are required with it).
func (p Phone) On() bool { return p.Listen != "" }

// MaxPrompt is the longest prompt ever typed for someone, in characters, whatever
// prompt_max says (watcher.CheckPrompt).
const MaxPrompt = 4000

// defaultPhone is [phone]'s defaults: off, links valid for an hour, replies of at most 500
// characters.
func defaultPhone() Phone { return Phone{LinkTTL: time.Hour, PromptMax: 500} }

// phoneKey is a key of [phone].
func phoneKey[T any](name, want, help string, k *kind[T], at func(*Phone) *T, rule func(T) string) setting {
	return newKey(meta{table: "phone", name: name, want: want, help: help}, k,
		func(c *Config) *T { return at(&c.Phone) }, rule)
}

// phoneTable is [phone].
var phoneTable = table{name: "phone", help: []string{
	"Actions from a phone: buttons in the ntfy notifications (notify.url) that reach `cac-tmux",
	"watch` through your own tunnel to listen (Tailscale, an ssh -R, a reverse proxy); each",
	"button is signed, works once and for link_ttl, and passes the gates of `cac-tmux resume`."}, keys: []setting{
	phoneKey("listen", `an address like "127.0.0.1:8765"`, `where the watcher answers the buttons; "" is off`,
		textKind, func(p *Phone) *string { return &p.Listen }, checkListen),
	phoneKey("public", "true or false", "allow a listen address that is not loopback (reachable from other hosts, not only your tunnel)",
		boolKind, func(p *Phone) *bool { return &p.Public }, nil),
	phoneKey("url", `a URL like "https://box.tail1234.ts.net"`, "the public base URL at which your tunnel reaches listen; the buttons point there",
		textKind, func(p *Phone) *string { return &p.URL }, checkPhoneURL),
	phoneKey("link_ttl", wantDuration, "how long a button works after its notification (1m to 24h)",
		durationKind, func(p *Phone) *time.Duration { return &p.LinkTTL }, func(d time.Duration) string {
			if d < time.Minute || d > 24*time.Hour {
				return "must be from 1m to 24h"
			}
			return ""
		}),
	phoneKey("screen", "true or false", "a Screen button: the pane's text is sent to you through the ntfy server",
		boolKind, func(p *Phone) *bool { return &p.Screen }, nil),
	phoneKey("prompts", "true or false", "a Reply button: a form that types a prompt into an idle Claude Code",
		boolKind, func(p *Phone) *bool { return &p.Prompts }, nil),
	phoneKey("prompt_max", "an integer like 500", "the longest reply, in characters (1 to "+strconv.Itoa(MaxPrompt)+")",
		intKind, func(p *Phone) *int { return &p.PromptMax }, func(n int) string {
			if n < 1 || n > MaxPrompt {
				return "must be from 1 to " + strconv.Itoa(MaxPrompt)
			}
			return ""
		}),
}, check: checkPhone}

// checkListen is the rule of phone.listen: "" or host:port with a port from 1 to 65535 (a
// tunnel needs to know it). Whether the host is loopback is the table's rule (with public).
func checkListen(s string) string {
	if s == "" {
		return ""
	}
	_, port, err := net.SplitHostPort(s)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
		return `must be HOST:PORT like "127.0.0.1:8765", with a port from 1 to 65535; "" is off`
	}
	return ""
}

// checkPhoneURL is the rule of phone.url: "" or an absolute https URL (the phone reaches it
// over the internet, and the buttons carry tokens), or http to this host itself (a tunnel
// that ends here, tests), without a user, a query or a fragment.
func checkPhoneURL(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" ||
		!(u.Scheme == "https" || u.Scheme == "http" && loopback(u.Hostname())) {
		return `must be an https:// URL like "https://box.tail1234.ts.net" (http:// only to localhost), without a query`
	}
	return ""
}

// checkPhone is [phone]'s rule between keys, and with [notify]: listen needs url (where the
// buttons point) and notify.url (the ntfy topic the buttons come with), and a listen host
// that is not loopback needs public. Only an address is judged here: a name other than localhost is resolved when the watcher starts.
func checkPhone(c *Config) (key, msg, got string) {
	p := c.Phone
	switch {
	case p.Listen == "":
		return "", "", ""
	case p.URL == "":
		return "phone.url", `must be set with listen: the public base URL at which your tunnel reaches it, like "https://box.tail1234.ts.net"`, tomlString(p.URL)
	case c.Notify.URL == "":
		return "phone.listen", "needs notify.url (the ntfy topic the buttons come with); set notify.url or remove listen", tomlString(p.Listen)
	}
	host, _, _ := net.SplitHostPort(p.Listen)
	if !p.Public && (host == "" || net.ParseIP(host) != nil && !loopback(host)) {
		return "phone.listen", `is not a loopback address, so it would be reachable from other hosts; listen on "127.0.0.1:PORT" behind your tunnel, or set public = true`, tomlString(p.Listen)
	}
	return "", "", ""
}

// loopback reports whether host is this host without a lookup: "localhost", or an address
// in 127.0.0.0/8 or ::1.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
