//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// inputs reads the fake Claude Code's log: the bytes of every read of its terminal with
// their instants, and whether it logged state.
func inputs(t *testing.T, log string) (ins []string, at []time.Time, states []string) {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		return nil, nil, nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "# state "); ok {
			states = append(states, s)
			continue
		}
		ts, q, _ := strings.Cut(sc.Text(), "\t")
		when, err1 := time.Parse(time.RFC3339Nano, ts)
		b, err2 := strconv.Unquote(q)
		if err1 != nil || err2 != nil {
			t.Fatalf("fake log: unreadable line %q", sc.Text())
		}
		ins, at = append(ins, b), append(at, when)
	}
	return ins, at, states
}

func hasState(states []string, s string) bool {
	for _, x := range states {
		if x == s {
			return true
		}
	}
	return false
}

// pathHere is the start of a command line typed into a pane's shell that gives it this test's
// PATH: the pane's login shell sets its own from /etc/profile, where another tmux than the one
// under test (make test-tmux) would be found.
func pathHere() string {
	return "PATH='" + strings.ReplaceAll(os.Getenv("PATH"), "'", `'\''`) + "' "
}

// startClaude opens a window running the fake Claude Code and waits until it draws.
func startClaude(t *testing.T, s *tmuxtest.Server, args ...string) (pane, log string) {
	t.Helper()
	log = filepath.Join(s.Dir, "claude"+strconv.FormatInt(time.Now().UnixNano(), 36)+".log")
	out := s.Tmux(t, append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", bins.claude, "--log", log}, args...)...)
	pane = strings.TrimSpace(out)
	tmuxtest.WaitFor(t, 10*time.Second, "the fake claude to start", func() bool {
		_, _, states := inputs(t, log)
		return len(states) > 0
	})
	return pane, log
}

func listJSONOf(t *testing.T, args ...string) ([]hosts.Pane, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"list", "--json"}, args...), stdio{out: &out, err: &errOut}); code != 0 {
		t.Fatalf("list --json %q = %d, stderr %q", args, code, errOut.String())
	}
	var got []hosts.Pane
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("list --json output %q: %v", out.String(), err)
	}
	return got, errOut.String()
}

// TestWatchInSparePane runs cac-tmux watch as a new user would: in a spare pane of the
// server, with a Claude Code pane stopped at a limit that lifts at the next whole minute. It
// runs on the real clock, so it waits up to about a minute.
func TestWatchInSparePane(t *testing.T) {
	t.Parallel()
	now := time.Now()
	reset := now.Truncate(time.Minute).Add(time.Minute)
	if reset.Sub(now) < 20*time.Second { // the server, the fake, cac-tmux and its first tick first
		reset = reset.Add(time.Minute)
	}
	reset = reset.UTC()
	const margin = time.Second
	s := tmuxtest.Start(t, 150, 30)
	pane, log := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	s.Tmux(t, "send-keys", "-t", "main:0.0", "-l", "--", pathHere()+bins.cac+" watch -S "+s.Socket+" --interval 500ms --margin "+margin.String())
	s.Tmux(t, "send-keys", "-t", "main:0.0", "Enter")
	screen := s.WaitScreen(t, "main:0.0", "1 paused")
	if !strings.Contains(screen, pane) || !strings.Contains(screen, "waiting") || !strings.Contains(screen, reset.Format("15:04")+" UTC") {
		t.Errorf("live table, want pane %s waiting for %s UTC:\n%s", pane, reset.Format("15:04"), screen)
	}
	// Its tmux commands go over a control-mode client, on every tmux version (3.4 and later
	// once read "off" for "on" and ran every command as a process): tmux lists that client.
	tmuxtest.WaitFor(t, 10*time.Second, "the watcher's control-mode client", func() bool {
		return strings.Contains(s.Tmux(t, "list-clients", "-F", "#{client_control_mode}"), "1")
	})

	// list --json during the wait: the pane, its state and the exact reset.
	got, stderr := listJSONOf(t, "-S", s.Socket)
	if len(got) != 1 || got[0].Pane != pane || got[0].Target != "main:1.0" || got[0].State != "waiting" ||
		got[0].Reset == nil || *got[0].Reset != reset.Format(time.RFC3339) || got[0].Kind != "session" {
		t.Errorf("list --json during the wait = %+v, want %s main:1.0 waiting reset %s kind session", got, pane, reset.Format(time.RFC3339))
	}
	if strings.Contains(stderr, "no watcher") {
		t.Errorf("list stderr with a watcher running = %q", stderr)
	}

	onTime(t, waitResumed(t, log, "continue", time.Until(reset)+30*time.Second), reset.Add(margin))

	s.WaitScreen(t, "main:0.0", "0 paused") // verified as resumed

	// Ctrl-C ends the watcher cleanly: it withdraws its mark, and list says so.
	s.Tmux(t, "send-keys", "-t", "main:0.0", "C-c")
	// It withdraws its mark, then releases its lock as it exits.
	tmuxtest.WaitFor(t, 10*time.Second, "the watcher to exit", func() bool {
		v, err := s.Client.GlobalOption(context.Background(), tmuxctl.WatcherOption)
		return err == nil && v == "" && !lockHeld(t, s.Socket)
	})
	if got, stderr := listJSONOf(t, "-S", s.Socket); len(got) != 0 || !strings.Contains(stderr, "no watcher is running") {
		t.Errorf("list after the watcher ended = %+v, stderr %q; want nothing paused and a note that no watcher runs", got, stderr)
	}
}

