//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/servers"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// startIn starts cac-tmux with args and TMUX_TMPDIR tmp, its stderr (the JSON log) in a file.
func startIn(t *testing.T, tmp string, args ...string) *watchProc {
	t.Helper()
	cmd := exec.Command(bins.cac, args...)
	cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+tmp)
	f, err := os.Create(filepath.Join(t.TempDir(), "watch.log"))
	if err != nil {
		t.Fatal(err)
	}
	return launch(t, cmd, f, f)
}

// startAll starts `cac-tmux watch --all-servers` with TMUX_TMPDIR tmp.
func startAll(t *testing.T, tmp string) *watchProc {
	t.Helper()
	return startIn(t, tmp, "watch", "--all-servers", "--log-format", "json", "--interval", "300ms", "--margin", faultMargin.String())
}

// exited waits up to timeout for w to exit and returns its stderr.
func (w *watchProc) exited(t *testing.T, timeout time.Duration, what string) string {
	t.Helper()
	tmuxtest.WaitFor(t, timeout, what+" to exit", func() bool {
		select {
		case <-w.done:
			return true
		default:
			return false
		}
	})
	b, _ := os.ReadFile(w.log)
	return string(b)
}

// One --all-servers holds every server of the user: a second one exits 2 at once naming the
// first's pid, and so does a plain watch of one of its servers, naming it as --all-servers.
// An --all-servers started while a plain watch holds a server leaves that server to it and
// says so in words that fit (not -L/-S).
func TestWatchAllServersHeld(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	a := tmuxtest.StartAt(t, filepath.Join(dir, "a"), 80, 24)
	b := tmuxtest.StartAt(t, filepath.Join(dir, "b"), 80, 24)
	alone := startIn(t, tmp, "watch", "-S", b.Socket, "--log-format", "json", "--interval", "300ms")
	alone.waitLog(t, 10*time.Second, map[string]string{"message": "watching every Claude Code pane"})
	all := startAll(t, tmp)
	all.waitLog(t, 20*time.Second, map[string]string{"message": "watching every Claude Code pane", "socket": a.Socket})
	all.waitLog(t, 20*time.Second, map[string]string{"message": "a tmux server is not supervised", "socket": b.Socket})
	for _, l := range all.lines(t) {
		if l["message"] == "a tmux server is not supervised" {
			want := fmt.Sprintf("another watcher (pid %d) already supervises server %s", alone.cmd.Process.Pid, b.Socket)
			if e := fmt.Sprint(l["error"]); !strings.Contains(e, want) || !strings.Contains(e, "--all-servers supervises the other servers") || strings.Contains(e, "-L/-S") {
				t.Errorf("--all-servers beside a watcher of b logged %q; want %q and what --all-servers does about it", e, want)
			}
		}
	}

	second := startAll(t, tmp)
	out := second.exited(t, 10*time.Second, "a second --all-servers")
	want := fmt.Sprintf("another cac-tmux watch --all-servers (pid %d) holds the servers in %s; stop it first", all.cmd.Process.Pid, dir)
	if second.code != 2 || !strings.Contains(out, want) {
		t.Errorf("a second --all-servers = exit %d, stderr %q; want 2 with %q", second.code, out, want)
	}
	if strings.Contains(out, "store:") || strings.Contains(out, "-L/-S") {
		t.Errorf("a second --all-servers says %q: advice that does not apply", out)
	}

	plain := startIn(t, tmp, "watch", "-S", a.Socket, "--log-format", "json")
	out = plain.exited(t, 10*time.Second, "a watch of a server --all-servers holds")
	want = fmt.Sprintf("cac-tmux watch --all-servers (pid %d) already supervises server %s", all.cmd.Process.Pid, a.Socket)
	if plain.code != 2 || !strings.Contains(out, want) {
		t.Errorf("watch -S a beside --all-servers = exit %d, stderr %q; want 2 with %q", plain.code, out, want)
	}

	all.kill(syscall.SIGTERM)
	if all.code != 0 {
		t.Errorf("--all-servers exit on SIGTERM = %d, want 0", all.code)
	}
	again := startAll(t, tmp) // the lock went with the first
	again.waitLog(t, 20*time.Second, map[string]string{"message": "watching every Claude Code pane", "socket": a.Socket})
}

