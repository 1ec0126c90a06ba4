package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
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

// forPeople drops the package names at the start of each layer of an error's chain, and
// nothing else: not a name in a value or a path, not the command's own prefix.
func TestForPeople(t *testing.T) {
	root := newRoot(stdio{})
	cmd := func(path ...string) *cobra.Command {
		c, _, err := root.Find(path)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tmuxErr := &tmuxctl.Error{Args: []string{"list-panes", "-t", "%3", "-F", "#{pane_id}"}, ExitCode: 1, Stderr: "no server running on /tmp/s\n", Err: tmuxctl.ErrNoServer}
	for _, tc := range []struct {
		err  error
		cmd  *cobra.Command
		want string
	}{
		{fmt.Errorf("skip %%3: %w", fmt.Errorf("store: lock %s: %w", "/run/cac-tmux/s.lock", syscall.EACCES)), cmd("skip"),
			"skip %3: lock /run/cac-tmux/s.lock: permission denied"},
		{fmt.Errorf("list: %s: %w", "server /tmp/s", fmt.Errorf("%w; start tmux", tmuxErr)), cmd("list"),
			"list: server /tmp/s: tmux list-panes -t %3: no server running on /tmp/s; start tmux"},
		{fmt.Errorf("server /tmp/s: %w", tmuxErr), cmd("resume"), "server /tmp/s: tmux list-panes -t %3: no server running on /tmp/s"},
		// Names in values, quoted targets and paths stay; so do names at the start of a
		// wrapped text that is no layer of its own (%v).
		{fmt.Errorf("resume %q: %w", "store: x", errors.New("tmuxctl: pane \"config: y\": no such tmux target")), cmd("resume"),
			`resume "store: x": pane "config: y": no such tmux target`},
		{fmt.Errorf("watch: refused: %v", errors.New("store: a")), cmd("watch"), "watch: refused: store: a"},
		{errors.New("records: read /home/store: notify: x"), cmd("list"), "read /home/store: notify: x"},
		// Every line of a joined error, the configuration's among them.
		{fmt.Errorf("config check: %w", &UsageError{Err: errors.Join(
			config.Errors{{Path: "/c.toml", Line: 2, Key: "watch.margin", Msg: `must be a duration like "90s"`, Got: `"soon"`}},
			errors.Join(&config.Error{Option: "@cac-tmux-stagger", Msg: "must not be negative", Got: `"-1s"`}))}), cmd("config", "check"),
			"config check: watch.margin: must be a duration like \"90s\" (/c.toml line 2, got \"soon\")\n" +
				"tmux option @cac-tmux-stagger: must not be negative (got \"-1s\")"},
		{&config.Error{Path: "/c.toml", Msg: "read", Err: syscall.EISDIR}, cmd("watch"), "read /c.toml: is a directory"},
		// The command's prefix stays where it is a package's name too.
		{&UsageError{Err: errors.New("config: a command is needed")}, cmd("config"), "config: a command is needed"},
		{errors.New("service: a command is needed"), cmd("service"), "service: a command is needed"},
		{errors.New("service: /u/cac-tmux.service exists and was not written by cac-tmux"), cmd("service", "install"),
			"/u/cac-tmux.service exists and was not written by cac-tmux"},
		{errors.New("store: store: twice"), nil, "twice"},
	} {
		if got := forPeople(tc.err, tc.cmd); got != tc.want {
			t.Errorf("forPeople(%q) =\n%q, want\n%q", tc.err, got, tc.want)
		}
	}
}

// modulePackages are the packages of this module the binary is built from.
func TestModulePackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if and .Module (eq .Module.Path "github.com/cac-tmux/cac-tmux") (ne .Name "main")}}{{.Name}}{{end}}`, ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	got := strings.Fields(string(out))
	slices.Sort(got)
	if !slices.Equal(got, modulePackages) {
		t.Errorf("the binary's packages are %q; modulePackages is %q", got, modulePackages)
	}
}

// Real failures, as a person sees them: no package name (tmuxctl:, store:, config: …) in any.
func TestErrorsForPeople(t *testing.T) {
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
		{nil, []string{"list", "-S", none}, 1, "list: server " + none + ": tmux list-panes -a: error connecting to " + none + " (No such file or directory); start tmux, or select the server with -L NAME or -S PATH"},
		{nil, []string{"resume", "-S", none, "%1"}, 1, "server " + none + ": tmux list-panes -t %1: error connecting to " + none + " (No such file or directory); start tmux, or select the server with -L NAME or -S PATH"},
		// A socket that is no server's.
		{nil, []string{"skip", "-S", file, "%1"}, 1, "server " + file + ": tmux list-panes -t %1: …; start tmux, or select the server with -L NAME or -S PATH"},
		// The lock and state directories refused.
		{[]string{"XDG_RUNTIME_DIR=" + ww}, []string{"skip", "-S", s.Socket, "main:0.0"}, 1, "skip main:0.0: " + ww +
			" can be written by other users (mode 0777) and is not sticky: another user could replace cac-tmux; set XDG_RUNTIME_DIR and XDG_STATE_HOME to directories only you can write (chmod 700)"},
		{[]string{"XDG_RUNTIME_DIR=" + file + "/run", "XDG_STATE_HOME=" + file}, []string{"watch", "-S", s.Socket}, 1, "watch: create " + file + "/run/cac-tmux: mkdir " + file + ": not a directory"},
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
