//go:build linux

package watcher_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Harms found by an adversarial run, each a scenario on a private tmux server with the fake Claude
// Code (SAFETY.md lists them with the rule each one proves).

// noHarm checks that the fake never reached a state where a key did harm.
func (f *fake) noHarm() {
	f.wd.t.Helper()
	if _, states := f.read(); slices.Contains(states, "harm") || slices.Contains(states, "draft-submitted") {
		f.wd.t.Errorf("pane %s: states %q, want no harm", f.pane, states)
	}
}

// heldWith waits for the pane to be held with a note that contains note.
func (wd *world) heldWith(pane, note string) watcher.Row { return wd.inState(pane, watcher.Held, note) }

// inState waits for the pane to be in state s with a note that contains note.
func (wd *world) inState(pane string, s watcher.State, note string) watcher.Row {
	wd.t.Helper()
	return wd.waitRow(pane, "pane "+pane+" "+string(s)+": "+note, func(r watcher.Row, ok bool) bool {
		return ok && r.State == s && strings.Contains(r.Note, note)
	})
}

// Finding 1: "press enter to continue" with a draft in the box: no Enter, ever.
func TestSafetyPressEnterOverADraft(t *testing.T) {
	heldForGood(t, "draft", "--scenario", "pressenter", "--draft", "half-written idea")
}

// heldForGood runs the fake Claude Code with args and checks that the watcher holds it with a
// note that contains note, and sends nothing, up to past the due instant.
func heldForGood(t *testing.T, note string, args ...string) {
	t.Helper()
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false, args...)
	wd.start(nil)
	wd.heldWith(f.pane, note)
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + time.Second))
	f.wantInputs(nil)
	f.noHarm()
}

// Finding 2: what happens between the typed message and its Enter stops the Enter. The
// watcher's tmux client changes the pane right after the text reaches it, before the look.
func TestSafetyUserTypesBeforeEnter(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false)
	wd.afterText = func(pane, text string) {
		wd.s.Tmux(t, "send-keys", "-t", pane, "-l", "XYZ")
		screenShows(t, wd, pane, "continueXYZ")
	}
	wd.start(nil)
	wd.heldWith(f.pane, "held more than what was typed")
	wd.waitUntil(wd.now().Add(2 * testSchedule.RetryMax))
	// The two may reach the fake in one read on a loaded machine: what counts is the bytes,
	// and that no Enter followed.
	if got := strings.Join(f.inputs(), ""); got != "continueXYZ" {
		t.Errorf("pane %s received %q, want the message and the user's XYZ, no Enter", f.pane, f.inputs())
	}
	f.noHarm()
	if _, states := f.read(); slices.Contains(states, "resumed") || slices.Contains(states, "limited-again") {
		t.Errorf("states %q: the draft was submitted", states)
	}
}

func TestSafetySynchronizedBeforeEnter(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false)
	// A sibling Claude Code in the same window logs every key that reaches it.
	sib := wd.claude(false, "--scenario", "idle")
	wd.s.Tmux(t, "join-pane", "-d", "-s", sib.pane, "-t", f.pane)
	wd.afterText = func(pane, text string) {
		wd.s.Tmux(t, "set-window-option", "-t", pane, "synchronize-panes", "on")
		formatShows(t, wd, pane, "#{pane_synchronized}", "1")
	}
	wd.start(nil)
	wd.inState(f.pane, watcher.Waiting, "synchronize-panes")
	wd.waitUntil(wd.now().Add(2 * testSchedule.RetryMax))
	f.wantInputs([]string{"continue"})
	sib.wantInputs(nil)
	wd.s.Tmux(t, "set-window-option", "-t", f.pane, "synchronize-panes", "off")
	f.reached("resumed") // safe again with exactly the message in the box: its Enter
	f.wantInputs(resumeKeys)
	sib.wantInputs(nil)
}

