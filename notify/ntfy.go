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
)

// ntfy POSTs each event to an ntfy-compatible topic URL: the body is bodyOf(e) as plain
// text, the title, priority and tags are ntfy's Title, Priority and Tags headers, and a
// bearer token, when configured, is read at every POST (so it can be rotated) and sent in
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
	u, _ := url.Parse(s.URL) // Validate checked it
	return &ntfy{url: s.URL, host: u.Scheme + "://" + u.Host, tokenFile: s.TokenFile, tokenEnv: s.TokenEnv,
		// The timeout is the delivery context's (on the watcher's clock); redirects are
		// followed, and net/http drops Authorization on a redirect to another host.
		client: &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}}
}

func (n *ntfy) name() string { return "url" }

func (n *ntfy) deliver(ctx context.Context, e Event) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.url, strings.NewReader(bodyOf(e)))
	if err != nil {
		return fmt.Errorf("post to %s: %w", n.host, withoutURL(err))
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	req.Header.Set("Title", headerText(titleOf(e)))
	req.Header.Set("Priority", strconv.Itoa(presentations[e.Kind].priority))
	req.Header.Set("Tags", strings.Join(tags(e), ","))
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
