// Package watcher is cac-tmux's supervisor loop. Each tick it lists the panes of one tmux
// server once, finds the panes that run Claude Code, captures only the panes that need a look,
// runs the detector on them and keeps one state machine per supervised session
// (docs/how-it-works.md, How the watcher decides):
//
//	running → limited → waiting → resuming → verifying → running
//
// with the side states native (Claude Code's own auto-continue is armed), held (a draft in the
// input box, an unreadable menu, an unknown process), failed, unwaitable and skipped. When a
// pane is due (the scheduler decides when) it re-checks every gate (SAFETY.md) and only then
// types into the pane; afterwards it looks for positive evidence that the session resumed.
// The state of every supervised pane is published as pane user options (@cac_state, …).
//
// The watcher talks to tmux and to the process table only through the small interfaces Tmux
// and Finder, so tests run it against fakes as well as against a real server.
package watcher

import (
	"context"
	"errors"
	"maps"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// Tmux is what the watcher needs from a tmux server (tmuxctl.Client implements it).
type Tmux interface {
	// ListChanges lists every pane (full), or only the panes that may have changed since the
	// listing that returned since (see tmuxctl.Client.ListChanges).
	ListChanges(ctx context.Context, s tmuxctl.Search, since tmuxctl.Mark) (panes []tmuxctl.Pane, full bool, mark tmuxctl.Mark, err error)
	PaneInfo(ctx context.Context, pane string) (tmuxctl.Pane, error)
	Capture(ctx context.Context, pane string) (string, error)
	// CaptureStyled is Capture with the text's SGR escapes kept.
	CaptureStyled(ctx context.Context, pane string) (string, error)
	// Captures captures several panes, in order; a pane that is gone has its own error.
	Captures(ctx context.Context, shots []tmuxctl.Shot) ([]tmuxctl.Screen, error)
	SendLiteral(ctx context.Context, pane, text string) error
	SendKey(ctx context.Context, pane, key string) error
	SetPaneOptions(ctx context.Context, pane string, names, values []string) error
	// ClaimGlobal sets a global user option to value only while it holds old, and returns
	// what it holds afterwards (tmuxctl.Client.ClaimGlobal).
	ClaimGlobal(ctx context.Context, name, old, value string) (string, error)
}

// Store keeps the records of stopped sessions across restarts of the watcher
// (store.Store implements it).
type Store interface {
	Load() (map[string]store.Pane, error)
	Save(map[string]store.Pane) error
}

// Finder finds the Claude Code process in a pane and reads its settings (proc.Finder
// implements it).
type Finder interface {
	Find(ctx context.Context, panePID int) (proc.Found, bool, error)
	// Env is the part of the process's environment that locates Claude Code's records (its
	// config directory, settings, registry entry and transcripts).
	Env(ctx context.Context, id proc.Identity) (records.Env, error)
}

// Config holds the watcher's settings.
type Config struct {
	// Interval is the time between two listings of the server.
	Interval time.Duration
	// Message is typed into a stopped session to resume it.
	Message string
	// Agents holds each agent's settings (turned off, its own message); an agent it does not
	// name is supervised with Message.
	Agents map[agent.Name]agent.Settings
	// DryRun decides and logs but sends no key and sets no pane option.
	DryRun bool
	// Schedule holds the margin, the native grace, the stagger and the retry policy.
	Schedule scheduler.Config
	// Zone is the time zone of the host that runs claude, for messages that print none.
	Zone *time.Location
	// Pause is the wait between the message and its Enter (100–300 ms; SAFETY.md, Between the
	// keys).
	Pause time.Duration
	// Settle is how long after the keys the pane is looked at again for evidence; the check
	// after a menu digit comes after Settle/3.
	Settle time.Duration
	// Resync is the longest time between two listings of every pane; between them a tick
	// lists only what changed (see listing.go).
	Resync time.Duration
	// Clock tells the time, times the ticks and the pause between keys; nil is clock.Real.
	// The watcher drops Go's monotonic reading: due instants are wall-clock instants, so after
	// a suspend a pane wakes on the first tick after its due instant, not that much later.
	Clock clock.Clock
	// Wall is the system clock tmux stamps window_activity on: the listings search from it
	// and a capture is dated on it. nil is clock.Real. A test that shifts Clock leaves Wall
	// on the system clock.
	Wall clock.Clock
	// Store keeps what must survive a restart; nil keeps nothing.
	Store Store
	// Server names the tmux server's socket in messages (its path); "" says "the socket".
	Server string
	// PID, when not 0, is published as the server's @cac_watcher while the watcher runs (on
	// every server that appears on the socket), and withdrawn when Run ends.
	PID int
	// Log receives the watcher's events; pane text only at debug level.
	Log zerolog.Logger
	// Policy says which stops are resumed by themselves; the zero Policy resumes every one.
	Policy config.Policy
	// Panes selects the panes supervised by session name; the zero Panes selects all.
	Panes config.Panes
	// Notify, when set, is told of each pane's stop, resume, hold, failure, skip and limit
	// that holds again (see tell).
	Notify Notifier
	// Group holds the stagger and the cap of wakes per reset shared with other watchers
	// (watch --all-servers); nil is a group of this watcher's own.
	Group *Group
}

// Defaults are the settings of `cac-tmux watch` without flags.
var Defaults = Config{
	Interval: config.Default().Watch.Interval,
	Message:  config.Default().Watch.Message,
	Schedule: scheduler.Default,
	Pause:    200 * time.Millisecond,
	Settle:   3 * time.Second,
	Resync:   5 * time.Minute,
}

// revisit is how often a pane in a non-running state is looked at without activity.
const revisit = 30 * time.Second

// Watcher supervises the Claude Code panes of one tmux server.
type Watcher struct {
	cfg    Config
	tmux   Tmux
	finder Finder
	panes  map[string]*pane // supervised sessions by pane id
	// unsettled holds every supervised pane that is not calm (see settle): the panes a tick
	// goes over beyond its listing.
	unsettled map[string]*pane
	// idents caches which panes run Claude Code, by pane id.
	idents map[string]identity
	// failing remembers the last error logged per source, so an error repeats in the log
	// only when it changes.
	failing map[string]string
	// restore holds records of a previous watcher (or of a server that went away) until a
	// listing shows whether their sessions still run.
	restore map[string]store.Pane
	loaded  bool
	// down counts the tries since the server went away; announced is true while
	// @cac_watcher is set on the current server.
	down      int
	announced bool
	reconf    chan Config
	// latest is the latest window_activity the listings showed (see search).
	latest time.Time
	// listed is what the watcher knows of the server's panes (see list in listing.go).
	listed listing
	// screens are the captures taken for this tick's looks, by pane id (see prefetch).
	screens map[string]screen
}

// New returns a watcher of the server behind t. Zero fields of cfg take their Defaults.
func New(t Tmux, f Finder, cfg Config) *Watcher {
	d := Defaults
	if cfg.Interval <= 0 {
		cfg.Interval = d.Interval
	}
	if cfg.Message == "" {
		cfg.Message = d.Message
	}
	if cfg.Schedule == (scheduler.Config{}) {
		cfg.Schedule = d.Schedule
	}
	if cfg.Pause <= 0 {
		cfg.Pause = d.Pause
	}
	if cfg.Settle <= 0 {
		cfg.Settle = d.Settle
	}
	if cfg.Resync <= 0 {
		cfg.Resync = d.Resync
	}
	cfg.Clock, cfg.Wall = clock.Or(cfg.Clock), clock.Or(cfg.Wall)
	if cfg.Zone == nil {
		cfg.Zone = time.Local
	}
	if cfg.Group == nil {
		cfg.Group = NewGroup()
	}
	return &Watcher{cfg: cfg, tmux: t, finder: f, panes: map[string]*pane{}, unsettled: map[string]*pane{}, idents: map[string]identity{},
		failing: map[string]string{}, restore: map[string]store.Pane{}, reconf: make(chan Config, 1)}
}

// now is the watcher's clock without Go's monotonic reading.
func (w *Watcher) now() time.Time { return w.cfg.Clock.Now().Round(0) }

// Reconfigure hands new settings to a running watcher (SIGHUP): the interval, the message and
// the schedule take effect at the next tick; due instants are worked out again.
func (w *Watcher) Reconfigure(cfg Config) {
	select {
	case <-w.reconf: // an older one not yet taken
	default:
	}
	w.reconf <- cfg
}

func (w *Watcher) apply(cfg Config) {
	if cfg.Interval > 0 {
		w.cfg.Interval = cfg.Interval
	}
	if cfg.Message != "" {
		w.cfg.Message = cfg.Message
	}
	if cfg.Schedule != (scheduler.Config{}) {
		w.cfg.Schedule = cfg.Schedule
		for _, p := range w.panes {
			p.sched, p.slot = cfg.Schedule, time.Time{} // slots worked out again
		}
	}
	w.cfg.Policy, w.cfg.Panes = cfg.Policy, cfg.Panes
	if !maps.Equal(w.cfg.Agents, cfg.Agents) {
		w.cfg.Agents = cfg.Agents
		clear(w.idents) // an agent turned on or off: every pane is identified again
	}
	if cfg.Notify != nil {
		w.cfg.Notify = cfg.Notify
	}
	for id, p := range w.panes {
		p.pol, p.policy = cfg.Policy, decision{} // each stop is judged again
		w.unsettled[id] = p
	}
	w.cfg.Log.Info().Dur("interval_ms", w.cfg.Interval).Dur("margin_ms", w.cfg.Schedule.Margin).Msg("configuration reloaded")
}

// Run ticks until ctx ends, calling onTick (when not nil) with the rows after every tick. It
// wakes at the next tick or at the next due instant, whichever comes first, so keys go out
// on time whatever the interval. Errors of a tick are logged (once while they repeat) and the
// loop goes on: a tmux server that goes away is waited for, with backoff. When ctx ends the
// state is saved and @cac_watcher withdrawn.
func (w *Watcher) Run(ctx context.Context, onTick func([]Row)) error {
	defer w.cfg.Group.leave(w)
	defer w.stop()
	for {
		next, err := w.Tick(ctx)
		if ctx.Err() != nil {
			return nil // stopping: a tmux command cut short by it is no failure
		}
		if errors.Is(err, ErrAnotherWatcher) {
			return err
		}
		if !errors.Is(err, tmuxctl.ErrNoServer) {
			w.report("tick", err)
		}
		if onTick != nil {
			onTick(w.Rows())
		}
		wait := next.Sub(w.now())
		timer := w.cfg.Clock.NewTimer(max(wait, 10*time.Millisecond))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case cfg := <-w.reconf:
			timer.Stop()
			w.apply(cfg)
		case <-timer.C():
		}
	}
}

// stop saves the state and withdraws @cac_watcher when the watcher ends.
func (w *Watcher) stop() {
	w.save()
	w.withdraw()
}

// load reads the records of a previous watcher from the store, once.
func (w *Watcher) load() {
	if w.loaded || w.cfg.Store == nil {
		return
	}
	w.loaded = true
	recs, err := w.cfg.Store.Load()
	if err != nil {
		w.cfg.Log.Warn().Err(err).Msg("state file not used")
	}
	maps.Copy(w.restore, recs)
}

// save writes the records of the stopped sessions, and those not yet matched with a listing,
// to the store. A failure is logged (once while it repeats) and returned: the watcher goes on,
// but sends no key that the record did not reach (send).
func (w *Watcher) save() error {
	if w.cfg.Store == nil || w.cfg.DryRun {
		return nil
	}
	recs := maps.Clone(w.restore)
	w.records(recs)
	err := w.cfg.Store.Save(recs)
	w.report("state file", err)
	return err
}

// records adds the records of the supervised sessions that have one to recs (a calm pane has
// none).
func (w *Watcher) records(recs map[string]store.Pane) {
	for id, p := range w.eachUnsettled() {
		if r, ok := p.record(); ok {
			recs[id] = r
		}
	}
}
