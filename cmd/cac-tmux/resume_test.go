//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/store"
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
	if code != 0 || out != "resumed: a turn runs in "+target+"\n" || !strings.Contains(errOut, "waiting for the watcher to see the outcome") {
		t.Fatalf("resume = %d, stdout %q, stderr %q; want 0, the resumed turn the watcher saw, and what it waited for", code, out, errOut)
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
	// (display-message -t falls back to it).
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
	// A window by its name, as tmux takes it; a name two windows share is refused, naming them.
	s.Tmux(t, "rename-window", "-t", plain, "draft")
	for _, target := range []string{"main:draft", "main:draft.0"} {
		if code, out, errOut := runCmd("skip", "-S", s.Socket, target); code != 0 || !strings.Contains(out, "skipped") {
			t.Errorf("skip %s = %d, %q, %q; want 0", target, code, out, errOut)
		}
	}
	s.Tmux(t, "new-window", "-d", "-t", "main:80", "-n", "dup")
	s.Tmux(t, "new-window", "-d", "-t", "main:81", "-n", "dup")
	want := `cac-tmux: pane "main:dup" names more than one pane: windows main:80, main:81 are all named "dup" (name one by its index); cac-tmux list shows the panes` + "\n"
	if code, _, errOut := runCmd("resume", "-S", s.Socket, "main:dup"); code != 2 || errOut != want {
		t.Errorf("resume main:dup = %d, %q; want 2 and %q", code, errOut, want)
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

// resume reports the outcome the watcher saw, not that the keys went out: a limit that still
// holds is exit 4 and says when the watcher tries again; a pane held after the keys (they
// never reached the input box) is exit 3 and says why.
func TestResumeThroughWatcherReportsTheOutcome(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	holds, holdsLog := startClaude(t, s, "--reset", reset) // every prompt before the reset hits the limit again
	eats, _ := startClaude(t, s, "--reset", reset, "--vim", "stuck")
	w := startWatch(t, s.Socket)
	for _, p := range []string{holds, eats} {
		w.waitLog(t, 10*time.Second, map[string]string{"pane": p, "state": "waiting"})
	}
	code, out, errOut := runCmd("resume", "-S", s.Socket, holds)
	if code != 4 || out != "" || !strings.Contains(errOut, "did not resume: main:1.0 is waiting: the limit still holds after 1 attempt; next attempt ") {
		t.Errorf("resume of a session whose limit still holds = %d, stdout %q, stderr %q; want 4, the limit holds, the next attempt", code, out, errOut)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the stop again", func() bool { _, _, st := inputs(t, holdsLog); return hasState(st, "limited-again") })
	code, out, errOut = runCmd("resume", "-S", s.Socket, eats)
	if code != 3 || out != "" || !strings.Contains(errOut, "did not resume: main:2.0 is held: the input box did not show what was typed") {
		t.Errorf("resume of a session that eats every key = %d, stdout %q, stderr %q; want 3 and held, saying why", code, out, errOut)
	}
	if st := paneOption(t, s, eats, "@cac_state"); st != "held" {
		t.Errorf("@cac_state after the keys were eaten = %q, want held (it sticks until the stop changes)", st)
	}
}

// Without a watcher, resume says what it did and that nothing more will happen: it promised
// a "next attempt" nobody would make.
func TestResumeWithoutWatcherPromisesNothing(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	pane, log := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	code, out, errOut := runCmd("resume", "-S", s.Socket, pane)
	if code != 4 || out != "" || !strings.Contains(errOut, "the limit still holds after 1 attempt; no watcher runs on this server, so nothing more will be tried") ||
		strings.Contains(errOut, "next attempt") {
		t.Errorf("resume = %d, stdout %q, stderr %q; want 4, the limit holds, nothing more tried, no next attempt", code, out, errOut)
	}
	if ins, _, _ := inputs(t, log); strings.Join(ins, "|") != "continue|\r" {
		t.Errorf("claude received %q, want one message and Enter", ins)
	}
}

// Two resumes of one pane at once: the second is refused at once, sends nothing and names
// the first, which reports the one outcome. With a watcher (slow to take requests, so the
// first's request is still waiting) the second overwrote the first's request, and the first
// waited 75 s for an answer; without one, the second took the first's lock for a watcher's
// and waited 75 s too.
func TestResumeTwiceAtOnce(t *testing.T) {
	t.Parallel()
	for _, watched := range []bool{true, false} {
		name := map[bool]string{true: "watcher", false: "no watcher"}[watched]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := tmuxtest.Start(t, 120, 30)
			pane, log := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339), "--limit-until", time.Now().Format(time.RFC3339))
			busy := func() bool { return lockHeld(t, s.Socket) } // the first acts, holding the watcher's lock
			if watched {
				w := startWatch(t, s.Socket, "--interval", "5s")
				w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
				busy = func() bool { return paneOption(t, s, pane, "@cac_request") != "" }
			}
			first := exec.Command(bins.cac, "resume", "-S", s.Socket, pane)
			var firstOut, firstErr bytes.Buffer
			first.Stdout, first.Stderr = &firstOut, &firstErr
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			tmuxtest.WaitFor(t, 10*time.Second, "the first resume under way", busy)
			start := time.Now()
			code, out, errOut := runCmd("resume", "-S", s.Socket, pane)
			if took := time.Since(start); code != 1 || out != "" || !strings.Contains(errOut, "already in progress") || took > tmuxtest.Scale(5*time.Second) {
				t.Errorf("second resume = %d after %s, stdout %q, stderr %q; want 1 at once: already in progress", code, took.Round(time.Millisecond), out, errOut)
			}
			err := first.Wait()
			if err != nil || !strings.Contains(firstOut.String(), "resumed: a turn runs in") {
				t.Errorf("first resume: %v, stdout %q, stderr %q; want 0 and the resumed turn", err, firstOut.String(), firstErr.String())
			}
			wantOneResume(t, log)
		})
	}
}

