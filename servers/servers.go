// Package servers keeps one supervisor running for each tmux server of the user, in one
// process (`cac-tmux watch --all-servers`): it looks for servers every so often, starts a
// supervisor for each server that appeared, stops the one of a server that went away, and
// starts again, after a pause, the supervisor of a server that ended while its server is
// still there (another watcher held it, its state could not be opened). What finds the
// servers and what supervises one are the caller's (Config): this package owns only the
// bookkeeping, so that a server that fails or hangs never stalls the others.
package servers

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
)

// Defaults of Config.
const (
	DefaultEvery    = 5 * time.Second
	DefaultRetry    = 10 * time.Second
	DefaultMaxRetry = 5 * time.Minute
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
	Clock           clock.Clock // clock.Real when nil
	Log             zerolog.Logger
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
	r := &run{cfg: cfg, servers: map[string]*server{}, ended: make(chan ended)}
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
	if c.Clock == nil {
		c.Clock = clock.Real
	}
	return c
}

// run is the state of one Run: the servers by socket, and the channel on which their
// supervisors end.
type run struct {
	cfg     Config
	servers map[string]*server
	ended   chan ended
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
		r.ended <- ended{socket: socket, err: err}
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
	s.pause = min(2*s.pause, r.cfg.MaxRetry)
}

// stopAll stops every supervisor and waits until all have returned.
func (r *run) stopAll() {
	for _, s := range r.servers {
		if s.cancel != nil {
			s.cancel()
		}
	}
	for r.running > 0 {
		r.end(<-r.ended)
	}
}
