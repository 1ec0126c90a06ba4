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

	"github.com/spf13/pflag"

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
	Kind   string  `json:"kind"`
	Note   string  `json:"note,omitempty"`
}

func runList(args []string, std stdio) int {
	fs := pflag.NewFlagSet("list", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	tmux := socketFlags(fs)
	asJSON := fs.Bool("json", false, "print a JSON array")
	all := fs.Bool("all", false, "also list the Claude Code panes that run normally")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(std.out, "Usage: cac-tmux list [-L NAME|-S PATH] [--all] [--json]\n\nThe panes the watcher published as paused, earliest due first. It reads the pane options\n(@cac_state, …), so it works without a running watcher, and says so on stderr.\n\nFlags:\n")
			fs.SetOutput(std.out)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(std.err, "cac-tmux: list: %v (see cac-tmux list --help)\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(std.err, "cac-tmux: list: unexpected argument %q (see cac-tmux list --help)\n", fs.Arg(0))
		return 2
	}
	ctx := context.Background()
	panes, err := tmux.ListPanes(ctx, tmuxctl.Search{})
	if err != nil {
		fmt.Fprintf(std.err, "cac-tmux: list: %s: %v\n", serverName(tmux), hint(err))
		return 1
	}
	if !watcherRunning(ctx, tmux) {
		fmt.Fprintf(std.err, "cac-tmux: no watcher is running on %s; showing the state the last one published (start one with: cac-tmux watch)\n", serverName(tmux))
	}
	var rows []watcher.Row
	finder := &proc.Finder{}
	for _, p := range panes {
		r := watcher.RowOf(p)
		if r.State == watcher.Running && (!*all || !isClaude(ctx, finder, p)) {
			continue
		}
		rows = append(rows, r)
	}
	watcher.SortRows(rows)
	if *asJSON {
		out := make([]listJSON, 0, len(rows))
		for _, r := range rows {
			out = append(out, listJSON{Pane: r.Pane, Target: r.Target, State: string(r.State), Reset: instant(r.Reset),
				Due: instant(r.Due), Zone: r.Zone, Kind: r.Kind, Note: r.Note})
		}
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintf(std.err, "cac-tmux: list: write: %v\n", err)
			return 1
		}
		return 0
	}
	width := 0
	if std.outTTY {
		width, _ = std.outSize()
	}
	if len(rows) == 0 {
		fmt.Fprintln(std.err, "cac-tmux: no paused Claude Code pane")
		return 0
	}
	for _, line := range formatTable(tableRows(rows, time.Now()), width) {
		fmt.Fprintln(std.out, line)
	}
	return 0
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
	if server, err := c.SocketFileHere(); err == nil {
		if dir, err := store.LockDir(os.Getenv); err == nil {
			if _, running, err := store.Holder(dir, server); err == nil && running {
				return true
			}
		}
	}
	v, err := c.GlobalOption(ctx, watcher.WatcherOption)
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || pid <= 0 {
		return false
	}
	err = syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
