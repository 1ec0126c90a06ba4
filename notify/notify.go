// Package notify tells the user what the watcher did to a pane (EventKind: stopped, resumed,
// held, failed, again, skipped) through three optional channels, each with its own events
// (Settings): a hook program with the event in CAC_* variables, a desktop notification
// (notify-send or osascript), and an HTTP POST to an ntfy-compatible URL with the event's
// buttons (Event.Actions). Send never blocks: per channel a worker and a queue of 32 (a full
// queue drops the event, said once), a timeout per attempt (a hook's process group killed), one
// retry 5 s later; per pane, min_gap between equal events and max_per_hour. Clock injected.
package notify

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
)

const (
	// queueSize is how many events wait for one channel before new ones are dropped.
	queueSize = 32
	// retryPause is the wait, on the clock, before the one retry of a failed delivery.
	retryPause = 5 * time.Second
)

// channel is one way of telling the user.
type channel interface {
	// name is the channel as logs name it: "command", "url" or "desktop".
	name() string
	// deliver sends e, and gives up when ctx ends.
	deliver(ctx context.Context, e Event) error
}

// worker delivers the events of one channel, in order, from its queue.
type worker struct {
	ch     channel
	events []EventKind
	queue  chan Event
	// dropped counts the events dropped since the queue was last found full; guarded by
	// Notifier.mu.
	dropped int
}

// Notifier sends events to the configured channels. A nil *Notifier sends nothing.
type Notifier struct {
	log     zerolog.Logger
	clk     clock.Clock
	timeout time.Duration
	workers []*worker
	// url is the ntfy channel whether or not a worker delivers events to it: Say posts to
	// it. nil without notify.url.
	url *ntfy
	wg  sync.WaitGroup
	// ctx ends when Close's deadline passes: deliveries in flight stop, queued ones are
	// dropped. closing is closed by Close: a retry goes at once.
	ctx     context.Context
	cancel  context.CancelFunc
	closing chan struct{}
	// lost counts the events Close's deadline left undelivered.
	lost atomic.Int64

	mu     sync.Mutex
	limit  *limiter
	closed bool
}

