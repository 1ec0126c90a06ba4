// Package servers keeps one supervisor running per tmux server of the user, in one process
// (`cac-tmux watch --all-servers`): it looks for servers every so often, starts a supervisor
// for each new one, stops the one of a server that went away, and starts again, after a pause,
// one that ended while its server remains. Finding servers and supervising one are the
// caller's (Config), so a server that fails or hangs never stalls the others, nor Run's end.
package servers

import (
	"context"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
)

// Defaults of Config.
const (
	DefaultEvery    = 5 * time.Second
	DefaultRetry    = 10 * time.Second
	DefaultMaxRetry = 5 * time.Minute
	// DefaultStopWait is long enough for a supervisor to save its state and withdraw its
	// claim (a bounded tmux call of 2 s), short enough for a SIGTERM to stop the process
	// within a few seconds.
	DefaultStopWait = 5 * time.Second
)

// Config is what Run needs.
type Config struct {
	// Find returns the sockets of the servers to supervise now (tmuxctl.Servers).
	Find func() ([]string, error)
	// Watch supervises the server on socket until ctx ends (nil) or it cannot go on (the
	// error says why). It runs in a goroutine of its own for each server.
	Watch func(ctx context.Context, socket string) error
	// Every is the time between two looks for servers (DefaultEvery when 0).
	Every time.Duration
	// Retry is the pause before a server whose supervisor ended is supervised again, doubled
	// each time it ends again, up to MaxRetry (DefaultRetry, DefaultMaxRetry when 0). A
	// supervisor that ran for MaxRetry before it ended starts the count again.
	Retry, MaxRetry time.Duration
	// StopWait bounds the wait for the supervisors when Run stops (DefaultStopWait when 0):
	// one stuck in a call that does not return is left behind, named in the log, and Run
	// returns.
	StopWait time.Duration
	Clock    clock.Clock // clock.Real when nil
	Log      zerolog.Logger
}

// server is the bookkeeping of one socket.
type server struct {
	cancel  context.CancelFunc // nil while no supervisor runs
	started time.Time
	pause   time.Duration // the pause before the next start after an end
	after   time.Time     // no start before it
}

// ended is the end of one server's supervisor.
type ended struct {
	socket string
	err    error
}

// Run supervises every server Find returns until ctx ends, then stops every supervisor and
// returns once all have returned.
func Run(ctx context.Context, cfg Config) {
	cfg = cfg.withDefaults()
	r := &run{cfg: cfg, servers: map[string]*server{}, ended: make(chan ended), gaveUp: make(chan struct{})}
	defer r.stopAll()
	for {
		r.look(ctx)
		timer := cfg.Clock.NewTimer(cfg.Every)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case e := <-r.ended:
			timer.Stop()
			r.end(e)
		case <-timer.C():
		}
	}
}

func (c Config) withDefaults() Config {
	if c.Every <= 0 {
		c.Every = DefaultEvery
	}
	if c.Retry <= 0 {
		c.Retry = DefaultRetry
	}
	if c.MaxRetry <= 0 {
		c.MaxRetry = DefaultMaxRetry
	}
	if c.StopWait <= 0 {
		c.StopWait = DefaultStopWait
	}
	c.Clock = clock.Or(c.Clock)
	return c
}

// run is the state of one Run: the servers by socket, and the channel on which their
// supervisors end.
type run struct {
	cfg     Config
	servers map[string]*server
	ended   chan ended
	gaveUp  chan struct{} // closed when stopAll stops waiting for the supervisors
	running int
}

// look finds the servers, stops the supervisors of the servers that went away and starts the
// ones of the servers that appeared (or whose pause is over).
func (r *run) look(ctx context.Context) {
	sockets, err := r.cfg.Find()
	if err != nil {
		r.cfg.Log.Error().Err(err).Msg("could not look for tmux servers; the ones supervised go on")
		return
	}
	now := r.cfg.Clock.Now()
	here := map[string]bool{}
	for _, socket := range sockets {
		here[socket] = true
		s := r.servers[socket]
		if s == nil {
			s = &server{pause: r.cfg.Retry}
			r.servers[socket] = s
		}
		if s.cancel == nil && !now.Before(s.after) {
			r.start(ctx, socket, s, now)
		}
	}
	for socket, s := range r.servers {
		if here[socket] {
			continue
		}
		if s.cancel != nil {
			r.cfg.Log.Info().Str("socket", socket).Msg("the tmux server is gone: its supervisor stops")
			s.cancel()
		} else {
			delete(r.servers, socket) // gone for good: a server there later starts afresh
		}
	}
}

// start runs the supervisor of socket in a goroutine of its own.
func (r *run) start(ctx context.Context, socket string, s *server, now time.Time) {
	wctx, cancel := context.WithCancel(ctx)
	s.cancel, s.started = cancel, now
	r.running++
	r.cfg.Log.Info().Str("socket", socket).Msg("supervising a tmux server")
	go func() {
		err := r.cfg.Watch(wctx, socket)
		select {
		case r.ended <- ended{socket: socket, err: err}:
		case <-r.gaveUp: // Run has returned without it
		}
	}()
}

// end records that the supervisor of a server returned: it is started again at a later look,
// after its pause, if the server is still there.
func (r *run) end(e ended) {
	r.running--
	s := r.servers[e.socket]
	s.cancel()
	s.cancel = nil
	now := r.cfg.Clock.Now()
	if now.Sub(s.started) >= r.cfg.MaxRetry {
		s.pause = r.cfg.Retry
	}
	s.after = now.Add(s.pause)
	if e.err != nil {
		r.cfg.Log.Warn().Err(e.err).Str("socket", e.socket).Dur("retry_in_ms", s.pause).Msg("a tmux server is not supervised")
	}
	s.pause = clock.Backoff(s.pause, r.cfg.MaxRetry, 2)
}

// stopAll stops every supervisor and waits until all have returned, or StopWait has passed:
// the ones still running then are named in the log and left behind.
func (r *run) stopAll() {
	for _, s := range r.servers {
		if s.cancel != nil {
			s.cancel()
		}
	}
	timer := r.cfg.Clock.NewTimer(r.cfg.StopWait)
	defer timer.Stop()
	for r.running > 0 {
		select {
		case e := <-r.ended:
			r.end(e)
		case <-timer.C():
			var stuck []string
			for socket, s := range r.servers {
				if s.cancel != nil {
					stuck = append(stuck, socket)
				}
			}
			slices.Sort(stuck)
			close(r.gaveUp)
			r.cfg.Log.Error().Strs("sockets", stuck).Dur("waited_ms", r.cfg.StopWait).
				Msg("a supervisor did not stop in time; stopping without it (its state may not be saved)")
			return
		}
	}
}
