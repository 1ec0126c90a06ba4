package tmuxtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// TestKillServerWaitsForExit: a server killed while a run-shell still runs goes on accepting
// connections until the job ends; KillServer returns only once it has exited, so a server
// started on the socket next starts.
func TestKillServerWaitsForExit(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	running := filepath.Join(s.Dir, "running")
	job := exec.Command("tmux", "-S", s.Socket, "run-shell", "touch "+running+"; sleep 2")
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Wait() })
	tmuxtest.WaitFor(t, 10*time.Second, "the run-shell to run", func() bool {
		_, err := os.Stat(running)
		return err == nil
	})
	s.KillServer(t)
	again := tmuxtest.StartAt(t, s.Socket, 80, 24) // fails the test if it meets the old server
	if got := again.Tmux(t, "display-message", "-p", "#{session_name}"); got != "main\n" {
		t.Errorf("the new server's session = %q, want main", got)
	}
}
