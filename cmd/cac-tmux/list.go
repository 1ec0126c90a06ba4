package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// listJSON is one pane in `list --json`.
type listJSON struct {
	Pane   string `json:"pane"`
	Target string `json:"target"`
	// State is the state a watcher published; with no watcher running, the last one published
	// (nobody keeps it current), or "stopped": a stop list itself saw on a pane nothing was
	// published for.
	State string  `json:"state"`
	Reset *string `json:"reset"` // RFC3339 in the printed zone's offset, null when unknown
	Due   *string `json:"due"`   // when the watcher acts, null when it will not
	Zone  string  `json:"zone,omitempty"`
	// ResetSource is "transcript" (Claude Code's record, to the second) or "screen" (the
	// printed time); omitted when the reset is unknown.
	ResetSource string `json:"reset_source,omitempty"`
	Kind        string `json:"kind"`
	Account     string `json:"account,omitempty"` // the claude process's config directory
	Note        string `json:"note,omitempty"`
	// WatcherRunning says whether a watcher runs on the server: false, nothing resumes the
	// pane, and its state and due instant are what the last watcher published.
	WatcherRunning bool `json:"watcher_running"`
}

func newList(std stdio) *cobra.Command {
	var tmux *tmuxctl.Client
	var asJSON, all bool
	c := &cobra.Command{
		Use:   "list [-L NAME|-S PATH] [--all] [--json]",
		Short: "the paused panes (and with --all every Claude pane)",
		Long: `The panes the watcher published as paused, earliest due first. It reads the pane options
(@cac_state, …). When no watcher runs it says so first (in --json, "watcher_running": false on
each pane): nothing will be resumed, a published state is the last one a watcher published
("waiting (stale)"), and a Claude pane stopped at a limit that nothing was published for is
looked at here and shown as "stopped (not watched)" (in --json, state "stopped").`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runList(c.Context(), tmux, asJSON, all, std)
		},
	}
	tmux = socketFlags(c.Flags())
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	c.Flags().BoolVar(&all, "all", false, "also list the Claude Code panes that run normally")
	return c
}

func runList(ctx context.Context, tmux *tmuxctl.Client, asJSON, all bool, std stdio) error {
	_, watching := watcher.Watching(ctx, tmux, os.Getenv)
	rows, err := watcher.ListRows(ctx, tmux, newFinder(), all, watching, std.err)
	if err != nil {
		return fmt.Errorf("list: %s: %w", serverName(tmux), hint(err))
	}
	if asJSON {
		if !watching {
			fmt.Fprintf(std.err, "cac-tmux: no watcher is running on %s: nothing will be resumed; states are the last a watcher published (start one with: cac-tmux watch)\n", serverName(tmux))
		}
		out := make([]listJSON, 0, len(rows))
		for _, r := range rows {
			out = append(out, listJSON{Pane: r.Pane, Target: r.Target, State: string(r.State), Reset: instant(r.Reset),
				Due: instant(r.Due), Zone: r.Zone, ResetSource: string(r.Source), Kind: r.Kind, Account: r.Account, Note: r.Note,
				WatcherRunning: watching})
		}
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fmt.Errorf("list: write: %w", err)
		}
		return nil
	}
	if !watching {
		fmt.Fprintf(std.out, "no watcher runs on %s: nothing here will be resumed (start one: cac-tmux watch)\n", table.Printable(serverName(tmux)))
	}
	if len(rows) == 0 {
		fmt.Fprintln(std.err, "cac-tmux: no paused Claude Code pane")
		return nil
	}
	width := 0
	if std.outTTY {
		width, _ = std.outSize()
	}
	for _, line := range table.Format(table.Cells(watcher.Shown(rows, watching), clock.Real.Now()), width) {
		fmt.Fprintln(std.out, line)
	}
	return nil
}

// paneRows are the rows of every Claude Code pane as the popup and the completions show them:
// those of list --all, as its table shows them (watcher.Shown).
func paneRows(ctx context.Context, tmux *tmuxctl.Client) ([]watcher.Row, error) {
	_, watching := watcher.Watching(ctx, tmux, os.Getenv)
	rows, err := watcher.ListRows(ctx, tmux, newFinder(), true, watching, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", serverName(tmux), hint(err))
	}
	return watcher.Shown(rows, watching), nil
}

func instant(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}
