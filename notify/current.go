package notify

import (
	"context"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
)

// closeWait bounds how long the notifications still queued may take when the watcher stops
// or a reload replaces them (a hanging channel is cut at its own timeout anyway).
const closeWait = 15 * time.Second

// Current holds the notifier of a running watch: a reload (SIGHUP) replaces it by one with
// the new [notify] settings (Start), and the old one drains its queue in the background.
type Current struct {
	Log   zerolog.Logger
	Clock clock.Clock // clock.Real when nil

	mu  sync.Mutex
	cur *Notifier
}

// Start makes the notifier of s (already valid: config checks it with the file) the current
// one and returns it; the one it replaces drains in the background.
func (c *Current) Start(s Settings) (*Notifier, error) {
	n, err := New(s, c.Log, clock.Or(c.Clock))
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	old := c.cur
	c.cur = n
	c.mu.Unlock()
	if old != nil {
		go c.drain(old)
	}
	return n, nil
}

// Notifier is the notifier of the last Start, for a watcher that starts after it.
func (c *Current) Notifier() *Notifier {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// Close drains the current notifier, within closeWait; called once, when the watcher has
// stopped.
func (c *Current) Close() {
	c.mu.Lock()
	n := c.cur
	c.cur = nil
	c.mu.Unlock()
	c.drain(n)
}

func (c *Current) drain(n *Notifier) {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	if err := n.Close(ctx); err != nil {
		c.Log.Warn().Err(err).Msg("notifications still queued were dropped")
	}
}

// Say sends a report that is no pane's event (the outcome of an action asked from the
// phone, a screen) to the current notifier's url channel (Notifier.Say); a failure is
// logged.
func (c *Current) Say(ctx context.Context, title, body string) {
	if err := c.Notifier().Say(ctx, title, body); err != nil {
		c.Log.Warn().Err(err).Msg("the phone was not told the outcome")
	}
}
