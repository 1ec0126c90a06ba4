package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/store"
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

// unwatched is the state of a pane list saw stopped at a limit while no watcher runs and none
// published anything for it (a server never watched, or a stop after the watcher ended).
const unwatched watcher.State = "stopped"

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
	watching := watcherRunning(ctx, tmux)
	rows, err := listRows(ctx, tmux, all, watching, std.err)
	if err != nil {
		return fmt.Errorf("list: %w", err)
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
	for _, line := range table.Format(table.Cells(shown(rows, watching), clock.Real.Now()), width) {
		fmt.Fprintln(std.out, line)
	}
	return nil
}

// paneRows are the rows the popup shows: listRows as shown (see shown).
func paneRows(ctx context.Context, tmux *tmuxctl.Client, all bool, warn io.Writer) ([]watcher.Row, error) {
	watching := watcherRunning(ctx, tmux)
	rows, err := listRows(ctx, tmux, all, watching, warn)
	return shown(rows, watching), err
}

// listRows are the rows of the panes a watcher published as paused, earliest due first, and
// with all the Claude Code panes that run normally too. When no watcher runs (watching false)
// a Claude pane nothing is published for whose screen may show a stop (tmux's search finds
// limit text there) is looked at here, read-only: stopped at a limit, its row is unwatched. A
// pane whose published state cannot be read is left out, and warn says so.
func listRows(ctx context.Context, tmux *tmuxctl.Client, all, watching bool, warn io.Writer) ([]watcher.Row, error) {
	var search tmuxctl.Search
	if !watching {
		search.Pattern = watcher.Search.Pattern
	}
	panes, err := tmux.ListPanes(ctx, search)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", serverName(tmux), hint(err))
	}
	var rows []watcher.Row
	finder, now := newFinder(), clock.Real.Now()
	for _, p := range panes {
		r, err := watcher.RowOf(p)
		if err != nil {
			fmt.Fprintf(warn, "cac-tmux: %v; the pane is left out\n", err)
			continue
		}
		if r.State == watcher.Running {
			look := !watching && (p.Match > 0 || p.Width < narrowPane)
			claude := (all || look) && isClaude(ctx, finder, p)
			if look && claude {
				r = stoppedHere(ctx, tmux, p, r, now)
			}
			if r.State == watcher.Running && (!all || !claude) {
				continue
			}
		}
		rows = append(rows, r)
	}
	watcher.SortRows(rows)
	return rows, nil
}

// narrowPane is the width below which a stop's words may be split over two rows, where tmux's
// search would not find them: such a Claude pane is looked at whatever the search says.
const narrowPane = 40

// stoppedHere looks at the screen of Claude pane p, which has no published state, while no
// watcher runs: a stop at a limit makes its row r unwatched, with the reset and kind the
// screen prints (read as a watcher starting now would). It only captures the pane.
func stoppedHere(ctx context.Context, tmux *tmuxctl.Client, p tmuxctl.Pane, r watcher.Row, now time.Time) watcher.Row {
	screen, err := tmux.Capture(ctx, p.ID)
	if err != nil {
		return r
	}
	v := detector.Detect(screen, detector.Facts{Now: now, Zone: time.Local})
	if !v.Limited {
		return r
	}
	r.State, r.Kind = unwatched, string(v.Kind)
	if v.Reset.Known {
		r.Reset, r.Zone, r.Source = v.Reset.At, v.Reset.Zone, watcher.SourceScreen
	}
	return r
}

// shown are rows as the table of list and the popup show them. While no watcher runs nothing
// acts at a due instant, so none is shown (the countdown goes to the reset), and each paused
// state says that nobody keeps it: "waiting (stale)", the last one published, or "stopped (not
// watched)".
func shown(rows []watcher.Row, watching bool) []watcher.Row {
	if watching {
		return rows
	}
	out := slices.Clone(rows)
	for i := range out {
		r := &out[i]
		switch {
		case r.State == unwatched:
			r.State = "stopped (not watched)"
		case r.State.Paused():
			r.State += " (stale)"
		}
		r.Due = time.Time{}
	}
	return out
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
	v, err := c.GlobalOption(ctx, tmuxctl.WatcherOption)
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
