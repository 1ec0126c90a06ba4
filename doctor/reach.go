package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/accounts"
	"github.com/cac-tmux/cac-tmux/config"
)

// The checks of two opt-ins: the phone's buttons ([phone]) and the accounts a
// session may move to ([accounts]). Each is left out of the report when it is not configured.

// phoneWithin bounds the request through the user's tunnel.
const phoneWithin = 5 * time.Second

// checkPhone asks the endpoint, through the public url the buttons point at, what a button's
// tap would reach: GET /v1/act, which the watcher answers 405 (only a POST with a token acts).
// So the check proves the whole road (the tunnel, the listen address, a watcher answering)
// without a token and without acting.
func checkPhone(ctx context.Context, e Env, p config.Phone) (Check, bool) {
	if !p.On() {
		return Check{}, false
	}
	c := Check{Name: "phone"}
	opts := "screen " + onOff(p.Screen) + ", replies " + onOff(p.Prompts)
	ctx, cancel := context.WithTimeout(ctx, phoneWithin)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(p.URL, "/")+"/v1/act", nil)
	if err != nil {
		c.Detail, c.Fix = "phone.url "+p.URL+" is not a URL: "+err.Error(), "set phone.url to the https:// address of your tunnel"
		return c, true
	}
	client := e.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	switch {
	case err != nil:
		c.Detail = fmt.Sprintf("the buttons point at %s, which does not answer (%v); a tap on the phone would fail", p.URL, unwrapURL(err))
		c.Fix = "start the tunnel that forwards " + p.URL + " to " + p.Listen + ", and a watcher (" + e.WatchCommand + ")"
	case resp.StatusCode != http.StatusMethodNotAllowed:
		c.Detail = fmt.Sprintf("%s answers %s, not cac-tmux's endpoint (a GET of /v1/act is answered 405)", p.URL, resp.Status)
		c.Fix = "point the tunnel at phone.listen (" + p.Listen + ") of a running watcher"
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("the buttons reach a watcher at %s through %s (links valid %s; %s)", p.Listen, p.URL, p.LinkTTL, opts)
	}
	if resp != nil {
		resp.Body.Close()
	}
	return c, true
}

// unwrapURL is err without net/http's *url.Error wrapping, which repeats the URL.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// checkAccounts looks at each account of [accounts]: its directory is there, and whether it
// is limited now, from its own recent transcripts (accounts.Look, as a switch decides).
func checkAccounts(e Env, a config.Accounts) (Check, bool) {
	if len(a.Dirs) < 2 {
		return Check{}, false
	}
	c := Check{Name: "accounts", OK: true}
	accts, err := accounts.Expand(a.Dirs, e.Getenv("HOME"))
	if err != nil {
		return Check{Name: "accounts", Detail: err.Error(), Fix: "set HOME, or write accounts.dirs as absolute paths"}, true
	}
	now := e.now()
	var seen []string
	for _, ac := range accts {
		if fi, err := os.Stat(ac.Dir); err != nil || !fi.IsDir() {
			c.OK = false
			seen = append(seen, ac.Name+" missing")
			c.Fix = "log in to each account once with CLAUDE_CONFIG_DIR=DIR claude, or remove it from accounts.dirs"
			continue
		}
		h, err := accounts.Look(ac, now, nil)
		switch {
		case err != nil:
			seen = append(seen, ac.Name+" unreadable ("+err.Error()+")")
		case h.Limited(now):
			seen = append(seen, ac.Name+" limited until "+h.Until.Local().Format("Mon 15:04"))
		default:
			seen = append(seen, ac.Name+" free")
		}
	}
	how := "by hand (cac-tmux switch PANE)"
	if a.Auto {
		how = "by the watcher when a session stops (auto), and by hand"
	}
	c.Detail = fmt.Sprintf("%s; a session moves %s, at most %d times a day", strings.Join(seen, ", "), how, a.MaxPerDay)
	return c, true
}