// paneOption reads a pane option of pane on s.
func paneOption(t *testing.T, s *tmuxtest.Server, pane, name string) string {
	t.Helper()
	return strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{"+name+"}"))
}

// A skip while a resume of the pane is in progress is refused too: it would have replaced the
// resume's request. The pane lock is the one resume and skip take.
func TestSkipWhileResumeInProgress(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	pane, log := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	held, err := store.LockPane(os.Getenv, s.Socket, pane) // as a resume of the pane does
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	code, out, errOut := runCmd("skip", "-S", s.Socket, pane)
	if code != 1 || out != "" || !strings.Contains(errOut, "a resume, skip or unskip of "+pane+" is already in progress") {
		t.Errorf("skip = %d, stdout %q, stderr %q; want 1: in progress", code, out, errOut)
	}
	if st := paneOption(t, s, pane, "@cac_state"); st != "" {
		t.Errorf("@cac_state = %q, want nothing published", st)
	}
	if ins, _, _ := inputs(t, log); len(ins) != 0 {
		t.Errorf("claude received %q", ins)
	}
}

// unskip takes a skip back, with and without a running watcher: the session waits for its
// reset again, and the watcher (the running one, or the next one to start) resumes it on
// time. A pane that is not skipped is refused with exit 1, and nothing is sent.
func TestUnskip(t *testing.T) {
	t.Parallel()
	for _, watched := range []bool{true, false} {
		name := map[bool]string{true: "watcher", false: "no watcher"}[watched]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			reset := nextReset(20 * time.Second)
			s := tmuxtest.Start(t, 120, 30)
			pane, log := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
			target := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{session_name}:#{window_index}.#{pane_index}"))
			var w *watchProc
			if watched {
				w = startWatch(t, s.Socket)
				w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "state": "waiting"})
			}
			code, out, errOut := runCmd("unskip", "-S", s.Socket, pane)
			// (Through a watcher, stderr says first that the request was handed to it.)
			if want := "cac-tmux: unskip " + pane + ": refused: pane " + pane + " is not skipped (it is waiting); there is nothing to unskip\n"; code != 1 || out != "" || !strings.HasSuffix(errOut, want) {
				t.Errorf("unskip before a skip = %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, want)
			}
			if code, out, errOut := runCmd("skip", "-S", s.Socket, pane); code != 0 || !strings.Contains(out, "skipped") {
				t.Fatalf("skip = %d, %q, %q; want 0", code, out, errOut)
			}
			if st := paneOption(t, s, pane, "@cac_state"); st != "skipped" {
				t.Fatalf("@cac_state after skip = %q, want skipped", st)
			}
			margin := faultMargin // the watcher's; without one, the configuration's (the default)
			if !watched {
				margin = time.Minute
			}
			code, out, errOut = runCmd("unskip", "-S", s.Socket, target)
			want := "unskipped: " + target + " is waiting; due " + reset.Add(margin).Local().Format(time.TimeOnly)
			if !watched {
				want += "; no watcher runs on this server: the wait is saved, and nothing resumes the session until one starts (cac-tmux watch)"
			}
			if code != 0 || out != want+"\n" {
				t.Errorf("unskip = %d, stdout %q, stderr %q; want 0 and %q", code, out, errOut, want)
			}
			if st := paneOption(t, s, pane, "@cac_state"); st != "waiting" {
				t.Errorf("@cac_state after unskip = %q, want waiting", st)
			}
			if code, _, errOut := runCmd("unskip", "-S", s.Socket, pane); code != 1 || !strings.Contains(errOut, "refused: pane "+pane+" is not skipped (it is waiting)") {
				t.Errorf("a second unskip = %d, stderr %q; want 1: not skipped", code, errOut)
			}
			if !watched {
				tmuxtest.WaitFor(t, 5*time.Second, "the wait in the state file", func() bool { return stateOf(t, s.Socket)[pane].State == "waiting" })
				w = startWatch(t, s.Socket)
				w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "message": "taken up from the state file", "state": "waiting"})
			}
			if ins, _, _ := inputs(t, log); len(ins) != 0 {
				t.Fatalf("claude received %q before the reset", ins)
			}
			onTime(t, waitResumed(t, log, "continue", time.Until(reset)+30*time.Second), reset.Add(faultMargin))
		})
	}
}
