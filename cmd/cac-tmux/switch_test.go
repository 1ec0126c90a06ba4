//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// switchEnv is the world of one switch test: a private tmux server, a HOME with two Claude
// Code accounts (config directories a and b), the working directory of the sessions, and
// cac-tmux's own configuration, state and lock directories.
type switchEnv struct {
	s          *tmuxtest.Server
	dir, home  string
	a, b, work string
	log        string // the log of the last fake Claude Code started
}

// newSwitchEnv makes a switchEnv whose configuration file holds conf ("" for none).
func newSwitchEnv(t *testing.T, conf string) *switchEnv {
	t.Helper()
	s := tmuxtest.Start(t, 120, 40)
	e := &switchEnv{s: s, dir: t.TempDir()}
	e.home = filepath.Join(e.dir, "home")
	e.a, e.b, e.work = filepath.Join(e.home, "acct-a"), filepath.Join(e.home, "acct-b"), filepath.Join(e.dir, "work.dir")
	for _, d := range []string{e.a, e.b, e.work, filepath.Join(e.dir, "cfg", "cac-tmux")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if conf != "" {
		if err := os.WriteFile(filepath.Join(e.dir, "cfg", "cac-tmux", "config.toml"), []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// accountsConf is [accounts] with the two accounts of a switchEnv, written with "~".
const accountsConf = "[accounts]\ndirs = [\"~/acct-a\", \"~/acct-b\"]\nmax_per_day = 2\n"

// claude starts the fake Claude Code with records in account a, in the working directory,
// stopped at a limit an hour away (more args after), and returns its pane and process.
func (e *switchEnv) claude(t *testing.T, args ...string) (pane string, entry records.Entry) {
	t.Helper()
	log := filepath.Join(e.dir, "claude"+strconv.FormatInt(time.Now().UnixNano(), 36)+".log")
	reset := time.Now().Add(time.Hour).Truncate(time.Minute).UTC().Format(time.RFC3339)
	argv := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-c", e.work, "-e", "CLAUDE_CONFIG_DIR=" + e.a,
		bins.claude, "--log", log, "--records", "--reset", reset}
	pane, e.log = strings.TrimSpace(e.s.Tmux(t, append(argv, args...)...)), log
	pid, err := strconv.Atoi(strings.TrimSpace(e.s.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the fake claude to start", func() bool {
		_, _, states := inputs(t, log)
		entry, err = (records.Env{ConfigDir: e.a}).ReadEntry(pid)
		return len(states) > 0 && err == nil && entry.SessionID != ""
	})
	return pane, entry
}

// registered is the one entry of the session registry of the account in dir, zero when none.
func registered(t *testing.T, dir string) records.Entry {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "sessions", "*.json"))
	if len(paths) != 1 {
		return records.Entry{}
	}
	pid, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(paths[0]), ".json"))
	en, err := (records.Env{ConfigDir: dir}).ReadEntry(pid)
	if err != nil {
		return records.Entry{}
	}
	return en
}

// copyOf is where a switch to account b puts the transcript of the session of entry: under
// the project directory Claude Code made for it in account a.
func (e *switchEnv) copyOf(t *testing.T, entry records.Entry) string {
	t.Helper()
	src, err := (records.Env{ConfigDir: e.a}).Transcript(entry)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(e.b, "projects", filepath.Base(filepath.Dir(src)), entry.SessionID+".jsonl")
}

// environ is the environment of cac-tmux in this world.
func (e *switchEnv) environ() []string {
	return append(os.Environ(), "HOME="+e.home, "XDG_CONFIG_HOME="+filepath.Join(e.dir, "cfg"),
		"XDG_STATE_HOME="+filepath.Join(e.dir, "state"), "XDG_RUNTIME_DIR="+filepath.Join(e.dir, "run"))
}

