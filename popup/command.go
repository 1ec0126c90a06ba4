package popup

import (
	"context"
	"fmt"
	"io"
	"strconv"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// What `cac-tmux popup` does around the model: where it may run, what it loads from the
// tmux server, and the jump to the pane Enter chose.

// Binding is the tmux.conf line that opens the popup (the plugin binds prefix + C so).
const Binding = `bind-key C display-popup -E "cac-tmux popup"`

// Outside says why a command does not run in a tmux popup, "" when it does. A popup's
// command has a terminal on standard input and output, $TMUX and no $TMUX_PANE: tmux sets
// $TMUX_PANE only in a pane's environment, never in a popup's (3.2a, 3.3a, 3.7c, next-3.8:
// the command's popup tests run it so). Without a terminal bubbletea fails with a library
// error (stdin /dev/null: "error creating cancelreader") or waits on a pipe, so the command
// stops first.
func Outside(inTTY, outTTY bool, getenv func(string) string) string {
	switch {
	case !inTTY || !outTTY:
		return "its standard input and output are not a terminal"
	case getenv("TMUX") == "":
		return "it runs outside tmux"
	case getenv("TMUX_PANE") != "":
		return "it runs in the pane " + getenv("TMUX_PANE") + ", not in a popup"
	}
	return ""
}

// Server is the tmux server a popup shows: its client, what finds Claude Code in its panes,
// the environment (the lock's directory, NO_COLOR) and how an action is carried out
// (watcher.Ask).
type Server struct {
	Tmux   *tmuxctl.Client
	Finder watcher.Finder
	Getenv func(string) string
	Act    func(ctx context.Context, pane string, a watcher.Action) (watcher.Outcome, error)
}

// Load reads the rows of every Claude Code pane (watcher.PaneRows) and which watcher runs.
func (s Server) Load(ctx context.Context) (Snapshot, error) {
	rows, err := watcher.PaneRows(ctx, s.Tmux, s.Finder, s.Getenv)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Rows: rows, Watcher: watcherText(watcher.Watching(ctx, s.Tmux, s.Getenv))}, nil
}

// watcherText says which watcher supervises the server, "" when none runs.
func watcherText(pid int, running bool) string {
	switch {
	case !running:
		return ""
	case pid > 0:
		return "watcher pid " + strconv.Itoa(pid)
	}
	return "a watcher runs"
}

// Run shows the popup of s on the terminal of in and out until it closes, then switches
// client (the most recently active one when "") to the pane Enter chose.
func Run(ctx context.Context, s Server, client string, in io.Reader, out io.Writer, outTTY bool) error {
	if client == "" {
		var err error
		if client, err = s.Tmux.CurrentClient(ctx); err != nil {
			return fmt.Errorf("popup: %s: %w", s.Tmux.Name(), tmuxctl.Hint(err))
		}
	}
	first, err := s.Load(ctx)
	if err != nil {
		return fmt.Errorf("popup: %w", err)
	}
	// The preview's captures, and the styles for the terminal lipgloss finds on the output
	// (no colour under NO_COLOR either way). Whether the output is a terminal is ours to say:
	// termenv takes any $CI for "not a terminal", and a server started from a CI job or an
	// IDE that sets it passes it on to every popup, which would lose its colours.
	renderer := lipgloss.NewRenderer(out, termenv.WithTTY(outTTY))
	m := New(Config{Load: s.Load, Act: s.Act, Capture: s.Tmux.Capture,
		Color: s.Getenv("NO_COLOR") == "", Renderer: renderer}, first)
	final, err := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(in), tea.WithOutput(out), tea.WithContext(ctx)).Run()
	if err != nil {
		return fmt.Errorf("popup: %w", err)
	}
	if pane := final.(Model).Jump(); pane != "" {
		return jump(ctx, s.Tmux, client, pane)
	}
	return nil
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
