package main

import (
	"context"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/notify"
)

// closeWait bounds how long the notifications still queued may take when the watcher stops
// or a reload replaces them (a hanging channel is cut at its own timeout anyway).
const closeWait = 15 * time.Second

// notifiers holds the watcher's notifier: a reload (SIGHUP) replaces it by one with the new
// [notify] settings, and the old one drains its queue in the background.
type notifiers struct {
	mu  sync.Mutex
	cur *notify.Notifier
	log zerolog.Logger
}

// start makes the notifier of s (already valid: config checks it with the file); nil when
// no channel is on.
func (ns *notifiers) start(s notify.Settings) (*notify.Notifier, error) {
	n, err := notify.New(s, ns.log, clock.Real)
	if err != nil {
		return nil, err
	}
	ns.mu.Lock()
	old := ns.cur
	ns.cur = n
	ns.mu.Unlock()
	if old != nil {
		go ns.drain(old)
	}
	return n, nil
}

// current is the notifier of the last start, for a watcher that starts after it.
func (ns *notifiers) current() *notify.Notifier {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return ns.cur
}

// close drains the current notifier; called once, when the watcher has stopped.
func (ns *notifiers) close() {
	ns.mu.Lock()
	n := ns.cur
	ns.cur = nil
	ns.mu.Unlock()
	ns.drain(n)
}

func (ns *notifiers) drain(n *notify.Notifier) {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	if err := n.Close(ctx); err != nil {
		ns.log.Warn().Err(err).Msg("notifications still queued were dropped")
	}
}
