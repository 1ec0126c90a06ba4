//go:build linux

package watcher_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Between two full listings a tick lists only what changed: these are the changes
// that listing could miss, each made on a private server while the watcher runs with full
// listings an hour apart, once the panes it concerns are quiet (their windows' activity older
// than what the watcher lists), so that only tmux's notifications can tell the watcher. Each
// must reach the right state.

// waitTarget waits until the watcher's row for the pane shows target and state.
func (wd *world) waitTarget(pane, target string, state watcher.State) {
	wd.t.Helper()
	wd.waitRow(pane, fmt.Sprintf("pane %s at %s in state %s", pane, target, state), func(r watcher.Row, ok bool) bool {
		return ok && r.Target == target && r.State == state
	})
}

// rowsOf counts the watcher's rows for the pane.
func (wd *world) rowsOf(pane string) int {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	n := 0
	for _, r := range wd.rows {
		if r.Pane == pane {
			n++
		}
	}
	return n
}

// ticks waits until the watcher has ended n more ticks (each hands it a new slice of rows).
func (wd *world) ticks(n int) {
	wd.t.Helper()
	rows := func() *watcher.Row {
		wd.mu.Lock()
		defer wd.mu.Unlock()
		return unsafe.SliceData(wd.rows)
	}
	for range n {
		last := rows()
		tmuxtest.WaitFor(wd.t, patience, "a tick of the watcher", func() bool { return rows() != last })
	}
}

// quiet makes every window but the spare one (%0, a shell) quiet for the watcher: once a
// second has begun after their last activity, the shell echoes a key, so that the latest
// activity the watcher lists is the shell's, and two ticks pass. From then on the watcher's
// listings of what changed leave the other windows out.
func (wd *world) quiet() {
	wd.t.Helper()
	var last int64
	for _, f := range strings.Fields(wd.s.Tmux(wd.t, "list-windows", "-a", "-F", "#{window_activity}")) {
		v, _ := strconv.ParseInt(f, 10, 64)
		last = max(last, v)
	}
	later := time.Unix(last+1, 0)
	tmuxtest.WaitFor(wd.t, patience, "a later second", func() bool { return !time.Now().Before(later) })
	wd.s.Tmux(wd.t, "send-keys", "-t", "%0", "-l", "x")
	tmuxtest.WaitFor(wd.t, patience, "the spare shell's activity", func() bool {
		out := strings.TrimSpace(wd.s.Tmux(wd.t, "display-message", "-p", "-t", "%0", "#{window_activity}"))
		v, _ := strconv.ParseInt(out, 10, 64)
		return v > last
	})
	wd.ticks(2)
}

func TestChangesBetweenFullListings(t *testing.T) {
	wd := newWorld(t, time.Minute) // the reset is a minute away: nothing is resumed here
	// The limit comes after the first full listing, however slow the start.
	limitAt := time.Now().Add(tmuxtest.Scale(10 * time.Second))
	a := wd.claude(false, "--scenario", "idle", "--limit-at", limitAt.Format(time.RFC3339Nano))
	wd.start(func(c *watcher.Config) { c.Resync = time.Hour })
	wd.waitTarget(a.pane, "main:1.0", watcher.Running)

	// A pane that changes between two full listings: its stop is seen.
	a.reached("limit-hit")
	wd.waitState(a.pane, watcher.Waiting)

	// A new window, and a pane split in a window of another session and not made active
	// (neither is notified: their windows' activity tells them).
	wd.quiet()
	b := wd.claude(false)
	wd.waitTarget(b.pane, "main:2.0", watcher.Waiting)
	wd.s.NewSession(t, "other", 120, 40)
	wd.quiet()
	c := wd.split("other:0")
	wd.waitTarget(c.pane, "other:0.1", watcher.Waiting)

	// A renamed session: every row of it shows the new name.
	wd.quiet()
	wd.s.Tmux(t, "rename-session", "-t", "main", "renamed")
	wd.waitTarget(a.pane, "renamed:1.0", watcher.Waiting)
	wd.waitTarget(b.pane, "renamed:2.0", watcher.Waiting)

	// A pane moved to another window, of another session, after that window's active pane:
	// it keeps its wait, and the pane it moved down is followed too.
	wd.quiet()
	wd.s.Tmux(t, "join-pane", "-d", "-s", b.pane, "-t", "other:0.0")
	wd.waitTarget(b.pane, "other:0.1", watcher.Waiting)
	wd.waitTarget(c.pane, "other:0.2", watcher.Waiting)

	// A window linked into a second session: one pane, one row, its wait kept; unlinked from
	// the first, the second session's name.
	wd.quiet()
	wd.s.Tmux(t, "link-window", "-d", "-s", "renamed:1", "-t", "other:7")
	wd.ticks(3)
	if r, ok := wd.row(a.pane); !ok || r.State != watcher.Waiting || wd.rowsOf(a.pane) != 1 {
		t.Errorf("pane %s of a window in two sessions: %+v (%d rows); want one row, waiting", a.pane, r, wd.rowsOf(a.pane))
	}
	wd.quiet()
	wd.s.Tmux(t, "unlink-window", "-t", "renamed:1")
	wd.waitTarget(a.pane, "other:7.0", watcher.Waiting)

	// The watcher's control client dropped: what changes meanwhile is seen, on a new client.
	// The change is a window moved, not a session renamed: tmux 3.2a to 3.6b crash when a
	// session is renamed (or created, closed, or its current window or pane changes) while a
	// control client attaches or exits (control-notify.c writes to a client whose
	// control_state is not there; 3.7 checks it), which is the instant the watcher redials.
	wd.quiet()
	// (On tmux 3.8 the watcher has two: the second, its output signal, goes with the first.)
	clients := wd.s.Tmux(t, "list-clients", "-F", "#{client_control_mode} #{client_name}")
	for _, l := range strings.Split(strings.TrimSpace(clients), "\n") {
		if name, ok := strings.CutPrefix(l, "1 "); ok {
			_, err := wd.s.Client.Run(context.Background(), "detach-client", "-t", name)
			if err != nil && !errors.Is(err, tmuxctl.ErrNoTarget) {
				t.Fatal(err)
			}
		}
	}
	wd.s.Tmux(t, "move-window", "-d", "-s", "other:0", "-t", "other:5")
	d := wd.claude(false)
	wd.waitState(d.pane, watcher.Waiting)
	wd.waitTarget(b.pane, "other:5.1", watcher.Waiting)
	tmuxtest.WaitFor(t, patience, "a new control client", func() bool {
		out := wd.s.Tmux(t, "list-clients", "-F", "#{client_control_mode}")
		return strings.Contains(out, "1") && wd.tmux.Connected()
	})
	for _, f := range []*fake{a, b, c, d} {
		wd.waitState(f.pane, watcher.Waiting)
		f.wantInputs(nil)
	}
}

