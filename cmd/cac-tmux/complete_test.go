//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// complete runs cobra's hidden completion command as the shell scripts do and returns its
// stdout and stderr.
func complete(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, out, errOut := runCmd(append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q = %d, stderr %q", args, code, errOut)
	}
	return out, errOut
}

// The pane targets complete from the server named on the command line so far (-S, -L): its
// Claude Code panes, paused ones first, as ids described by their target and state, then as
// targets described by their id and state; never file names. Without a server there is
// nothing to offer, and nothing is said.
func TestCompletePanes(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	running, _ := startClaude(t, s, "--scenario", "idle")
	stopped, _ := startClaude(t, s, "--reset", reset)
	skipped, _ := startClaude(t, s, "--reset", reset)
	if code, _, errOut := runCmd("skip", "-S", s.Socket, skipped); code != 0 {
		t.Fatalf("skip = %d, %q", code, errOut)
	}
	target := func(pane string) string {
		return strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{session_name}:#{window_index}.#{pane_index}"))
	}
	type row struct{ pane, target, state string }
	rows := []row{ // paused first, by pane id; no watcher runs, so the states say whose they are
		{stopped, target(stopped), "stopped (not watched)"},
		{skipped, target(skipped), "skipped (stale)"},
		{running, target(running), "running"},
	}
	var ids, targets []string
	for _, r := range rows {
		ids = append(ids, r.pane+"\t"+r.target+", "+r.state)
		targets = append(targets, r.target+"\t"+r.pane+", "+r.state)
	}
	const offered = ":36\n" // ShellCompDirectiveNoFileComp | ShellCompDirectiveKeepOrder
	all := strings.Join(append(ids, targets...), "\n") + "\n" + offered
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"resume", "-S", s.Socket, ""}, all},
		{[]string{"skip", "--socket-path", s.Socket, "%"}, strings.Join(ids, "\n") + "\n" + offered},
		{[]string{"unskip", "-S", s.Socket, "main:"}, strings.Join(targets, "\n") + "\n" + offered},
		{[]string{"unskip", "-S", s.Socket, rows[1].pane}, ids[1] + "\n" + offered},
		{[]string{"inspect", "-S", s.Socket, "--pane", ""}, all},
		{[]string{"inspect", "--json", "-S", s.Socket, "--pane", "%"}, strings.Join(ids, "\n") + "\n" + offered},
		{[]string{"resume", "-S", s.Socket, "nosuch"}, offered},
		{[]string{"resume", "-S", s.Socket, stopped, ""}, ":4\n"}, // one PANE only, and no file
	} {
		if out, errOut := complete(t, tc.args...); out != tc.want || strings.Contains(errOut, "cac-tmux") {
			t.Errorf("__complete %q = stdout\n%s\nstderr %q; want\n%s", tc.args, out, errOut, tc.want)
		}
	}

	// -L NAME: the server's socket under the name in tmux's directory of sockets.
	dir := filepath.Join(os.Getenv("TMUX_TMPDIR"), "tmux-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	name := "complete" + filepath.Base(s.Dir)
	if err := os.Symlink(s.Socket, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	if out, errOut := complete(t, "resume", "-L", name, ""); out != all {
		t.Errorf("__complete resume -L %s = stdout\n%s\nstderr %q; want\n%s", name, out, errOut, all)
	}

	// No server: no pane, no file, no word on stderr but cobra's own note (the scripts drop
	// stderr).
	for _, args := range [][]string{
		{"resume", "-S", filepath.Join(s.Dir, "none"), ""},
		{"unskip", "-L", "none" + filepath.Base(s.Dir), "%"},
		{"inspect", "-S", filepath.Join(s.Dir, "none"), "--pane", ""},
	} {
		out, errOut := complete(t, args...)
		if out != offered || errOut != "Completion ended with directive: ShellCompDirectiveNoFileComp, ShellCompDirectiveKeepOrder\n" {
			t.Errorf("__complete %q without a server = stdout %q, stderr %q; want nothing offered, and nothing said", args, out, errOut)
		}
	}
}
