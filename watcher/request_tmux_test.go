//go:build linux

package watcher_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/internal/syncbuf"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// The client half of the @cac_request protocol (Ask) on a private tmux server, with this test
// in the watcher's place: it holds the server's lock and answers in @cac_reply by hand. The
// commands' tests (cmd/cac-tmux, resume_test.go) run it against a real watcher.

// asker is a private server with one pane, and what Ask needs there.
type asker struct {
	s      *tmuxtest.Server
	server string // the socket, as the locks name it
	pane   string
	cfg    watcher.AskConfig
	notes  *syncbuf.Buffer // Ask writes its notices while the test reads them
}

func newAsker(t *testing.T) *asker {
	t.Helper()
	s := tmuxtest.Start(t, 80, 24, "sleep", "600")
	server, err := s.Client.SocketFileHere()
	if err != nil {
		t.Fatal(err)
	}
	notes := &syncbuf.Buffer{}
	cfg := watcher.AskConfig{Getenv: envIn(t.TempDir()), Finder: claudeIn{}, Notices: notes,
		Settings: func(context.Context) (watcher.Config, error) {
			return watcher.Config{}, errors.New("no watcher's settings are read while a watcher runs")
		}}
	return &asker{s: s, server: server, pane: strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", "main:0.0", "#{pane_id}")), cfg: cfg, notes: notes}
}

// asked is what Ask returned.
type asked struct {
	out watcher.Outcome
	err error
}

// ask runs Ask in the background; what it returns comes on the channel.
func (a *asker) ask(act watcher.Action) <-chan asked {
	done := make(chan asked, 1)
	go func() {
		out, err := watcher.Ask(context.Background(), a.s.Client, a.pane, act, a.cfg)
		done <- asked{out, err}
	}()
	return done
}

// request waits for the request Ask hands over and returns its nonce.
func (a *asker) request(t *testing.T, act watcher.Action) string {
	t.Helper()
	var v string
	tmuxtest.WaitFor(t, 10*time.Second, "the request in @cac_request", func() bool {
		v = paneOpt(t, a.s, a.pane, "@cac_request")
		return v != ""
	})
	nonce, ok := strings.CutPrefix(v, string(act)+" ")
	if !ok {
		t.Fatalf("@cac_request = %q, want %q and a nonce", v, act)
	}
	return nonce
}

func paneOpt(t *testing.T, s *tmuxtest.Server, pane, name string) string {
	t.Helper()
	return strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{"+name+"}"))
}

// outcome waits for what Ask returned.
func outcome(t *testing.T, done <-chan asked) asked {
	t.Helper()
	select {
	case got := <-done:
		return got
	case <-time.After(tmuxtest.Scale(20 * time.Second)):
		t.Fatal("Ask did not return")
	}
	return asked{}
}

// A running watcher (it holds the server's lock) is handed the request; Ask waits for its
// answer, then for a resume's outcome, and says what it waits for.
func TestAskHandsOver(t *testing.T) {
	a := newAsker(t)
	_, lock, err := store.Open(a.cfg.Getenv, a.server, false) // as the watcher does
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	done := a.ask(watcher.ResumeNow)
	nonce := a.request(t, watcher.ResumeNow)
	a.s.Tmux(t, "set-option", "-p", "-t", a.pane, "@cac_reply", nonce+" sent keys sent to main:0.0; looking for a resumed turn")
	tmuxtest.WaitFor(t, 10*time.Second, "Ask to wait for the outcome", func() bool {
		return strings.Contains(a.notes.String(), "waiting for the watcher to see the outcome")
	})
	a.s.Tmux(t, "set-option", "-p", "-t", a.pane, "@cac_reply", nonce+" ok resumed: a turn runs in main:0.0")
	if got := outcome(t, done); got.err != nil || got.out != (watcher.Outcome{Done: true, Message: "resumed: a turn runs in main:0.0"}) {
		t.Errorf("Ask = %+v; want the resumed turn the watcher saw", got)
	}
	if want := "handed to the running watcher (pid " + strconv.Itoa(os.Getpid()) + ")"; !strings.Contains(a.notes.String(), want) {
		t.Errorf("notices = %q; want %q", a.notes.String(), want)
	}
}

// A watcher that stops before it takes the request: the request is withdrawn, nothing sent.
func TestAskWatcherGone(t *testing.T) {
	a := newAsker(t)
	_, lock, err := store.Open(a.cfg.Getenv, a.server, false)
	if err != nil {
		t.Fatal(err)
	}
	done := a.ask(watcher.Skip)
	a.request(t, watcher.Skip)
	lock.Release()
	if got := outcome(t, done); got.err == nil || !strings.Contains(got.err.Error(), "did not take the request before it stopped; it is withdrawn, and nothing was sent") {
		t.Errorf("Ask = %+v; want the request withdrawn", got)
	}
	if v := paneOpt(t, a.s, a.pane, "@cac_request"); v != "" {
		t.Errorf("@cac_request after the watcher stopped = %q, want it withdrawn", v)
	}
}

// The wait for the running watcher's answer runs on Ask's clock: a watcher that takes no
// request is given up after 75 s of that clock, however little real time has passed.
func TestAskNoAnswerOnItsClock(t *testing.T) {
	a := newAsker(t)
	_, lock, err := store.Open(a.cfg.Getenv, a.server, false) // a watcher runs, and answers nothing
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	clk := clocktest.New(time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC))
	clk.AutoSleep = true
	a.cfg.Clock = clk
	done := a.ask(watcher.Skip)
	if got := outcome(t, done); got.err == nil || !strings.Contains(got.err.Error(), "did not take the request within 1m15s; it is withdrawn, and nothing was sent") {
		t.Errorf("Ask = %+v; want the request withdrawn after 1m15s", got)
	}
	if v := paneOpt(t, a.s, a.pane, "@cac_request"); v != "" {
		t.Errorf("@cac_request after no answer = %q, want it withdrawn", v)
	}
}

