package main

import (
	"context"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Shell completion of pane targets. The completion scripts (cac-tmux completion bash|zsh|fish)
// run the hidden command `cac-tmux __complete ARGS… PARTIAL`, which parses the flags typed so
// far (-L/-S among them) and calls these functions: they ask that server for its Claude Code
// panes, paused ones first, and offer each pane's id (%12) and its session:window.pane target,
// described by the other and the pane's state. File names are never offered in their place.
// Without a server, or with any failure, there is nothing to offer and nothing is said: a
// completion prints no error.

// completeTimeout bounds the questions a completion asks tmux: a shell waits for it. What is
// not asked in time is not said: a stopped pane not looked at is described as running. (A
// variable for the tests only, which wait longer on a loaded machine: TestMain.)
var completeTimeout = 3 * time.Second

// paneDirective is what the shell is told with the panes offered: no file names, and the
// order given (paused panes first).
const paneDirective = cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder

// completePaneArg completes the one PANE argument of a command (resume, skip, unskip) on the
// server of *tmux (set by the command's -L/-S).
func completePaneArg(tmux **tmuxctl.Client) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp // one PANE only
		}
		return paneCompletions(c.Context(), *tmux, toComplete), paneDirective
	}
}

// completePaneFlag completes the value of a flag that names a pane (inspect --pane) on the
// server of *tmux.
func completePaneFlag(tmux **tmuxctl.Client) cobra.CompletionFunc {
	return func(c *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return paneCompletions(c.Context(), *tmux, toComplete), paneDirective
	}
}

// paneCompletions are the Claude Code panes of the server that start with toComplete, ids
// then targets (table.Choices), in the order of list --all (paused panes first, earliest due
// first). nil without a server.
func paneCompletions(ctx context.Context, tmux *tmuxctl.Client, toComplete string) []cobra.Completion {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, completeTimeout)
	defer cancel()
	rows, err := watcher.PaneRows(ctx, tmux, newFinder(), os.Getenv)
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, c := range table.Choices(rows, toComplete) {
		out = append(out, cobra.CompletionWithDesc(c.Value, c.Desc))
	}
	return out
}
