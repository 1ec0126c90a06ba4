package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
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

// popupBinding is the tmux.conf line that opens the popup (the plugin binds prefix + C so).
const popupBinding = `bind-key C display-popup -E "cac-tmux popup"`

// notInPopup says why the command does not run in a tmux popup, "" when it does. A popup's
// command has a terminal on standard input and output, $TMUX and no $TMUX_PANE: tmux sets
// $TMUX_PANE only in a pane's environment, never in a popup's (3.2a, 3.3a, 3.7c, next-3.8:
// the popup tests run the command so). Without a terminal
// bubbletea fails with a library error (stdin /dev/null: "error creating cancelreader") or
// waits on a pipe, so the command stops first.
func notInPopup(std *deps, getenv func(string) string) string {
	switch {
	case !std.inTTY || !std.outTTY:
		return "its standard input and output are not a terminal"
	case getenv("TMUX") == "":
		return "it runs outside tmux"
	case getenv("TMUX_PANE") != "":
		return "it runs in the pane " + getenv("TMUX_PANE") + ", not in a popup"
	}
	return ""
}

func runPopup(ctx context.Context, tmux *tmuxctl.Client, client string, std *deps) error {
	if why := notInPopup(std, os.Getenv); why != "" {
		return usageErrorf("popup: %s: run it from a tmux key binding, %s (the plugin binds prefix + C)", why, popupBinding)
	}
	if client == "" {
		var err error
		if client, err = tmux.CurrentClient(ctx); err != nil {
			return fmt.Errorf("popup: %s: %w", tmux.Name(), hint(err))
		}
	}
	load := func(ctx context.Context) (popup.Snapshot, error) {
		rows, err := paneRows(ctx, tmux)
		if err != nil {
			return popup.Snapshot{}, err
		}
		return popup.Snapshot{Rows: rows, Watcher: watcherText(ctx, tmux)}, nil
	}
	first, err := load(ctx)
	if err != nil {
		return fmt.Errorf("popup: %w", err)
	}
	act := func(ctx context.Context, pane string, a watcher.Action) (watcher.Outcome, error) {
		return watcher.Ask(ctx, tmux, pane, a, asking(tmux, io.Discard))
	}
	// The preview's captures, and the styles for the terminal lipgloss finds on the output
	// (no colour under NO_COLOR either way). Whether the output is a terminal is ours to say:
	// termenv takes any $CI for "not a terminal", and a server started from a CI job or an
	// IDE that sets it passes it on to every popup, which would lose its colours.
	renderer := lipgloss.NewRenderer(std.out, termenv.WithTTY(std.outTTY))
	m := popup.New(popup.Config{Load: load, Act: act, Capture: tmux.Capture,
		Color: os.Getenv("NO_COLOR") == "", Renderer: renderer}, first)
	final, err := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(std.in), tea.WithOutput(std.out), tea.WithContext(ctx)).Run()
	if err != nil {
		return fmt.Errorf("popup: %w", err)
	}
	if pane := final.(popup.Model).Jump(); pane != "" {
		return jump(ctx, tmux, client, pane)
	}
	return nil
}

// watcherText says which watcher supervises the server, "" when none runs.
func watcherText(ctx context.Context, tmux *tmuxctl.Client) string {
	switch pid, running := watcher.Watching(ctx, tmux, os.Getenv); {
	case !running:
		return ""
	case pid > 0:
		return "watcher pid " + strconv.Itoa(pid)
	}
	return "a watcher runs"
}

// jump switches the client to the pane: its session, window and pane.
func jump(ctx context.Context, tmux *tmuxctl.Client, client, pane string) error {
	if client == "" {
		return fmt.Errorf("popup: no client to switch to %s (give --client NAME, a name from tmux list-clients)", pane)
	}
	if err := tmux.SwitchTo(ctx, client, pane); err != nil {
		return fmt.Errorf("popup: switch %s to %s: %w", client, pane, err)
	}
	return nil
}
