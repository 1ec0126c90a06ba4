package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// PaneRows are the rows of every Claude Code pane of the server of c as the popup and the
// completions show them: those of list --all (ListRows, f tells which panes run Claude
// Code), as its table shows them (Shown). Its error names the server.
func PaneRows(ctx context.Context, c *tmuxctl.Client, f Finder, getenv func(string) string) ([]Row, error) {
	_, watching := Watching(ctx, c, getenv)
	rows, err := ListRows(ctx, c, f, true, watching, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name(), tmuxctl.Hint(err))
	}
	return Shown(rows, watching), nil
}

// Statuses asks every server of clients at once for its paused panes (one tmux call each,
// tmuxctl.Client.PausedPanes) and gives the Status of each that answered. A server where no
// tmux runs gives nothing (a status line shows no error); the error of one that fails
// otherwise names it, in failed.
func Statuses(ctx context.Context, clients []*tmuxctl.Client, getenv func(string) string) (sum []Status, failed []error) {
	type answer struct {
		panes []tmuxctl.Pane
		err   error
	}
	answers := tmuxctl.AskAll(clients, func(c *tmuxctl.Client) answer {
		panes, err := c.PausedPanes(ctx)
		return answer{panes, err}
	})
	for i, c := range clients {
		switch err := answers[i].err; {
		case errors.Is(err, tmuxctl.ErrNoServer):
		case err != nil:
			failed = append(failed, fmt.Errorf("%s: %w", c.Name(), err))
		default:
			sum = append(sum, StatusOf(c, getenv, answers[i].panes))
		}
	}
	return sum, failed
}
