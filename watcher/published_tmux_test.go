//go:build linux

package watcher_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// claudeIn is a Finder that takes the panes whose first process is one of its pids for
// Claude Code, without records.
type claudeIn map[int]bool

func (f claudeIn) Find(_ context.Context, panePID int) (proc.Found, bool, error) {
	if !f[panePID] {
		return proc.Found{}, false, nil
	}
	return proc.Found{Identity: proc.Identity{PID: panePID, Start: "ticks:1"}, How: "test"}, true, nil
}

func (claudeIn) Env(context.Context, proc.Identity) (records.Env, error) {
	return records.Env{}, errors.New("proc: environment: unreadable")
}

// panesOf lists the panes of s by target ("main:1.0").
func panesOf(t *testing.T, s *tmuxtest.Server) map[string]tmuxctl.Pane {
	t.Helper()
	ps, err := s.Client.ListPanes(context.Background(), tmuxctl.Search{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]tmuxctl.Pane{}
	for _, p := range ps {
		m[p.Target()] = p
	}
	return m
}

// statesOf lists the pane id and state of each row, in order.
func statesOf(rows []watcher.Row) string {
	var b []string
	for _, r := range rows {
		b = append(b, r.Pane+" "+string(r.State))
	}
	return strings.Join(b, ", ")
}

// Whether a watcher runs, and the rows list shows: what a watcher published, and while none
// runs, a Claude pane stopped at a limit that nothing was published for, seen here (a shell
// showing the same text is not one); with all, the Claude panes that run too.
func TestWatchingAndListRows(t *testing.T) {
	ctx := context.Background()
	stop := filepath.Join(t.TempDir(), "stop")
	if err := os.WriteFile(stop, []byte(stopped("7:30pm", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	show := "cat '" + stop + "'; exec sleep 600"
	s := tmuxtest.Start(t, 120, 30, "sh", "-c", show)               // main:0.0, Claude stopped
	s.Tmux(t, "new-window", "-d", "-t", "main:1", "sh", "-c", show) // a shell showing the text
	s.Tmux(t, "new-window", "-d", "-t", "main:2", "sleep", "600")   // Claude running
	s.Tmux(t, "new-window", "-d", "-t", "main:3", "sleep", "600")   // Claude, published waiting
	s.Tmux(t, "new-window", "-d", "-t", "main:4", "sleep", "600")   // a state another version published
	for _, target := range []string{"main:0.0", "main:1.0"} {
		s.WaitScreen(t, target, "resets 7:30pm")
	}
	panes := panesOf(t, s)
	f := claudeIn{panes["main:0.0"].PID: true, panes["main:2.0"].PID: true, panes["main:3.0"].PID: true}
	stoppedPane, running, waiting := panes["main:0.0"].ID, panes["main:2.0"].ID, panes["main:3.0"].ID
	due := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	o := tmuxctl.Options{State: "waiting", Due: due.Format(time.RFC3339), Kind: "session"}
	if err := s.Client.SetPaneOptions(ctx, waiting, tmuxctl.OptionNames, o.Values()); err != nil {
		t.Fatal(err)
	}
	s.Tmux(t, "set-option", "-p", "-t", "main:4.0", "@cac_state", "dozing")

	getenv := envIn(t.TempDir())
	if pid, running := watcher.Watching(ctx, s.Client, getenv); running || pid != 0 {
		t.Fatalf("Watching on a server never watched = %d, %v; want none", pid, running)
	}
	var warn bytes.Buffer
	rows, err := watcher.ListRows(ctx, s.Client, f, false, false, &warn)
	if got, want := statesOf(rows), waiting+" waiting, "+stoppedPane+" stopped"; err != nil || got != want {
		t.Fatalf("ListRows(no watcher) = %s, %v; want %s", got, err, want)
	}
	if r := rows[1]; r.Kind != "session" || r.Source != watcher.SourceScreen || r.Reset.UTC().Hour() != 19 || r.Reset.Minute() != 30 || !r.Due.IsZero() {
		t.Errorf("the row of the stop seen here = %+v; want the printed reset 19:30 UTC from the screen, no due instant", r)
	}
	if !strings.Contains(warn.String(), "@cac_state") || !strings.Contains(warn.String(), "left out") {
		t.Errorf("warnings = %q; want the pane whose state cannot be read left out", warn.String())
	}
	rows, err = watcher.ListRows(ctx, s.Client, f, true, false, &warn)
	if got, want := statesOf(rows), waiting+" waiting, "+stoppedPane+" stopped, "+running+" running"; err != nil || got != want {
		t.Errorf("ListRows(all, no watcher) = %s, %v; want %s", got, err, want)
	}

	s.Tmux(t, "set-option", "-g", "@cac_watcher", strconv.Itoa(os.Getpid()))
	if pid, running := watcher.Watching(ctx, s.Client, getenv); !running || pid != os.Getpid() {
		t.Fatalf("Watching with a live pid published = %d, %v; want %d", pid, running, os.Getpid())
	}
	rows, err = watcher.ListRows(ctx, s.Client, f, false, true, &warn)
	if got, want := statesOf(rows), waiting+" waiting"; err != nil || got != want {
		t.Errorf("ListRows(a watcher) = %s, %v; want only what it published: %s", got, err, want)
	}
	rows, err = watcher.ListRows(ctx, s.Client, f, true, true, &warn)
	if got, want := statesOf(rows), waiting+" waiting, "+stoppedPane+" running, "+running+" running"; err != nil || got != want {
		t.Errorf("ListRows(all, a watcher) = %s, %v; want %s", got, err, want)
	}

	none := &tmuxctl.Client{SocketPath: filepath.Join(s.Dir, "none")}
	if _, err := watcher.ListRows(ctx, none, f, true, false, &warn); !errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("ListRows without a server = %v; want tmux's error", err)
	}
}
