package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
	"github.com/cac-tmux/cac-tmux/watcher/proc"
	"github.com/cac-tmux/cac-tmux/watcher/store"
)

// listJSON is one pane in `list --json`.
type listJSON struct {
	Pane   string  `json:"pane"`
	Target string  `json:"target"`
	State  string  `json:"state"`
	Reset  *string `json:"reset"` // RFC3339 in the printed zone's offset, null when unknown
	Due    *string `json:"due"`   // when the watcher acts, null when it will not
	Zone   string  `json:"zone,omitempty"`
	// ResetSource is "transcript" (Claude Code's record, to the second) or "screen" (the
	// printed time); omitted when the reset is unknown.
	ResetSource string `json:"reset_source,omitempty"`
	Kind        string `json:"kind"`
	Account     string `json:"account,omitempty"` // the claude process's config directory
	Note        string `json:"note,omitempty"`
}

func newList(std stdio) *cobra.Command {
	var tmux *tmuxctl.Client
	var asJSON, all bool
	c := &cobra.Command{
		Use:   "list [-L NAME|-S PATH] [--all] [--json]",
		Short: "the paused panes (and with --all every Claude pane)",
		Long: `The panes the watcher published as paused, earliest due first. It reads the pane options
(@cac_state, …), so it works without a running watcher, and says so on stderr.`,
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
	rows, err := paneRows(ctx, tmux, all, std.err)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	if !watcherRunning(ctx, tmux) {
		fmt.Fprintf(std.err, "cac-tmux: no watcher is running on %s; showing the state the last one published (start one with: cac-tmux watch)\n", serverName(tmux))
	}
	if asJSON {
		out := make([]listJSON, 0, len(rows))
		for _, r := range rows {
			out = append(out, listJSON{Pane: r.Pane, Target: r.Target, State: string(r.State), Reset: instant(r.Reset),
				Due: instant(r.Due), Zone: r.Zone, ResetSource: string(r.Source), Kind: r.Kind, Account: r.Account, Note: r.Note})
		}
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return fmt.Errorf("list: write: %w", err)
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintln(std.err, "cac-tmux: no paused Claude Code pane")
		return nil
	}
	width := 0
	if std.outTTY {
		width, _ = std.outSize()
	}
	for _, line := range table.Format(table.Cells(rows, clock.Real.Now()), width) {
		fmt.Fprintln(std.out, line)
	}
	return nil
}

// paneRows are the rows of the panes a watcher published as paused, earliest due first, and
// with all the Claude Code panes that run normally too. A pane whose published state cannot
// be read is left out, and warn says so.
func paneRows(ctx context.Context, tmux *tmuxctl.Client, all bool, warn io.Writer) ([]watcher.Row, error) {
	panes, err := tmux.ListPanes(ctx, tmuxctl.Search{})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", serverName(tmux), hint(err))
	}
	var rows []watcher.Row
	finder := newFinder()
	for _, p := range panes {
		r, err := watcher.RowOf(p)
		if err != nil {
			fmt.Fprintf(warn, "cac-tmux: %v; the pane is left out\n", err)
			continue
		}
		if r.State == watcher.Running && (!all || !isClaude(ctx, finder, p)) {
			continue
		}
		rows = append(rows, r)
	}
	watcher.SortRows(rows)
	return rows, nil
}

func instant(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}

// isClaude says whether a pane runs Claude Code: by its process, or by its command and title
// where the process table cannot be read.
func isClaude(ctx context.Context, f *proc.Finder, p tmuxctl.Pane) bool {
	_, ok, err := f.Find(ctx, p.PID)
	if err != nil {
		return proc.Hint(p.Command, p.Title)
	}
	return ok
}

// watcherRunning says whether a watcher supervises the server: one holds the server's lock,
// or the pid a watcher published on the server (@cac_watcher) is alive — a watcher started
// with another XDG_RUNTIME_DIR locks elsewhere.
func watcherRunning(ctx context.Context, c *tmuxctl.Client) bool {
	_, running := watcherPID(ctx, c)
	return running
}

// watcherPID says whether a watcher supervises the server, and its pid (0 when its lock file
// names none): the one holding the server's lock, or the live pid published as @cac_watcher.
func watcherPID(ctx context.Context, c *tmuxctl.Client) (pid int, running bool) {
	if pid, running := heldLock(c); running {
		return pid, true
	}
	v, err := c.GlobalOption(ctx, watcher.WatcherOption)
	if err != nil {
		return 0, false
	}
	return pidAlive(v)
}

// heldLock says whether a watcher holds the server's lock here, and its pid.
func heldLock(c *tmuxctl.Client) (pid int, running bool) {
	server, err := c.SocketFileHere()
	if err != nil {
		return 0, false
	}
	dir, err := store.LockDir(os.Getenv)
	if err != nil {
		return 0, false
	}
	pid, running, err = store.Holder(dir, server)
	return pid, err == nil && running
}

// pidAlive reads a published @cac_watcher and says whether that process runs.
func pidAlive(v string) (int, bool) {
	pid, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || pid <= 0 {
		return 0, false
	}
	err = syscall.Kill(pid, 0)
	return pid, err == nil || errors.Is(err, syscall.EPERM)
}