// TestResyncFindsWhatTmuxDoesNotNotify: a pane closed in another session's window while not
// its active pane is notified to no control client (tmux 3.3a), and closing it is no activity:
// a quiet running session closed so is forgotten at the next full listing, a Resync later.
func TestResyncFindsWhatTmuxDoesNotNotify(t *testing.T) {
	wd := newWorld(t, time.Minute)
	// Before the watcher's control client attaches: tmux 3.3a can crash when a session is
	// made while a control client attaches.
	wd.s.NewSession(t, "other", 120, 40)
	wd.start(func(c *watcher.Config) { c.Resync = 3 * time.Second })
	log := filepath.Join(wd.s.Dir, "idle.log")
	out := wd.s.Tmux(t, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "other:0", claudeBin, "--log", log, "--scenario", "idle")
	pane := strings.TrimSpace(out)
	wd.waitTarget(pane, "other:0.1", watcher.Running)
	wd.quiet()
	wd.s.Tmux(t, "kill-pane", "-t", pane)
	wd.waitRow(pane, "the closed pane forgotten", func(_ watcher.Row, ok bool) bool { return !ok })
}

// TestServerRestartedBetweenFullListings: a server killed and started again on the socket
// is listed afresh: the old panes are gone, the new server's stop is seen.
func TestServerRestartedBetweenFullListings(t *testing.T) {
	wd := newWorld(t, time.Minute)
	a := wd.claude(false)
	wd.start(func(c *watcher.Config) { c.Resync = time.Hour })
	wd.waitState(a.pane, watcher.Waiting)
	wd.s.KillServer(t)
	log := filepath.Join(wd.s.Dir, "again.log")
	argv := []string{"-f", filepath.Join(wd.s.Dir, "tmux.conf"), "new-session", "-d", "-s", "again", "-x", "120", "-y", "40",
		claudeBin, "--log", log, "--reset", wd.reset.Format(time.RFC3339), "--limit-until", wd.real(wd.reset).Format(time.RFC3339Nano)}
	argv = append(argv, tmuxctl.KeepSize("again", 120, 40)...)
	if _, err := wd.s.Client.Run(context.Background(), argv...); err != nil {
		t.Fatal(err)
	}
	// The new server numbers its panes from %0 again: the rows of the old one are gone.
	wd.waitRow("%0", "the new server's pane waiting", func(r watcher.Row, ok bool) bool {
		return ok && r.Target == "again:0.0" && r.State == watcher.Waiting
	})
	wd.waitRow(a.pane, "the old server's pane gone", func(_ watcher.Row, ok bool) bool { return !ok })
}

// split splits target with a fake Claude Code stopped at the world's reset and returns it.
func (wd *world) split(target string) *fake {
	wd.t.Helper()
	log := filepath.Join(wd.s.Dir, fmt.Sprintf("claude%d.log", time.Now().UnixNano()))
	out := wd.s.Tmux(wd.t, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", target,
		claudeBin, "--log", log, "--reset", wd.reset.Format(time.RFC3339), "--limit-until", wd.real(wd.reset).Format(time.RFC3339Nano))
	f := &fake{wd: wd, pane: strings.TrimSpace(out), log: log}
	f.waitState("started", func(s []string) bool { return len(s) > 0 })
	return f
}
