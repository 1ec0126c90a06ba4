package sshtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/internal/sshtest"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// ssh runs ssh with the server's configuration and args, as a test of package hosts would.
func ssh(s *sshtest.Server, args ...string) (string, error) {
	cmd := exec.Command("ssh", append(append(s.Args(), "-o", "BatchMode=yes"), args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// ssh -F Config testhost runs a command with no prompt, as the current user; deadhost is
// refused.
func TestStart(t *testing.T) {
	t.Parallel()
	s := sshtest.Start(t)
	out, err := ssh(s, sshtest.Host, "--", "id -un; echo ok")
	if err != nil || out != s.User+"\nok\n" {
		t.Fatalf("ssh %s = %q, %v; want the user and ok\nsshd's log:\n%s", sshtest.Host, out, err, s.Log())
	}
	out, err = ssh(s, sshtest.Dead, "--", "true")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 255 || !strings.Contains(out, "Connection refused") {
		t.Errorf("ssh %s = %q, %v; want exit 255, Connection refused", sshtest.Dead, out, err)
	}
}

// Remote's cac-tmux runs the binary with -S SOCKET after the subcommand, in the test's
// private directories, each argument as it was.
func TestRemote(t *testing.T) {
	t.Parallel()
	s := sshtest.Start(t)
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nprintf '%s|' \"$@\" \"$TMUX_TMPDIR\" \"${TMUX-unset}\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	remote := s.Remote(t, bin, "/tmp/my sock")
	if filepath.Base(remote) != "cac-tmux" {
		t.Errorf("Remote = %s, want a program named cac-tmux", remote)
	}
	out, err := ssh(s, sshtest.Host, "--", remote+" list --json 'a b'")
	if want := "list|-S|/tmp/my sock|--json|a b|" + os.Getenv("TMUX_TMPDIR") + "|unset|"; err != nil || out != want {
		t.Errorf("the remote cac-tmux ran %q (%v), want %q", out, err, want)
	}
}
