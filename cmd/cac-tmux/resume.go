package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// newAction is `cac-tmux resume PANE`, `cac-tmux skip PANE` or `cac-tmux unskip PANE`.
func newAction(std *deps, a watcher.Action) *cobra.Command {
	var tmux *tmuxctl.Client
	var host string
	short, long := "resume a stopped session now (every safety gate but the reset)",
		`Resumes the Claude Code session in PANE now, through every gate the watcher keeps before
a key (SAFETY.md) but the reset: a draft in the input box, another process, a busy pane, copy
mode or synchronize-panes each refuse it (exit 1, saying which). It sends one resume: when a
watcher runs, the request is handed to it and the command waits (at most 75s for the watcher
to take it, then at most 1m for the outcome) and prints what the watcher saw; otherwise the
command acts itself, holding the watcher's lock, and reports what its keys came to: nothing
more is tried after it.

Exit status: 0 resumed (a turn runs); 1 refused, nothing sent (a gate, nothing to resume,
another resume, skip or unskip of PANE in progress) or another failure; 2 a bad PANE; 3 keys
went out, then the pane was held (why is printed: nothing more is typed until you act); 4
keys went out, but no resumed turn was seen (the limit still holds, no sign of a turn, or no
outcome in time: whether the watcher tries again is printed).`
	switch a {
	case watcher.Skip:
		short, long = "skip this wait: leave a stopped session alone until its next stop",
			`Marks the stopped Claude Code session in PANE skipped: nothing is typed into it until it
stops again. Through the running watcher when there is one. cac-tmux unskip PANE takes it
back.`
	case watcher.Unskip:
		short, long = "take a skip back: wait for the session's reset again",
			`Takes back the skip of the Claude Code session in PANE: the watcher waits for its reset
again and resumes it then, as it would have without the skip (the attempts already made
for this stop count; a pane held before the skip stays held). Through the running watcher
when there is one; without one, the wait is saved for the next watcher to take up.
(cac-tmux resume PANE resumes a skipped session now instead.)

Exit status: 0 waiting again (the state and the due instant are printed); 1 refused (PANE
is not skipped: it ran or stopped again since the skip) or another failure; 2 a bad PANE.`
	}
	c := &cobra.Command{
		Use:   string(a) + " [-L NAME|-S PATH] PANE",
		Short: short,
		Long:  long + "\n\n" + paneHelp,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("%sone PANE is needed, as %%12 or session:window.pane such as work:2.1 (see %s --help)", prefix(c), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if host == "" {
				return runAction(c.Context(), tmux, a, args[0], std)
			}
			if c.Flags().Changed("socket-name") || c.Flags().Changed("socket-path") {
				return usageErrorf("%s--host acts on the default server of that host; -L and -S name a server of this one", prefix(c))
			}
			if err := checkHosts(c, host); err != nil {
				return err
			}
			return runRemoteAction(c.Context(), tmux, host, a, args[0], std)
		},
	}
	tmux = socketFlags(c.Flags())
	c.Flags().StringVar(&host, "host", "", "act on PANE of another host, through ssh and the cac-tmux there (its watcher's gates apply)")
	c.ValidArgsFunction = completePaneArg(&tmux)
	return c
}

// The exit codes of a resume whose keys went out but did not resume the session.
const (
	exitHeld       = 3 // the pane is held after the keys: nothing more is typed until the user acts
	exitNotResumed = 4 // no resumed turn seen: the limit still holds, no sign of a turn, or no outcome in time
)

func runAction(ctx context.Context, tmux *tmuxctl.Client, a watcher.Action, target string, std *deps) error {
	id, err := paneID(ctx, tmux, target)
	if err != nil {
		return err
	}
	out, err := watcher.Ask(ctx, tmux, id, a, asking(tmux, std.err))
	if err != nil {
		return fmt.Errorf("%s %s: %w", a, target, err)
	}
	switch {
	case out.Done && !out.Pending:
		fmt.Fprintln(std.out, out.Message)
		return nil
	case out.Held:
		return &exitError{exitHeld, fmt.Errorf("%s %s: keys went out, but the session did not resume: %s", a, target, out.Message)}
	case out.Sent || out.Pending:
		return &exitError{exitNotResumed, fmt.Errorf("%s %s: keys went out, but the session did not resume: %s", a, target, out.Message)}
	}
	return fmt.Errorf("%s %s: refused: %s", a, target, out.Message)
}

// runRemoteAction acts on a pane of another host: `ssh HOST cac-tmux ACTION -- PANE`, through
// the remote cac-tmux and its watcher's gates, with [hosts] command, ssh and timeout. What the
// remote command printed is printed, and its exit status is this command's.
func runRemoteAction(ctx context.Context, tmux *tmuxctl.Client, host string, a watcher.Action, target string, std *deps) error {
	l, err := loadSettings(ctx, tmux, config.Path(os.Getenv), nil)
	if err != nil {
		return fmt.Errorf("%s: %w", a, err)
	}
	code, err := hosts.Relay(ctx, host, string(a), target, hosts.OptionsOf(l.Config.Hosts), std.out)
	if code != 0 {
		return &exitError{code, err}
	}
	return err
}

// asking is what watcher.Ask needs of a command on the server of tmux: the environment, the
// watcher's settings from the configuration file and the tmux options (read only when no
// watcher runs and the command acts itself), the process finder, and where the notices go.
func asking(tmux *tmuxctl.Client, notices io.Writer) watcher.AskConfig {
	return watcher.AskConfig{
		Getenv: os.Getenv,
		Settings: func(ctx context.Context) (watcher.Config, error) {
			l, err := loadSettings(ctx, tmux, config.Path(os.Getenv), nil)
			if err != nil {
				return watcher.Config{}, err
			}
			return watcher.ConfigFrom(l.Config), nil
		},
		Finder:  newFinder(),
		Notices: notices,
	}
}

// paneHelp says what PANE may be, for the help of the commands that take one.
const paneHelp = "PANE is a pane id (%12) or session:window.pane, the window by its index or its name (work:2.1, work:draft.0, or work:draft for a window of one pane)."

// paneID resolves a pane id or session:window.pane to the pane's id, exactly
// (tmuxctl.FindPane). A pane that does not exist, a name of another form, or one that fits
// several panes is a usage error.
func paneID(ctx context.Context, tmux *tmuxctl.Client, target string) (string, error) {
	p, err := tmux.FindPane(ctx, target)
	switch {
	case errors.Is(err, tmuxctl.ErrNoTarget):
		return "", usageErrorf("no pane %q on %s: give a pane id (%%12) or session:window.pane (work:2.1, work:draft.0); cac-tmux list shows them", target, tmux.Name())
	case errors.Is(err, tmuxctl.ErrBadTarget):
		return "", usageErrorf("%v: give a pane id (%%12) or session:window.pane (work:2.1, work:draft.0); cac-tmux list shows them", strings.TrimPrefix(err.Error(), "tmuxctl: "))
	case errors.Is(err, tmuxctl.ErrAmbiguous):
		return "", usageErrorf("%v; cac-tmux list shows the panes", strings.TrimPrefix(err.Error(), "tmuxctl: "))
	case err != nil:
		return "", fmt.Errorf("%s: %w", tmux.Name(), tmuxctl.Hint(err))
	}
	return p.ID, nil
}
