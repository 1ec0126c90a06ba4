//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/doctor"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// doctorJSON runs doctor --json on the server and returns its exit code and report.
func doctorJSON(t *testing.T, socket string) (int, doctor.Report, string) {
	t.Helper()
	code, out, errOut := cacRun("doctor", "-S", socket, "--json")
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json output %q: %v (stderr %q)", out, err, errOut)
	}
	return code, r, errOut
}

// doctorNoProc is doctorJSON through the path of systems without /proc (NoProcEnv=1: ps and
// lsof). A run whose ps or lsof outlived the product's bound of 5 s (a machine loaded by the
// tmux matrix) is made again, at most three times in all, and logged: the tests ask what it
// reports, not how fast.
func doctorNoProc(t *testing.T, socket string) doctor.Report {
	t.Helper()
	var r doctor.Report
	for try := 1; try <= 3; try++ {
		cmd := exec.Command(bins.cac, "doctor", "-S", socket, "--json")
		cmd.Env = append(os.Environ(), NoProcEnv+"=1")
		out, _ := cmd.Output()
		r = doctor.Report{}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("doctor --json with %s=1: %q: %v", NoProcEnv, out, err)
		}
		if !strings.Contains(string(out), context.DeadlineExceeded.Error()) {
			break
		}
		t.Logf("doctor --json with %s=1, try %d: ps or lsof ran out of time: %s", NoProcEnv, try, out)
	}
	return r
}

// check is the check of that name in r.
func check(t *testing.T, r doctor.Report, name string) doctor.Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q in %+v", name, r.Checks)
	return doctor.Check{}
}

// paneOf is the pane id in r.
func paneOf(t *testing.T, r doctor.Report, id string) doctor.Pane {
	t.Helper()
	for _, p := range r.Panes {
		if p.Pane == id {
			return p
		}
	}
	t.Fatalf("no pane %s in %+v", id, r.Panes)
	return doctor.Pane{}
}

// TestDoctorWithoutClaude: a server with a shell and no watcher: every check passes but the
// watcher's, exit 1, and the shell is explained.
func TestDoctorWithoutClaude(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 100, 30, "sh") // not a login shell, whose profile runs mesg in the foreground for a while
	shell := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", "main:0.0", "#{pane_id}"))
	tmuxtest.WaitFor(t, 10*time.Second, "the shell at its prompt", func() bool {
		return strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", shell, "#{pane_current_command}")) == "sh"
	})
	code, r, errOut := doctorJSON(t, s.Socket)
	if code != 1 || r.OK || errOut != "cac-tmux: doctor: 1 check found a problem; each comes with its fix\n" {
		t.Errorf("doctor = %d, ok %v, stderr %q; want 1 and one problem", code, r.OK, errOut)
	}
	var names []string
	for _, c := range r.Checks {
		names = append(names, c.Name)
		if c.OK != (c.Name != "watcher") {
			t.Errorf("check %+v, want only the watcher's to fail", c)
		}
	}
	if got := strings.Join(names, " "); got != "tmux server panes records config zones state lock watcher" {
		t.Errorf("checks = %s", got)
	}
	if c := check(t, r, "server"); !strings.Contains(c.Detail, "server "+s.Socket+": socket "+s.Socket+", pid ") {
		t.Errorf("server check = %+v", c)
	}
	if c := check(t, r, "panes"); c.Detail != "0 Claude Code panes of 1, 0 supervised" {
		t.Errorf("panes check = %+v", c)
	}
	if c := check(t, r, "watcher"); !strings.HasPrefix(c.Detail, "no watcher supervises server "+s.Socket) ||
		c.Fix != "start one in a spare pane or window of the server: cac-tmux watch -S "+s.Socket+" (or, with the plugin, set -g @cac-tmux-autostart on)" {
		t.Errorf("watcher check = %+v", c)
	}
	if p := paneOf(t, r, shell); p.Claude || p.LooksLike || p.Problem || !strings.Contains(p.Why, `comm "sh"`) || !strings.Contains(p.Why, "not Claude Code") {
		t.Errorf("shell pane = %+v, want it explained as not Claude Code", p)
	}

	// The text report says the same.
	code, out, _ := cacRun("doctor", "-S", s.Socket)
	if code != 1 || !strings.Contains(out, "ok      tmux: tmux ") || !strings.Contains(out, "PROBLEM watcher: no watcher supervises") ||
		!strings.Contains(out, "          fix: start one in a spare pane") || !strings.Contains(out, shell+" main:0.0 (sh): not Claude Code: ") {
		t.Errorf("doctor = %d:\n%s", code, out)
	}

	// No server: said, with the fix, and the checks that need none still run.
	none := filepath.Join(s.Dir, "none")
	code, r, _ = doctorJSON(t, none)
	if c := check(t, r, "server"); code != 1 || c.OK || c.Detail != "no tmux server runs on server "+none || !strings.Contains(c.Fix, "-L NAME or -S PATH") {
		t.Errorf("doctor on no server = %d, %+v", code, c)
	}
	for _, name := range []string{"config", "zones", "state", "lock"} {
		if c := check(t, r, name); !c.OK {
			t.Errorf("doctor on no server: %+v, want ok", c)
		}
	}
	if code, _, errOut := cacRun("doctor", "x"); code != 2 || !strings.Contains(errOut, `doctor: unexpected argument "x"`) {
		t.Errorf("doctor x = %d, %q", code, errOut)
	}
}

