package tmuxctl_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// hung are the two servers that never answer: a tmux server stopped with SIGSTOP, and a
// socket that accepts and never reads. Each gives a Client with a short Timeout.
var hung = []struct {
	name string
	make func(t *testing.T) *tmuxctl.Client
}{
	{"stopped", func(t *testing.T) *tmuxctl.Client {
		s := tmuxtest.Start(t, 80, 24)
		s.Stop(t)
		return &tmuxctl.Client{SocketPath: s.Socket, Timeout: 300 * time.Millisecond}
	}},
	{"silent", func(t *testing.T) *tmuxctl.Client {
		socket := filepath.Join(t.TempDir(), "s")
		tmuxtest.Silent(t, socket)
		return &tmuxctl.Client{SocketPath: socket, Timeout: 300 * time.Millisecond}
	}},
}

// returns waits for f to return, and fails the test if it has not within 10 s (stretched by
// CAC_TEST_SLOW): a bound far above the Timeout and the wait for output tmuxctl adds to it.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(tmuxtest.Scale(10 * time.Second)):
		t.Fatalf("%s did not return", what)
	}
}

// A server that never answers bounds every call: a command by exec, a dial, a command over a
// Transport (dial, then exec) and its Close each return a timeout error, whatever the server
// holds of the tmux client (its stdin and stdout, handed over at connect).
func TestHungServerBoundsEveryCall(t *testing.T) {
	for _, h := range hung {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			c := h.make(t)
			returns(t, "a command by exec", func() {
				_, err := c.Run(context.Background(), "list-panes", "-a")
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("exec: %v, want a timeout", err)
				}
			})
			returns(t, "a dial", func() {
				if k, err := c.Dial(context.Background()); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Dial: %v, %v; want a timeout", k, err)
				}
			})
			conn := *c
			conn.Connect(nil)
			returns(t, "a command over a Transport, and its Close", func() {
				if _, err := conn.Run(context.Background(), "list-panes", "-a"); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("Transport: %v, want a timeout", err)
				}
				conn.Close()
			})
		})
	}
}

// A server that stops answering once its control client is up: a command times out, the next
// one gives the connection up (its reply to the first never came), and the connection is over
// (Done) with its client gone, Close returning.
func TestHungServerEndsTheControlClient(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	s.Client.Timeout = 300 * time.Millisecond
	k := dial(t, s)
	s.Stop(t)
	returns(t, "two commands and the end of the connection", func() {
		if _, err := k.Run(context.Background(), "list-panes", "-a"); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("first command: %v, want a timeout", err)
		}
		if _, err := k.Run(context.Background(), "list-panes", "-a"); !errors.Is(err, tmuxctl.ErrClosed) {
			t.Errorf("second command: %v, want ErrClosed", err)
		}
		<-k.Done()
	})
	returns(t, "Close", func() { k.Close() })
}

// A connection whose server stopped answering is closed at once: Close neither waits for the
// client to detach (a stopped server never reads the detach) nor asks the server anything,
// so it returns while the Client's clock stands still.
func TestHungServerClosesAtOnce(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	clk := manual(s)
	s.Connect(t)
	s.Stop(t)
	r := make(chan result, 1)
	go func() {
		out, err := s.Client.Run(context.Background(), "list-panes", "-a")
		r <- result{out, err}
	}()
	tmuxtest.WaitFor(t, 5*time.Second, "the command's timer", func() bool { return clk.Timers() == 1 })
	clk.Add(s.Client.Timeout)
	if got := receive(t, r, "the command"); !errors.Is(got.err, context.DeadlineExceeded) {
		t.Fatalf("command on a stopped server: %v, want a timeout", got.err)
	}
	returns(t, "Close", func() { s.Client.Close() })
}
