package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// bins are the programs TestMain builds: cac-tmux itself, and on Linux the fake Claude Code
// (internal/fakeclaude) under the name "claude", so that the watcher recognises it, and the
// notification hook that records how it was run (internal/hookrecorder).
var bins struct{ cac, claude, hook string }

func TestMain(m *testing.M) {
	// What completions offer is tested, not how fast: the panes were described as running
	// once the 3 s ran out on 2 cores running three versions of the tmux matrix at once.
	completeTimeout = tmuxtest.Scale(30 * time.Second)
	tmuxtest.MainBuilding(m, func(dir string) error {
		bins.cac, bins.claude, bins.hook = filepath.Join(dir, "cac-tmux"), filepath.Join(dir, "claude"), filepath.Join(dir, "hookrecorder")
		if err := tmuxtest.GoBuild(bins.cac, "."); err != nil || runtime.GOOS != "linux" {
			return err
		}
		if err := tmuxtest.GoBuild(bins.hook, "../../internal/hookrecorder"); err != nil {
			return err
		}
		return tmuxtest.GoBuild(bins.claude, "../../internal/fakeclaude")
	})
}

// Real failures, as a person sees them: what the command was about, then the error as the
// package that made it words it (tmuxctl:, store: …), and a hint where one helps; a mistake
// in the configuration is worded for people, with no package name.
func TestErrorsAsPrinted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	none, file, ww := filepath.Join(dir, "none"), filepath.Join(dir, "file"), filepath.Join(dir, "ww")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(ww, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ww, 0o777); err != nil { // writable by all, not sticky: refused
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(conf, []byte("[watch]\nmargin = \"soon\"\nstagger = \"-1s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := tmuxtest.Start(t, 80, 24)
	for _, tc := range []struct {
		env  []string
		args []string
		code int
		want string // the whole of stderr, after "cac-tmux: "; "…" stands for tmux's own words
	}{
		// No server.
		{nil, []string{"list", "-S", none}, 1, "list: server " + none + ": tmuxctl: list-panes -a: error connecting to " + none + " (No such file or directory); start tmux, or select the server with -L NAME or -S PATH"},
		{nil, []string{"resume", "-S", none, "%1"}, 1, "server " + none + ": tmuxctl: list-panes -t %1: error connecting to " + none + " (No such file or directory); start tmux, or select the server with -L NAME or -S PATH"},
		// A socket that is no server's.
		{nil, []string{"skip", "-S", file, "%1"}, 1, "server " + file + ": tmuxctl: list-panes -t %1: …; start tmux, or select the server with -L NAME or -S PATH"},
		// The lock and state directories refused.
		{[]string{"XDG_RUNTIME_DIR=" + ww}, []string{"skip", "-S", s.Socket, "main:0.0"}, 1, "skip main:0.0: store: " + ww +
			" can be written by other users (mode 0777) and is not sticky: another user could replace cac-tmux; set XDG_RUNTIME_DIR and XDG_STATE_HOME to directories only you can write (chmod 700)"},
		{[]string{"XDG_RUNTIME_DIR=" + file + "/run", "XDG_STATE_HOME=" + file}, []string{"watch", "-S", s.Socket}, 1, "watch: store: create " + file + "/run/cac-tmux: mkdir " + file + ": not a directory"},
		// Mistakes in the configuration.
		{nil, []string{"config", "check", "-S", none, conf}, 2, `config check: watch.margin: must be a duration like "90s" (` + conf + ` line 2, got "soon")` + "\n" +
			`watch.stagger: must not be negative (` + conf + ` line 3, got "-1s")`},
		{nil, []string{"config", "check", "-S", none, dir}, 2, "config check: read " + dir + ": is a directory"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a watcher that started: killed, and the test fails
		defer cancel()
		cmd := exec.CommandContext(ctx, bins.cac, tc.args...)
		cmd.Env = append(os.Environ(), tc.env...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		cmd.Run()
		got := strings.TrimSuffix(errOut.String(), "\n")
		want := "cac-tmux: " + tc.want
		if before, after, ok := strings.Cut(want, "…"); ok && strings.HasPrefix(got, before) && strings.HasSuffix(got, after) {
			want = got
		}
		if code := cmd.ProcessState.ExitCode(); code != tc.code || got != want || out.Len() != 0 {
			t.Errorf("cac-tmux %q = %d, stdout %q, stderr\n%s\nwant %d and\n%s", tc.args, code, out.String(), got, tc.code, want)
		}
	}
}