func TestSafetyCopyModeBeforeEnter(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false)
	wd.afterText = func(pane, text string) {
		wd.s.Tmux(t, "copy-mode", "-t", pane)
		formatShows(t, wd, pane, "#{pane_in_mode}", "1")
	}
	wd.start(nil)
	wd.inState(f.pane, watcher.Waiting, "copy mode")
	wd.waitUntil(wd.now().Add(2 * testSchedule.RetryMax))
	f.wantInputs([]string{"continue"})
	wd.s.Tmux(t, "send-keys", "-t", f.pane, "-X", "cancel")
	f.reached("resumed")
	f.wantInputs(resumeKeys)
}

// Finding 3: programs that only carry Claude Code's name are never typed into: a wrapper
// named claude whose claude child was killed, exec -a claude cat, a script named claude
// running cat. Each shows a stop on screen and writes what it reads to a file.
func TestSafetyNamesAreNotClaude(t *testing.T) {
	// The reset is a minute ahead: the watcher must not act on the wrapper's claude child
	// before it is killed, however slow the machine; the clock then jumps to the due instant.
	wd := newWorld(t, time.Minute)
	dir := wd.s.Dir
	screen := filepath.Join(dir, "screen.txt")
	stop := "  ⎿ \u00a0You've hit your session limit · resets " + clockText(wd.reset) + " (UTC)"
	writeFile(t, screen, strings.Join([]string{"❯ hello", stop, "", strings.Repeat("─", 100), "❯\u00a0", strings.Repeat("─", 100), "  ? for shortcuts"}, "\n"))
	script := func(name, body string) string {
		p := filepath.Join(dir, name, "claude")
		writeFile(t, p, "#!/bin/sh\n"+body+"\n")
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	window := func(argv ...string) string {
		return strings.TrimSpace(wd.s.Tmux(t, append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}"}, argv...)...))
	}
	out := func(name string) string { return filepath.Join(dir, name+".out") }
	panes := map[string]string{
		"exec-a": window("bash", "-c", "cat "+screen+"; exec -a claude cat > "+out("exec-a")),
		"script": window(script("script", "cat "+screen+"; cat > "+out("script"))),
		// The fake Claude Code runs under the wrapper; once it is killed the wrapper reads.
		"wrapper": window(script("wrapper", claudeBin+" --reset "+wd.reset.Format(time.RFC3339)+
			" --pidfile "+out("child-pid")+"; stty sane; IFS= read -r x; echo \"read: $x\" > "+out("wrapper"))),
	}
	for name, pane := range panes {
		if name != "wrapper" {
			screenShows(t, wd, pane, "resets")
		}
	}
	var pid int
	tmuxtest.WaitFor(t, patience, "the wrapper's claude child to start (its pid file)", func() bool {
		b, err := os.ReadFile(out("child-pid"))
		return err == nil && len(b) > 0 && sscan(string(b), &pid)
	})
	screenShows(t, wd, panes["wrapper"], "resets") // and to draw its stop
	wd.start(nil)
	wd.waitState(panes["wrapper"], watcher.Waiting) // the real claude child is supervised
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	screenShows(t, wd, panes["wrapper"], "Killed") // the wrapper's shell reports it and reads
	wd.jump(wd.reset.Add(testSchedule.Margin).Sub(wd.now()))
	wd.waitUntil(wd.reset.Add(testSchedule.Margin + 2*time.Second))
	for name, pane := range panes {
		if r, ok := wd.row(pane); ok {
			t.Errorf("%s: supervised as Claude Code: %+v", name, r)
		}
		if b, err := os.ReadFile(out(name)); err == nil && len(b) > 0 {
			t.Errorf("%s read %q", name, b)
		}
		if s := wd.s.Tmux(t, "capture-pane", "-p", "-t", pane); strings.Contains(s, "continue") {
			t.Errorf("%s: keys reached the pane:\n%s", name, s)
		}
	}
}

// Finding 4: a stop that comes back after the keys with the same printed reset, with the keys
// sent more than a minute after it (the default margin), is the limit still holding: three
// attempts, then failed, never the same time tomorrow.
func TestSafetySameResetAfterMarginFails(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false, "--again", "99")
	wd.start(nil)
	wd.waitState(f.pane, watcher.Waiting)
	wd.jump(2 * time.Minute) // the keys go out two minutes after the printed reset
	r := wd.waitState(f.pane, watcher.Failed)
	if !r.Reset.Equal(wd.reset) || !strings.Contains(r.Note, "3 attempts") {
		t.Errorf("failed row = %+v, want today's reset %s and 3 attempts", r, wd.reset)
	}
	var want []string
	for range testSchedule.MaxAttempts {
		want = append(want, resumeKeys...)
	}
	f.wantInputs(want)
	wd.waitUntil(wd.now().Add(2 * testSchedule.RetryMax))
	f.wantInputs(want)
}

// Finding 5: Claude Code's vim mode. NORMAL mode with vim on in its settings: i first, INSERT
// seen, then the message. Vim mode whose settings cannot be read, or that does not switch to
// INSERT: nothing more after what was eaten, never an Enter.
func TestSafetyVimMode(t *testing.T) {
	for _, tc := range []struct {
		name, vim string
		settings  bool
		inputs    []string
		held      string // "" when it resumes
	}{
		{"normal", "normal", true, []string{"i", "continue", "\r"}, ""},
		// Claude Code 2.1.330 took longer than the pause to draw INSERT and the message.
		{"normal, slow drawing", "normal --draw-delay 400ms", true, []string{"i", "continue", "\r"}, ""},
		{"insert", "insert", true, resumeKeys, ""},
		{"stuck", "stuck", true, []string{"i"}, "did not show what was typed after i"},
		{"normal, settings unknown", "normal", false, []string{"continue"}, "did not show what was typed before Enter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wd := newWorld(t, 2*time.Second)
			cfg := filepath.Join(wd.s.Dir, "claude-config")
			if tc.settings {
				writeFile(t, filepath.Join(cfg, ".claude.json"), `{"numStartups":5,"editorMode":"vim"}`)
			}
			f := wd.claudeIn([]string{"CLAUDE_CONFIG_DIR=" + cfg}, false, append([]string{"--vim"}, strings.Fields(tc.vim)...)...)
			wd.start(slowDrawing)
			if tc.held == "" {
				f.reached("resumed")
			} else {
				wd.heldWith(f.pane, tc.held)
				wd.waitUntil(wd.now().Add(2 * testSchedule.RetryMax))
			}
			f.wantInputs(tc.inputs)
		})
	}
}

