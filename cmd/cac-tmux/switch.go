package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/accounts"
	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// newSwitch is `cac-tmux switch PANE [--to ACCOUNT]`.
func newSwitch(std *deps) *cobra.Command {
	var tmux *tmuxctl.Client
	var to string
	c := &cobra.Command{
		Use:   "switch [-L NAME|-S PATH] [--to ACCOUNT] PANE",
		Short: "move a stopped session to another Claude Code account and go on there",
		Long: `Moves the Claude Code session in PANE, stopped at a usage limit, to another of the accounts
of [accounts] dirs (Claude Code config directories) and starts it again there: its transcript
is copied into that account, and the pane is respawned with CLAUDE_CONFIG_DIR set to it,
running claude --resume SESSION in the same directory (then a shell, in that account).
Opt-in: without two [accounts] dirs nothing is done.

The account is the free one (no usage limit in its recent transcripts that has not lifted)
whose last limit is oldest; --to names one: its directory, its position in dirs (1, 2, …)
or its base name (.claude-work, claude-work). Before anything is copied or stopped, the
pane is handed a skip (a running watcher then types nothing into it), and every gate is
checked: Claude Code stopped at a usage limit that its own transcript records for this
process, no draft in the input box, no turn running, the same process as when looked at, a
free target other than the session's account, and at most accounts.max_per_day switches of
the session within 24 hours. A refusal takes the skip back.

Exit status: 0 switched; 1 refused (the gate is named; nothing was copied or stopped) or
another failure; 2 a bad PANE or --to, or no [accounts] configured.

PANE is a pane id (%12) or any tmux target (work:2.1).`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("%sone PANE is needed, as %%12 or a tmux target such as work:2.1 (see %s --help)", prefix(c), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runSwitch(c.Context(), tmux, args[0], to, std)
		},
	}
	tmux = socketFlags(c.Flags())
	c.Flags().StringVar(&to, "to", "", "the account to switch to: a directory of [accounts] dirs, its position (1, 2, …) or its base name")
	c.ValidArgsFunction = completePaneArg(&tmux)
	c.RegisterFlagCompletionFunc("to", func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return config.AccountsIn(config.Path(os.Getenv), toComplete), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	})
	return c
}

// runSwitch is one `cac-tmux switch`: the pane and the settings are read here, the switch
// is accounts.Switch's, and its outcome is said here (a refusal exits 1, a bad --to 2).
func runSwitch(ctx context.Context, tmux *tmuxctl.Client, target, to string, std *deps) error {
	id, err := paneID(ctx, tmux, target)
	if err != nil {
		return err
	}
	accts, c, err := switchSettings(ctx, tmux)
	if err != nil {
		return err
	}
	cfg := switchConfig(tmux, accts, c, std.err)
	cfg.Started = func(s accounts.Switched) { fmt.Fprintln(std.out, s) }
	_, err = accounts.Switch(ctx, cfg, accounts.Request{Pane: id, Target: target, To: to})
	if bad := (*accounts.BadInputError)(nil); errors.As(err, &bad) {
		return &UsageError{Err: err}
	}
	return err
}

// switchConfig is what a switch on the server of tmux needs, with the settings c: the
// command's and the watcher's ([accounts] auto) alike. The session goes on with Claude Code's
// resume message on its new account.
func switchConfig(tmux *tmuxctl.Client, accts []accounts.Account, c config.Config, notices io.Writer) accounts.Config {
	return accounts.Config{Tmux: tmux, Finder: newFinder(), Ask: askSwitch(tmux, watcher.Skip), Clock: clock.Real, Getenv: os.Getenv,
		Notices: notices, Accounts: accts, MaxPerDay: c.Accounts.MaxPerDay, Message: c.MessageOf(agent.Claude)}
}

// autoSwitch is servers.Watch's AutoSwitch with the settings c: accounts.AutoOf on the
// server on socket, its skip asked as a handover.
func autoSwitch(c config.Config, log zerolog.Logger) func(context.Context, string, watcher.Notifier, bool) watcher.Notifier {
	return func(ctx context.Context, socket string, n watcher.Notifier, restored bool) watcher.Notifier {
		tmux := &tmuxctl.Client{SocketPath: socket}
		cfg := switchConfig(tmux, nil, c, io.Discard)
		cfg.Ask = askSwitch(tmux, watcher.Handover) // a person at the pane keeps it
		var stopped func() ([]string, error)
		if restored {
			stopped = func() ([]string, error) { return watcher.StoppedOf(os.Getenv, socket) }
		}
		return accounts.AutoOf(ctx, c.Accounts.Dirs, cfg, n, stopped, log)
	}
}

// askSwitch is the skip and unskip of a switch: watcher.Ask on the server of tmux, the skip
// asked as skipAs (Skip, or Handover for an automatic switch).
func askSwitch(tmux *tmuxctl.Client, skipAs watcher.Action) func(context.Context, string, bool, io.Writer) (accounts.Answer, error) {
	return func(ctx context.Context, pane string, skip bool, notices io.Writer) (accounts.Answer, error) {
		a := watcher.Unskip
		if skip {
			a = skipAs
		}
		out, err := watcher.Ask(ctx, tmux, pane, a, asking(tmux, notices))
		return accounts.Answer{Done: out.Done, Message: out.Message}, err
	}
}

// switchSettings reads the settings (the file and the tmux options) and the accounts of
// [accounts]. No accounts to switch between is a configuration error, and nothing is done
// (opt-in).
func switchSettings(ctx context.Context, tmux *tmuxctl.Client) ([]accounts.Account, config.Config, error) {
	path := config.Path(os.Getenv)
	l, err := loadSettings(ctx, tmux, path, nil)
	if err != nil {
		return nil, config.Config{}, fmt.Errorf("switch: %w", err)
	}
	accts, err := accounts.Configured(l.Config.Accounts.Dirs, path, os.Getenv("HOME"))
	if err != nil {
		return nil, config.Config{}, usageErrorf("switch: %v", err)
	}
	return accts, l.Config, nil
}