// startPane opens a window in session running argv with the environment env ("K=V") and
// returns its pane id.
func startPane(t *testing.T, s *tmuxtest.Server, session string, env []string, argv ...string) string {
	t.Helper()
	args := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", session + ":"}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	return strings.TrimSpace(s.Tmux(t, append(args, argv...)...))
}

// startFake starts the fake Claude Code (idle) in session with CLAUDE_CONFIG_DIR=cfg and waits
// until it draws; it returns the pane and the claude process's pid.
func startFake(t *testing.T, s *tmuxtest.Server, session, cfg string, args ...string) (string, int) {
	t.Helper()
	log := filepath.Join(s.Dir, "claude"+strconv.FormatInt(time.Now().UnixNano(), 36)+".log")
	argv := append([]string{bins.claude, "--log", log, "--scenario", "idle"}, args...)
	pane := startPane(t, s, session, []string{"CLAUDE_CONFIG_DIR=" + cfg}, argv...)
	tmuxtest.WaitFor(t, 10*time.Second, "the fake claude to start", func() bool {
		_, _, states := inputs(t, log)
		return len(states) > 0
	})
	pid, err := strconv.Atoi(strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pid}")))
	if err != nil {
		t.Fatal(err)
	}
	return pane, pid
}

// TestDoctorWithClaude: Claude Code panes (one supervised, with its records; one left out by
// the configuration), a pane that looks like Claude Code but is not, and a running watcher.
// The look-alike is the one problem; without it all is well; then a typo in a tmux option and
// unreadable records are problems with their fixes.
func TestDoctorWithClaude(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	s.Tmux(t, "new-session", "-d", "-s", "scratch")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-panes-exclude", "scratch")
	cfg := filepath.Join(s.Dir, "claude-config")
	if err := os.MkdirAll(filepath.Join(cfg, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	work, pid := startFake(t, s, "main", cfg, "--records") // it writes its registry entry, as Claude Code 2.1.330
	tmuxtest.WaitFor(t, 10*time.Second, "the registry entry", func() bool {
		_, err := os.Stat(filepath.Join(cfg, "sessions", strconv.Itoa(pid)+".json"))
		return err == nil
	})
	scratch, _ := startFake(t, s, "scratch", cfg)
	lookAlike := startPane(t, s, "main", nil, "bash", "-c", "exec -a claude sleep 600")
	tmuxtest.WaitFor(t, 10*time.Second, "the look-alike to run as claude", func() bool {
		return strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", lookAlike, "#{pane_current_command}")) == "claude"
	})
	startPane(t, s, "main", nil, bins.cac, "watch", "-S", s.Socket)
	tmuxtest.WaitFor(t, 10*time.Second, "the watcher to run", func() bool {
		v, err := s.Client.GlobalOption(context.Background(), tmuxctl.WatcherOption)
		return err == nil && v != ""
	})

	code, r, _ := doctorJSON(t, s.Socket)
	if c := check(t, r, "panes"); code != 1 || c.OK || c.Detail != "2 Claude Code panes of 6, 1 supervised; 1 looks like Claude Code but is not taken for it" {
		t.Errorf("doctor = %d, panes check %+v", code, c)
	}
	if p := paneOf(t, r, work); !p.Claude || !p.Supervised || p.Problem || !strings.Contains(p.How, `executable "`+bins.claude+`"`) ||
		!strings.HasPrefix(p.Records, filepath.Join(cfg, "sessions")+" readable; registry entry of Claude Code 2.1.330, session ") {
		t.Errorf("Claude Code pane = %+v", p)
	}
	if p := paneOf(t, r, scratch); !p.Claude || p.Supervised || p.Note != `session "scratch" matches panes.exclude "scratch"` || p.Problem {
		t.Errorf("excluded Claude Code pane = %+v", p)
	}
	if p := paneOf(t, r, lookAlike); p.Claude || !p.LooksLike || !p.Problem || !strings.Contains(p.Why, `argv[0] "claude", executable "`) ||
		!strings.Contains(p.Why, "sleep\": not Claude Code") || !strings.Contains(p.Fix, "exec claude") {
		t.Errorf("look-alike pane = %+v", p)
	}
	for _, name := range []string{"tmux", "server", "records", "config", "zones", "state", "lock", "watcher"} {
		if c := check(t, r, name); !c.OK {
			t.Errorf("check %+v, want ok", c)
		}
	}
	if c := check(t, r, "watcher"); !strings.HasPrefix(c.Detail, "a watcher (pid ") || !strings.Contains(c.Detail, " held by pid ") {
		t.Errorf("watcher check = %+v", c)
	}

	// The same through the path of systems without /proc (CAC_TMUX_NO_PROC=1: ps and lsof),
	// the look-alike still not taken for Claude Code.
	np := doctorNoProc(t, s.Socket)
	if p := paneOf(t, np, work); !p.Claude || !strings.Contains(p.How, "(ps, lsof)") || !strings.Contains(p.How, `executable "`+bins.claude+`"`) {
		t.Errorf("Claude Code pane without /proc = %+v", p)
	}
	if p := paneOf(t, np, lookAlike); p.Claude || !p.LooksLike || !strings.Contains(p.Why, "not Claude Code") {
		t.Errorf("look-alike pane without /proc = %+v", p)
	}

	// Without the look-alike, all is well.
	s.Tmux(t, "kill-pane", "-t", lookAlike)
	code, out, errOut := cacRun("doctor", "-S", s.Socket)
	if code != 0 || errOut != "" || !strings.HasSuffix(out, "all is well\n") || !strings.Contains(out, work+" main:") {
		t.Errorf("doctor without the look-alike = %d, stderr %q:\n%s", code, errOut, out)
	}

	// A typo in a tmux option, and records that cannot be read: problems with their fixes.
	s.Tmux(t, "set-option", "-g", "@cac-tmux-margn", "10s")
	bad := filepath.Join(s.Dir, "bad-config")
	os.MkdirAll(bad, 0o700)
	os.WriteFile(filepath.Join(bad, "sessions"), nil, 0o600) // a file where the registry's directory should be
	unreadable, _ := startFake(t, s, "main", bad)
	code, r, _ = doctorJSON(t, s.Socket)
	if c := check(t, r, "config"); code != 1 || c.OK ||
		c.Detail != "tmux option @cac-tmux-margn: unknown option (did you mean @cac-tmux-margin?); rename it, or unset it with: tmux set-option -gu @cac-tmux-margn" ||
		!strings.Contains(c.Fix, "cac-tmux config check") {
		t.Errorf("doctor with a typo = %d, config check %+v", code, c)
	}
	if c := check(t, r, "records"); c.OK || c.Detail != "the records of 1 of 3 Claude Code panes cannot be read" {
		t.Errorf("records check = %+v", c)
	}
	if p := paneOf(t, r, unreadable); !p.Problem || !strings.Contains(p.Records, "sessions cannot be read: ") ||
		p.Fix != "make "+filepath.Join(bad, "sessions")+" a directory this user can read: cac-tmux must run as the user who runs Claude Code" {
		t.Errorf("pane with unreadable records = %+v", p)
	}
}

// TestDoctorBeneath: Claude Code that a pane runs out of its reach is named under that pane,
// as a problem with its fix, through /proc and without it: the fake Claude Code under
// script(1) (on script's own terminal), and in a pane of a second server whose tmux client
// runs in the pane (nested tmux). Neither pane is taken for Claude Code. Once a watcher runs
// on the second server, the nested pane is no problem.
func TestDoctorBeneath(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script(1) is not installed (Debian: bsdutils): %v", err)
	}
	s := tmuxtest.Start(t, 100, 30, "sh")
	inner := tmuxtest.Start(t, 100, 30, "sh")
	cfg := filepath.Join(s.Dir, "claude-config")
	log := filepath.Join(s.Dir, "script-claude.log")
	script := startPane(t, s, "main", []string{"CLAUDE_CONFIG_DIR=" + cfg}, "script", "-qfc", bins.claude+" --log "+log+" --scenario idle", "/dev/null")
	tmuxtest.WaitFor(t, 10*time.Second, "the fake claude under script to start", func() bool {
		_, _, states := inputs(t, log)
		return len(states) > 0
	})
	startFake(t, inner, "main", cfg)
	nested := startPane(t, s, "main", nil, "env", "-u", "TMUX", "tmux", "-S", inner.Socket, "attach", "-t", "main")
	tmuxtest.WaitFor(t, 10*time.Second, "the nested client to attach", func() bool {
		return strings.TrimSpace(inner.Tmux(t, "list-clients", "-F", "#{client_pid}")) != ""
	})

	wantBeneath := func(name string, r doctor.Report, watched bool) {
		t.Helper()
		want := "0 Claude Code panes of 3, 0 supervised; 2 run Claude Code out of their reach, which no watcher supervises"
		if watched {
			want = "0 Claude Code panes of 3, 0 supervised; 1 runs Claude Code out of its reach, which no watcher supervises"
		}
		if c := check(t, r, "panes"); c.OK || c.Detail != want || c.Fix != "see the fix under each pane" {
			t.Errorf("%s: panes check %+v, want %q", name, c, want)
		}
		if p := paneOf(t, r, script); p.Claude || p.Beneath == 0 || !p.Problem || !strings.HasPrefix(p.Why, "claude (pid ") ||
			!strings.Contains(p.Why, ") runs under script (pid ") || !strings.Contains(p.Why, "on its own terminal /dev/pts/") ||
			!strings.HasPrefix(p.Fix, "run claude directly in the pane") {
			t.Errorf("%s: script pane = %+v", name, p)
		}
		p := paneOf(t, r, nested)
		if p.Claude || p.Beneath == 0 || p.OtherServer != inner.Socket || !strings.Contains(p.Why, "runs in another tmux server, on socket "+inner.Socket) {
			t.Errorf("%s: nested pane = %+v", name, p)
		}
		if watched != (!p.Problem && strings.HasPrefix(p.Note, "a watcher (pid ")) || !watched && p.Fix != "start a watcher on that server: cac-tmux watch -S "+inner.Socket {
			t.Errorf("%s: nested pane = %+v, want watched %v", name, p, watched)
		}
	}
	_, r, _ := doctorJSON(t, s.Socket)
	wantBeneath("/proc", r, false)
	np := doctorNoProc(t, s.Socket)
	wantBeneath("without /proc", np, false)
	code, out, _ := cacRun("doctor", "-S", s.Socket)
	if code != 1 || !strings.Contains(out, script+" main:1.0 (script): Claude Code out of this pane's reach: claude (pid ") {
		t.Errorf("doctor = %d:\n%s", code, out)
	}

	startPane(t, inner, "main", nil, bins.cac, "watch", "-S", inner.Socket)
	tmuxtest.WaitFor(t, 10*time.Second, "the watcher of the second server to run", func() bool {
		v, err := inner.Client.GlobalOption(context.Background(), tmuxctl.WatcherOption)
		return err == nil && v != ""
	})
	_, r, _ = doctorJSON(t, s.Socket)
	wantBeneath("a watcher on the second server", r, true)
}

// TestDoctorCannotSave: where a file can be created in the state directory but not written
// (here under a file size limit of 0, which root obeys too; a full disk fails the same way),
// the state check says so, with the error and the fix.
func TestDoctorCannotSave(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 100, 30, "sh")
	state := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(filepath.Join(state, "cac-tmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `ulimit -f 0 && exec "$0" "$@"`, bins.cac, "doctor", "-S", s.Socket, "--json")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	out, _ := cmd.Output()
	var r doctor.Report
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("doctor --json under ulimit -f 0: %q: %v", out, err)
	}
	dir := filepath.Join(state, "cac-tmux")
	if c := check(t, r, "state"); c.OK || !strings.HasPrefix(c.Detail, "the state directory "+dir+" cannot be written: store: probe "+dir+": write "+dir+"/.cac-tmux-probe-") ||
		!strings.HasSuffix(c.Detail, ": file too large") || !strings.Contains(c.Fix, "ulimit -f") {
		t.Errorf("state check under ulimit -f 0 = %+v", c)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("doctor left %v in %s", left, dir)
	}
}