// watch starts `cac-tmux watch` on this world's server, with its HOME and XDG directories.
func (e *switchEnv) watch(t *testing.T) *watchProc {
	t.Helper()
	f, err := os.Create(filepath.Join(e.dir, "watch.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bins.cac, "watch", "-S", e.s.Socket, "--log-format", "json", "--interval", "300ms")
	cmd.Env = e.environ()
	return launch(t, cmd, f, f)
}

// run runs the built cac-tmux with this world's HOME and XDG directories.
func (e *switchEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), tmuxtest.Scale(60*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.cac, args...)
	cmd.Env = e.environ()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("cac-tmux %q: %v", args, err)
	}
	t.Logf("cac-tmux %s: exit %d\nstdout: %sstderr: %s", strings.Join(args, " "), cmd.ProcessState.ExitCode(), out.String(), errOut.String())
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// untouched checks that a refused switch changed nothing: no copy in account b, no switch
// recorded, the same process in the pane, and the pane not left skipped.
func (e *switchEnv) untouched(t *testing.T, pane string, entry records.Entry) {
	t.Helper()
	if _, err := os.Stat(e.copyOf(t, entry)); !os.IsNotExist(err) {
		t.Errorf("the session's transcript was copied into b although the switch was refused (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "state", "cac-tmux", "switches.json")); !os.IsNotExist(err) {
		t.Errorf("a switch was recorded although it was refused (%v)", err)
	}
	if err := syscall.Kill(entry.PID, 0); err != nil {
		t.Errorf("the fake claude (pid %d) is gone after a refused switch: %v", entry.PID, err)
	}
	if got := registered(t, e.a); got.PID != entry.PID {
		t.Errorf("account a's registry names pid %d, want %d still", got.PID, entry.PID)
	}
	if state := e.s.Tmux(t, "display-message", "-p", "-t", pane, "#{@cac_state}"); strings.TrimSpace(state) == "skipped" {
		t.Errorf("pane %s is left skipped after a refused switch", pane)
	}
}

// TestSwitch moves a session stopped at a limit in account a to account b: its transcript
// is copied into b, the pane runs the fake Claude Code again with b as its config directory
// and --resume, the old process is gone, and the session goes on there.
func TestSwitch(t *testing.T) {
	t.Parallel()
	e := newSwitchEnv(t, accountsConf)
	pane, entry := e.claude(t)
	src, err := (records.Env{ConfigDir: e.a}).Transcript(entry)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := e.run(t, "switch", "-S", e.s.Socket, pane)
	if code != 0 || !strings.HasPrefix(out, "switched "+pane+" (main:1.0) to ~/acct-b: claude --resume "+entry.SessionID+" runs (pid ") {
		t.Fatalf("switch = %d, stdout %q, stderr %q", code, out, errOut)
	}
	dst := e.copyOf(t, entry)
	encoded := strings.Map(func(r rune) rune { // every character but letters and digits as "-"
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, e.work)
	if want := filepath.Join(e.b, "projects", encoded, entry.SessionID+".jsonl"); dst != want {
		t.Errorf("the copy is at %s, want %s (the working directory encoded as Claude Code does)", dst, want)
	}
	if a, b := readText(t, src), readText(t, dst); !strings.HasPrefix(b, a) || a == "" {
		t.Errorf("the transcript in b does not start with a's:\n%s\nin b:\n%s", a, b)
	}
	var moved records.Entry
	tmuxtest.WaitFor(t, 10*time.Second, "the session's registry entry in b", func() bool {
		moved = registered(t, e.b)
		return moved.SessionID == entry.SessionID
	})
	env := readText(t, "/proc/"+strconv.Itoa(moved.PID)+"/environ")
	argv := readText(t, "/proc/"+strconv.Itoa(moved.PID)+"/cmdline")
	if !strings.Contains(env, "\x00CLAUDE_CONFIG_DIR="+e.b+"\x00") || !strings.HasSuffix(argv, "\x00--resume\x00"+entry.SessionID+"\x00--\x00continue\x00") ||
		moved.Cwd != entry.Cwd {
		t.Errorf("the new claude (pid %d) runs %q in %s, CLAUDE_CONFIG_DIR=b %v; want --resume %s -- continue in %s",
			moved.PID, argv, moved.Cwd, strings.Contains(env, "CLAUDE_CONFIG_DIR="+e.b+"\x00"), entry.SessionID, entry.Cwd)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the old claude to end", func() bool { return syscall.Kill(entry.PID, 0) != nil })
	// The skip handed to the old process is not left published on the pane (pane options
	// outlive respawn-pane).
	if state := strings.TrimSpace(e.s.Tmux(t, "display-message", "-p", "-t", pane, "#{@cac_state}")); state == "skipped" {
		t.Errorf("pane %s still reads skipped after the switch", pane)
	}

	// It goes on in b by itself, with the resume message as its first prompt (no key typed),
	// recorded in b's transcript; and a prompt typed there gets a reply too.
	e.s.WaitScreen(t, pane, "● Got it: continue")
	e.s.Tmux(t, "send-keys", "-t", pane, "-l", "--", "carry on")
	e.s.WaitScreen(t, pane, "❯\u00a0carry on")
	e.s.Tmux(t, "send-keys", "-t", pane, "Enter")
	e.s.WaitScreen(t, pane, "● Got it: carry on")
	rows, err := records.ReadTail(dst, entry.SessionID)
	if n := len(rows); err != nil || n < 4 || rows[n-4].Kind != records.RowUser || rows[n-4].Prompt != records.Digest("continue") ||
		rows[n-2].Kind != records.RowUser || rows[n-2].Prompt != records.Digest("carry on") || rows[n-1].Kind != records.RowAssistant {
		t.Errorf("b's transcript ends in %+v, %v; want the message and its reply, then the prompt and its reply", rows, err)
	}
	var all []store.Switch
	if err := json.Unmarshal([]byte(readText(t, filepath.Join(e.dir, "state", "cac-tmux", "switches.json"))), &all); err != nil ||
		len(all) != 1 || all[0].Session != entry.SessionID || all[0].From != e.a || all[0].To != e.b {
		t.Errorf("switches recorded: %+v, %v; want one of session %s from a to b", all, err, entry.SessionID)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// limitIn writes a transcript in the account dir with a usage limit that lifts at reset.
func limitIn(t *testing.T, dir string, reset time.Time) {
	t.Helper()
	at := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)
	row := `{"type":"assistant","sessionId":"other","timestamp":"` + at + `","isApiErrorMessage":true,"error":"rate_limit",` +
		`"quotaLimits":{"status":"rejected","resetsAt":` + strconv.FormatInt(reset.Unix(), 10) + `,"rateLimitType":"five_hour"}}` + "\n"
	p := filepath.Join(dir, "projects", "-elsewhere", "other.jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(row), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSwitchRefusals: each gate refuses with its exit code and its reason, and changes
// nothing: no copy, no record, the same process in the pane, no skip left behind.
func TestSwitchRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, conf string
		args       []string // claude's
		reopen     bool     // claude reopens a conversation stopped by an earlier process
		prepare    func(t *testing.T, e *switchEnv, entry records.Entry)
		switchArgs []string // after the pane
		code       int
		want       string
	}{
		{name: "draft", conf: accountsConf, args: []string{"--scenario", "draft", "--draft", "half a thought"},
			code: 1, want: "holds a draft"},
		{name: "not stopped", conf: accountsConf, reopen: true, code: 1, want: "is not stopped at a limit"},
		{name: "a stop redrawn by a reopened conversation", conf: accountsConf, reopen: true, code: 1,
			want: "the stop on screen is an earlier process's, redrawn by a reopened conversation"},
		{name: "not configured", code: 2, want: `no accounts to switch between: set [accounts] dirs = ["~/.claude", "~/.claude-work"]`},
		{name: "one account", conf: "[accounts]\ndirs = [\"~/acct-a\"]\n", code: 2, want: "accounts.dirs: must name at least two directories"},
		{name: "target limited", conf: accountsConf, code: 1, want: "refused: ~/acct-b is limited until ",
			prepare: func(t *testing.T, e *switchEnv, _ records.Entry) { limitIn(t, e.b, time.Now().Add(3*time.Hour)) }},
		{name: "target named and limited", conf: accountsConf, switchArgs: []string{"--to", "acct-b"}, code: 1, want: "refused: ~/acct-b is limited until ",
			prepare: func(t *testing.T, e *switchEnv, _ records.Entry) { limitIn(t, e.b, time.Now().Add(3*time.Hour)) }},
		{name: "target is the session's", conf: accountsConf, switchArgs: []string{"--to", "1"}, code: 2, want: "the session already runs in ~/acct-a"},
		{name: "unknown target", conf: accountsConf, switchArgs: []string{"--to", "acct-c"}, code: 2, want: "the accounts are 1 ~/acct-a, 2 ~/acct-b"},
		{name: "bound reached", conf: accountsConf, code: 1, want: "was switched 2 times within 24 hours, and accounts.max_per_day is 2",
			prepare: func(t *testing.T, e *switchEnv, entry records.Entry) {
				sw, err := store.OpenSwitches(func(k string) string { return map[string]string{"XDG_STATE_HOME": filepath.Join(e.dir, "state")}[k] })
				if err != nil {
					t.Fatal(err)
				}
				for _, ago := range []time.Duration{25 * time.Hour, 3 * time.Hour, time.Hour} { // the first is over a day ago
					if err := sw.Add(store.Switch{Session: entry.SessionID, From: e.b, To: e.a, At: time.Now().Add(-ago)}, time.Now()); err != nil {
						t.Fatal(err)
					}
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newSwitchEnv(t, tc.conf)
			args := tc.args
			if tc.reopen {
				args = []string{"--resume", e.earlier(t, tc.name != "not stopped")}
			}
			pane, entry := e.claude(t, args...)
			if tc.prepare != nil {
				tc.prepare(t, e, entry)
			}
			code, out, errOut := e.run(t, append([]string{"switch", "-S", e.s.Socket, pane}, tc.switchArgs...)...)
			if code != tc.code || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("switch = %d, stdout %q, stderr %q; want %d and %q", code, out, errOut, tc.code, tc.want)
			}
			if tc.name != "bound reached" { // its record is the test's own
				e.untouched(t, pane, entry)
			} else if _, err := os.Stat(e.copyOf(t, entry)); !os.IsNotExist(err) {
				t.Errorf("the session's transcript was copied into b although the switch was refused (%v)", err)
			}
		})
	}
}

// TestSwitchNoPane: a pane that does not exist is a usage error, never tmux's fallback to the
// active pane.
func TestSwitchNoPane(t *testing.T) {
	t.Parallel()
	e := newSwitchEnv(t, accountsConf)
	_, entry := e.claude(t)
	for _, target := range []string{"%999", "nosuch:9.9", "main:7"} {
		code, out, errOut := e.run(t, "switch", "-S", e.s.Socket, target)
		if code != 2 || out != "" || !strings.Contains(errOut, "give a pane id (%12) or session:window.pane") {
			t.Errorf("switch %s = %d, stdout %q, stderr %q; want 2 and how to name a pane", target, code, out, errOut)
		}
	}
	e.untouched(t, "main:1.0", entry)

	// --to completes to the configured accounts.
	if code, out, _ := e.run(t, "__complete", "switch", "-S", e.s.Socket, "--to", "~/acct-"); code != 0 || !strings.HasPrefix(out, "~/acct-a\n~/acct-b\n:") {
		t.Errorf("completion of --to = %d, %q; want the two accounts", code, out)
	}
}

// TestSwitchWithWatcher: while a watcher supervises the server, the switch hands the pane its
// skip (the watcher then types nothing into it), and the watcher goes on with the new
// process; no key reached the old Claude Code.
func TestSwitchWithWatcher(t *testing.T) {
	t.Parallel()
	e := newSwitchEnv(t, accountsConf)
	pane, entry := e.claude(t)
	w := e.watch(t)
	state := func() string {
		return strings.TrimSpace(e.s.Tmux(t, "display-message", "-p", "-t", pane, "#{@cac_state}"))
	}
	tmuxtest.WaitFor(t, 15*time.Second, "the watcher to wait for the reset", func() bool { return state() == "waiting" })

	code, out, errOut := e.run(t, "switch", "-S", e.s.Socket, pane)
	if code != 0 || !strings.HasPrefix(out, "switched "+pane) || !strings.Contains(errOut, "skip "+pane+": handed to the running watcher") {
		t.Fatalf("switch = %d, stdout %q, stderr %q; want the skip handed to the watcher, then switched", code, out, errOut)
	}
	w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "request": "skip", "verdict": "ok"})
	if moved := registered(t, e.b); moved.SessionID != entry.SessionID {
		t.Errorf("account b's registry: %+v, want session %s", moved, entry.SessionID)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the watcher to follow the new process", func() bool {
		s := state()
		return s != "skipped" && s != "waiting"
	})
	t.Logf("the watcher's state of the pane after the switch: %q", state())
	if ins, _, _ := inputs(t, e.log); len(ins) > 0 {
		t.Errorf("the old Claude Code received %q", ins)
	}
}

// With [accounts] auto the watcher switches a session that stops to the free account by
// itself, as `cac-tmux switch` does: the transcript copied into b, claude --resume there with
// the message, so that it goes on (the watcher then sees it run), the old process gone,
// nothing typed into it. The switch is recorded once: the stop the new
// process redraws is not switched again.
func TestSwitchAuto(t *testing.T) {
	t.Parallel()
	e := newSwitchEnv(t, accountsConf+"auto = true\n")
	pane, entry := e.claude(t)
	w := e.watch(t)
	w.waitLog(t, 60*time.Second, map[string]string{"pane": pane, "message": "switched to another account", "account": "~/acct-b"})
	if moved := registered(t, e.b); moved.SessionID != entry.SessionID {
		t.Errorf("account b's registry: %+v, want session %s", moved, entry.SessionID)
	}
	if _, err := os.Stat(e.copyOf(t, entry)); err != nil {
		t.Errorf("the transcript is not in b: %v", err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the old claude to end", func() bool { return syscall.Kill(entry.PID, 0) != nil })
	if ins, _, _ := inputs(t, e.log); len(ins) > 0 {
		t.Errorf("the old Claude Code received %q", ins)
	}
	e.s.WaitScreen(t, pane, "● Got it: continue") // it went on in b, with the message
	tmuxtest.WaitFor(t, 10*time.Second, "the watcher to see it run", func() bool {
		return strings.TrimSpace(e.s.Tmux(t, "display-message", "-p", "-t", pane, "#{@cac_state}")) == ""
	})
	b, err := os.ReadFile(filepath.Join(e.dir, "state", "cac-tmux", "switches.json"))
	if err != nil || strings.Count(string(b), entry.SessionID) != 1 {
		t.Errorf("the switches recorded (%v): %s; want this session's once", err, b)
	}
}

// earlier writes in account a the transcript of a simulated session of an earlier process,
// a prompt and then a stop at a limit an hour away (stopped) or a reply, and returns its id.
func (e *switchEnv) earlier(t *testing.T, stopped bool) string {
	t.Helper()
	const id = "5e551011-0000-4000-8000-0000000000ea"
	at := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339Nano)
	rows := `{"type":"user","sessionId":"` + id + `","timestamp":"` + at + `","message":{"role":"user","content":"hello"}}` + "\n"
	if stopped {
		rows += `{"type":"assistant","sessionId":"` + id + `","timestamp":"` + at + `","isApiErrorMessage":true,"error":"rate_limit",` +
			`"quotaLimits":{"status":"rejected","resetsAt":` + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) + `,"rateLimitType":"five_hour"}}` + "\n"
	} else {
		rows += `{"type":"assistant","sessionId":"` + id + `","timestamp":"` + at + `","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]}}` + "\n"
	}
	encoded := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, e.work)
	p := filepath.Join(e.a, "projects", encoded, id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(rows), 0o600); err != nil {
		t.Fatal(err)
	}
	return id
}

// With [accounts] auto, sessions of account a that stop together are all switched to b, one
// after the other: none is refused because the switch before it holds the lock of switching
// (the watcher's own pid), and each is recorded once.
func TestSwitchAutoQueues(t *testing.T) {
	t.Parallel()
	e := newSwitchEnv(t, accountsConf+"auto = true\n")
	var panes []string
	var entries []records.Entry
	for range 4 {
		pane, entry := e.claude(t)
		panes, entries = append(panes, pane), append(entries, entry)
	}
	w := e.watch(t)
	for _, pane := range panes {
		w.waitLog(t, 90*time.Second, map[string]string{"pane": pane, "message": "switched to another account", "account": "~/acct-b"})
	}
	if n := w.count(t, map[string]string{"message": "not switched to another account"}); n > 0 {
		t.Errorf("%d switches refused, want none:\n%s", n, readText(t, w.log))
	}
	b, err := os.ReadFile(filepath.Join(e.dir, "state", "cac-tmux", "switches.json"))
	for _, entry := range entries {
		if err != nil || strings.Count(string(b), entry.SessionID) != 1 {
			t.Errorf("the switches recorded (%v): %s; want session %s once", err, b, entry.SessionID)
		}
	}
}

// A stop a watcher saved before it was restarted is switched by the next watcher with
// [accounts] auto, although that one restores it without telling of it again.
func TestSwitchAutoAfterRestart(t *testing.T) {
	t.Parallel()
	e := newSwitchEnv(t, accountsConf)
	pane, entry := e.claude(t)
	w := e.watch(t)
	tmuxtest.WaitFor(t, 30*time.Second, "the watcher to wait for the reset", func() bool {
		return strings.TrimSpace(e.s.Tmux(t, "display-message", "-p", "-t", pane, "#{@cac_state}")) == "waiting"
	})
	w.kill(syscall.SIGTERM)
	states, _ := filepath.Glob(filepath.Join(e.dir, "state", "cac-tmux", "*.json"))
	if len(states) != 1 || !strings.Contains(readText(t, states[0]), `"`+pane+`"`) {
		t.Fatalf("the state files %q do not hold pane %s", states, pane)
	}
	if err := os.WriteFile(filepath.Join(e.dir, "cfg", "cac-tmux", "config.toml"), []byte(accountsConf+"auto = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w = e.watch(t)
	w.waitLog(t, 60*time.Second, map[string]string{"pane": pane, "message": "switched to another account", "account": "~/acct-b"})
	if moved := registered(t, e.b); moved.SessionID != entry.SessionID {
		t.Errorf("account b's registry: %+v, want session %s", moved, entry.SessionID)
	}
}
