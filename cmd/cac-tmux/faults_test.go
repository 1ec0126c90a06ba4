//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// Faults a watcher that runs for days meets, on private tmux servers with the fake Claude
// Code and `cac-tmux watch` run as its own process (so it can be killed with SIGKILL). They
// run on the real clock: a stop printed to the minute lifts at the next whole minute, so each
// test waits up to about 80 s; they run in parallel.

const faultMargin = time.Second

// nextReset is the next whole minute at least lead away, in UTC.
func nextReset(lead time.Duration) time.Time {
	r := time.Now().Add(lead).Truncate(time.Minute).Add(time.Minute)
	return r.UTC()
}

// watchProc is one `cac-tmux watch` process logging JSON lines to a file.
type watchProc struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	code int
}

func startWatch(t *testing.T, socket string, args ...string) *watchProc {
	t.Helper()
	log := filepath.Join(t.TempDir(), "watch.log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	argv := append([]string{"watch", "-S", socket, "--log-format", "json", "--interval", "300ms", "--margin", faultMargin.String()}, args...)
	return launch(t, exec.Command(bins.cac, argv...), f, f)
}

// launch starts cmd with stdout on out and stderr on the log file f, and kills it when the
// test ends; a test that failed logs the last lines of f.
func launch(t *testing.T, cmd *exec.Cmd, out, f *os.File) *watchProc {
	t.Helper()
	w := &watchProc{cmd: cmd, log: f.Name(), done: make(chan struct{})}
	w.cmd.Stdout, w.cmd.Stderr = out, f
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		w.cmd.Wait()
		w.code = w.cmd.ProcessState.ExitCode()
		f.Close()
		close(w.done)
	}()
	t.Cleanup(func() {
		w.kill(syscall.SIGKILL)
		if t.Failed() { // what the watcher saw, for the failure's reader
			b, _ := os.ReadFile(w.log)
			lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
			t.Logf("the watcher's log %s, its last lines:\n%s", w.log, strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
	})
	return w
}

// kill sends sig and waits for the process to end.
func (w *watchProc) kill(sig syscall.Signal) {
	select {
	case <-w.done:
		return
	default:
	}
	w.cmd.Process.Signal(sig)
	<-w.done
}

// lines returns the watcher's log lines.
func (w *watchProc) lines(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(w.log)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// count counts the log lines with every given field.
func (w *watchProc) count(t *testing.T, fields map[string]string) int {
	n := 0
	for _, l := range w.lines(t) {
		if matches(l, fields) {
			n++
		}
	}
	return n
}

// matches says whether a log line has every field of fields.
func matches(line map[string]any, fields map[string]string) bool {
	for k, v := range fields {
		if fmt.Sprint(line[k]) != v {
			return false
		}
	}
	return true
}

// waitLog waits for a log line with every given field.
func (w *watchProc) waitLog(t *testing.T, timeout time.Duration, fields map[string]string) {
	t.Helper()
	// At least 30 s: starting cac-tmux and its first tick took 7 s in CI; a passing test
	// never waits that long.
	tmuxtest.WaitFor(t, max(timeout, 30*time.Second), fmt.Sprintf("a watcher log line with %v", fields), func() bool { return w.count(t, fields) > 0 })
}

// loggedAt waits for the watcher's first log line with fields and returns its time.
func (w *watchProc) loggedAt(t *testing.T, timeout time.Duration, fields map[string]string) time.Time {
	t.Helper()
	w.waitLog(t, timeout, fields)
	for _, l := range w.lines(t) {
		if matches(l, fields) {
			at, err := time.Parse("2006-01-02T15:04:05.000Z07:00", fmt.Sprint(l["time"]))
			if err != nil {
				t.Fatalf("log line %v: time: %v", l, err)
			}
			return at
		}
	}
	panic("unreachable: waitLog found the line")
}

// stateOf reads the state file of the server on socket.
func stateOf(t *testing.T, socket string) map[string]store.Pane {
	t.Helper()
	dir, err := store.StateDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(dir, socket)
	st.ReadOnly = true
	recs, err := st.Load()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// waitResumed waits until the fake Claude Code resumed, checks that it received exactly one
// message + Enter, and returns the instant of the first key.
func waitResumed(t *testing.T, log, message string, timeout time.Duration) time.Time {
	t.Helper()
	tmuxtest.WaitFor(t, timeout, "the session to resume", func() bool {
		_, _, states := inputs(t, log)
		return hasState(states, "resumed")
	})
	ins, at, _ := inputs(t, log)
	if strings.Join(ins, "|") != message+"|\r" {
		t.Errorf("claude received %q, want %q then Enter, once", ins, message)
	}
	if len(at) == 0 {
		t.Fatal("resumed without a key")
	}
	return at[0]
}

// late bounds how late a first key may be: a watcher that wakes on time is late by a few
// tmux calls, more on a loaded machine; one that missed its due instant waits for a retry (30
// s) or the next day.
const late = 5 * time.Second

// onTime checks that the first key came within late after the due instant, never before.
func onTime(t *testing.T, first, due time.Time) {
	t.Helper()
	if first.Before(due) || first.After(due.Add(late)) {
		t.Errorf("first key at %s, want within %s after the due instant %s", first.Format(time.StampMilli), late, due.Format(time.StampMilli))
	}
}

// kill -9 of the watcher while a pane waits, then a new watcher: exactly one resume, on time.
func TestFaultKill9DuringWait(t *testing.T) {
	t.Parallel()
	reset := nextReset(20 * time.Second)
	s := tmuxtest.Start(t, 120, 30)
	pane, log := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	w1 := startWatch(t, s.Socket)
	w1.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
	tmuxtest.WaitFor(t, 5*time.Second, "the wait in the state file", func() bool { return stateOf(t, s.Socket)[pane].State == "waiting" })
	w1.kill(syscall.SIGKILL)
	// Its control-mode client (a child in its own process group) dies with it, so the server
	// drops it, at its next loop: that took over 5 s once with the tmux matrix running two
	// versions side by side on 2 cores (3.5a, CI). Before, the client stayed for good when a
	// reply was in flight at the kill (3.6b, CI; TestControlDiesWithProcess).
	tmuxtest.WaitFor(t, 20*time.Second, "the killed watcher's control client to go", func() bool {
		return s.Tmux(t, "list-clients", "-F", "#{client_control_mode}") == ""
	})

	w2 := startWatch(t, s.Socket)
	w2.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "message": "taken up from the state file"})
	onTime(t, waitResumed(t, log, "continue", time.Until(reset)+30*time.Second), reset.Add(faultMargin))
	tmuxtest.WaitFor(t, 10*time.Second, "the record to go", func() bool { _, ok := stateOf(t, s.Socket)[pane]; return !ok })
	if n := w2.count(t, map[string]string{"level": "error"}); n != 0 {
		t.Errorf("the second watcher logged %d errors:\n%v", n, w2.lines(t))
	}
}

// A watcher started after the due instant (its predecessor killed during the wait) resumes
// at once, once.
func TestFaultStartedAfterDue(t *testing.T) {
	t.Parallel()
	reset := nextReset(20 * time.Second) // w1 sees the wait and is killed before the due instant
	s := tmuxtest.Start(t, 120, 30)
	pane, log := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	w1 := startWatch(t, s.Socket)
	w1.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
	w1.kill(syscall.SIGKILL)
	due := reset.Add(faultMargin)
	time.Sleep(time.Until(due.Add(2 * time.Second))) // the point of the test: nobody watches at the due instant
	if ins, _, _ := inputs(t, log); len(ins) != 0 {
		t.Fatalf("keys before a watcher ran again: %q", ins)
	}
	w2 := startWatch(t, s.Socket)
	// At once: at its first look, counted from when it runs (starting the process took seconds
	// on 2 loaded cores, CI running two tmux versions side by side).
	started := w2.loggedAt(t, 15*time.Second, map[string]string{"message": "watching every Claude Code pane"})
	onTime(t, waitResumed(t, log, "continue", 15*time.Second), started)
	time.Sleep(2 * time.Second) // nothing more may come
	if ins, _, _ := inputs(t, log); len(ins) != 2 {
		t.Errorf("claude received %q in the end, want exactly one resume", ins)
	}
}

// A second watcher on the same server exits 2 naming the first; watchers of different
// servers run side by side.
func TestFaultSecondWatcher(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	w1 := startWatch(t, s.Socket)
	w1.waitLog(t, 10*time.Second, map[string]string{"message": "watching every Claude Code pane"})
	var out, errOut bytes.Buffer
	code := run([]string{"watch", "-S", s.Socket}, stdio{out: &out, err: &errOut})
	if want := fmt.Sprintf("pid %d", w1.cmd.Process.Pid); code != 2 || !strings.Contains(errOut.String(), want) {
		t.Errorf("a second watch = %d, stderr %q; want 2 naming %s", code, errOut.String(), want)
	}
	other := tmuxtest.Start(t, 80, 24)
	w3 := startWatch(t, other.Socket)
	w3.waitLog(t, 10*time.Second, map[string]string{"message": "watching every Claude Code pane"})
	select {
	case <-w3.done:
		t.Errorf("a watcher of another server exited (%d)", w3.code)
	default:
	}
	// A dry run may look alongside: it takes no lock and writes nothing.
	out.Reset()
	errOut.Reset()
	if code := run([]string{"watch", "--once", "-S", s.Socket}, stdio{out: &out, err: &errOut}); code != 0 {
		t.Errorf("watch --once beside a watcher = %d, stderr %q; want 0", code, errOut.String())
	}
	w1.kill(syscall.SIGTERM)
	if w1.code != 0 {
		t.Errorf("watcher exit on SIGTERM = %d, want 0", w1.code)
	}
	if n := w1.count(t, map[string]string{"message": "stopped"}); n != 1 {
		t.Errorf("the watcher did not log a clean stop on SIGTERM")
	}
}

// One watcher per server whatever path reaches it: a second watcher
// with another XDG_RUNTIME_DIR (its lock elsewhere), or through a symlink to the socket, exits
// 2 naming the first; once the first is gone (killed, its claim left behind), one takes over.
func TestFaultSecondWatcherByAnotherPath(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	w1 := startWatch(t, s.Socket)
	w1.waitLog(t, 10*time.Second, map[string]string{"message": "watching every Claude Code pane"})
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(s.Socket, link); err != nil {
		t.Fatal(err)
	}
	second := func(socket string) *watchProc {
		f, err := os.Create(filepath.Join(t.TempDir(), "watch.log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bins.cac, "watch", "-S", socket, "--log-format", "json", "--interval", "300ms")
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir())
		return launch(t, cmd, f, f)
	}
	want := fmt.Sprintf("pid %d", w1.cmd.Process.Pid)
	for _, socket := range []string{s.Socket, link} {
		w := second(socket)
		tmuxtest.WaitFor(t, 10*time.Second, "the second watcher to exit", func() bool {
			select {
			case <-w.done:
				return true
			default:
				return false
			}
		})
		if b, _ := os.ReadFile(w.log); w.code != 2 || !strings.Contains(string(b), want) {
			t.Errorf("a second watcher on %s = exit %d, stderr %q; want 2 naming %s", socket, w.code, b, want)
		}
	}
	w1.kill(syscall.SIGKILL) // its @cac_watcher stays behind, naming a dead process
	w := second(link)
	w.waitLog(t, 10*time.Second, map[string]string{"message": "watching every Claude Code pane"})
	if got := strings.TrimSpace(s.Tmux(t, "show-options", "-gqv", "@cac_watcher")); got != strconv.Itoa(w.cmd.Process.Pid) {
		t.Errorf("@cac_watcher = %q, want the new watcher's pid %d", got, w.cmd.Process.Pid)
	}
}

// The tmux server is killed and another starts on the same socket: the watcher says so once,
// keeps running and supervises the new server.
func TestFaultServerRestart(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	startClaude(t, s, "--scenario", "idle")
	w := startWatch(t, s.Socket)
	w.waitLog(t, 10*time.Second, map[string]string{"message": "supervising claude"})
	s.KillServer(t)
	w.waitLog(t, 10*time.Second, map[string]string{"level": "warn", "socket": s.Socket, "message": "no tmux server on " + s.Socket +
		"; waiting for one to start there (the watcher keeps running). Another server: -L NAME or -S PATH, as tmux takes them"})
	time.Sleep(3 * time.Second) // several polls without a server

	conf := filepath.Join(s.Dir, "tmux.conf")
	if _, err := s.Client.Run(context.Background(), append([]string{"-f", conf, "new-session", "-d", "-s", "main", "-x", "120", "-y", "30"},
		tmuxctl.KeepSize("main", 120, 30)...)...); err != nil {
		t.Fatal(err)
	}
	reset := nextReset(20 * time.Second) // the watcher finds the new server (its retries back off to 8 s) and sees the wait first
	pane, log := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	w.waitLog(t, 15*time.Second, map[string]string{"message": "a tmux server runs on the socket; supervising it"})
	w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
	tmuxtest.WaitFor(t, 5*time.Second, "@cac_watcher on the new server", func() bool {
		v, err := s.Client.GlobalOption(context.Background(), tmuxctl.WatcherOption)
		return err == nil && v == fmt.Sprint(w.cmd.Process.Pid)
	})
	onTime(t, waitResumed(t, log, "continue", time.Until(reset)+30*time.Second), reset.Add(faultMargin))
	// The control-mode client was lost with the server and is made again on the new one.
	up := map[string]string{"message": "tmux commands go over a control-mode client (tmux -C)"}
	tmuxtest.WaitFor(t, 15*time.Second, "a control-mode client on the new server", func() bool { return w.count(t, up) == 2 })
	// The watcher's control-mode clients, and no other: one, or two where tmux signals output
	// (3.8: the second waits in wait-for -E; they may still be coming up).
	want := func() string {
		var lines []string
		for _, pid := range controlPIDs(t, w) {
			lines = append(lines, fmt.Sprintf("1 %d\n", pid))
		}
		slices.Sort(lines)
		return strings.Join(lines, "")
	}
	var got string
	tmuxtest.WaitFor(t, 15*time.Second, "the new server's clients to be the watcher's", func() bool {
		lines := strings.SplitAfter(s.Tmux(t, "list-clients", "-F", "#{client_control_mode} #{client_pid}"), "\n")
		slices.Sort(lines)
		got = strings.Join(lines, "")
		return got == want()
	})
	if n := strings.Count(got, "\n"); n != 1 && n != 2 {
		t.Errorf("clients of the new server = %q, want the watcher's control-mode clients", got)
	}
	if n := w.count(t, map[string]string{"message": "the control-mode client is gone; tmux commands run as processes until it is back"}); n != 1 {
		t.Errorf("the lost control-mode client was logged %d times, want 1", n)
	}
	if n := w.count(t, map[string]string{"level": "warn"}) + w.count(t, map[string]string{"level": "error"}); n != 1 {
		t.Errorf("warnings and errors = %d, want the one about the missing server:\n%v", n, w.lines(t))
	}
	select {
	case <-w.done:
		t.Errorf("the watcher exited (%d)", w.code)
	default:
	}
}

// controlPIDs are the pids of the watcher's control-mode clients: its children running tmux -C.
// (/proc lists children by the thread that started them: every thread of the watcher is read.)
func controlPIDs(t *testing.T, w *watchProc) []int {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", w.cmd.Process.Pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no /proc children lists of the watcher: %v", err)
	}
	var pids []int
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			cmdline, _ := os.ReadFile("/proc/" + f + "/cmdline")
			if strings.Contains(string(cmdline), "\x00-C\x00attach-session") {
				pid, _ := strconv.Atoi(f)
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// A pane closed during its wait is forgotten quietly: no error, no key anywhere.
func TestFaultPaneClosedDuringWait(t *testing.T) {
	t.Parallel()
	reset := nextReset(20 * time.Second) // the watcher sees the wait before the due instant, on a loaded machine too
	s := tmuxtest.Start(t, 120, 30)
	pane, _ := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	_, idleLog := startClaude(t, s, "--scenario", "idle")
	w := startWatch(t, s.Socket)
	w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
	s.Tmux(t, "kill-pane", "-t", pane)
	time.Sleep(time.Until(reset.Add(faultMargin + 3*time.Second))) // past the due instant
	if ins, _, _ := inputs(t, idleLog); len(ins) != 0 {
		t.Errorf("another claude pane received %q", ins)
	}
	if screen := s.Tmux(t, "capture-pane", "-p", "-t", "main:0.0"); strings.Contains(screen, "continue") {
		t.Errorf("the shell pane received keys:\n%s", screen)
	}
	if n := w.count(t, map[string]string{"level": "error"}) + w.count(t, map[string]string{"level": "warn"}); n != 0 {
		t.Errorf("warnings and errors after closing a waiting pane = %d, want none:\n%v", n, w.lines(t))
	}
	if _, ok := stateOf(t, s.Socket)[pane]; ok {
		t.Errorf("the closed pane's wait is still in the state file")
	}
}

// A pane whose claude is replaced by a shell (respawn-pane keeps the pane id) while a
// watcher runs, and another while no watcher runs (the state file remembers its wait):
// neither shell receives a key.
func TestFaultPaneRecycledByShell(t *testing.T) {
	t.Parallel()
	reset := nextReset(20 * time.Second)
	s := tmuxtest.Start(t, 120, 30)
	live, _ := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	stored, _ := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	w1 := startWatch(t, s.Socket)
	for _, p := range []string{live, stored} {
		w1.waitLog(t, 10*time.Second, map[string]string{"pane": p, "state": "waiting"})
	}
	s.Tmux(t, "respawn-pane", "-k", "-t", live, "/bin/sh")
	w1.waitLog(t, 10*time.Second, map[string]string{"pane": live, "message": "claude no longer runs in the pane"})
	w1.kill(syscall.SIGKILL)
	if _, ok := stateOf(t, s.Socket)[stored]; !ok {
		t.Fatalf("no stored wait for %s", stored)
	}
	s.Tmux(t, "respawn-pane", "-k", "-t", stored, "/bin/sh")
	startWatch(t, s.Socket)
	time.Sleep(time.Until(reset.Add(faultMargin + 3*time.Second))) // past the due instant
	var wg sync.WaitGroup
	for _, p := range []string{live, stored} {
		wg.Go(func() {
			if screen := s.Tmux(t, "capture-pane", "-p", "-t", p); strings.Contains(screen, "continue") {
				t.Errorf("the shell in %s received keys:\n%s", p, screen)
			}
		})
	}
	wg.Wait()
	if recs := stateOf(t, s.Socket); len(recs) != 0 {
		t.Errorf("stored waits = %v, want none", recs)
	}
}

// A corrupt state file: a warning, a fresh state, no crash.
func TestFaultCorruptStateFile(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	pane, _ := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	dir, err := store.StateDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	path := store.New(dir, s.Socket).Path
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(path, []byte("{\"version\":1,\"server\":\x00garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, s.Socket)
	w.waitLog(t, 10*time.Second, map[string]string{"level": "warn", "message": "state file not used"})
	w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
	tmuxtest.WaitFor(t, 5*time.Second, "a good state file", func() bool { return stateOf(t, s.Socket)[pane].State == "waiting" })
	if m, _ := filepath.Glob(path + ".bad-*"); len(m) != 1 {
		t.Errorf("set-aside files = %v, want one", m)
	}
}

// SIGHUP reads the configuration file and the tmux options again (the flags stay): a good
// change takes effect (here the message typed: from the file, then from a tmux option once the
// file is gone), a mistake in the file or in an option is reported and changes nothing; it
// never ends the watcher. Each step waits for its log line. This watcher runs every tmux
// command as a process (--transport exec); the others use the default control-mode client.
func TestFaultSIGHUP(t *testing.T) {
	t.Parallel()
	reset := nextReset(20 * time.Second)
	s := tmuxtest.Start(t, 120, 30)
	conf := filepath.Join(s.Dir, "config.toml")
	if err := os.WriteFile(conf, []byte("[watch]\nmessage = \"first\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := "watch.interval: flag --interval watch.margin: flag --margin "
	pane, log := startClaude(t, s, "--reset", reset.Format(time.RFC3339), "--again", "0")
	w := startWatch(t, s.Socket, "--config", conf, "--transport", "exec")
	w.waitLog(t, 10*time.Second, map[string]string{"message": "configuration read", "config": conf, "tmux_options_read": "true",
		"settings": "[" + flags + "watch.message: file " + conf + ":2]"})
	w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
	if got := s.Tmux(t, "list-clients"); got != "" {
		t.Errorf("clients of a watcher with --transport exec: %q, want none", got)
	}

	os.WriteFile(conf, []byte("[watch]\nmessage = \"go on\"\n"), 0o600)
	w.cmd.Process.Signal(syscall.SIGHUP)
	w.waitLog(t, 5*time.Second, map[string]string{"message": "configuration reloaded"})
	os.WriteFile(conf, []byte("[watch]\nmargin = \"soon\"\n"), 0o600)
	w.cmd.Process.Signal(syscall.SIGHUP)
	w.waitLog(t, 5*time.Second, map[string]string{"level": "error", "message": "configuration not reloaded; the watcher goes on with its settings",
		"error": `watch.margin: must be a duration like "90s" (` + conf + ` line 2, got "soon")`})
	os.Remove(conf)
	s.Tmux(t, "set-option", "-g", "@cac-tmux-message", "from tmux")
	w.cmd.Process.Signal(syscall.SIGHUP)
	w.waitLog(t, 5*time.Second, map[string]string{"message": "SIGHUP: configuration read", "config": "",
		"settings": "[" + flags + "watch.message: tmux option @cac-tmux-message]"})
	s.Tmux(t, "set-option", "-g", "@cac-tmux-margn", "10s")
	w.cmd.Process.Signal(syscall.SIGHUP)
	w.waitLog(t, 5*time.Second, map[string]string{"level": "error", "message": "configuration not reloaded; the watcher goes on with its settings",
		"error": "tmux option @cac-tmux-margn: unknown option (did you mean @cac-tmux-margin?); rename it, or unset it with: tmux set-option -gu @cac-tmux-margn"})

	waitResumed(t, log, "from tmux", time.Until(reset)+30*time.Second)
	select {
	case <-w.done:
		t.Errorf("the watcher exited (%d) after SIGHUP", w.code)
	default:
	}
}
