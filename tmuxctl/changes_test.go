package tmuxctl_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// lister lists a server's panes with ListChanges as a watcher does: each listing takes the
// Mark of the one before.
type lister struct {
	t     *testing.T
	c     *tmuxctl.Client
	mark  tmuxctl.Mark
	piped bool // Search.Piped
}

// list lists what changed since the last listing, searching windows active since since (a
// zero since lists every pane), and returns the pane ids, sorted, and whether it was full.
func (l *lister) list(since time.Time) (ids []string, full bool) {
	l.t.Helper()
	panes, full, mark, err := l.c.ListChanges(context.Background(), tmuxctl.Search{Pattern: "x", Since: since, Piped: l.piped}, l.mark)
	if err != nil {
		l.t.Fatalf("ListChanges: %v", err)
	}
	l.mark = mark
	for _, p := range panes {
		ids = append(ids, p.ID)
	}
	slices.Sort(ids)
	return ids, full
}

// quietCalls lists calls times with nothing printed since, each call searching from a quiet
// second, checks that none lists a pane, and returns how many listings went to tmux.
func (l *lister) quietCalls(what string, calls int) uint64 {
	l.t.Helper()
	before := l.c.Listings()
	for range calls {
		if ids, full := l.list(quiet(l.t)); full || len(ids) != 0 {
			l.t.Errorf("%s: listed %v, full %v; want nothing", what, ids, full)
		}
	}
	return l.c.Listings() - before
}

// skipped checks that calls listings of nothing printed send tmux no listing at all.
func (l *lister) skipped(what string, calls int) {
	l.t.Helper()
	if got := l.quietCalls(what, calls); got != 0 {
		l.t.Errorf("%s: %d listings sent, want none", what, got)
	}
}

// request hands over a request on pane, the first pane listed, and checks that the next
// listing lists every pane (n), in full, with the request on pane.
func (l *lister) request(pane, value string, n int) {
	l.t.Helper()
	if err := l.c.Request(context.Background(), pane, value); err != nil {
		l.t.Fatal(err)
	}
	panes, full, mark, err := l.c.ListChanges(context.Background(), tmuxctl.Search{Since: quiet(l.t), Piped: l.piped}, l.mark)
	if err != nil || !full || len(panes) != n || panes[0].ID != pane || panes[0].Request != value {
		l.t.Errorf("after a request on %s: %+v, full %v, %v; want %d panes, full, %s's request", pane, panes, full, err, n, pane)
	}
	l.mark = mark
}

// quiet is a Since after every activity so far: the next whole second, once it has come.
func quiet(t *testing.T) time.Time {
	t.Helper()
	since := time.Now().Truncate(time.Second).Add(time.Second)
	tmuxtest.WaitFor(t, 3*time.Second, "the next second", func() bool { return !time.Now().Before(since) })
	return since
}

