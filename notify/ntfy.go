package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ntfy POSTs each event to an ntfy-compatible topic URL: the body is bodyOf(e) as plain
// text, the title, priority, tags and buttons (Event.Actions) are ntfy's Title, Priority,
// Tags and X-Actions headers, and a bearer token, when configured, is read at every POST (so it can be rotated) and sent in
// Authorization. The URL's path (on ntfy.sh the topic is the secret) and the token are never
// in an error or a log line: errors name the scheme and host only.
type ntfy struct {
	url       string
	host      string // scheme://host, for errors
	tokenFile string
	tokenEnv  string
	client    *http.Client
}

func newNtfy(s Settings) *ntfy {
	u, _ := url.Parse(s.URL) // New parsed it
	return &ntfy{url: s.URL, host: u.Scheme + "://" + u.Host, tokenFile: s.TokenFile, tokenEnv: s.TokenEnv,
		// The timeout is the delivery context's (on the watcher's clock); redirects are
		// followed, and net/http drops Authorization on a redirect to another host.
		client: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}}
}

func (n *ntfy) name() string { return "url" }

func (n *ntfy) deliver(ctx context.Context, e Event) error {
	h := http.Header{}
	h.Set("Title", headerText(titleOf(e)))
	h.Set("Priority", strconv.Itoa(presentations[e.Kind].priority))
	h.Set("Tags", strings.Join(tags(e), ","))
	if a := ntfyActions(e.Actions); a != "" {
		h.Set("X-Actions", a)
	}
	return n.post(ctx, bodyOf(e), h)
}

// say posts a message that is no pane's event (Notifier.Say): its title and body as given,
// ntfy's default priority, the phone's emoji.
func (n *ntfy) say(ctx context.Context, title, body string) error {
	h := http.Header{}
	h.Set("Title", headerText(title))
	h.Set("Tags", "iphone")
	return n.post(ctx, body, h)
}

// post POSTs body with the headers h (and the content type, and the bearer token when one
// is configured) to the topic URL.
func (n *ntfy) post(ctx context.Context, body string, h http.Header) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, strings.NewReader(body))
	if err != nil {
		return fmt.Errorf("post to %s: %w", n.host, withoutURL(err))
	}
	req.Header = h
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	if n.tokenFile != "" || n.tokenEnv != "" {
		tok, err := readToken(n.tokenFile, n.tokenEnv)
		if err != nil {
			return fmt.Errorf("bearer token: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := n.client.Do(req)
	if err != nil {
		return fmt.Errorf("post to %s: %w", n.host, withoutURL(err))
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("post to %s: %s", n.host, resp.Status)
	}
	return nil
}

// withoutURL strips net/http's *url.Error, whose message holds the whole URL.
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// tags are ntfy's tags of e: the event's emoji, then the kind of limit when known.
func tags(e Event) []string {
	t := []string{presentations[e.Kind].tag}
	if e.Limit != "" {
		t = append(t, headerText(strings.ReplaceAll(e.Limit, ",", " ")))
	}
	return t
}

// headerText makes s fit an HTTP header: control characters become spaces, and text that is
// not ASCII is RFC 2047-encoded ("=?utf-8?b?...?="), which ntfy decodes.
func headerText(s string) string {
	s = oneLine(s)
	if strings.IndexFunc(s, func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
		return mime.BEncoding.Encode("utf-8", s)
	}
	return s
}

// maxActions is how many buttons ntfy takes in one message: it refuses a message with more
// (400 "only 3 actions allowed"), so the rest are left out rather than the notification lost.
const maxActions = 3

// ntfyActions is the X-Actions header of actions in ntfy's header format
// (https://docs.ntfy.sh/publish/#action-buttons): actions joined by ";", key=value pairs by
// ",", each value of ours double-quoted so a "," or ";" in a URL stays in it. An http action
// POSTs its body and clears the notification, a view action opens its URL. At most maxActions;
// one whose text cannot be quoted (quotable), or without label or URL, is left out. Text beyond
// ASCII makes the header RFC 2047-encoded, which ntfy decodes. "" when there is no action.
func ntfyActions(actions []Action) string {
	var parts []string
	for _, a := range actions {
		if len(parts) == maxActions {
			break
		}
		if a.Label == "" || a.URL == "" || !quotable(a.Label) || !quotable(a.URL) || !quotable(a.Body) {
			continue
		}
		switch {
		case a.View:
			parts = append(parts, `action=view, label="`+a.Label+`", url="`+a.URL+`", clear=false`)
		case a.Body == "":
			parts = append(parts, `action=http, label="`+a.Label+`", url="`+a.URL+`", method=POST, clear=true`)
		default:
			parts = append(parts, `action=http, label="`+a.Label+`", url="`+a.URL+`", method=POST, body="`+a.Body+`", clear=true`)
		}
	}
	h := strings.Join(parts, "; ")
	if strings.IndexFunc(h, func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
		return mime.BEncoding.Encode("utf-8", h)
	}
	return h
}

// quotable reports whether s can stand between double quotes in X-Actions as it is: UTF-8
// without a double quote, a backslash or a control character. ntfy ends a quoted value at the
// next quote not after a backslash, and its versions differ on whether they then drop the
// backslash, so no escape is relied on.
func quotable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return r == '"' || r == '\\' || unicode.IsControl(r)
	})
}
