//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// bounded runs the cac-tmux binary with TMUX_TMPDIR=tmp and returns its exit status, stdout
// and stderr; it fails the test if the command has not ended within 30 s (stretched by
// CAC_TEST_SLOW), far above the bound of the tmux calls it makes.
func bounded(t *testing.T, tmp string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bins.cac, args...)
	cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+tmp)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(tmuxtest.Scale(30 * time.Second)):
		cmd.Process.Kill()
		<-done
		t.Fatalf("cac-tmux %q did not return: stdout %q, stderr %q", args, out.String(), errOut.String())
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// Beside a server that answers, a stopped one (the default server, whose options every
// command reads too) and a socket that accepts and never answers: list (the table and --json)
// and status return, show the panes of the server that answers and name each of the others
// with why.
func TestListAndStatusBesideHungServers(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	a := tmuxtest.StartAt(t, filepath.Join(dir, "a"), 80, 24)
	pane := panes(t, a, 1)[0]
	watched(t, a)
	publish(t, a, pane, "waiting", time.Now().Add(time.Hour+30*time.Second))
	stopped := tmuxtest.StartAt(t, filepath.Join(dir, "default"), 80, 24)
	stopped.Stop(t)
	silent := filepath.Join(dir, "silent")
	tmuxtest.Silent(t, silent)
	named := func(what, text string) {
		t.Helper()
		for _, socket := range []string{stopped.Socket, silent} {
			if !strings.Contains(text, "server "+socket+": tmuxctl: ") || !strings.Contains(text, "timed out") {
				t.Errorf("%s does not name %s and its timeout:\n%s", what, socket, text)
			}
		}
	}

	code, out, errOut := bounded(t, tmp, "list", "--all")
	if code != 0 || !strings.Contains(out, pane+"    main:0.0  waiting") {
		t.Errorf("list --all = %d, want 0 and the pane of a:\n%s%s", code, out, errOut)
	}
	named("list --all", out)

	code, out, errOut = bounded(t, tmp, "list", "--json")
	var listed []hosts.Pane
	if err := json.Unmarshal([]byte(out), &listed); err != nil || code != 0 || len(listed) != 1 || listed[0].Pane != pane {
		t.Errorf("list --json = %d, %v, want 0 and the pane of a:\n%s%s", code, err, out, errOut)
	}
	named("list --json's stderr", errOut)

	code, out, errOut = bounded(t, tmp, "status")
	if code != 1 || out != "⏸ 1 · 1h00m\n" {
		t.Errorf("status = %d, %q; want 1 and the line of a", code, out)
	}
	named("status's stderr", errOut)
}

// watch --all-servers stops on SIGTERM within a few seconds while one of its servers is
// stopped: a server stopped before it is found (its settings never read) and one stopped
// while its watcher runs (its control client and its tick waiting on it).
func TestWatchAllServersStopsBesideStoppedServer(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	early := tmuxtest.StartAt(t, filepath.Join(dir, "early"), 80, 24)
	early.Stop(t)
	late := tmuxtest.StartAt(t, filepath.Join(dir, "late"), 80, 24)
	tmuxtest.StartAt(t, filepath.Join(dir, "fine"), 80, 24)

	cmd := exec.Command(bins.cac, "watch", "--all-servers", "--log-format", "json", "--interval", "300ms")
	cmd.Env = append(os.Environ(), "TMUX_TMPDIR="+tmp)
	f, err := os.Create(filepath.Join(t.TempDir(), "all.log"))
	if err != nil {
		t.Fatal(err)
	}
	w := launch(t, cmd, f, f)
	for _, name := range []string{"late", "fine"} {
		w.waitLog(t, 20*time.Second, map[string]string{"message": "looked at every pane", "server": name})
	}
	late.Stop(t)
	// A tick on late meets its timeout, unless tmux signals output (3.8): an idle tick then
	// sends nothing, and the signal's wait is what waits on late. Early's settings meet theirs.
	tmuxtest.WaitFor(t, 30*time.Second, "a tick on late to fail, or the output signal", func() bool {
		return w.count(t, map[string]string{"message": "failed; retrying every tick", "server": "late"}) > 0 ||
			w.count(t, map[string]string{"message": "tmux signals output (wait-for -E): a tick with no output lists nothing", "server": "late"}) > 0
	})
	w.waitLog(t, 30*time.Second, map[string]string{"message": "a tmux server is not supervised", "socket": early.Socket})
	w.cmd.Process.Signal(syscall.SIGTERM)
	sent := time.Now()
	select {
	case <-w.done:
		t.Logf("watch --all-servers ended %s after SIGTERM", time.Since(sent).Round(time.Millisecond))
	case <-time.After(tmuxtest.Scale(10 * time.Second)):
		t.Fatalf("watch --all-servers still runs 10 s after SIGTERM")
	}
	if w.code != 0 {
		t.Errorf("watch --all-servers ended with %d after SIGTERM, want 0", w.code)
	}
}

// The default server (the one without -L or -S, outside tmux) hangs: --all-servers still
// supervises the others, reading its settings from the file; a plain watch of that server
// exits 1 naming it.
func TestWatchAllServersBesideAStoppedDefaultServer(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	def := tmuxtest.StartAt(t, filepath.Join(dir, "default"), 80, 24)
	def.Stop(t)
	tmuxtest.StartAt(t, filepath.Join(dir, "fine"), 80, 24)
	env := append(os.Environ(), "TMUX_TMPDIR="+tmp)

	cmd := exec.Command(bins.cac, "watch", "--all-servers", "--log-format", "json", "--interval", "300ms")
	cmd.Env = env
	f, err := os.Create(filepath.Join(t.TempDir(), "all.log"))
	if err != nil {
		t.Fatal(err)
	}
	w := launch(t, cmd, f, f)
	w.waitLog(t, 30*time.Second, map[string]string{"message": "looked at every pane", "server": "fine"})
	w.cmd.Process.Signal(syscall.SIGTERM)
	<-w.done

	one := exec.Command(bins.cac, "watch", "--log-format", "json")
	one.Env = env
	out, err := one.CombinedOutput()
	if code := one.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "the default tmux server") {
		t.Errorf("watch of the stopped default server: exit %d (%v), output %q; want 1 naming the default tmux server", code, err, out)
	}
}
