package watcher_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// What a watcher published, read back without tmux: the pid it published, the rows as list
// shows them, and the counts of the status line.

// envIn is a getenv whose state and lock directories are under dir.
func envIn(dir string) func(string) string {
	env := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state"), "XDG_RUNTIME_DIR": filepath.Join(dir, "run")}
	return func(k string) string { return env[k] }
}

func TestAlive(t *testing.T) {
	for _, tc := range []struct {
		published string
		pid       int
		alive     bool
	}{
		{strconv.Itoa(os.Getpid()), os.Getpid(), true},
		{" " + strconv.Itoa(os.Getpid()) + "\n", os.Getpid(), true},
		{"1", 1, true},                  // init: another user's process counts (EPERM)
		{"999999999", 999999999, false}, // a watcher killed: its pid runs no more
		{"", 0, false}, {"x", 0, false}, {"0", 0, false}, {"-1", 0, false},
	} {
		if pid, alive := watcher.Alive(tc.published); pid != tc.pid || alive != tc.alive {
			t.Errorf("Alive(%q) = %d, %v; want %d, %v", tc.published, pid, alive, tc.pid, tc.alive)
		}
	}
}

// While no watcher runs, no due instant is shown and each paused state says nobody keeps it.
func TestShown(t *testing.T) {
	due := time.Date(2026, 11, 20, 19, 31, 0, 0, time.UTC)
	rows := []watcher.Row{
		{Pane: "%1", State: watcher.Waiting, Due: due},
		{Pane: "%2", State: "stopped"}, // seen stopped by list itself (ListRows)
		{Pane: "%3", State: watcher.Held},
		{Pane: "%4", State: watcher.Running},
	}
	if got := watcher.Shown(rows, true); len(got) != 4 || got[0] != rows[0] || got[1].State != "stopped" {
		t.Errorf("Shown(watching) = %+v, want the rows as they are", got)
	}
	got := watcher.Shown(rows, false)
	want := []watcher.State{"waiting (stale)", "stopped (not watched)", "held (stale)", watcher.Running}
	for i, r := range got {
		if r.State != want[i] || !r.Due.IsZero() {
			t.Errorf("Shown(not watching)[%d] = %s, due %v; want %s and no due instant", i, r.State, r.Due, want[i])
		}
	}
	if rows[0].State != watcher.Waiting || !rows[0].Due.Equal(due) {
		t.Errorf("Shown changed the rows it was given: %+v", rows[0])
	}
}

// The status line counts the paused panes by what becomes of each: resumed by the watcher on
// its own, left to the user, not resumed. A state it does not know is left out.
func TestStatusOf(t *testing.T) {
	now := time.Date(2026, 11, 20, 19, 0, 0, 0, time.UTC)
	pane := func(id, state string, due time.Time) tmuxctl.Pane {
		p := tmuxctl.Pane{ID: id, Options: tmuxctl.Options{State: state}}
		if !due.IsZero() {
			p.Options.Due = due.Format(time.RFC3339)
		}
		return p
	}
	panes := []tmuxctl.Pane{
		pane("%1", "waiting", now.Add(2*time.Hour)), pane("%2", "native", now.Add(time.Hour)),
		pane("%3", "resuming", time.Time{}), pane("%4", "verifying", time.Time{}),
		pane("%5", "held", time.Time{}), pane("%6", "limited", time.Time{}), pane("%7", "skipped", time.Time{}),
		pane("%8", "failed", time.Time{}), pane("%9", "unwaitable", time.Time{}),
		pane("%10", "running", time.Time{}), pane("%11", "dozing", now),
	}
	dir := t.TempDir()
	c := &tmuxctl.Client{SocketPath: filepath.Join(dir, "s")}
	got := watcher.StatusOf(c, envIn(dir), panes)
	want := watcher.Status{Paused: 9, Waiting: 4, Held: 3, Failed: 2, Next: now.Add(time.Hour)}
	if got != want {
		t.Errorf("StatusOf = %+v, want %+v", got, want)
	}
	if got := watcher.StatusOf(c, envIn(dir), panes[4:5]); !got.Next.IsZero() || got.Paused != 1 || got.Held != 1 {
		t.Errorf("StatusOf(one held) = %+v, want one held and no due instant", got)
	}

	// Whether a watcher runs: the pid published with the panes, or the lock here.
	panes[0].Watcher = strconv.Itoa(os.Getpid())
	if got := watcher.StatusOf(c, envIn(dir), panes[:1]); !got.Watching {
		t.Errorf("StatusOf with a live pid published = %+v, want watching", got)
	}
	panes[0].Watcher = "999999999"
	if got := watcher.StatusOf(c, envIn(dir), panes[:1]); got.Watching {
		t.Errorf("StatusOf with a dead pid published = %+v, want not watching", got)
	}
	server, err := c.SocketFileHere()
	if err != nil {
		t.Fatal(err)
	}
	_, lock, err := store.Open(envIn(dir), server, false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if got := watcher.StatusOf(c, envIn(dir), panes[:1]); !got.Watching {
		t.Errorf("StatusOf with the lock held here = %+v, want watching", got)
	}
	if got := watcher.StatusOf(c, envIn(dir), nil); got != (watcher.Status{}) {
		t.Errorf("StatusOf(nothing paused) = %+v, want nothing, and not asked whether a watcher runs", got)
	}
}

// @cac_agent is read back strictly: unset is Claude Code (a pane published before there was
// a second agent, or a running one), a known name is its agent, anything else an error.
func TestRowOfAgent(t *testing.T) {
	for _, tc := range []struct {
		agent string
		want  agent.Name
		ok    bool
	}{{"", agent.Claude, true}, {"claude", agent.Claude, true}, {"codex", agent.Codex, true}, {"Codex", "", false}, {"gemini", "", false}} {
		info := tmuxctl.Pane{ID: "%1", Options: tmuxctl.Options{State: "waiting", Kind: "session", Agent: tc.agent}}
		r, err := watcher.RowOf(info)
		if r.Agent != tc.want || (err == nil) != tc.ok {
			t.Errorf("RowOf(@cac_agent %q) = %q, %v; want %q, ok %v", tc.agent, r.Agent, err, tc.want, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "@cac_agent") {
			t.Errorf("RowOf(@cac_agent %q): %v, want the option named", tc.agent, err)
		}
	}
}