// TestListChanges: over a control connection, a listing after one that saw the server lists
// only the panes with output since, until a request is handed over or tmux notifies a change
// of sessions, windows, layouts, active panes or modes; then every pane, once.
func TestListChanges(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 100, 30, "cat")
	s.Connect(t)
	l := &lister{t: t, c: s.Client}
	if ids, full := l.list(time.Time{}); !full || len(ids) != 1 || l.mark == (tmuxctl.Mark{}) {
		t.Fatalf("first listing = %v, full %v, mark %+v; want %%0, full, a mark", ids, full, l.mark)
	}
	s.Tmux(t, "new-window", "-d", "-t", "main:1", "cat")
	if ids, full := l.list(quiet(t)); !full || len(ids) != 2 {
		t.Fatalf("after new-window: %v, full %v; want both panes, full", ids, full)
	}
	since := quiet(t)
	if ids, full := l.list(since); full || len(ids) != 0 {
		t.Fatalf("nothing changed: %v, full %v; want nothing, not full", ids, full)
	}

	// Output stamps the window's activity: that pane alone.
	// (Where tmux signals output, 3.8, the signal may reach the client a moment after the
	// screen shows the output: a call in that moment lists nothing, and the next lists it.)
	s.Tmux(t, "send-keys", "-t", "%1", "-l", "x")
	s.WaitScreen(t, "%1", "x")
	var ids []string
	var full bool
	tmuxtest.WaitFor(t, 5*time.Second, "the output in %1 listed", func() bool {
		ids, full = l.list(since)
		return len(ids) > 0 || full
	})
	if full || !slices.Equal(ids, []string{"%1"}) {
		t.Errorf("after output in %%1: %v, full %v; want %%1 only", ids, full)
	}
	// A request handed over (Request) is no output: the next listing lists every pane, the
	// request among them, the one after it what changed again.
	l.request("%0", "resume 1", 2)
	s.Tmux(t, "set-option", "-p", "-u", "-t", "%0", tmuxctl.RequestOption)
	if ids, full := l.list(quiet(t)); full || len(ids) != 0 {
		t.Errorf("after the request was withdrawn: %v, full %v; want nothing, not full", ids, full)
	}

	// Changes tmux notifies: the next listing lists every pane, the one after it what changed.
	s.Tmux(t, "new-session", "-d", "-s", "other", "-x", "100", "-y", "30", "cat")
	for _, c := range []struct {
		what string
		args [][]string
	}{
		{"a new session", nil}, // made above
		{"a window in another session", [][]string{{"new-window", "-d", "-t", "other:", "cat"}}},
		{"a session renamed", [][]string{{"rename-session", "-t", "other", "renamed"}}},
		{"a pane split in the connection's session", [][]string{{"split-window", "-d", "-t", "main:0", "cat"}}},
		{"a pane split and made active in another session", [][]string{{"split-window", "-t", "renamed:0", "cat"}}},
		{"a pane moved to another window", [][]string{{"join-pane", "-d", "-s", "renamed:0.1", "-t", "main:1"}}},
		{"a window linked into a second session", [][]string{{"link-window", "-d", "-s", "main:1", "-t", "renamed:7"}}},
		{"a window unlinked", [][]string{{"unlink-window", "-t", "renamed:7"}}},
		{"a pane in copy mode", [][]string{{"copy-mode", "-t", "%0"}}},
		{"another active pane", [][]string{{"select-pane", "-t", "main:0.1"}}},
		{"a session closed", [][]string{{"kill-session", "-t", "renamed"}}},
	} {
		for _, a := range c.args {
			s.Tmux(t, a...)
		}
		want := strings.Fields(s.Tmux(t, "list-panes", "-a", "-F", "#{pane_id}"))
		slices.Sort(want)
		want = slices.Compact(want)
		var ids []string
		var full bool
		tmuxtest.WaitFor(t, 5*time.Second, "a full listing after "+c.what, func() bool {
			ids, full = l.list(quiet(t))
			return full
		})
		if !slices.Equal(ids, want) {
			t.Errorf("after %s: listed %v, want %v", c.what, ids, want)
		}
		if ids, full := l.list(quiet(t)); full || len(ids) != 0 {
			t.Errorf("after %s and a full listing: %v, full %v; want nothing, not full", c.what, ids, full)
		}
	}

	// The connection dropped and made again: every pane, with the new connection's mark.
	old := l.mark
	s.Tmux(t, "detach-client", "-s", "main")
	tmuxtest.WaitFor(t, 5*time.Second, "a full listing over a new connection", func() bool {
		_, full = l.list(quiet(t))
		return full && l.mark != (tmuxctl.Mark{}) && l.mark.Conn != old.Conn
	})
	if ids, full := l.list(quiet(t)); full || len(ids) != 0 {
		t.Errorf("on the new connection: %v, full %v; want nothing, not full", ids, full)
	}
}

