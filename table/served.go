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
