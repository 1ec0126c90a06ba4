package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/template"
	"time"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// statusData is what a `status --format` template sees.
type statusData struct {
	// Count is the number of paused panes: every published state but running.
	Count int
	// Waiting are the panes the watcher resumes on its own (waiting, native, resuming,
	// verifying); Held those left to the user (held, limited, skipped); Failed those it
	// will not resume (failed, unwaitable). Waiting + Held + Failed = Count (watcher.StatusOf
	// counts them).
	Waiting, Held, Failed int
	// Next is the countdown to the soonest due instant among them, as `list` shows it
	// ("1h12m", "4m05s", "40s", "now"); "" when none is due.
	Next string
	// NextAt is that due instant (a time.Time, e.g. {{.NextAt.Format "15:04"}}); zero when
	// none is due.
	NextAt time.Time
	// Watching is true when a watcher runs on the server: without one, what was published is
	// what the last watcher saw, and nothing is resumed.
	Watching bool
}

// defaultStatusFormat prints nothing when nothing is paused, else "⏸ 2 · 1h12m", or
// "⏸ 2 · no watcher" when no watcher runs (the countdown of a watcher that is gone would
// promise a resume nobody makes).
const defaultStatusFormat = `{{if .Count}}⏸ {{.Count}}{{if not .Watching}} · no watcher{{else}}{{with .Next}} · {{.}}{{end}}{{end}}{{end}}`

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
			tmpl, err := parseStatusFormat(format)
			if err != nil {
				return err
			}
			named := c.Flags().Changed("socket-name") || c.Flags().Changed("socket-path")
			if named && all {
				return usageErrorf("status: --all-servers: not with -L or -S (they name one server); drop one of them")
			}
			return runStatus(c.Context(), tmuxctl.Covered(tmux, named, all, os.Getenv, os.Getuid()), tmpl, std.clock.Now(), std.out)
		},
	}
	tmux = socketFlags(c.Flags())
	c.Flags().StringVar(&format, "format", defaultStatusFormat, "the line as a Go text/template (see above)")
	c.Flags().BoolVar(&all, "all-servers", false, "every tmux server of the user, also inside tmux")
	return c
}

// parseStatusFormat parses a --format template and runs it once on a sample, so that a
// template that cannot run (an unknown field) is a usage error now rather than on every
// status-interval.
func parseStatusFormat(format string) (*template.Template, error) {
	tmpl, err := template.New("status").Parse(format)
	if err == nil {
		sample := statusData{Count: 3, Waiting: 1, Held: 1, Failed: 1, Next: "1h12m", NextAt: time.Unix(0, 0), Watching: true}
		err = tmpl.Execute(io.Discard, sample)
	}
	if err != nil {
		return nil, usageErrorf("status: --format: %v (see cac-tmux status --help)", err)
	}
	return tmpl, nil
}

// runStatus prints the status line of the servers of clients at now: their paused panes
// counted together, the soonest due instant, and "no watcher" when a server with paused panes
// has none. No server prints nothing, whatever the template: a status line shows no error. A
// server that fails otherwise is left out of the line and its error returned after the line
// is printed (tmux discards a status job's stderr and exit status, so they reach only a
// person who runs the command).
func runStatus(ctx context.Context, clients []*tmuxctl.Client, tmpl *template.Template, now time.Time, out io.Writer) error {
	type answer struct {
		panes []tmuxctl.Pane
		err   error
	}
	answers := askAll(clients, func(c *tmuxctl.Client) answer {
		panes, err := c.PausedPanes(ctx)
		return answer{panes, err}
	})
	d := statusData{Watching: true}
	answered := false
	var errs []error
	for i, tmux := range clients {
		panes, err := answers[i].panes, answers[i].err
		switch {
		case errors.Is(err, tmuxctl.ErrNoServer):
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("status: %s: %w", serverName(tmux), err))
			continue
		}
		answered = true
		st := watcher.StatusOf(tmux, os.Getenv, panes)
		d.Count, d.Waiting, d.Held, d.Failed = d.Count+st.Paused, d.Waiting+st.Waiting, d.Held+st.Held, d.Failed+st.Failed
		if !st.Next.IsZero() && (d.NextAt.IsZero() || st.Next.Before(d.NextAt)) {
			d.NextAt = st.Next
		}
		d.Watching = d.Watching && (st.Paused == 0 || st.Watching) // a server nobody watches has paused panes
	}
	if err := writeStatus(d, answered, tmpl, now, out); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// writeStatus writes the line of d at now, nothing when no server answered or the template
// gives nothing.
func writeStatus(d statusData, answered bool, tmpl *template.Template, now time.Time, out io.Writer) error {
	if !answered {
		return nil
	}
	if !d.NextAt.IsZero() {
		d.Next = table.Countdown(d.NextAt.Sub(now))
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, d); err != nil {
		return fmt.Errorf("status: --format: %w", err)
	}
	line := b.String()
	if line == "" {
		return nil
	}
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	if _, err := io.WriteString(out, line); err != nil {
		return fmt.Errorf("status: write: %w", err)
	}
	return nil
}
