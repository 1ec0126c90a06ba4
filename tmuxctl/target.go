package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// ErrBadTarget: a pane was named in a form FindPane does not take.
var ErrBadTarget = errors.New("not a pane id or session:window.pane")

// ErrAmbiguous: a target fits more than one pane (a window of several panes, a window name
// several windows share).
var ErrAmbiguous = errors.New("names more than one pane")

// FindPane resolves a pane as a person names it, exactly, or fails: a pane id ("%12") or
// "session:window.pane", the window by index or name, ".pane" optional for a window of one
// pane. Names match whole (tmux's "="): tmux's prefix and pattern matching can pick another
// session, and display-message -t falls back to the current pane for one that does not exist
// (tmux 3.3a, "work:9.9"). A linked window is found under each of its sessions. Errors wrap
// ErrNoTarget, ErrBadTarget (another form) or ErrAmbiguous.
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
	in, err := c.windowPanes(ctx, session, window)
	switch {
	case errors.Is(err, ErrNoTarget):
		return Pane{}, fmt.Errorf("tmuxctl: pane %q: %w", target, ErrNoTarget)
	case errors.Is(err, ErrAmbiguous):
		return Pane{}, fmt.Errorf("tmuxctl: pane %q %w", target, err)
	case err != nil:
		return Pane{}, fmt.Errorf("tmuxctl: pane %q: %w", target, err)
	}
	for _, p := range in {
		if p.PaneIndex == pane || pane < 0 && len(in) == 1 {
			return p, nil
		}
	}
	if pane < 0 && len(in) > 1 {
		return Pane{}, fmt.Errorf("tmuxctl: pane %q %w: window %s:%d has %d (name one: %s:%d.%d)",
			target, ErrAmbiguous, session, in[0].WindowIndex, len(in), session, in[0].WindowIndex, in[0].PaneIndex)
	}
	return Pane{}, fmt.Errorf("tmuxctl: pane %q: %w", target, ErrNoTarget)
}

// windowPanes lists the panes of window (an index, or a name) of session, both matched whole.
// A window by index is looked up in the listing of every pane (`list-panes -a`); by name,
// tmux finds it (`list-panes -t =SESSION:=NAME`), and when it finds none, the session's
// windows are listed to tell a name several windows share (tmux 3.3a says "can't find
// window" for both) from none.
func (c *Client) windowPanes(ctx context.Context, session, window string) ([]Pane, error) {
	if i, err := index(window); err == nil {
		every := func(out string) ([]Pane, error) { return parseRows(out, paneFields, false) } // a pane once per session
		rows, err := c.listRows(ctx, every, "list-panes", "-a", "-F", paneFormat(Search{}))
		if err != nil {
			return nil, err
		}
		var in []Pane
		for _, p := range rows {
			if p.Session == session && p.WindowIndex == i {
				in = append(in, p)
			}
		}
		if len(in) == 0 {
			return nil, ErrNoTarget
		}
		return in, nil
	}
	in, err := c.listRows(ctx, parsePanes, "list-panes", "-t", "="+session+":="+window, "-F", paneFormat(Search{}))
	if !errors.Is(err, ErrNoTarget) {
		return in, err
	}
	out, lerr := c.Run(ctx, "list-windows", "-t", "="+session, "-F", "#{window_index}:#{window_name}")
	if lerr != nil {
		return nil, err
	}
	var same []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if i, name, _ := strings.Cut(l, ":"); name == window {
			same = append(same, session+":"+i)
		}
	}
	if len(same) > 1 {
		return nil, fmt.Errorf("%w: windows %s are all named %q (name one by its index)", ErrAmbiguous, strings.Join(same, ", "), window)
	}
	return nil, err
}

// splitTarget reads "session:window.pane" or "session:window" (pane -1), window an index or a
// name; the session is what comes before the last ":", so a name holding ":" (tmux 3.7 keeps
// it) reads whole. The pane is the index after the ".".
func splitTarget(target string) (session, window string, pane int, err error) {
	bad := fmt.Errorf("tmuxctl: pane %q: %w", target, ErrBadTarget)
	i := strings.LastIndexByte(target, ':')
	if i <= 0 || i == len(target)-1 {
		return "", "", 0, bad
	}
	session, window, pane = target[:i], target[i+1:], -1
	if j := strings.LastIndexByte(window, '.'); j >= 0 {
		if pane, err = index(window[j+1:]); err != nil {
			return "", "", 0, bad
		}
		window = window[:j]
	}
	if _, err := index(window); err != nil && !name(window) {
		return "", "", 0, bad
	}
	return session, window, pane, nil
}

// name says whether s can be a window's name in a target: not empty, no sign ("-1", "+"), no
// token or pattern tmux would read another way ("{last}", "dr*"), no "." (tmux would take
// what follows for the pane), no control character.
func name(s string) bool {
	return s != "" && !strings.ContainsAny(s, ".{}*?[]!+-") && !strings.ContainsFunc(s, unicode.IsControl)
}

// index reads a window or pane index: decimal digits only.
func index(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" || len(s) > 9 {
		return 0, ErrBadTarget
	}
	return strconv.Atoi(s)
}
