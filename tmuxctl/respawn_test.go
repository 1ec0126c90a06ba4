package tmuxctl_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// TestRespawnPane respawns a pane running a program with another program, a working
// directory and an environment variable whose text tmux could take for a format, a command
// separator or a shell's: the new program runs in the same pane with exactly them, and the
// old one is gone.
func TestRespawnPane(t *testing.T) {
	eachTransport(t, func(t *testing.T, control bool) {
		t.Parallel()
		s := start(t, control, 80, 24)
		ctx := context.Background()
		pane := strings.TrimSpace(s.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_id}", "sleep 600"))
		var old int
		tmuxtest.WaitFor(t, 5*time.Second, "the old program to run", func() bool {
			info, err := s.Client.PaneInfo(ctx, pane)
			old = info.PID
			return err == nil && old > 0
		})
		dir := filepath.Join(s.Dir, "a #{pane_id} ##b; 'c'")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		const value = `x #{pane_id} "$HOME" ; 'y'`
		// The output goes to a path of its own (not in the working directory, which is what is
		// tested: tmux takes another one when -c names none).
		out := filepath.Join(s.Dir, "out")
		script := `printf '%s\n' "$CAC_RESPAWN" "$PWD" "$1" "$CLAUDE_CONFIG_DIR" > "$2.tmp" && mv "$2.tmp" "$2"; exec sleep 600`
		err := s.Client.RespawnPane(ctx, pane, tmuxctl.Respawn{Dir: dir, Env: []string{"CAC_RESPAWN=" + value, "CLAUDE_CONFIG_DIR=/b;"},
			Argv: []string{"/bin/sh", "-c", script, "sh", "an 'arg' ;", out}})
		if err != nil {
			t.Fatal(err)
		}
		tmuxtest.WaitFor(t, 5*time.Second, "the new program to write "+out, func() bool {
			_, err := os.Stat(out)
			return err == nil
		})
		b, _ := os.ReadFile(out)
		if want := value + "\n" + dir + "\n" + "an 'arg' ;\n/b;\n"; string(b) != want {
			t.Errorf("the new program saw\n%q\nwant\n%q", b, want)
		}
		info, err := s.Client.PaneInfo(ctx, pane)
		if err != nil || info.PID == old {
			t.Errorf("pane %s after the respawn: pid %d (old %d), %v", pane, info.PID, old, err)
		}
		tmuxtest.WaitFor(t, 5*time.Second, "the old program to end", func() bool {
			return syscall.Kill(old, 0) != nil
		})
	})
}

func TestRespawnPaneRefuses(t *testing.T) {
	s := tmuxtest.Start(t, 80, 24)
	ctx := context.Background()
	pane := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", "main:0.0", "#{pane_id}"))
	pid := s.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pid}")
	for _, r := range []tmuxctl.Respawn{
		{Dir: "/", Argv: []string{"sleep 600; touch x"}}, // would be a shell's script
		{Dir: "relative", Argv: []string{"sleep", "600"}},
		{Dir: "/", Env: []string{"=x"}, Argv: []string{"sleep", "600"}},
	} {
		if err := s.Client.RespawnPane(ctx, pane, r); err == nil {
			t.Errorf("RespawnPane(%+v) = nil, want an error", r)
		}
	}
	if got := s.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pid}"); got != pid {
		t.Errorf("the pane's process changed (%s, was %s) although every respawn was refused", got, pid)
	}
	err := s.Client.RespawnPane(ctx, "%99", tmuxctl.Respawn{Dir: "/", Argv: []string{"sleep", "600"}})
	if !errors.Is(err, tmuxctl.ErrNoTarget) {
		t.Errorf("RespawnPane of no pane = %v, want ErrNoTarget", err)
	}
}