// New starts a worker for each channel s configures; the rules of each setting are the
// configuration's (config.Load checked s). New refuses only what it cannot run: a hook
// program that is not found, a URL that does not parse. With no channel (Default()), Send
// does nothing. Close stops the workers.
func New(s Settings, log zerolog.Logger, clk clock.Clock) (*Notifier, error) {
	var hookPath string
	if len(s.Command) > 0 {
		p, err := exec.LookPath(s.Command[0])
		if err != nil {
			return nil, fmt.Errorf("notify: command: %w", err)
		}
		hookPath = p
	}
	if _, err := url.Parse(s.URL); err != nil {
		return nil, fmt.Errorf("notify: url: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &Notifier{log: log, clk: clk, timeout: s.Timeout, ctx: ctx, cancel: cancel,
		closing: make(chan struct{}), limit: newLimiter(s.MinGap, s.MaxPerHour)}
	if hookPath != "" {
		n.add(&hook{path: hookPath, args: s.Command[1:]}, s.CommandEvents)
	}
	if s.URL != "" {
		n.url = newNtfy(s)
		n.add(n.url, s.URLEvents)
	}
	if s.Desktop == DesktopOn || s.Desktop == DesktopAuto {
		if path, err := exec.LookPath(desktopProgram()); err == nil {
			n.add(&desktop{path: path, goos: goos}, s.DesktopEvents)
		} else {
			log.Info().Msgf("notify: no %s on PATH: no desktop notifications (desktop = %q)", desktopProgram(), s.Desktop)
		}
	}
	var names []string
	for _, w := range n.workers {
		names = append(names, w.ch.name())
		n.wg.Add(1)
		go n.run(w)
	}
	if len(names) > 0 {
		log.Info().Strs("channels", names).Msg("notify: notifications on")
	}
	return n, nil
}

// add makes a worker for ch, unless it gets no event.
func (n *Notifier) add(ch channel, events []EventKind) {
	if len(events) > 0 {
		n.workers = append(n.workers, &worker{ch: ch, events: slices.Clone(events), queue: make(chan Event, queueSize)})
	}
}

// Send queues e for every channel that wants its kind, unless the pane's rate limit drops
// it. It never blocks. An e.At left zero is the clock's now. After Close it does nothing.
func (n *Notifier) Send(e Event) {
	if n == nil || len(n.workers) == 0 {
		return
	}
	if _, err := parseEventKind(string(e.Kind)); err != nil {
		n.log.Warn().Err(err).Str("pane", e.Pane).Msg("notify: nothing sent")
		return
	}
	now := n.clk.Now()
	if e.At.IsZero() {
		e.At = now
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || !slices.ContainsFunc(n.workers, func(w *worker) bool { return slices.Contains(w.events, e.Kind) }) {
		return
	}
	if !n.allowed(e, now) {
		return
	}
	for _, w := range n.workers {
		if slices.Contains(w.events, e.Kind) {
			n.enqueue(w, e)
		}
	}
}

// allowed asks the rate limit about e and logs a drop.
func (n *Notifier) allowed(e Event, now time.Time) bool {
	switch n.limit.take(e.Pane, e.Kind, now) {
	case tooSoon:
		n.log.Debug().Str("event", string(e.Kind)).Str("pane", e.Pane).Msg("notify: dropped: the same event for this pane was sent less than min_gap ago")
		return false
	case capped:
		n.log.Warn().Str("pane", e.Pane).Int("max_per_hour", n.limit.maxPerHour).Msg("notify: this pane sent max_per_hour notifications in the last hour; its next ones are dropped until the hour has room")
		return false
	case stillOver:
		n.log.Debug().Str("event", string(e.Kind)).Str("pane", e.Pane).Msg("notify: dropped: max_per_hour reached for this pane")
		return false
	}
	return true
}

// enqueue puts e in w's queue, or drops it when the queue is full: the first drop of a run
// is logged at warn, the end of the run with how many were dropped. n.mu is held.
func (n *Notifier) enqueue(w *worker, e Event) {
	select {
	case w.queue <- e:
		if w.dropped > 0 {
			n.log.Info().Str("channel", w.ch.name()).Int("dropped", w.dropped).Msg("notify: the channel caught up; events were dropped meanwhile")
			w.dropped = 0
		}
	default:
		if w.dropped == 0 {
			n.log.Warn().Str("channel", w.ch.name()).Int("queue", queueSize).Msg("notify: the channel is behind and its queue is full; events are dropped until it catches up")
		}
		w.dropped++
	}
}

// run delivers w's events until its queue is closed.
func (n *Notifier) run(w *worker) {
	defer n.wg.Done()
	for e := range w.queue {
		n.deliver(w.ch, e)
	}
}

// deliver sends e on ch, with one retry. A failure is logged at warn (a hook's output at
// debug: it may quote the note); an event Close's deadline cut is counted, not logged.
func (n *Notifier) deliver(ch channel, e Event) {
	for try := 1; ; try++ {
		if n.ctx.Err() != nil {
			n.lost.Add(1)
			return
		}
		err := n.attempt(ch, e)
		switch {
		case err == nil:
			n.log.Debug().Str("channel", ch.name()).Str("event", string(e.Kind)).Str("pane", e.Pane).Int("try", try).Msg("notify: sent")
			return
		case n.ctx.Err() != nil:
			n.lost.Add(1)
			return
		}
		msg := "notify: not delivered; retrying once"
		if try == 2 {
			msg = "notify: not delivered after a retry; dropped"
		}
		n.log.Warn().Err(err).Str("channel", ch.name()).Str("event", string(e.Kind)).Str("pane", e.Pane).Msg(msg)
		if he := (*hookError)(nil); errors.As(err, &he) && he.output != "" {
			n.log.Debug().Str("channel", ch.name()).Str("output", he.output).Msg("notify: the hook's output")
		}
		if try == 2 {
			return
		}
		n.pause()
	}
}

// attempt runs one delivery, cut when the timeout passes on the clock.
func (n *Notifier) attempt(ch channel, e Event) error {
	return n.bounded(n.ctx, func(ctx context.Context) error { return ch.deliver(ctx, e) })
}

// bounded runs do with a context of parent that ends when the timeout passes on the clock;
// an error then says so.
func (n *Notifier) bounded(parent context.Context, do func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	t := n.clk.NewTimer(n.timeout)
	defer t.Stop()
	var timedOut atomic.Bool
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-t.C():
			timedOut.Store(true)
			cancel()
		case <-stop:
		}
	}()
	err := do(ctx)
	if err != nil && timedOut.Load() {
		return fmt.Errorf("timed out after %s: %w", n.timeout, err)
	}
	return err
}

// Say posts a message that is no pane's event (the outcome of an action asked from the
// phone, a pane's screen: package phone) to the url channel, whatever its url_events: at
// once, not queued and not rate-limited (each answers a tap of the user's own), once, cut
// at the timeout, when ctx ends or when Close's deadline passes. The title and the body are
// never logged. It returns an error without notify.url, after Close, or when the POST fails.
func (n *Notifier) Say(ctx context.Context, title, body string) error {
	if n == nil || n.url == nil {
		return errors.New("notify: say: no url channel (set notify.url)")
	}
	n.mu.Lock()
	closed := n.closed
	n.mu.Unlock()
	if closed {
		return errors.New("notify: say: the notifier is closed")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(n.ctx, cancel)()
	if err := n.bounded(ctx, func(ctx context.Context) error { return n.url.say(ctx, title, body) }); err != nil {
		return fmt.Errorf("notify: say: %w", err)
	}
	return nil
}

// pause waits before a retry: retryPause on the clock, cut short by Close.
func (n *Notifier) pause() {
	t := n.clk.NewTimer(retryPause)
	defer t.Stop()
	select {
	case <-t.C():
	case <-n.closing:
	case <-n.ctx.Done():
	}
}

// Close stops taking events and waits until the queued ones are delivered (a retry then
// goes at once) or ctx ends; then the deliveries in flight are stopped (hooks killed) and
// the rest dropped, and the error says how many. It returns once every worker has ended.
func (n *Notifier) Close(ctx context.Context) error {
	if n == nil {
		return nil
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	close(n.closing)
	for _, w := range n.workers {
		close(w.queue)
	}
	n.mu.Unlock()
	done := make(chan struct{})
	go func() {
		n.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		n.cancel()
		return nil
	case <-ctx.Done():
	}
	n.cancel()
	<-done
	return fmt.Errorf("notify: close: %d event deliveries not done: %w", n.lost.Load(), ctx.Err())
}
