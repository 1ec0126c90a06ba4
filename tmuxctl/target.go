package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBadTarget: a pane was named in a form FindPane does not take.
var ErrBadTarget = errors.New("not a pane id or session:window.pane")

// FindPane resolves what a person names a pane by to that pane, exactly, or fails: a pane id
// ("%12"), "session:window.pane" with the window and pane indexes, or "session:window" for a
// window of one pane. tmux's own resolution is not used: given a window or pane that does not
// exist, display-message -t falls back to the current one (seen with "work:9.9" on tmux 3.3a),
// and its matching of session names by prefix and pattern can pick another session. A session
// name is matched whole, as the listing prints it (a window linked into several sessions is
// found under each). Errors wrap ErrNoTarget (nothing by that name) or ErrBadTarget.
func (c *Client) FindPane(ctx context.Context, target string) (Pane, error) {
	if strings.HasPrefix(target, "%") {
		if _, err := strconv.ParseUint(target[1:], 10, 32); err != nil {
			return Pane{}, fmt.Errorf("tmuxctl: pane %q: %w", target, ErrBadTarget)
		}
		return c.PaneInfo(ctx, target)
	}
	session, window, pane, err := splitTarget(target)
	if err != nil {
		return Pane{}, err
	}
	every := func(out string) ([]Pane, error) { return parseRows(out, paneFields, false) } // a pane once per session
	rows, err := c.listRows(ctx, every, "list-panes", "-a", "-F", paneFormat(Search{}))
	if err != nil {
		return Pane{}, err
	}
	var in []Pane // the panes of that window
	for _, p := range rows {
		if p.Session == session && p.WindowIndex == window {
			in = append(in, p)
		}
	}
	for _, p := range in {
		if p.PaneIndex == pane || pane < 0 && len(in) == 1 {
			return p, nil
		}
	}
	if pane < 0 && len(in) > 1 {
		return Pane{}, fmt.Errorf("tmuxctl: pane %q: window %s:%d has %d panes, name one (%s:%d.%d): %w",
			target, session, window, len(in), session, window, in[0].PaneIndex, ErrBadTarget)
	}
	return Pane{}, fmt.Errorf("tmuxctl: pane %q: %w", target, ErrNoTarget)
}

// splitTarget reads "session:window.pane" or "session:window" (pane -1); the session is what
// comes before the last ":", so a name holding ":" (tmux 3.7 keeps it) reads whole.
func splitTarget(target string) (session string, window, pane int, err error) {
	bad := fmt.Errorf("tmuxctl: pane %q: %w", target, ErrBadTarget)
	i := strings.LastIndexByte(target, ':')
	if i <= 0 {
		return "", 0, 0, bad
	}
	session, rest := target[:i], target[i+1:]
	win, p, dotted := strings.Cut(rest, ".")
	pane = -1
	if window, err = index(win); err != nil {
		return "", 0, 0, bad
	}
	if dotted {
		if pane, err = index(p); err != nil {
			return "", 0, 0, bad
		}
	}
	return session, window, pane, nil
}

// index reads a window or pane index: decimal digits only.
func index(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" || len(s) > 9 {
		return 0, ErrBadTarget
	}
	return strconv.Atoi(s)
}
