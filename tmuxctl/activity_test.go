package tmuxctl_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// TestOutputSignal: where tmux signals output (wait-for -E, tmux 3.8), a listing of what
// changed with no pane printing since sends no listing at all, and every output, request and
// notified change is still listed when it comes: output even when the caller searches from a
// tick later than it (the ticks skipped meanwhile). Where tmux has no such signal, every call
// lists, as before.
func TestOutputSignal(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 100, 30, "cat")
	s.Tmux(t, "new-window", "-d", "-t", "main:1", "cat")
	s.Connect(t)
	caps, err := s.Client.Probe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	l := &lister{t: t, c: s.Client}
	quiet(t) // the first listing starts a second after the windows were made
	if ids, full := l.list(time.Time{}); !full || len(ids) != 2 {
		t.Fatalf("first listing = %v, full %v; want both panes, full", ids, full)
	}
	if s.Client.Signalled() != caps.OutputSignal {
		t.Fatalf("output signal up = %v, but the server's wait-for -E = %v", s.Client.Signalled(), caps.OutputSignal)
	}
	if !caps.OutputSignal {
		// tmux 3.2a to 3.7: no signal, so each call lists what changed.
		if got := l.quietCalls("nothing printed", 3); got != 3 {
			t.Errorf("3 calls with no signal sent %d listings, want 3", got)
		}
		return
	}
	// The signal's client is named for Request to wake it.
	if got := s.Tmux(t, "show-options", "-gv", "@cac_signal"); got != fmt.Sprintf("client-%d\n", s.Client.SignalClient()) {
		t.Errorf("@cac_signal = %q, want the signal's client, client-%d", got, s.Client.SignalClient())
	}
	// The listing that arms the signal, then nothing printed: no listing at all.
	l.list(quiet(t))
	l.skipped("nothing printed", 3)

	// Output in %1, and the caller searching from a second after it (as from a skipped tick):
	// %1 is listed, by the one listing sent; the calls after it send none.
	s.Tmux(t, "send-keys", "-t", "%1", "-l", "x")
	s.WaitScreen(t, "%1", "x")
	late := time.Now().Truncate(time.Second).Add(2 * time.Second)
	before := s.Client.Listings()
	var ids []string
	tmuxtest.WaitFor(t, 5*time.Second, "the output in %1 listed", func() bool {
		ids, _ = l.list(late)
		return len(ids) > 0
	})
	if !slices.Equal(ids, []string{"%1"}) || s.Client.Listings()-before > 2 {
		t.Errorf("after output in %%1, searched from a later second: %v in %d listings; want %%1 in one (or two, while the signal is read)", ids, s.Client.Listings()-before)
	}
	l.skipped("after the output was listed", 2)

	// A request is no output, but it is listed (every pane, once).
	l.request("%0", "resume 1", 2)
	l.skipped("after the request was listed", 2)

	// A change tmux notifies is listed in full.
	s.Tmux(t, "new-window", "-d", "-t", "main:2", "cat")
	var full bool
	tmuxtest.WaitFor(t, 5*time.Second, "a full listing after new-window", func() bool {
		ids, full = l.list(quiet(t))
		return full
	})
	if len(ids) != 3 {
		t.Errorf("after new-window: %v, want 3 panes", ids)
	}

	// Closed, the connection withdraws the name it published.
	if got := signalAfterClose(t, s); got != "" {
		t.Errorf("@cac_signal = %q after Close, want it unset", got)
	}
}

// signalServer starts a server with one pane, connected, listed once in full, and skips the
// test, saying why, where the server has no output signal (before tmux 3.8).
func signalServer(t *testing.T, why string) (*tmuxtest.Server, *lister) {
	t.Helper()
	s := tmuxtest.Start(t, 100, 30, "cat")
	s.Connect(t)
	l := &lister{t: t, c: s.Client}
	l.list(time.Time{})
	if !s.Client.Signalled() {
		t.Skip("no wait-for -E on this tmux (3.8 and later): " + why)
	}
	return s, l
}

// signalAfterClose closes s's connection and returns @cac_signal as tmux has it then.
func signalAfterClose(t *testing.T, s *tmuxtest.Server) string {
	t.Helper()
	if err := s.Client.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Tmux(t, "show-options", "-gqv", "@cac_signal")
}

// TestOutputSignalWithdrawnOnlyIfOurs: a Transport closing leaves @cac_signal alone when it
// names another client than its signal's (another watcher's since, or set by hand).
func TestOutputSignalWithdrawnOnlyIfOurs(t *testing.T) {
	t.Parallel()
	s, _ := signalServer(t, "no name is published")
	s.Tmux(t, "set-option", "-g", "@cac_signal", "client-1")
	if got := signalAfterClose(t, s); got != "client-1\n" {
		t.Errorf("@cac_signal = %q after Close, want client-1 left", got)
	}
}

// TestOutputSignalLost: the signal's own tmux client killed, output is still listed (by a
// listing each call meanwhile), and the signal comes back while the main connection lives.
func TestOutputSignalLost(t *testing.T) {
	t.Parallel()
	s, l := signalServer(t, "TestOutputSignal checks that every call lists")
	pid := s.Client.SignalClient()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the signal known lost", func() bool { return !s.Client.Signalled() })
	since := quiet(t)
	s.Tmux(t, "send-keys", "-t", "%0", "-l", "y")
	s.WaitScreen(t, "%0", "y")
	if ids, _ := l.list(since); !slices.Equal(ids, []string{"%0"}) {
		t.Errorf("output with the signal lost: listed %v, want %%0", ids)
	}
	if ids, full := l.list(quiet(t)); full || len(ids) != 0 {
		t.Errorf("nothing printed, signal lost: %v, full %v", ids, full)
	}
	tmuxtest.WaitFor(t, 30*time.Second, "the signal back", func() bool {
		l.list(quiet(t))
		return s.Client.Signalled() && s.Client.SignalClient() != pid
	})
	clients := s.Tmux(t, "list-clients", "-F", "#{client_control_mode} #{client_pid}")
	if n := strings.Count(clients, "1 "); n != 2 || strings.Contains(clients, " "+strconv.Itoa(pid)+"\n") {
		t.Errorf("control clients after the signal came back:\n%s want 2, not pid %d", clients, pid)
	}
}