// While another command acts on the pane (it holds the pane's lock), Ask is refused at once.
func TestAskInProgress(t *testing.T) {
	a := newAsker(t)
	busy, err := store.LockPane(a.cfg.Getenv, a.server, a.pane)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Release()
	want := watcher.Outcome{Message: "a resume, skip or unskip of " + a.pane + " is already in progress in another cac-tmux command (pid " +
		strconv.Itoa(os.Getpid()) + "), which reports its outcome; nothing was sent"}
	if got := outcome(t, a.ask(watcher.ResumeNow)); got.err != nil || got.out != want {
		t.Errorf("Ask = %+v; want %+v", got, want)
	}
	if v := paneOpt(t, a.s, a.pane, "@cac_request"); v != "" {
		t.Errorf("@cac_request = %q, want no request", v)
	}
}

// Without a watcher Ask acts itself with the watcher's code and the command's settings,
// holding the server's lock, and lets both locks go.
func TestAskWithoutWatcher(t *testing.T) {
	a := newAsker(t)
	read := false
	a.cfg.Settings = func(context.Context) (watcher.Config, error) { read = true; return watcher.Config{}, nil }
	want := watcher.Outcome{Message: "pane " + a.pane + " does not run Claude Code"}
	if got := outcome(t, a.ask(watcher.ResumeNow)); got.err != nil || got.out != want || !read {
		t.Errorf("Ask = %+v (settings read: %v); want %+v, with the settings read", got, read, want)
	}
	for _, lock := range []func() (*store.Lock, error){
		func() (*store.Lock, error) { return store.LockPane(a.cfg.Getenv, a.server, a.pane) },
		func() (*store.Lock, error) { _, l, err := store.Open(a.cfg.Getenv, a.server, false); return l, err },
	} {
		l, err := lock()
		if err != nil {
			t.Fatalf("a lock after Ask: %v; want it free", err)
		}
		l.Release()
	}
}
