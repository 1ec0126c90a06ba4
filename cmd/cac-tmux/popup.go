package main

import (
	"context"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/popup"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

func newPopup(std *deps) *cobra.Command {
	var tmux *tmuxctl.Client
	var client string
	c := &cobra.Command{
		Use:   "popup [-L NAME|-S PATH] [--client NAME]",
		Short: "the interactive list of Claude sessions, for tmux display-popup -E",
		Long: `Every Claude Code pane with its state, reset, countdown, kind and note, coloured by state
(none under NO_COLOR), and the last lines of the selected pane's screen below them when the
popup is 20 lines tall or more (p hides or shows them). Arrows or j/k move, Enter switches the
client to the pane, r resumes it now (asking first, y or n, when its reset has not come), s
skips its wait, u takes a skip back, q or Esc closes. Times are in your zone, with the date
when not today.

/ filters the rows: what is typed next narrows them to those with each word in the pane id,
target, state, kind or note, whatever the case (letters go to the filter then, so r, s and u
do not act); arrows still move, Enter ends the typing and keeps the filter (Enter again jumps),
Esc clears it (Esc again closes).

It runs only inside tmux display-popup -E: elsewhere (no terminal, outside tmux, in a
pane) it says so and exits 2. Bind it to a key:

  bind-key C run-shell -C "display-popup -E -w 80% -h 60% \"cac-tmux popup --client '#{client_name}'\""

It works without a running watcher: it shows what the pane options say, and says so.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runPopup(c.Context(), tmux, client, std)
		},
	}
	tmux = socketFlags(c.Flags())
	c.Flags().StringVar(&client, "client", "", "the client Enter switches to the pane (default: the one tmux finds most recently active: the one that opened the popup)")
	return c
}

func runPopup(ctx context.Context, tmux *tmuxctl.Client, client string, std *deps) error {
	if why := popup.Outside(std.inTTY, std.outTTY, os.Getenv); why != "" {
		return usageErrorf("popup: %s: run it from a tmux key binding, %s (the plugin binds prefix + C)", why, popup.Binding)
	}
	act := func(ctx context.Context, pane string, a watcher.Action) (watcher.Outcome, error) {
		return watcher.Ask(ctx, tmux, pane, a, asking(tmux, io.Discard))
	}
	server := popup.Server{Tmux: tmux, Finder: std.finder, Getenv: os.Getenv, Act: act}
	return popup.Run(ctx, server, client, std.in, std.out, std.outTTY)
}
