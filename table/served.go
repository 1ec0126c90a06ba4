package table

import (
	"context"
	"io"
	"strings"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// ListServers lists the panes of the servers of clients all at once (tmuxctl.AskAll): a
// server that fails, or answers only when its calls time out, is one with its error, and
// delays or hides no other server. With all, every Claude Code pane (f tells which) and not
// only the paused ones. The lines that say which panes were left out go to warn, server after
// server; getenv and uid find the directory of the user's sockets, which labels a server.
func ListServers(ctx context.Context, clients []*tmuxctl.Client, f watcher.Finder, all bool, getenv func(string) string, uid int, warn io.Writer) []Served {
	type listed struct {
		Served
		warnings string
	}
	dir := tmuxctl.SocketDir(getenv, uid)
	local := tmuxctl.AskAll(clients, func(c *tmuxctl.Client) listed {
		s := Served{Label: c.Name(), Name: c.Name()}
		if socket, err := c.SocketFileHere(); err == nil {
			s.Label = tmuxctl.Label(socket, dir)
		}
		_, s.Watching = watcher.Watching(ctx, c, getenv)
		var w strings.Builder
		rows, err := watcher.ListRows(ctx, c, f, all, s.Watching, &w)
		s.Rows = rows
		if err != nil {
			s.Err = tmuxctl.Hint(err)
		}
		return listed{s, w.String()}
	})
	served := make([]Served, len(local))
	for i, l := range local {
		io.WriteString(warn, l.warnings)
		served[i] = l.Served
	}
	return served
}

// Choice is a pane a shell offers to complete a PANE: its id or its target, described.
type Choice struct{ Value, Desc string }

// Choices are the panes of rows that start with prefix, as a shell completes a PANE: every
// pane id first ("%12", described "work:2.1, waiting"), then every target ("work:2.1", "%12,
// waiting"), each in the order of rows.
func Choices(rows []watcher.Row, prefix string) []Choice {
	var ids, targets []Choice
	for _, r := range rows {
		if strings.HasPrefix(r.Pane, prefix) {
			ids = append(ids, Choice{r.Pane, r.Target + ", " + string(r.State)})
		}
		if r.Target != "" && strings.HasPrefix(r.Target, prefix) {
			targets = append(targets, Choice{r.Target, r.Pane + ", " + string(r.State)})
		}
	}
	return append(ids, targets...)
}