// TestListChangesServerRestart: a server killed and started again on the same socket is
// listed in full, and only what changes after that is listed then.
func TestListChangesServerRestart(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 100, 30, "cat")
	s.Connect(t)
	l := &lister{t: t, c: s.Client}
	l.list(time.Time{})
	l.list(quiet(t))
	s.KillServer(t)
	if _, _, _, err := s.Client.ListChanges(context.Background(), tmuxctl.Search{Since: quiet(t)}, l.mark); !errors.Is(err, tmuxctl.ErrNoServer) && !errors.Is(err, tmuxctl.ErrClosed) {
		t.Fatalf("ListChanges with no server: %v, want ErrNoServer or ErrClosed", err)
	}
	conf := s.Dir + "/tmux.conf"
	if _, err := (&tmuxctl.Client{SocketPath: s.Socket}).Run(context.Background(), "-f", conf, "new-session", "-d", "-s", "again", "cat"); err != nil {
		t.Fatal(err)
	}
	var ids []string
	var full bool
	tmuxtest.WaitFor(t, 5*time.Second, "a full listing of the new server", func() bool {
		panes, f, mark, err := s.Client.ListChanges(context.Background(), tmuxctl.Search{Since: quiet(t)}, l.mark)
		if err != nil {
			return false
		}
		l.mark, full, ids = mark, f, nil
		for _, p := range panes {
			ids = append(ids, p.ID)
		}
		return full && mark != (tmuxctl.Mark{})
	})
	if len(ids) != 1 {
		t.Errorf("the new server listed %v, want its one pane", ids)
	}
	if ids, full := l.list(quiet(t)); full || len(ids) != 0 {
		t.Errorf("the new server, quiet: %v, full %v; want nothing, not full", ids, full)
	}
}

// TestListChangesExec: without a control connection nothing is notified: every listing is
// full, with the zero Mark.
func TestListChangesExec(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 100, 30, "cat")
	l := &lister{t: t, c: s.Client}
	for i := range 2 {
		if ids, full := l.list(quiet(t)); !full || len(ids) != 1 || l.mark != (tmuxctl.Mark{}) {
			t.Errorf("listing %d by exec: %v, full %v, mark %+v; want %%0, full, the zero mark", i, ids, full, l.mark)
		}
	}
}

// TestCaptures: several captures in one go give each pane's screen, as Capture (or
// CaptureStyled, for a styled shot) does, in order; a pane that is gone gets its own
// ErrNoTarget, and the panes after it are captured. Over control mode (more than one command
// line: more panes than a line takes) and by exec.
func TestCaptures(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"control", "exec"} {
		t.Run(transport, func(t *testing.T) {
			s := tmuxtest.Start(t, 100, 30, "cat")
			if transport == "control" {
				s.Connect(t)
			}
			var panes []string
			for i := range 40 {
				out := s.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_id}", `printf '\033[2mdim\033[0m '; exec cat`)
				id := strings.TrimSpace(out)
				s.Tmux(t, "send-keys", "-t", id, "-l", fmt.Sprintf("screen %d %%end 1 2 3", i))
				panes = append(panes, id)
			}
			s.Tmux(t, "kill-pane", "-t", panes[5])
			s.Tmux(t, "kill-pane", "-t", panes[39])
			ask := append(shots(panes), tmuxctl.Shot{Pane: "%999"})
			for i := range ask {
				ask[i].Styled = i%2 == 1
			}
			for i, id := range panes {
				if i != 5 && i != 39 {
					s.WaitScreen(t, id, fmt.Sprintf("screen %d %%end 1 2 3", i))
				}
			}
			got, err := s.Client.Captures(context.Background(), ask)
			if err != nil || len(got) != len(ask) {
				t.Fatalf("Captures = %d screens, %v; want %d", len(got), err, len(ask))
			}
			for i, sc := range got {
				if sc.Pane != ask[i].Pane {
					t.Errorf("screen %d is of %s, want %s", i, sc.Pane, ask[i].Pane)
					continue
				}
				if i == 5 || i >= 39 {
					if !errors.Is(sc.Err, tmuxctl.ErrNoTarget) {
						t.Errorf("screen of %s (gone) = %q, %v; want ErrNoTarget", sc.Pane, sc.Text, sc.Err)
					}
					continue
				}
				capture := s.Client.Capture
				if ask[i].Styled {
					capture = s.Client.CaptureStyled
				}
				want, err := capture(context.Background(), sc.Pane)
				if sc.Err != nil || err != nil || sc.Text != want || strings.Contains(want, "\x1b[2m") != ask[i].Styled {
					t.Errorf("screen of %s (styled %v) = %q, %v; a capture alone says %q, %v", sc.Pane, ask[i].Styled, sc.Text, sc.Err, want, err)
				}
			}
		})
	}
}

// shots are plain shots of the panes.
func shots(panes []string) []tmuxctl.Shot {
	out := make([]tmuxctl.Shot, len(panes))
	for i, p := range panes {
		out[i] = tmuxctl.Shot{Pane: p}
	}
	return out
}
