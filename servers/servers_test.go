package servers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/internal/syncbuf"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// fakes are the servers a test says are there and the supervisors it runs: each supervisor
// runs until its context ends, or returns fail[socket] at once when set.
type fakes struct {
	mu      sync.Mutex
	here    []string
	fail    map[string]error
	hang    map[string]chan struct{} // a supervisor that ignores its context until this closes
	starts  map[string]int
	stopped chan string // a supervisor whose context ended
}

func newFakes(here ...string) *fakes {
	return &fakes{here: here, fail: map[string]error{}, hang: map[string]chan struct{}{}, starts: map[string]int{}, stopped: make(chan string, 16)}
}

func (f *fakes) set(here ...string) { f.mu.Lock(); f.here = here; f.mu.Unlock() }

func (f *fakes) find() ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.here), nil
}

func (f *fakes) watch(ctx context.Context, socket string) error {
	f.mu.Lock()
	f.starts[socket]++
	err, hang := f.fail[socket], f.hang[socket]
	f.mu.Unlock()
	if err != nil {
		return err
	}
	if hang != nil {
		<-hang
		return nil
	}
	<-ctx.Done()
	f.stopped <- socket
	return nil
}

func (f *fakes) startsOf(socket string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts[socket]
}

// newRun is a run on a manual clock, driven by the test one look and one end at a time.
func newRun(f *fakes) (*run, *clocktest.Manual) {
	clk := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	cfg := Config{Find: f.find, Watch: f.watch, Clock: clk, Log: zerolog.Nop()}.withDefaults()
	return &run{cfg: cfg, servers: map[string]*server{}, ended: make(chan ended), gaveUp: make(chan struct{})}, clk
}

func (r *run) supervised(socket string) bool {
	s := r.servers[socket]
	return s != nil && s.cancel != nil
}

// awaitEnd takes the next end of a supervisor, as Run does, within a deadline.
func awaitEnd(t *testing.T, r *run) ended {
	t.Helper()
	select {
	case e := <-r.ended:
		r.end(e)
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("no supervisor ended within 10s")
		return ended{}
	}
}

// Servers appearing get a supervisor each, once; a server that goes away has its supervisor
// stopped; when it comes back it is supervised again at once.
func TestAppearAndGo(t *testing.T) {
	f := newFakes("/s/a")
	r, _ := newRun(f)
	ctx := t.Context()
	r.look(ctx)
	f.set("/s/a", "/s/b")
	r.look(ctx)
	r.look(ctx)
	if !r.supervised("/s/a") || !r.supervised("/s/b") || r.running != 2 {
		t.Fatalf("after a and b appeared: a %v, b %v, %d running; want both, 2", r.supervised("/s/a"), r.supervised("/s/b"), r.running)
	}
	f.set("/s/b")
	r.look(ctx)
	if e := awaitEnd(t, r); e.socket != "/s/a" || e.err != nil {
		t.Errorf("end = %+v, want a's, without error", e)
	}
	if got := <-f.stopped; got != "/s/a" {
		t.Errorf("stopped %s, want /s/a", got)
	}
	r.look(ctx)
	if _, ok := r.servers["/s/a"]; ok || !r.supervised("/s/b") {
		t.Errorf("a gone: a still known %v, b supervised %v", ok, r.supervised("/s/b"))
	}
	f.set("/s/a", "/s/b")
	r.look(ctx)
	if !r.supervised("/s/a") {
		t.Error("a came back and is not supervised")
	}
	r.stopAll()
	if f.startsOf("/s/a") != 2 || f.startsOf("/s/b") != 1 || r.running != 0 {
		t.Errorf("starts a %d, b %d, running %d; want 2, 1, 0", f.startsOf("/s/a"), f.startsOf("/s/b"), r.running)
	}
}

// A supervisor that ends while its server is still there (another watcher holds it) is
// started again only after its pause, which doubles each time up to MaxRetry; the other
// server is supervised throughout.
func TestRetryPauses(t *testing.T) {
	f := newFakes("/s/held", "/s/ok")
	f.fail["/s/held"] = errors.New("another watcher supervises the server")
	r, clk := newRun(f)
	r.cfg.Retry, r.cfg.MaxRetry = 10*time.Second, 25*time.Second
	ctx := t.Context()
	var at []time.Duration // when held was started, from the first look
	start := clk.Now()
	for step := 0; step <= 80; step++ { // 80 s in steps of 1 s
		before := f.startsOf("/s/held")
		r.look(ctx)
		if r.supervised("/s/held") {
			at = append(at, clk.Now().Sub(start))
			awaitEnd(t, r)
			if f.startsOf("/s/held") != before+1 {
				t.Fatalf("held started %d times at once", f.startsOf("/s/held")-before)
			}
		}
		if !r.supervised("/s/ok") {
			t.Fatalf("ok not supervised at %s", clk.Now().Sub(start))
		}
		clk.Add(time.Second)
	}
	want := []time.Duration{0, 10 * time.Second, 30 * time.Second, 55 * time.Second, 80 * time.Second}
	if !slices.Equal(at, want) {
		t.Errorf("held started at %v, want %v", at, want)
	}
	r.stopAll()
}

// Run supervises the servers concurrently until its context ends, then stops every supervisor
// and returns only once all have returned.
func TestRunStopsAll(t *testing.T) {
	f := newFakes("/s/a", "/s/b")
	clk := clocktest.New(time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		Run(ctx, Config{Find: f.find, Watch: f.watch, Clock: clk, Log: zerolog.Nop()})
		close(done)
	}()
	tmuxtest.WaitFor(t, 10*time.Second, "a and b both supervised", func() bool {
		return f.startsOf("/s/a") > 0 && f.startsOf("/s/b") > 0
	})
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its context's end")
	}
	if len(f.stopped) != 2 {
		t.Errorf("%d supervisors saw their context end, want 2", len(f.stopped))
	}
}

// A supervisor stuck in a call that ignores its context does not keep Run from returning:
// stopAll waits StopWait for it, names its server in the log and returns; the other
// supervisors have stopped.
func TestStopAllLeavesAStuckSupervisor(t *testing.T) {
	f := newFakes("/s/ok", "/s/stuck")
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	f.hang["/s/stuck"] = release
	r, clk := newRun(f)
	var logs syncbuf.Buffer
	r.cfg.Log = zerolog.New(&logs)
	r.look(t.Context())
	tmuxtest.WaitFor(t, 10*time.Second, "both supervisors started", func() bool {
		return f.startsOf("/s/ok") > 0 && f.startsOf("/s/stuck") > 0
	})
	done := make(chan struct{})
	go func() {
		r.stopAll()
		close(done)
	}()
	tmuxtest.WaitFor(t, 10*time.Second, "stopAll to wait on its timer", func() bool { return clk.Timers() > 0 })
	clk.Add(DefaultStopWait)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("stopAll did not return within 10s after StopWait passed on its clock")
	}
	if got := <-f.stopped; got != "/s/ok" {
		t.Errorf("stopped %s, want /s/ok", got)
	}
	if !strings.Contains(logs.String(), `"/s/stuck"]`) || !strings.Contains(logs.String(), "did not stop") {
		t.Errorf("log = %s, want the stuck server named", logs.String())
	}
}
