package servers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/internal/syncbuf"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// reloadRig is a Watch whose Load gives, for each socket, the settings or the failure a test
// sets, and counts what it was asked.
type reloadRig struct {
	*Watch
	logs   *syncbuf.Buffer
	loaded map[string]config.Loaded
	failed map[string]error
	asked  []string
}

func newReloadRig(all bool) *reloadRig {
	r := &reloadRig{logs: &syncbuf.Buffer{}, loaded: map[string]config.Loaded{}, failed: map[string]error{}}
	var start config.Loaded
	start.Config = config.Default()
	start.Config.Servers.All = all
	log := zerolog.New(r.logs)
	r.Watch = &Watch{Fleet: &Fleet{}, Tmux: &tmuxctl.Client{SocketPath: "/s/start"}, Loaded: start, Log: log,
		Notifiers: &notify.Current{Log: log},
		Load: func(_ context.Context, c *tmuxctl.Client) (config.Loaded, error) {
			r.asked = append(r.asked, c.SocketPath)
			l, ok := r.loaded[c.SocketPath]
			if !ok {
				l.Config = config.Default()
			}
			l.Failed = r.failed[c.SocketPath]
			return l, nil
		}}
	return r
}

// member makes a member of the fleet for socket.
func (r *reloadRig) member(socket string) {
	tmux := &tmuxctl.Client{SocketPath: socket}
	r.join(&Member{Socket: socket, Label: socket, Tmux: tmux, W: watcher.New(tmux, nil, watcher.Config{})})
}

// A SIGHUP's reload: the server watch was started for is asked, and, with every server, each
// member's own server; a server that cannot be asked stops the reload of a watch of that
// server alone, and only that member's with every server; what takes effect at a restart is
// warned of.
func TestReload(t *testing.T) {
	r := newReloadRig(false)
	r.member("/s/start")
	r.failed["/s/start"] = errors.New("tmux options of /s/start: timed out")
	r.Reload(context.Background())
	if !strings.Contains(r.logs.String(), "configuration not reloaded; the watcher goes on with its settings") || strings.Contains(r.logs.String(), "SIGHUP: configuration read") {
		t.Errorf("the reload of a watch of a server that cannot be asked went on:\n%s", r.logs)
	}

	r = newReloadRig(true)
	r.member("/s/a")
	r.member("/s/b")
	r.failed["/s/start"] = errors.New("tmux options of /s/start: timed out")
	r.failed["/s/b"] = errors.New("tmux options of /s/b: timed out")
	now := r.Loaded
	now.Config.Watch.LogLevel = "debug"
	r.loaded["/s/start"] = now
	r.Reload(context.Background())
	slices.Sort(r.asked)
	if want := []string{"/s/a", "/s/b", "/s/start"}; !slices.Equal(r.asked, want) {
		t.Errorf("servers asked = %q, want %q", r.asked, want)
	}
	for _, want := range []string{"SIGHUP: configuration read", "a new log level takes effect when the watcher restarts", `"server":"/s/b","message":"configuration not reloaded for this server`} {
		if !strings.Contains(r.logs.String(), want) {
			t.Errorf("the log of a reload of every server does not say %q:\n%s", want, r.logs)
		}
	}
	if strings.Contains(r.logs.String(), `"server":"/s/a","message":"configuration not reloaded`) {
		t.Errorf("the member whose server answered was not reloaded:\n%s", r.logs)
	}
}

// A SIGHUP reloads until the watcher's own terminal hangs up, which stops it.
func TestOnHangUp(t *testing.T) {
	hup := make(chan os.Signal, 3)
	hung, reloads, stops := 0, 0, 0
	for range 3 {
		hup <- os.Interrupt
	}
	OnHangUp(context.Background(), hup, func() bool { hung++; return hung == 2 }, func() { reloads++ }, func() { stops++ })
	if reloads != 1 || stops != 1 || len(hup) != 1 {
		t.Errorf("reloads %d, stops %d, signals left %d; want 1, 1 and 1 (nothing after the hang-up)", reloads, stops, len(hup))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	OnHangUp(ctx, make(chan os.Signal), nil, nil, nil) // returns when ctx ends
}

// One watch --all-servers holds the servers of a socket directory: a second one is told who
// holds them and what to do.
func TestLockAll(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_STATE_HOME": dir + "/state", "TMUX_TMPDIR": dir + "/tmux"}
	getenv := func(k string) string { return env[k] }
	lock, err := LockAll(getenv, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	_, err = LockAll(getenv, 1000)
	var held *heldAllError
	want := "another cac-tmux watch --all-servers (pid " + strconv.Itoa(os.Getpid()) + ") holds the servers in " + dir + "/tmux/tmux-1000; stop it first, or leave them to it (cac-tmux list shows what it supervises)"
	if !errors.As(err, &held) || err.Error() != want {
		t.Errorf("a second LockAll = %v, want %q", err, want)
	}
	if !Held(fmt.Errorf("watch: %w", err)) || !Held(&watcher.HeldError{}) || !Held(fmt.Errorf("claim: %w", watcher.ErrAnotherWatcher)) || Held(errors.New("other")) || Held(nil) {
		t.Error("Held does not tell a server held by another watcher from any other error")
	}
	if got := (&heldAllError{Dir: "/d"}).Error(); !strings.HasPrefix(got, "another cac-tmux watch --all-servers holds the servers in /d;") {
		t.Errorf("heldAllError without a pid = %q", got)
	}
}

// named is a notifier that says what made it.
type named struct {
	watcher.Notifier
	by string
}

// Each server's notifier: the phone's buttons, then [accounts] auto only in a watch that acts
// (neither a dry run nor --once), told whether the watcher starts; no notifier stays none.
func TestNotifier(t *testing.T) {
	ctx := context.Background()
	n, err := notify.New(notify.Default(), zerolog.Nop(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		auto, dryRun, once, start bool
		want                      string
	}{
		{false, false, false, true, "buttons /s"},
		{true, false, false, true, "auto /s true of buttons /s"},
		{true, false, false, false, "auto /s false of buttons /s"},
		{true, true, false, true, "buttons /s"},
		{true, false, true, true, "buttons /s"},
	} {
		w := &Watch{DryRun: tc.dryRun, Once: tc.once,
			Buttons: func(socket string, n watcher.Notifier) watcher.Notifier { return named{n, "buttons " + socket} },
			AutoSwitch: func(_ context.Context, socket string, n watcher.Notifier, restored bool) watcher.Notifier {
				return named{n, "auto " + socket + " " + strconv.FormatBool(restored) + " of " + n.(named).by}
			}}
		w.Loaded.Config.Accounts.Auto = tc.auto
		if got := w.notifier(ctx, "/s", n, tc.start).(named).by; got != tc.want {
			t.Errorf("%+v: notifier = %s, want %s", tc, got, tc.want)
		}
		if got := w.notifier(ctx, "/s", nil, tc.start); got != nil {
			t.Errorf("%+v: notifier of no notifier = %v, want none", tc, got)
		}
	}
}
