package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"text/template"
	"time"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

func newStatus(std *deps) *cobra.Command {
	var tmux *tmuxctl.Client
	var format string
	var all bool
	c := &cobra.Command{
		Use:   "status [-L NAME|-S PATH|--all-servers] [--format TEMPLATE]",
		Short: "one short line for tmux's status-right: ⏸ 2 · 1h12m",
		Long: `One short line for tmux's status line, as set -g status-right '#(cac-tmux status) %H:%M':
the number of paused panes and the countdown to the soonest due one ("⏸ 2 · 1h12m"), "no
watcher" instead of the countdown when no watcher runs, and nothing at all when nothing is
paused or no tmux server runs. It reads the pane options a watcher published, in one tmux call
per server: inside tmux (and in a status line's #() job) of the server it runs for; outside
tmux, or with --all-servers, of every tmux server of the user; with -L/-S of that one. A server
that does not answer (each call is bounded) is named on stderr and the others are counted.

--format is a Go text/template (pkg.go.dev/text/template) over:
  .Count    paused panes (every state but running)
  .Waiting  of them, resumed by the watcher on its own (waiting, native, resuming, verifying)
  .Held     left to you (held, limited, skipped)
  .Failed   not resumed (failed, unwaitable)
  .Next     countdown to the soonest due instant ("1h12m", "4m05s", "now"; "" when none)
  .NextAt   that instant (a time.Time; zero when none), e.g. {{.NextAt.Format "15:04"}}
  .Watching whether a watcher runs (without one: "⏸ 2 · no watcher", nothing is resumed)
An empty result prints nothing. Exit status: 0, also when no server runs; 1 when tmux fails
otherwise on a server, after the line of the others (tmux shows no status job's error); 2 for
a bad --format.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			tmpl, err := table.ParseStatus(format)
			if err != nil {
				return usageErrorf("status: --format: %v (see cac-tmux status --help)", err)
			}
			named := c.Flags().Changed("socket-name") || c.Flags().Changed("socket-path")
			if named && all {
				return usageErrorf("status: --all-servers: not with -L or -S (they name one server); drop one of them")
			}
			return runStatus(c.Context(), tmuxctl.Covered(tmux, named, all, os.Getenv, os.Getuid()), tmpl, std.clock.Now(), std.out)
		},
	}
	tmux = socketFlags(c.Flags())
	c.Flags().StringVar(&format, "format", table.DefaultStatusFormat, "the line as a Go text/template (see above)")
	c.Flags().BoolVar(&all, "all-servers", false, "every tmux server of the user, also inside tmux")
	return c
}

// runStatus prints the status line of the servers of clients at now: their paused panes
// counted together, the soonest due instant, and "no watcher" when a server with paused panes
// has none. No server prints nothing, whatever the template: a status line shows no error. A
// server that fails otherwise is left out of the line and its error returned after the line
// is printed (tmux discards a status job's stderr and exit status, so they reach only a
// person who runs the command).
func runStatus(ctx context.Context, clients []*tmuxctl.Client, tmpl *template.Template, now time.Time, out io.Writer) error {
	sum, failed := watcher.Statuses(ctx, clients, os.Getenv)
	errs := make([]error, len(failed))
	for i, err := range failed {
		errs[i] = fmt.Errorf("status: %w", err)
	}
	line, err := table.StatusLine(sum, tmpl, now)
	if err != nil {
		return fmt.Errorf("status: --format: %w", err)
	}
	if _, err := io.WriteString(out, line); err != nil {
		return fmt.Errorf("status: write: %w", err)
	}
	return errors.Join(errs...)
}
