package tmuxctl_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// pipeServer starts a server of two panes running cat, connected with its output pipes' FIFO
// in a temporary directory, and lists it once in full; it skips the test where the server
// signals output itself (wait-for -E, tmux 3.8), which has no pipes.
func pipeServer(t *testing.T) (s *tmuxtest.Server, l *lister, fifo string) {
	t.Helper()
	s = tmuxtest.Start(t, 100, 30, "cat")
	s.Tmux(t, "new-window", "-d", "-t", "main:1", "cat")
	s.Connect(t)
	fifo = filepath.Join(t.TempDir(), "w.pipe")
	s.Client.PipeInto(fifo)
	l = &lister{t: t, c: s.Client}
	l.list(time.Time{})
	if s.Client.Signalled() {
		if s.Client.PipeMark() != "" {
			t.Errorf("PipeMark = %q with tmux's own output signal, want none", s.Client.PipeMark())
		}
		t.Skip("tmux signals output itself (wait-for -E): no pipes")
	}
	if s.Client.PipeMark() != fifo {
		t.Fatalf("PipeMark = %q, want the FIFO %s", s.Client.PipeMark(), fifo)
	}
	return s, l, fifo
}

// pipe pipes panes and checks what PipeOutput reports of each: ours or not.
func pipe(t *testing.T, s *tmuxtest.Server, fifo string, want map[string]bool) {
	t.Helper()
	var ids []string
	for id := range want {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	rows, err := s.Client.PipeOutput(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(ids) {
		t.Fatalf("PipeOutput(%v) = %+v, want a row each", ids, rows)
	}
	for _, r := range rows {
		if ours := r.Pipe && r.PipeMark == fifo; ours != want[r.ID] {
			t.Errorf("%s after PipeOutput: pipe %v, mark %q; want ours %v", r.ID, r.Pipe, r.PipeMark, want[r.ID])
		}
	}
}

// TestOutputPipes: on a tmux without an output signal of its own, panes piped to the FIFO make
// a listing of changes with Search.Piped send nothing while none prints, and output, a
// request or a notified change is listed when it comes; without Piped every call lists.
func TestOutputPipes(t *testing.T) {
	t.Parallel()
	s, l, fifo := pipeServer(t)
	pipe(t, s, fifo, map[string]bool{"%0": true, "%1": true})
	if got := s.Tmux(t, "show-options", "-gv", "@cac_signal"); got != fifo+"\n" {
		t.Errorf("@cac_signal = %q, want the FIFO", got)
	}
	l.list(quiet(t)) // a listing with every pane piped
	l.piped = true
	l.skipped("nothing printed", 3)

	s.Tmux(t, "send-keys", "-t", "%1", "-l", "x")
	s.WaitScreen(t, "%1", "x")
	late := time.Now().Truncate(time.Second).Add(2 * time.Second)
	var ids []string
	tmuxtest.WaitFor(t, 5*time.Second, "the output in %1 listed", func() bool {
		ids, _ = l.list(late)
		return len(ids) > 0
	})
	if !slices.Equal(ids, []string{"%1"}) {
		t.Errorf("after output in %%1: %v, want %%1", ids)
	}
	l.skipped("after the output was listed", 2)

	// A request wakes the listing through the FIFO.
	l.request("%0", "resume 1", 2)
	l.skipped("after the request was listed", 2)

	l.piped = false
	if got := l.quietCalls("without Piped", 2); got != 2 {
		t.Errorf("without Piped: %d listings for 2 calls, want 2", got)
	}
	if got := signalAfterClose(t, s); got != "" {
		t.Errorf("@cac_signal = %q after Close, want it unset", got)
	}
}

// TestOutputPipesLeaveTheUsersPipe: a pane with a pipe of the user's keeps it (and its output
// goes on reaching it); a pane whose pipe the user closed is not piped again by the same call;
// a respawned pane keeps the watcher's pipe.
func TestOutputPipesLeaveTheUsersPipe(t *testing.T) {
	t.Parallel()
	s, l, fifo := pipeServer(t)
	log := filepath.Join(t.TempDir(), "user.log")
	s.Tmux(t, "pipe-pane", "-t", "%1", "cat >>"+log)
	pipe(t, s, fifo, map[string]bool{"%0": true, "%1": false})
	s.Tmux(t, "send-keys", "-t", "%1", "-l", "kept")
	tmuxtest.WaitFor(t, 5*time.Second, "the user's pipe still written", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "kept")
	})
	if got := s.Tmux(t, "display-message", "-p", "-t", "%1", "#{pane_pipe} #{@cac_pipe}"); got != "1 \n" {
		t.Errorf("%%1 after PipeOutput: %q, want the user's pipe, unmarked", got)
	}

	pid := s.Tmux(t, "display-message", "-p", "-t", "%0", "#{pane_pid}")
	if got := s.Tmux(t, "display-message", "-p", "-t", "%0", "#{pane_pipe} #{@cac_pipe}"); got != "1 "+strings.TrimSpace(pid)+":"+fifo+"\n" {
		t.Errorf("%%0 piped: %q, want the watcher's pipe, marked with pid %s", got, pid)
	}
	s.Tmux(t, "respawn-pane", "-k", "-t", "%0", "cat")
	if got := s.Tmux(t, "display-message", "-p", "-t", "%0", "#{pane_pipe} #{@cac_pipe}"); got != "1 "+strings.TrimSpace(pid)+":"+fifo+"\n" {
		t.Errorf("%%0 after respawn-pane: %q, want the watcher's pipe", got)
	}
	l.piped = true
	l.list(quiet(t))
	l.list(quiet(t))
	before := s.Client.Listings()
	s.Tmux(t, "send-keys", "-t", "%0", "-l", "after respawn")
	s.WaitScreen(t, "%0", "after respawn")
	tmuxtest.WaitFor(t, 5*time.Second, "the respawned pane's output listed", func() bool {
		ids, _ := l.list(time.Now().Truncate(time.Second))
		return slices.Contains(ids, "%0")
	})
	if s.Client.Listings() == before {
		t.Error("the respawned pane's output sent no listing")
	}
}

// TestOutputPipesFIFOGone: with its FIFO removed, the client pipes nothing and a listing is
// never skipped; a pipe made before writes to no regular file in its place.
func TestOutputPipesFIFOGone(t *testing.T) {
	t.Parallel()
	s, l, fifo := pipeServer(t)
	pipe(t, s, fifo, map[string]bool{"%0": true, "%1": true})
	l.list(quiet(t))
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	if got := s.Client.PipeMark(); got != "" {
		t.Errorf("PipeMark with the FIFO removed = %q, want none", got)
	}
	l.piped = true
	if got := l.quietCalls("FIFO removed", 2); got != 2 {
		t.Errorf("FIFO removed: %d listings for 2 calls, want 2", got)
	}
	// A new pane piped by hand with the watcher's command, the FIFO gone: no file is made.
	s.Tmux(t, "new-window", "-d", "-t", "main:2", "cat")
	s.Tmux(t, "pipe-pane", "-O", "-t", "%2", tmuxctl.PipeCommand(fifo))
	s.Tmux(t, "send-keys", "-t", "%2", "-l", "x")
	s.WaitScreen(t, "%2", "x")
	if _, err := os.Lstat(fifo); err == nil {
		t.Errorf("%s exists after output into a pipe with the FIFO removed", fifo)
	}
}
