//go:build linux

package watcher_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/internal/syncbuf"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// claudeBin is the fake Claude Code (internal/fakeclaude), built by TestMain under the name
// "claude" so that the watcher recognises it through /proc like the real one.
var claudeBin string

func TestMain(m *testing.M) {
	tmuxtest.MainBuilding(m, func(dir string) error {
		claudeBin = filepath.Join(dir, "claude")
		return tmuxtest.GoBuild(claudeBin, "../internal/fakeclaude")
	})
}

// patience bounds every wait: generous, since a loaded CI machine can be slow and a passing
// test never waits for it.
const patience = 20 * time.Second

// testSchedule is a fast schedule: the same rules as the default, in seconds.
var testSchedule = scheduler.Config{
	Margin:      time.Second,
	NativeGrace: 2 * time.Second,
	Stagger:     300 * time.Millisecond,
	SameReset:   time.Minute,
	RetryBase:   500 * time.Millisecond,
	RetryMax:    2 * time.Second,
	MaxAttempts: 3,
}

// world is one private tmux server with fake Claude Code panes and a watcher running on it
// in this process. The watcher's clock runs ahead of the real one by an offset, so that a
// reset printed to the minute ("resets 7:31pm") lies a few seconds ahead of the watcher's now
// without the test waiting for a real minute to pass. The fakes run on real time.
//
// The lead is the time from the watcher's first look to the reset, whatever the setup took: the
// clock stands still at lead before the reset from start until the watcher's first tick has
// ended (on a loaded machine, starting the fakes and the watcher's first tick took over two
// seconds, and a test of a two-second lead found the reset already passed).
type world struct {
	t      *testing.T
	s      *tmuxtest.Server
	reset  time.Time // the printed reset, on the watcher's clock: a whole minute
	lead   time.Duration
	offset atomic.Int64
	held   atomic.Bool // the clock stands at reset - lead (start, until the first tick ends)
	w      *watcher.Watcher
	tmux   *tmuxctl.Client // the watcher's
	logs   *syncbuf.Buffer
	mu     sync.Mutex
	rows   []watcher.Row
	stop   func()
	// afterText, when set, runs in the watcher's goroutine right after each text it types
	// reaches the pane: a test changes the pane there, deterministically, between the text
	// and the look before its Enter.
	afterText func(pane, text string)
}

// hookTmux is the watcher's tmux client with the world's afterText hook.
type hookTmux struct {
	*tmuxctl.Client
	wd *world
}

func (h hookTmux) SendLiteral(ctx context.Context, pane, text string) error {
	err := h.Client.SendLiteral(ctx, pane, text)
	if f := h.wd.afterText; err == nil && f != nil {
		f(pane, text)
	}
	return err
}

// newWorld starts a private server whose first pane runs sh (a spare pane) and sets the
// watcher's clock so that the reset (a whole minute) is lead ahead.
func newWorld(t *testing.T, lead time.Duration) *world {
	t.Parallel()
	wd := &world{t: t, s: tmuxtest.Start(t, 120, 40), logs: &syncbuf.Buffer{}, lead: lead}
	now := time.Now()
	wd.reset = now.Truncate(time.Minute).Add(2 * time.Minute).UTC()
	wd.offset.Store(int64(wd.reset.Sub(now.Add(lead))))
	return wd
}

// now is the watcher's clock.
func (wd *world) now() time.Time {
	if wd.held.Load() {
		return wd.reset.Add(-wd.lead)
	}
	return time.Now().Add(time.Duration(wd.offset.Load()))
}

// hold stops the watcher's clock at lead before the reset.
func (wd *world) hold() { wd.held.Store(true) }

// release lets the watcher's clock run on from where hold stopped it.
func (wd *world) release() {
	if wd.held.Load() {
		wd.offset.Store(int64(wd.reset.Add(-wd.lead).Sub(time.Now())))
		wd.held.Store(false)
	}
}

// Now, NewTimer and Sleep make the world the watcher's clock.Clock: real time, ahead by the
// offset.
func (wd *world) Now() time.Time                                   { return wd.now() }
func (wd *world) NewTimer(d time.Duration) clock.Timer             { return clock.Real.NewTimer(d) }
func (wd *world) Sleep(ctx context.Context, d time.Duration) error { return clock.Real.Sleep(ctx, d) }

// jump moves the watcher's clock forward, as after a suspend.
func (wd *world) jump(d time.Duration) { wd.offset.Add(int64(d)) }

// real converts an instant on the watcher's clock to the real clock.
func (wd *world) real(t time.Time) time.Time { return t.Add(-time.Duration(wd.offset.Load())) }

// fake is one fake Claude Code pane.
type fake struct {
	wd   *world
	pane string
	log  string
}

// claude opens a window running the fake Claude Code with args; through sh -c when wrap is
// set (a wrapper, and a shell left behind when it exits).
func (wd *world) claude(wrap bool, args ...string) *fake {
	wd.t.Helper()
	return wd.claudeIn(nil, wrap, args...)
}

