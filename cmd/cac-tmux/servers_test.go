//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// One `watch --all-servers` supervises every server of the user, on the real clock: servers
// a, b and d are there when it starts, c appears later, b is killed and started again; a has
// its own watcher already, so the one for every server leaves a alone (and says so) while it
// supervises the other three. Every stopped session is resumed exactly once, by one watcher.
func TestWatchAllServers(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	// Every server is up before the reset (at least 40 s away) and each is resumed after it.
	reset := nextReset(40 * time.Second).Format(time.RFC3339)
	start := func(name string) (*tmuxtest.Server, string) {
		s := tmuxtest.StartAt(t, filepath.Join(dir, name), 120, 30)
		_, log := startClaude(t, s, "--reset", reset)
		return s, log
	}
	a, aLog := start("a")
	b, _ := start("b")
	d, dLog := start("d")
	alone := startWatch(t, a.Socket) // a's own watcher
	alone.waitLog(t, 10*time.Second, map[string]string{"message": "watching every Claude Code pane"})

	all := startAll(t, tmp)
	watching := func(s *tmuxtest.Server, n int) {
		t.Helper()
		fields := map[string]string{"message": "watching every Claude Code pane", "socket": s.Socket}
		tmuxtest.WaitFor(t, 20*time.Second, "the watcher of every server to supervise "+s.Socket, func() bool { return all.count(t, fields) >= n })
	}
	watching(b, 1)
	watching(d, 1)
	all.waitLog(t, 20*time.Second, map[string]string{"message": "a tmux server is not supervised", "socket": a.Socket})

	c, cLog := start("c")
	watching(c, 1)
	b.KillServer(t)
	all.waitLog(t, 20*time.Second, map[string]string{"message": "the tmux server is gone: its supervisor stops", "socket": b.Socket})
	b, bLog := start("b")
	watching(b, 2)

	until := time.Until(nextReset(40*time.Second)) + 40*time.Second
	for name, log := range map[string]string{"a": aLog, "b": bLog, "c": cLog, "d": dLog} {
		t.Run(name, func(t *testing.T) { waitResumed(t, log, "continue", until) })
	}
	// It sees the resumed turns after the sessions do.
	tmuxtest.WaitFor(t, 20*time.Second, "the watcher of every server to see b, c and d resumed", func() bool {
		return all.count(t, map[string]string{"message": "resumed"}) >= 3
	})
	if n := all.count(t, map[string]string{"message": "resumed"}); n != 3 {
		t.Errorf("the watcher of every server resumed %d sessions, want 3 (b, c and d):\n%v", n, all.lines(t))
	}
	raw, err := os.ReadFile(all.log)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.Count(line, `"server":`) > 1 {
			t.Errorf("a log line names its server twice: %s", line)
		}
	}
	if n := all.count(t, map[string]string{"level": "error"}); n != 0 {
		t.Errorf("the watcher of every server logged %d errors:\n%v", n, all.lines(t))
	}
	if n := all.count(t, map[string]string{"message": "watching every Claude Code pane", "socket": a.Socket}); n != 0 {
		t.Errorf("the watcher of every server supervised a, which has its own watcher")
	}
}

// list without -L or -S shows the paused panes of every server of the user, named by server
// when more than one has some; with -L it shows that server's alone, unnamed.
func TestListEveryServer(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, name := range []string{"a", "b"} {
		startClaude(t, tmuxtest.StartAt(t, filepath.Join(dir, name), 120, 30), "--reset", reset)
	}
	tmuxtest.StartAt(t, filepath.Join(dir, "idle"), 120, 30) // no Claude pane: not named
	list := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bins.cac, append([]string{"list"}, args...)...)
		cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+tmp)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("list %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	out := list()
	for _, want := range []string{"SERVER  PANE", "\na       %1    main:1.0  stopped (not watched)", "\nb       %1    main:1.0  stopped (not watched)"} {
		if !strings.Contains(out, want) {
			t.Errorf("list: no %q:\n%s", want, out)
		}
	}
	// watch --once --all-servers prints what it saw of every server, not of the last alone.
	once := exec.Command(bins.cac, "watch", "--once", "--all-servers", "--log-format", "json")
	once.Env = append(os.Environ(), "TMUX_TMPDIR="+tmp)
	if out, err := once.Output(); err != nil || !strings.Contains(string(out), "\na       %1") || !strings.Contains(string(out), "\nb       %1") {
		t.Errorf("watch --once --all-servers: %v, want a row of a and of b:\n%s", err, out)
	}
	if out := list("-L", "b"); strings.Contains(out, "SERVER") || !strings.Contains(out, "\n%1    main:1.0  stopped (not watched)") {
		t.Errorf("list -L b:\n%s", out)
	}
	// status counts the panes a watcher published, of every server: none was published here,
	// so both servers' panes are given states as a watcher would publish them.
	for _, name := range []string{"a", "b"} {
		c := &tmuxctl.Client{SocketPath: filepath.Join(dir, name)}
		if _, err := c.Run(t.Context(), "set-option", "-p", "-t", "%1", "@cac_state", "held"); err != nil {
			t.Fatal(err)
		}
	}
	status := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bins.cac, append([]string{"status"}, args...)...)
		cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+tmp)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("status %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if got := status(); got != "⏸ 2 · no watcher\n" {
		t.Errorf("status of every server = %q, want ⏸ 2 · no watcher", got)
	}
	if got := status("-L", "a"); got != "⏸ 1 · no watcher\n" {
		t.Errorf("status -L a = %q, want ⏸ 1 · no watcher", got)
	}
}
