package watcher_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// notifier is what the fake server's control connection tells of changes.
type notifier struct {
	silent  bool   // changes are not notified
	changes uint64 // changes notified so far
	shape   string // the rows of the last listing, without activity and match
	fulls   int    // full listings made
}

// ListChanges makes the fake server one whose control connection notifies every change
// (tmuxctl.Client.ListChanges): a listing lists every pane when anything in a row but the
// window's activity and the pre-filter's match changed since the last listing, or when the
// Mark is not the last one; else only the panes active since s.Since and those with a
// request. With silent set, changes are not notified (as tmux 3.3a does not notify some):
// only the zero Mark lists every pane then.
func (f *fakeTmux) ListChanges(ctx context.Context, s tmuxctl.Search, since tmuxctl.Mark) ([]tmuxctl.Pane, bool, tmuxctl.Mark, error) {
	all, err := f.ListPanes(ctx, s)
	if err != nil {
		return nil, false, tmuxctl.Mark{}, err
	}
	var shape strings.Builder
	for _, p := range all {
		p.WindowActivity, p.Match = time.Time{}, 0
		fmt.Fprintf(&shape, "%+v\n", p)
	}
	if shape.String() != f.notify.shape && !f.notify.silent {
		f.notify.changes++
	}
	f.notify.shape = shape.String()
	mark := tmuxctl.Mark{Conn: 1, Changes: f.notify.changes}
	if since != mark || s.Since.IsZero() {
		f.notify.fulls++
		return all, true, mark, nil
	}
	var changed []tmuxctl.Pane
	for _, p := range all {
		if !p.WindowActivity.Before(s.Since) || p.Request != "" {
			changed = append(changed, p)
		}
	}
	return changed, false, mark, nil
}

// Captures captures each pane in turn.
func (f *fakeTmux) Captures(ctx context.Context, panes []string) ([]tmuxctl.Screen, error) {
	var out []tmuxctl.Screen
	for _, id := range panes {
		text, err := f.Capture(ctx, id)
		out = append(out, tmuxctl.Screen{Pane: id, Text: text, Err: err})
	}
	return out, nil
}
