//go:build linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/demo"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// TestDemoHeadless runs `cac-tmux demo` without a terminal, as a user would run it, on the
// real clock: it prints the timeline, exits 0 once the cycle is complete (the reset is the
// next whole minute at least 45 s away, the native auto-continue fires 15 s after it: 1–2
// minutes), and leaves nothing behind: no process of its server, no temporary directory, and
// nothing in TMUX_TMPDIR (the default server's directory) nor in the XDG directories of the
// user's state, lock and configuration.
func TestDemoHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo waits for a reset on the real clock (1–2 minutes)")
	}
	t.Parallel()
	home, dirs, env := demoEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), tmuxtest.Scale(4*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.cac, "demo")
	var out, errOut bytes.Buffer
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &out, &errOut
	start := time.Now()
	err := cmd.Run()
	t.Logf("cac-tmux demo: %s, %v\n%s%s", time.Since(start).Round(time.Second), err, out.String(), errOut.String())
	if err != nil {
		t.Fatalf("cac-tmux demo: %v; want exit 0", err)
	}
	for _, want := range []string{
		"(a) plain   seen: waiting for the reset",
		`(a) plain   resumed: received "continue", "\r"`,
		"(b) menu    seen: the options menu is open, focus on row 1, Stop is row 3",
		`(b) menu    the menu's Stop row pressed: received "3"`,
		`(b) menu    resumed: received "continue", "\r"`,
		"(c) native  seen: Claude Code's own auto-continue is armed",
		"(c) native  Claude Code continued by itself after the reset (no key received)",
		"(d) draft   held: a draft is in the input box",
		"(d) draft   untouched after the reset",
		"(e) codex   seen: Codex's rate-limit menu is open over the stop; Esc alone may close it",
		`(e) codex   the menu closed by Esc: received "\x1b"`,
		`(e) codex   resumed: received "continue", "\r"`,
		"demo        cycle complete in ",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the timeline has no %q", want)
		}
	}
	// The demo's temporary directory (its socket, the claude link, the logs) was under TMPDIR.
	for name, dir := range dirs {
		if entries, err := os.ReadDir(dir); err != nil || len(entries) > 0 {
			t.Errorf("%s (%s) after the demo: %v %v; want it empty", name, dir, entries, err)
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(home)) {
			t.Errorf("a process of the demo runs after it: %s: %q", p, b)
		}
	}
}

// demoEnv is the environment of a demo run as a user would run it, with every directory it
// could write to (TMUX_TMPDIR, TMPDIR, the XDG directories, HOME) a new empty one under home,
// a short temporary directory (the demo's socket goes under TMPDIR), removed after the test;
// TMUX and TMUX_PANE are left out.
func demoEnv(t *testing.T) (home string, dirs map[string]string, env []string) {
	t.Helper()
	home, err := os.MkdirTemp("/tmp", "cxd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	dirs = map[string]string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			env = append(env, kv)
		}
	}
	for _, name := range []string{"TMUX_TMPDIR", "TMPDIR", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "HOME"} {
		dirs[name] = filepath.Join(home, strings.ToLower(name))
		if err := os.Mkdir(dirs[name], 0o700); err != nil {
			t.Fatal(err)
		}
		env = append(env, name+"="+dirs[name])
	}
	return home, dirs, env
}

// TestDemoAttached runs `cac-tmux demo` on a terminal (a pane of a private server) as a user
// would: each simulated session's border starts with the target the watcher's table shows for
// it, and both show the same state; C-q leaves before the reset, and the demo says so and
// exits 0.
func TestDemoAttached(t *testing.T) {
	t.Parallel()
	_, _, env := demoEnv(t)
	// The shell stays after the demo, so that its last words can be read.
	cmd := append([]string{"sh", "-c", `"$@"; echo "exit $?"; exec sleep 3600`, "sh", "env", "-i"}, env...)
	outer := tmuxtest.Start(t, demo.MinWidth+7, demo.MinHeight+3, append(cmd, bins.cac, "demo")...)
	screen := outer.WaitScreen(t, "main", "(a) plain stop [waiting]")
	border := regexp.MustCompile(`── (\S+) \(a\) plain stop \[waiting\]`).FindStringSubmatch(screen)
	if border == nil {
		t.Fatalf("no target before (a)'s title on its border:\n%s", screen)
	}
	row := regexp.MustCompile(`(?m)^%\d+ +` + regexp.QuoteMeta(border[1]) + ` +waiting `)
	tmuxtest.WaitFor(t, 10*time.Second, "the table's row of "+border[1]+" waiting", func() bool {
		screen, _ = outer.Client.Capture(t.Context(), "main")
		return row.MatchString(screen)
	})
	outer.Tmux(t, "send-keys", "-t", "main", "C-q")
	screen = outer.WaitScreen(t, "main", "exit ")
	for _, want := range []string{"left before the end of the cycle", "exit 0"} {
		if !strings.Contains(screen, want) {
			t.Errorf("after C-q, the screen has no %q:\n%s", want, screen)
		}
	}
}
