//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// `cac-tmux watch >/dev/null 2>watch.log`: /dev/null is a character device but no terminal,
// so there is no live table and the log goes to stderr as JSON lines.
func TestWatchStdoutDevNull(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "watch.log"))
	if err != nil {
		t.Fatal(err)
	}
	w := launch(t, exec.Command(bins.cac, "watch", "-S", s.Socket, "--interval", "300ms"), null, f)
	w.waitLog(t, 10*time.Second, map[string]string{"level": "info", "message": "watching every Claude Code pane"})
	w.kill(syscall.SIGTERM)
	if w.code != 0 || w.count(t, map[string]string{"message": "stopped"}) != 1 {
		t.Errorf("watch >/dev/null after SIGTERM: exit %d, log %v; want 0 and a JSON line \"stopped\"", w.code, w.lines(t))
	}
}

// A watcher started in a pane of the server it watches: `tmux kill-server` hangs up its
// terminal, and the SIGHUP that comes with it stops the watcher cleanly (lock released, the
// wait kept in the state file) instead of reloading the configuration and living on.
func TestWatchTerminalHangUp(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 150, 30)
	pane, _ := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	s.Tmux(t, "send-keys", "-t", "main:0.0", "-l", "--", pathHere()+bins.cac+" watch -S "+s.Socket+" --interval 300ms")
	s.Tmux(t, "send-keys", "-t", "main:0.0", "Enter")
	s.WaitScreen(t, "main:0.0", "1 paused") // the live table: stdin and stdout are the pane's tty
	lockDir, err := store.LockDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	pid, running, err := store.Holder(lockDir, s.Socket)
	if err != nil || !running {
		t.Fatalf("lock holder = %d, %v, %v; want the running watcher", pid, running, err)
	}
	t.Cleanup(func() { // a watcher that lived on must not outlive the test
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	tmuxtest.WaitFor(t, 5*time.Second, "the wait in the state file", func() bool { return stateOf(t, s.Socket)[pane].State == "waiting" })

	s.Tmux(t, "kill-server")
	tmuxtest.WaitFor(t, 10*time.Second, fmt.Sprintf("the watcher (pid %d) to exit", pid), func() bool { return !alive(pid) })
	if _, running, err := store.Holder(lockDir, s.Socket); err != nil || running {
		t.Errorf("after the hang-up the lock is held: running %v, %v", running, err)
	}
	if rec, ok := stateOf(t, s.Socket)[pane]; !ok || rec.State != "waiting" {
		t.Errorf("after the hang-up the state file has %+v, %v; want the pane's wait kept", rec, ok)
	}
}

// alive says whether pid is a process that has not exited (a zombie has).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(b), ") ")
	return ok && !strings.HasPrefix(rest, "Z")
}
