//go:build linux

package watcher_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Hold: the first watcher locks and claims the server; a second one is refused by the lock,
// and one with its lock elsewhere (another XDG_RUNTIME_DIR) by the claim, each refusal
// saying who holds the server and how; a read-only watcher is never refused.
func TestHold(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	ctx := context.Background()
	here, elsewhere := envIn(t.TempDir()), envIn(t.TempDir())
	me := os.Getpid() // alive, so its claim holds
	first := watcher.Holding{Getenv: here, UID: os.Getuid(), PID: me, Name: "server " + s.Socket}
	_, lock, err := watcher.Hold(ctx, s.Client, first)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if got := strings.TrimSpace(s.Tmux(t, "show-options", "-gqv", "@cac_watcher")); got != strconv.Itoa(me) {
		t.Errorf("@cac_watcher = %q, want %d", got, me)
	}
	for _, tc := range []struct {
		name string
		h    watcher.Holding
		by   string
	}{
		{"the same lock", watcher.Holding{Getenv: here, UID: os.Getuid(), PID: me + 1, Name: "server " + s.Socket}, "its lock"},
		{"another lock", watcher.Holding{Getenv: elsewhere, UID: os.Getuid(), PID: me + 1, Name: "server " + s.Socket, Fleet: true}, "its @cac_watcher"},
	} {
		_, l, err := watcher.Hold(ctx, s.Client, tc.h)
		var held *watcher.HeldError
		if !errors.As(err, &held) {
			if l != nil {
				l.Release()
			}
			t.Errorf("%s: Hold = %v, want a *HeldError", tc.name, err)
			continue
		}
		if held.PID != me || !strings.HasPrefix(held.By, tc.by) || !strings.Contains(err.Error(), "already supervises server "+s.Socket) {
			t.Errorf("%s: %v (pid %d, by %q), want pid %d by %s", tc.name, err, held.PID, held.By, me, tc.by)
		}
		if tc.h.Fleet && !strings.Contains(err.Error(), "--all-servers supervises the other servers") {
			t.Errorf("%s: %v does not say the other servers go on", tc.name, err)
		}
	}
	ro := first
	ro.Getenv, ro.PID, ro.ReadOnly = elsewhere, me+1, true
	if _, _, err := watcher.Hold(ctx, s.Client, ro); err != nil {
		t.Errorf("read-only: Hold = %v, want nil", err)
	}
}