func TestWatchOnceSendsNothing(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	pane, log := startClaude(t, s, "--reset", time.Now().Add(30*time.Minute).UTC().Format(time.RFC3339))
	var out, errOut bytes.Buffer
	code := run([]string{"watch", "--once", "-S", s.Socket, "--log-format", "json"}, stdio{out: &out, err: &errOut})
	if code != 0 || !strings.Contains(out.String(), pane) || !strings.Contains(out.String(), "waiting") {
		t.Errorf("watch --once = %d, stdout %q, stderr %q; want 0 and %s waiting", code, out.String(), errOut.String(), pane)
	}
	if ins, _, _ := inputs(t, log); len(ins) != 0 {
		t.Errorf("watch --once sent %q", ins)
	}
	if info, err := s.Client.PaneInfo(context.Background(), pane); err != nil || info.Options != (tmuxctl.Options{}) {
		t.Errorf("pane options after watch --once = %+v, %v; want none", info.Options, err)
	}
}

// TestListWithoutWatcher reads the state a watcher published, says that none runs, and with
// --all adds the Claude panes that run normally (never a plain shell).
func TestListWithoutWatcher(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30) // main:0.0 is a shell
	idle, _ := startClaude(t, s, "--scenario", "idle")
	stopped, _ := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	o := tmuxctl.Options{State: "waiting", Reset: "2026-11-21T01:30:00+02:00", Due: "2026-11-21T01:31:00+02:00", Kind: "session", Zone: "Asia/Nicosia"}
	if err := s.Client.SetPaneOptions(context.Background(), stopped, tmuxctl.OptionNames, o.Values()); err != nil {
		t.Fatal(err)
	}
	got, stderr := listJSONOf(t, "-S", s.Socket)
	if len(got) != 1 || got[0].Pane != stopped || got[0].State != "waiting" || *got[0].Reset != o.Reset || *got[0].Due != o.Due || got[0].Zone != "Asia/Nicosia" {
		t.Errorf("list --json = %+v, want only %s waiting with the published reset", got, stopped)
	}
	if !strings.Contains(stderr, "no watcher is running") {
		t.Errorf("list stderr = %q, want a note that no watcher runs", stderr)
	}
	got, _ = listJSONOf(t, "-S", s.Socket, "--all")
	if len(got) != 2 || got[0].Pane != stopped || got[1].Pane != idle || got[1].State != "running" || got[1].Reset != nil {
		t.Errorf("list --all --json = %+v, want %s waiting, then %s running (and no shell)", got, stopped, idle)
	}
	var out, errOut bytes.Buffer
	// The reset in the user's zone, not the one it was printed in, with its date (not today).
	reset := time.Date(2026, 11, 20, 23, 30, 0, 0, time.UTC).Local().Format("Jan 2 15:04 MST")
	if code := run([]string{"list", "-S", s.Socket}, stdio{out: &out, err: &errOut}); code != 0 ||
		!strings.Contains(out.String(), reset) || !strings.Contains(out.String(), "main:2.0") {
		t.Errorf("list = %d, stdout %q; want the reset in the local zone (%s) and the target", code, out.String(), reset)
	}
}

func TestListNoServer(t *testing.T) {
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	code := run([]string{"list", "-S", filepath.Join(dir, "none")}, stdio{out: &out, err: &errOut})
	if code != 1 || !strings.Contains(errOut.String(), "-L NAME or -S PATH") {
		t.Errorf("list on no server = %d, stderr %q; want 1 and how to select a server", code, errOut.String())
	}
}

// lockHeld says whether a watcher holds the lock of the server on socket.
func lockHeld(t *testing.T, socket string) bool {
	t.Helper()
	lockDir, err := store.LockDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	_, running, err := store.Holder(lockDir, socket)
	return err != nil || running
}