// The panes of one account (one CLAUDE_CONFIG_DIR) on three servers under one --all-servers
// wake the stagger apart, not in the same second.
func TestWatchAllServersStaggersOneAccount(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	reset := nextReset(40 * time.Second).Format(time.RFC3339)
	var logs []string
	account := ""
	for _, name := range []string{"x", "y", "z"} {
		s := tmuxtest.StartAt(t, filepath.Join(dir, name), 120, 30)
		if account == "" {
			account = s.ClaudeDir
		}
		s.Tmux(t, "set-environment", "-g", "CLAUDE_CONFIG_DIR", account)
		_, log := startClaude(t, s, "--reset", reset)
		logs = append(logs, log)
	}
	all := startAll(t, tmp)
	until := time.Until(nextReset(40*time.Second)) + 40*time.Second
	var first []time.Time
	for _, log := range logs {
		first = append(first, waitResumed(t, log, "continue", until))
	}
	slices.SortFunc(first, time.Time.Compare)
	// The slots are Stagger (5 s) apart; each key goes out at its watcher's next tick after its
	// slot, a few hundred milliseconds late at most on a loaded machine.
	least := scheduler.Default.Stagger - 2*time.Second
	for i := 1; i < len(first); i++ {
		if gap := first[i].Sub(first[i-1]); gap < least {
			t.Errorf("wakes %d and %d of one account %s apart, want at least %s (the stagger is %s): %v",
				i, i+1, gap, least, scheduler.Default.Stagger, first)
		}
	}
	if n := all.count(t, map[string]string{"level": "error"}); n != 0 {
		t.Errorf("--all-servers logged %d errors:\n%v", n, all.lines(t))
	}
}

// SIGTERM stops --all-servers within a few seconds even while the tmux server of one of its
// supervisors is stopped (SIGSTOP), so that its tmux calls do not return (the watcher's stop
// hung in closing its control client): the fleet waits servers.DefaultStopWait for it, logs
// which server did not stop, and exits (servers' TestStopAllLeavesAStuckSupervisor proves the
// log line with a supervisor that never returns).
func TestWatchAllServersStopsBesideAStuckServer(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	tmuxtest.StartAt(t, filepath.Join(dir, "ok"), 80, 24)
	stuck := tmuxtest.StartAt(t, filepath.Join(dir, "stuck"), 80, 24)
	pid, err := strconv.Atoi(strings.TrimSpace(stuck.Tmux(t, "display-message", "-p", "#{pid}")))
	if err != nil {
		t.Fatal(err)
	}
	all := startAll(t, tmp)
	for _, name := range []string{"ok", "stuck"} {
		all.waitLog(t, 20*time.Second, map[string]string{"message": "looked at every pane", "server": name})
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGCONT) }) // before the server is killed
	all.cmd.Process.Signal(syscall.SIGTERM)
	all.exited(t, servers.DefaultStopWait+10*time.Second, "--all-servers after SIGTERM")
	if all.code != 0 {
		t.Errorf("exit on SIGTERM = %d, want 0", all.code)
	}
	if n := all.count(t, map[string]string{"message": "stopped", "server": "ok"}); n != 1 {
		t.Errorf("the supervisor of the running server logged %d clean stops, want 1", n)
	}
	// Where closing a stopped server's control client is bounded, the stuck supervisor may
	// end within the wait after all; the one it names is never the running server's.
	late := map[string]string{"message": "a supervisor did not stop in time; stopping without it (its state may not be saved)"}
	for _, l := range all.lines(t) {
		if matches(l, late) && fmt.Sprint(l["sockets"]) != fmt.Sprint([]any{stuck.Socket}) {
			t.Errorf("did not stop: %v, want only %s", l["sockets"], stuck.Socket)
		}
	}
	t.Logf("supervisors named as not stopped: %d line(s)", all.count(t, late))
}
