package accounts

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/internal/syncbuf"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// lockedSwitch stands for Switch and its lock: a call while another one runs is refused as a
// switch of another process is (errBusy); each call that gets the lock says so on started and
// holds it until the test sends on release. busy makes the first calls refused so as well.
type lockedSwitch struct {
	mu       sync.Mutex
	running  bool
	busy     int      // calls still refused as busy
	calls    []string // every call's pane, in order
	overlaps int      // calls made while another one ran
	started  chan string
	release  chan struct{}
}

func newLockedSwitch() *lockedSwitch {
	return &lockedSwitch{started: make(chan string, 16), release: make(chan struct{})}
}

func (l *lockedSwitch) Switch(ctx context.Context, pane string) (Switched, error) {
	l.mu.Lock()
	l.calls = append(l.calls, pane)
	if l.running || l.busy > 0 {
		if l.running {
			l.overlaps++
		}
		l.busy = max(l.busy-1, 0)
		l.mu.Unlock()
		return Switched{}, &refusedError{Target: pane, Reason: "another cac-tmux switch (pid 1) runs; try again when it ends", Err: errBusy}
	}
	l.running = true
	l.mu.Unlock()
	l.started <- pane
	select {
	case <-l.release:
	case <-ctx.Done():
	}
	l.mu.Lock()
	l.running = false
	l.mu.Unlock()
	return Switched{Account: Account{Name: "~/.claude-b"}, Session: "s-" + pane}, nil
}

// next waits for the switch of the next pane to start, and says which.
func (l *lockedSwitch) next(t *testing.T) string {
	t.Helper()
	select {
	case p := <-l.started:
		return p
	case <-time.After(tmuxtest.Scale(10 * time.Second)):
		t.Fatal("no switch started in 10 s")
		return ""
	}
}

// wait waits for every switch of a to end.
func wait(t *testing.T, a *Auto) {
	t.Helper()
	done := make(chan struct{})
	go func() { a.wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(tmuxtest.Scale(10 * time.Second)):
		t.Fatal("a switch still runs after 10 s")
	}
}

type discard struct{}

func (discard) Send(notify.Event) {}

func newAuto(t *testing.T, l *lockedSwitch, clk *clocktest.Manual) (*Auto, *syncbuf.Buffer) {
	ctx, cancel := context.WithCancel(context.Background())
	var log syncbuf.Buffer
	a := &Auto{Next: discard{}, Switch: l.Switch, Clock: clk, Ctx: ctx, Log: zerolog.New(&log)}
	t.Cleanup(func() { cancel(); a.wait() })
	return a, &log
}

// TestAutoQueuesStops: six sessions stop at once; each is switched, one at a time, in the
// order they stopped, none refused by the switch before it; a pane told of again while it
// waits or is being switched is switched once.
func TestAutoQueuesStops(t *testing.T) {
	t.Parallel()
	l := newLockedSwitch()
	a, log := newAuto(t, l, clocktest.New(now))
	panes := []string{"%1", "%2", "%3", "%4", "%5", "%6"}
	for _, p := range panes {
		a.Send(notify.Event{Kind: notify.Stopped, Pane: p})
	}
	a.Send(notify.Event{Kind: notify.Again, Pane: "%3"})
	a.Send(notify.Event{Kind: notify.Resumed, Pane: "%7"})
	a.Send(notify.Event{Kind: notify.Stopped, Pane: "%8", Agent: agent.Codex}) // switch moves Claude Code only
	var got []string
	for range panes {
		got = append(got, l.next(t))
		a.Send(notify.Event{Kind: notify.Again, Pane: got[len(got)-1]})
		l.release <- struct{}{}
	}
	wait(t, a)
	if !slices.Equal(got, panes) || !slices.Equal(l.calls, panes) || l.overlaps > 0 {
		t.Errorf("switched %q (calls %q, %d while another ran), want each of %q once, one at a time", got, l.calls, l.overlaps, panes)
	}
	if n := strings.Count(log.String(), `"message":"switched to another account"`); n != len(panes) {
		t.Errorf("%d switches logged, want %d:\n%s", n, len(panes), log)
	}
}

// TestAutoWaitsForAnotherSwitch: a switch refused because another process's switch runs is
// tried again once the clock has moved on, before the next pane, and logged once meanwhile.
func TestAutoWaitsForAnotherSwitch(t *testing.T) {
	t.Parallel()
	l := newLockedSwitch()
	l.busy = 2
	clk := clocktest.New(now)
	a, log := newAuto(t, l, clk)
	a.Queue("%1", "%2")
	for range 2 {
		tmuxtest.WaitFor(t, 10*time.Second, "the switch of %1 to wait for the other switch", func() bool { return clk.Timers() == 1 })
		clk.Add(busyRetry)
	}
	if p := l.next(t); p != "%1" {
		t.Fatalf("switched %s first, want %%1 once the other switch ended", p)
	}
	l.release <- struct{}{}
	if p := l.next(t); p != "%2" {
		t.Fatalf("switched %s next, want %%2", p)
	}
	l.release <- struct{}{}
	wait(t, a)
	if want := []string{"%1", "%1", "%1", "%2"}; !slices.Equal(l.calls, want) {
		t.Errorf("calls %q, want %q", l.calls, want)
	}
	if n := strings.Count(log.String(), "waiting for another switch"); n != 1 {
		t.Errorf("the wait is logged %d times, want once:\n%s", n, log)
	}
}

// [accounts] auto on one watcher: the stops of the state file are queued first and every
// event goes on; without accounts (HOME not absolute) the notifier is the next one, and the
// log says sessions are not switched.
func TestAutoOf(t *testing.T) {
	w := newSwitchWorld(t)
	logs := &syncbuf.Buffer{}
	next := &kinds{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := w.cfg
	cfg.Accounts = nil
	n := AutoOf(ctx, []string{"~/acct-a", "~/acct-b"}, cfg, next, func() ([]string, error) { return []string{"%9"}, nil }, zerolog.New(logs))
	a, ok := n.(*Auto)
	if !ok {
		t.Fatalf("AutoOf = %T, want *Auto", n)
	}
	a.wait()
	if !strings.Contains(logs.String(), `"pane":"%9"`) || len(a.queue) != 0 {
		t.Errorf("the restored stop of %%9 was not switched (log %s, queue %q)", logs, a.queue)
	}
	a.Send(notify.Event{Kind: notify.Resumed, Pane: "%1"})
	if got := next.got; !slices.Equal(got, []notify.EventKind{notify.Resumed}) {
		t.Errorf("events passed on = %q, want the one resume", got)
	}

	cfg.Getenv = func(string) string { return "" }
	if n := AutoOf(ctx, []string{"~/acct-a", "~/acct-b"}, cfg, next, nil, zerolog.New(logs)); n != next {
		t.Errorf("AutoOf without HOME = %T, want the next notifier", n)
	}
	if !strings.Contains(logs.String(), "sessions that stop are not switched to another account") {
		t.Errorf("the log does not say sessions are not switched:\n%s", logs)
	}
}

// kinds keeps the kind of each event it is sent.
type kinds struct{ got []notify.EventKind }

func (k *kinds) Send(e notify.Event) { k.got = append(k.got, e.Kind) }
