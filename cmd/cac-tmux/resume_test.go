//go:build linux

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// runCmd runs one command line in-process and returns its exit code, stdout and stderr.
func runCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, stdio{out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// wantOneResume waits for the fake Claude Code to resume and checks it received exactly one
// message and Enter.
func wantOneResume(t *testing.T, log string) {
	t.Helper()
	waitResumed(t, log, "continue", 20*time.Second)
	tmuxtest.WaitFor(t, 5*time.Second, "nothing more after the resume", func() bool {
		ins, _, _ := inputs(t, log)
		return len(ins) == 2
	})
}

// resume PANE without a watcher: the command acts itself, before the reset, and reports the
// resumed turn.
func TestResumeWithoutWatcher(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	pane, log := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "--limit-until", time.Now().Format(time.RFC3339))
	code, out, errOut := runCmd("resume", "-S", s.Socket, pane)
	if code != 0 || !strings.Contains(out, "resumed") {
		t.Fatalf("resume = %d, stdout %q, stderr %q; want 0 and the resumed turn", code, out, errOut)
	}
	wantOneResume(t, log)
}

// resume PANE while a watcher runs: handed to the watcher, exactly one resume between them.
func TestResumeThroughWatcher(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	pane, log := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "--limit-until", time.Now().Format(time.RFC3339))
	w := startWatch(t, s.Socket)
	w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
	target := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{session_name}:#{window_index}.#{pane_index}"))
	code, out, errOut := runCmd("resume", "-S", s.Socket, target) // a tmux target, not the id
	if code != 0 || !strings.Contains(out, "resumed by hand") {
		t.Fatalf("resume = %d, stdout %q, stderr %q; want 0 and the watcher's answer", code, out, errOut)
	}
	wantOneResume(t, log)
	w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "message": "resumed"})
}

// Each gate refuses a resume with exit 1 and says which; a target tmux cannot find is a
// usage error; skip marks a stopped session skipped.
func TestResumeRefusalsAndSkip(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	draft, draftLog := startClaude(t, s, "--scenario", "draft", "--draft", "my idea", "--reset", reset)
	copyMode, copyLog := startClaude(t, s, "--reset", reset)
	s.Tmux(t, "copy-mode", "-t", copyMode)
	busy, busyLog := startClaude(t, s, "--scenario", "idle", "--spinner")
	for _, tc := range []struct{ pane, log, why string }{
		{draft, draftLog, "draft"},
		{copyMode, copyLog, "copy mode"},
		{busy, busyLog, "not stopped"},
		{"main:0.0", "", "does not run Claude Code"}, // the server's shell
	} {
		code, _, errOut := runCmd("resume", "-S", s.Socket, tc.pane)
		if code != 1 || !strings.Contains(errOut, "refused") || !strings.Contains(errOut, tc.why) {
			t.Errorf("resume %s = %d, stderr %q; want 1, refused: %s", tc.pane, code, errOut, tc.why)
		}
		if ins, _, _ := inputs(t, tc.log); tc.log != "" && len(ins) != 0 {
			t.Errorf("resume %s: claude received %q", tc.pane, ins)
		}
	}
	if code, _, errOut := runCmd("resume", "-S", s.Socket, "nosuch:9"); code != 2 || !strings.Contains(errOut, "no pane") {
		t.Errorf("resume nosuch:9 = %d, %q; want 2 naming the pane", code, errOut)
	}
	if code, _, errOut := runCmd("skip", "-S", s.Socket); code != 2 {
		t.Errorf("skip without PANE = %d, %q; want 2", code, errOut)
	}
	plain, plainLog := startClaude(t, s, "--reset", reset)
	// A window or pane that does not exist is exit 2 and nothing sent, never the current pane
	// (display-message -t falls back to it): issue 22, finding 3.
	plainWin := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", plain, "#{window_index}"))
	for _, bad := range []string{"main:9.9", "main:" + plainWin + ".7", "main:77", "mai:" + plainWin + ".0", "main", "main:x.0", "%999", "{marked}", "main:" + plainWin + ".0.1"} {
		for _, verb := range []string{"resume", "skip"} {
			if code, _, errOut := runCmd(verb, "-S", s.Socket, bad); code != 2 {
				t.Errorf("%s %s = %d, %q; want 2", verb, bad, code, errOut)
			}
		}
	}
	if st := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", plain, "#{@cac_state}")); st != "" {
		t.Errorf("@cac_state after resume and skip of panes that do not exist = %q, want none", st)
	}
	if code, out, errOut := runCmd("skip", "-S", s.Socket, "main:"+plainWin); code != 0 || !strings.Contains(out, "skipped") {
		t.Errorf("skip main:%s (a window of one pane) = %d, %q, %q; want 0", plainWin, code, out, errOut)
	}
	if code, out, errOut := runCmd("skip", "-S", s.Socket, plain); code != 0 || !strings.Contains(out, "skipped") {
		t.Errorf("skip = %d, %q, %q; want 0", code, out, errOut)
	}
	if st := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", plain, "#{@cac_state}")); st != "skipped" {
		t.Errorf("@cac_state after skip = %q, want skipped", st)
	}
	if ins, _, _ := inputs(t, plainLog); len(ins) != 0 {
		t.Errorf("skip: claude received %q", ins)
	}
}