// slowDrawing gives a fake that draws 400 ms late (--draw-delay) room to be seen within
// Settle on a loaded machine: 600 ms left about 200 ms for the fake's wake-up, tmux and the
// watcher's look. The pause (150 ms) stays shorter than the delay.
func slowDrawing(c *watcher.Config) { c.Settle = 2 * time.Second }

// Claude Code can take longer than the pause to draw the message: the look before Enter waits
// for it.
func TestSafetySlowDrawingStillResumes(t *testing.T) {
	wd := newWorld(t, 2*time.Second)
	f := wd.claude(false, "--draw-delay", "400ms") // more than the pause, less than Settle
	wd.start(slowDrawing)
	f.reached("resumed")
	f.wantInputs(resumeKeys)
}

// Finding 6: a menu row that starts with "Stop" but is no known Stop label is never pressed.
func TestSafetyStopLikeMenuRowIsHeld(t *testing.T) {
	heldForGood(t, "known Stop label", "--scenario", "menu", "--rows", "Upgrade your plan,Stop waiting and switch to usage credits ($)")
}

// screenShows waits until the pane's screen contains text.
func screenShows(t *testing.T, wd *world, pane, text string) {
	t.Helper()
	tmuxtest.WaitFor(t, patience, "pane "+pane+" to show "+text, func() bool {
		s, err := wd.s.Client.Capture(context.Background(), pane)
		return err == nil && strings.Contains(s, text)
	})
}

// formatShows waits until a format expands to want for the pane.
func formatShows(t *testing.T, wd *world, pane, format, want string) {
	t.Helper()
	tmuxtest.WaitFor(t, patience, "pane "+pane+": "+format+" = "+want, func() bool {
		return strings.TrimSpace(wd.s.Tmux(t, "display-message", "-p", "-t", pane, format)) == want
	})
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sscan(s string, pid *int) bool {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	*pid = n
	return err == nil && n > 0
}