// claudeIn is claude with environment variables ("NAME=value") for the fake's process.
func (wd *world) claudeIn(env []string, wrap bool, args ...string) *fake {
	wd.t.Helper()
	log := filepath.Join(wd.s.Dir, fmt.Sprintf("claude%d.log", time.Now().UnixNano()))
	// Prompts hit the limit again until the reset on the real clock.
	argv := append([]string{claudeBin, "--log", log, "--reset", wd.reset.Format(time.RFC3339),
		"--limit-until", wd.real(wd.reset).Format(time.RFC3339Nano)}, args...)
	cmd := argv
	if wrap {
		quoted := make([]string, len(argv))
		for i, a := range argv {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		cmd = []string{"sh", "-c", strings.Join(quoted, " ") + "; exec sh"}
	}
	nw := []string{"new-window", "-d", "-P", "-F", "#{pane_id}"}
	for _, e := range env {
		nw = append(nw, "-e", e)
	}
	out := wd.s.Tmux(wd.t, append(nw, cmd...)...)
	f := &fake{wd: wd, pane: strings.TrimSpace(out), log: log}
	f.waitState("started", func(s []string) bool { return len(s) > 0 })
	return f
}

// start runs the watcher until the test ends.
func (wd *world) start(mod func(*watcher.Config)) {
	cfg := watcher.Config{
		Interval: 100 * time.Millisecond,
		Schedule: testSchedule,
		Pause:    150 * time.Millisecond,
		Settle:   600 * time.Millisecond,
		Clock:    wd,
		Log:      zerolog.New(wd.logs).With().Timestamp().Logger(),
	}
	if mod != nil {
		mod(&cfg)
	}
	// The watcher's tmux commands go over a control-mode client, as `cac-tmux watch`'s do by
	// default; the test's own go by exec.
	wd.tmux = &tmuxctl.Client{SocketPath: wd.s.Socket}
	wd.tmux.Connect(nil)
	wd.t.Cleanup(func() { wd.tmux.Close() })
	wd.w = watcher.New(hookTmux{wd.tmux, wd}, &proc.Finder{}, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	wd.hold()
	go func() {
		defer close(done)
		wd.w.Run(ctx, func(rows []watcher.Row) {
			wd.release() // after the first tick
			wd.mu.Lock()
			wd.rows = rows
			wd.mu.Unlock()
		})
	}()
	wd.stop = func() { cancel(); <-done }
	wd.t.Cleanup(func() {
		wd.stop()
		if wd.t.Failed() {
			wd.t.Logf("watcher log:\n%s", wd.logs.String())
		}
	})
}

// row is the watcher's row for a pane after its last tick (ok false when not supervised).
func (wd *world) row(pane string) (watcher.Row, bool) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	for _, r := range wd.rows {
		if r.Pane == pane {
			return r, true
		}
	}
	return watcher.Row{}, false
}

// waitRow waits until the watcher's row for the pane satisfies cond.
func (wd *world) waitRow(pane, what string, cond func(watcher.Row, bool) bool) watcher.Row {
	wd.t.Helper()
	var r watcher.Row
	var ok bool
	tmuxtest.WaitFor(wd.t, patience, what, func() bool {
		r, ok = wd.row(pane)
		return cond(r, ok)
	})
	return r
}

// waitState waits for the pane's row to be in state s.
func (wd *world) waitState(pane string, s watcher.State) watcher.Row {
	wd.t.Helper()
	return wd.waitRow(pane, fmt.Sprintf("pane %s in state %s", pane, s), func(r watcher.Row, ok bool) bool { return ok && r.State == s })
}

// waitUntil waits until the watcher's clock reaches t and then a few more ticks pass, so
// that anything due at t has happened.
func (wd *world) waitUntil(t time.Time) {
	wd.t.Helper()
	t = t.Add(500 * time.Millisecond)
	tmuxtest.WaitFor(wd.t, patience, "the watcher's clock to reach "+t.Format(time.TimeOnly), func() bool { return !wd.now().Before(t) })
}

// input is one read(2) of the fake's terminal.
type input struct {
	at    time.Time // real clock
	bytes string
}

// read returns the fake's inputs and states so far.
func (f *fake) read() (ins []input, states []string) {
	f.wd.t.Helper()
	file, err := os.Open(f.log)
	if err != nil {
		return nil, nil
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		line := sc.Text()
		if s, ok := strings.CutPrefix(line, "# state "); ok {
			states = append(states, s)
			continue
		}
		ts, q, ok := strings.Cut(line, "\t")
		at, err1 := time.Parse(time.RFC3339Nano, ts)
		b, err2 := strconv.Unquote(q)
		if !ok || err1 != nil || err2 != nil {
			f.wd.t.Fatalf("fake log %s: unreadable line %q", f.log, line)
		}
		ins = append(ins, input{at, b})
	}
	return ins, states
}

// inputs returns the bytes of every read, in order.
func (f *fake) inputs() []string {
	ins, _ := f.read()
	out := make([]string, len(ins))
	for i, in := range ins {
		out[i] = in.bytes
	}
	return out
}

// waitState waits until the fake's states satisfy cond.
func (f *fake) waitState(what string, cond func([]string) bool) {
	f.wd.t.Helper()
	tmuxtest.WaitFor(f.wd.t, patience, "fake claude in "+f.pane+": "+what, func() bool {
		_, s := f.read()
		return cond(s)
	})
}

// reached waits until the fake logged state s.
func (f *fake) reached(s string) {
	f.wd.t.Helper()
	f.waitState("state "+s, func(states []string) bool {
		for _, x := range states {
			if x == s {
				return true
			}
		}
		return false
	})
}
