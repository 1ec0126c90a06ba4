// The transport: commands go over a control connection while one is up and by exec
// otherwise; the connection is dialled again, with a backoff, when tmux drops it.

package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

// transport runs tmux commands over a control connection while one is up, else by exec
// (Client.Run): it dials on first use and after a drop, at most once per Redial, the wait
// doubling up to maxRedial while dials fail. A command cut off after it was sent is not run
// again (it may have run): its error wraps ErrClosed. The connection is an attached client of
// one session (tmux 3.3a counts it): with the global exit-unattached or that session's
// destroy-unattached on, it would keep the server or the session alive after the user's last
// detach, so transport closes it at once and uses exec from then on.
type transport struct {
	Client *Client
	// Redial is the least time between two dials, defaultRedial when zero. It runs on
	// Client.Clock.
	Redial time.Duration
	// Log, when not nil, is told when a connection comes up ("up", nil), when tmux drops it
	// ("down", why), when a dial fails ("dial", why), when transport gives control mode up on
	// this server ("refused", why), when the output signal of tmux 3.8 is made or cannot be
	// ("signal", nil or why; activity.go) and when the output pipes are ("pipes"; pipes.go). Calls come from Run and ListChanges, one at a time.
	Log func(event string, err error)

	mu       sync.Mutex
	k        *controlClient
	lastDial time.Time
	failures int   // dials failed in a row
	refused  error // why control mode is not used on this server
	closed   bool

	// The output signal (activity.go) of connection k: act, made at actDial for the
	// connection numbered actFor (the one connection it was tried for, made or not).
	act     *activity
	actFor  uint64
	actDial time.Time

	// pipePath is the FIFO of the output pipes (pipes.go) where the server has no wait-for -E,
	// "" for none; pipes is that FIFO once open, kept through the connections; pipedAt is
	// when the last pipes were made.
	pipePath string
	pipes    *pipes
	pipedAt  time.Time
}

// defaultRedial is transport's least time between two dials.
const defaultRedial = time.Second

// maxRedial bounds the wait between failed dials: a server started again is back on control
// mode within it.
const maxRedial = 10 * time.Second

// ErrRefused: transport does not use control mode on this server (see transport).
var ErrRefused = errors.New("control mode not used")

// Run runs a command like Client.Run, over the control connection when one is up.
func (n *transport) Run(ctx context.Context, args ...string) (string, error) {
	if k := n.control(ctx); k != nil {
		out, err := k.Run(ctx, args...)
		if !errors.Is(err, errNotSent) {
			return out, err
		}
	}
	return n.Client.exec(ctx, args...)
}

// control returns the live control connection, dialling if none is up and the wait since
// the last dial is over; nil when there is none (Run then uses exec).
func (n *transport) control(ctx context.Context) *controlClient {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || n.refused != nil {
		return nil
	}
	if n.k != nil {
		err := n.k.Err()
		if err == nil {
			return n.k
		}
		n.k.Close()
		n.k = nil
		if n.act != nil {
			n.act.close() // it goes with the connection that is gone
			n.act = nil
		}
		n.log("down", err)
	}
	now := n.Client.clock().Now()
	// A clock set back (a manual one; the real clock's readings are monotonic) must not hold
	// dials off for the length of the jump.
	if !n.lastDial.IsZero() && !now.Before(n.lastDial) && now.Sub(n.lastDial) < n.wait() {
		return nil
	}
	n.lastDial = now
	k, err := n.Client.dial(ctx)
	if err != nil {
		n.failures++
		n.log("dial", err)
		return nil
	}
	n.failures = 0
	if err := keepsAlive(ctx, k.Run); err != nil {
		k.Close()
		n.refused = err
		n.log("refused", err)
		return nil
	}
	n.k = k
	n.log("up", nil)
	return k
}

// wait is the least time from the last dial to the next: Redial after a dial that
// succeeded and after the first that failed, then doubling with each failure up to
// maxRedial (Redial 1 s: 1, 2, 4, 8, 10, 10 s between failed dials).
func (n *transport) wait() time.Duration {
	wait := n.Redial
	if wait <= 0 {
		wait = defaultRedial
	}
	return clock.Backoff(wait, maxRedial, n.failures)
}

// keepsAlive says why an attached control client would change what the server does when the
// user detaches (a nil error: it would not).
func keepsAlive(ctx context.Context, run func(context.Context, ...string) (string, error)) error {
	out, err := run(ctx, "display-message", "-p", strings.Join([]string{"#{exit-unattached}", "#{destroy-unattached}", freeText("session_name")}, sep))
	if err != nil {
		return fmt.Errorf("%w: cannot read exit-unattached and destroy-unattached: %w", ErrRefused, err)
	}
	f, err := splitFields(out, 3, "display-message")
	switch {
	case err != nil:
		return fmt.Errorf("%w: reading exit-unattached and destroy-unattached: %w", ErrRefused, err)
	case !off(f[0]):
		return fmt.Errorf("%w: exit-unattached is on (%s): an attached control client would keep the server running after the last detach", ErrRefused, f[0])
	case !off(f[1]):
		return fmt.Errorf("%w: destroy-unattached is on (%s) for session %s: an attached control client would keep it after the last detach", ErrRefused, f[1], f[2])
	}
	return nil
}

// off reports whether an option's value in a format is off: "0" for a flag, and for
// destroy-unattached, a choice since tmux 3.4 (off, on, keep-last, keep-group), "off". Any other
// value keeps the watcher off control mode.
func off(v string) bool { return v == "0" || v == "off" }

func (n *transport) log(event string, err error) {
	if n.Log != nil {
		n.Log(event, err)
	}
}

// Connected reports whether a control connection is up now.
func (n *transport) Connected() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.k != nil && n.k.Err() == nil
}

// Close closes the control connection; later Runs use exec.
func (n *transport) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	n.closePipes(n.k)
	var name string
	if n.act != nil { // closed beside the withdraw: each may wait on a server that never answers
		name = n.act.name
		act := n.act
		n.act = nil
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			act.close()
		}()
		defer func() { <-closed }()
	}
	if n.k == nil {
		return nil
	}
	// Best effort: a name left names a client that is gone. Not tried when the server did not
	// answer the connection's last command within its timeout: it would only wait out its own.
	if !n.k.unanswered.Load() {
		ctx, cancel := withTimeout(context.Background(), n.Client.clock(), n.Client.timeout())
		_ = withdraw(ctx, n.k, name)
		cancel()
	}
	err := n.k.Close()
	n.k = nil
	return err
}
