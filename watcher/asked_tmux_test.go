//go:build linux

package watcher_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// PaneRows are every Claude pane as the popup shows it: with no watcher, a published state
// is stale and nothing is due; a server that is not there is named, with how to reach one.
func TestPaneRows(t *testing.T) {
	ctx := context.Background()
	s := tmuxtest.Start(t, 120, 30, "sleep", "600")               // main:0.0, Claude, published waiting
	s.Tmux(t, "new-window", "-d", "-t", "main:1", "sleep", "600") // Claude running
	s.Tmux(t, "new-window", "-d", "-t", "main:2", "sleep", "600") // no Claude
	panes := panesOf(t, s)
	f := claudeIn{panes["main:0.0"].PID: true, panes["main:1.0"].PID: true}
	o := tmuxctl.Options{State: "waiting", Due: time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
	if err := s.Client.SetPaneOptions(ctx, panes["main:0.0"].ID, tmuxctl.OptionNames, o.Values()); err != nil {
		t.Fatal(err)
	}
	rows, err := watcher.PaneRows(ctx, s.Client, f, envIn(t.TempDir()))
	want := panes["main:0.0"].ID + " waiting (stale), " + panes["main:1.0"].ID + " running"
	if got := statesOf(rows); err != nil || got != want || !rows[0].Due.IsZero() {
		t.Errorf("PaneRows = %s (%+v), %v; want %s, nothing due", got, rows, err, want)
	}
	none := &tmuxctl.Client{SocketPath: filepath.Join(s.Dir, "none")}
	if _, err := watcher.PaneRows(ctx, none, f, envIn(t.TempDir())); err == nil ||
		!strings.HasPrefix(err.Error(), none.Name()+": ") || !strings.HasSuffix(err.Error(), "; start tmux, or select the server with -L NAME or -S PATH") {
		t.Errorf("PaneRows without a server = %v; want the server named and the hint", err)
	}
}

// Statuses asks every server: one that answers gives its status, one where no tmux runs
// nothing, one that fails otherwise its error, naming it.
func TestStatuses(t *testing.T) {
	ctx := context.Background()
	s := tmuxtest.Start(t, 80, 24, "sleep", "600")
	id := panesOf(t, s)["main:0.0"].ID
	due := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	o := tmuxctl.Options{State: "waiting", Due: due.Format(time.RFC3339)}
	if err := s.Client.SetPaneOptions(ctx, id, tmuxctl.OptionNames, o.Values()); err != nil {
		t.Fatal(err)
	}
	none := &tmuxctl.Client{SocketPath: filepath.Join(s.Dir, "none")}
	broken := &tmuxctl.Client{SocketPath: s.Socket, Bin: "false"}
	sum, failed := watcher.Statuses(ctx, []*tmuxctl.Client{none, s.Client, broken}, envIn(t.TempDir()))
	if len(sum) != 1 || sum[0].Paused != 1 || !sum[0].Next.Equal(due) {
		t.Errorf("Statuses = %+v; want the one server's waiting pane, due %s", sum, due)
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0].Error(), broken.Name()+": tmuxctl: ") {
		t.Errorf("failed = %v; want the broken server's error, naming it", failed)
	}
}
