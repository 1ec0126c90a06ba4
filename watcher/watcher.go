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
	"fmt"
	"iter"
	"maps"
	"slices"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/detector"
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
	// Captures captures several panes, in order; a pane that is gone has its own error.
	Captures(ctx context.Context, panes []string) ([]tmuxctl.Screen, error)
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

// prefilter is the server-side pre-filter of each listing: rows that any limit message, Claude
// Code's auto-continue lines or the options menu put on screen, searched only in panes whose
// command may be Claude Code (docs/claude-code.md: Messages, The options menu, Claude Code's own
// auto-continue, Which panes run Claude Code). A pane the search skips (a wrapper script) is
// looked at whenever its window shows activity.
var prefilter = tmuxctl.Search{
	Pattern:  `limit|usage|spending cap|automatic|what do you want to do`,
	Commands: proc.CommandPattern(),
}

// narrow is the width below which a wrapped message may slip past the pre-filter (a single
// word split over two rows), so a narrow Claude pane is looked at on any activity.
const narrow = 40

// revisit is how often a pane in a non-running state is looked at without activity.
const revisit = 30 * time.Second

// maxBackoff bounds the wait between two tries while no tmux server runs on the socket.
const maxBackoff = 10 * time.Second

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
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
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

// gone handles a listing that found no server on the socket: the first time it is logged and
// the sessions are kept as records (a server that comes back with the same processes takes
// them up; a new server never matches them); the next try is after a backoff.
func (w *Watcher) gone(now time.Time, err error) time.Time {
	if w.down == 0 {
		server := w.cfg.Server
		if server == "" {
			server = "the socket"
		}
		w.cfg.Log.Warn().Str("socket", w.cfg.Server).Msg("no tmux server on " + server +
			"; waiting for one to start there (the watcher keeps running). Another server: -L NAME or -S PATH, as tmux takes them")
		w.cfg.Log.Debug().Err(err).Msg("the listing that found no server")
		w.records(w.restore)
		clear(w.panes)
		clear(w.unsettled)
		clear(w.idents)
		w.announced = false
		w.cfg.Group.leave(w) // its waits hold no slot while no server is there
	}
	w.down++
	wait := w.cfg.Interval << min(w.down-1, 16)
	return now.Add(min(wait, max(maxBackoff, w.cfg.Interval)))
}

// report logs err under source when it differs from the last one logged there, and logs the
// recovery when a failing source works again.
func (w *Watcher) report(source string, err error) {
	last, failing := w.failing[source]
	switch {
	case err == nil && failing:
		delete(w.failing, source)
		w.cfg.Log.Info().Str("source", source).Msg("working again")
	case err != nil && (!failing || last != err.Error()):
		w.failing[source] = err.Error()
		w.cfg.Log.Error().Err(err).Str("source", source).Msg("failed; retrying every tick")
	}
}

// Tick lists the panes once, looks at the ones that need it, acts on the due ones and
// publishes their state. It returns when it wants to run next.
func (w *Watcher) Tick(ctx context.Context) (time.Time, error) {
	now, start := w.now(), w.cfg.Clock.Now()
	next := now.Add(w.cfg.Interval - w.listed.lead(w.cfg.Interval))
	w.load()
	list, full, err := w.list(ctx, now)
	switch {
	case errors.Is(err, tmuxctl.ErrNoServer):
		return w.gone(now, err), err
	case errors.Is(err, tmuxctl.ErrClosed):
		// The control client was dropped under the listing (the server killed, the client
		// detached): the next tick lists again, by exec until a new client is up, and tells
		// whether the server is gone.
		w.cfg.Log.Debug().Err(err).Msg("listing cut short by the control client's end; listing again next tick")
		return next, nil
	case errors.Is(err, tmuxctl.ErrNoSession):
		// The server has no session: it is being killed (the next tick finds it gone) or kept
		// empty, and has no pane to supervise either way.
		w.cfg.Log.Debug().Err(err).Msg("the server has no session; listing again next tick")
		return next, nil
	case err != nil:
		return next, err
	}
	var errs []error
	if w.down > 0 {
		w.cfg.Log.Info().Int("panes", len(list)).Msg("a tmux server runs on the socket; supervising it")
		w.down = 0
	}
	if !w.announced && w.cfg.PID != 0 && !w.cfg.DryRun {
		if err := w.announce(ctx); err != nil {
			return next, err
		}
	}
	requests, visitErrs := w.visitAll(ctx, list, full, now)
	errs = append(errs, visitErrs...)
	if took := w.cfg.Clock.Now().Sub(start); full {
		w.firstLook(took)
	} else {
		w.listed.looked(took, w.cfg.Interval)
	}
	for _, info := range requests {
		errs = append(errs, w.answer(ctx, info))
	}
	w.schedule()
	for _, p := range w.byDue() {
		if err := w.act(ctx, p, w.now()); err != nil {
			errs = append(errs, err)
		}
	}
	for id, p := range w.eachUnsettled() {
		if err := w.publish(ctx, p); err != nil {
			errs = append(errs, err)
		}
		if t := p.wake(); !t.IsZero() && t.Before(next) {
			next = t
		}
		w.settle(id, p)
	}
	w.save()
	return next, errors.Join(errs...)
}

// search is the pre-filter of the next listing, and what a listing of changes lists: the
// windows with activity since the last listing. tmux stamps window_activity in whole seconds
// of the system clock, so any activity after the last listing began is stamped at or after
// that second; activity stamped before the latest stamp the listings showed was seen by them,
// and so was all of the latest stamp's second once a listing began after it. Never after the
// wall clock less a second, should tmux's clock go back. The first listing searches nothing:
// every Claude pane it shows is looked at anyway.
func (w *Watcher) search() tmuxctl.Search {
	if w.latest.IsZero() {
		return tmuxctl.Search{}
	}
	search := prefilter
	search.Since = w.latest.Add(time.Second)
	if last := w.listed.at.Truncate(time.Second); last.Before(search.Since) {
		search.Since = last
	}
	if ceiling := clock.Real.Now().Truncate(time.Second).Add(-time.Second); ceiling.Before(search.Since) {
		search.Since = ceiling
	}
	return search
}

// visitAll visits every listed pane and, after a full listing, forgets what it no longer
// shows: closed panes, and stored waits whose session is gone. After a listing of what changed
// (full false) the supervised panes it does not show that are not running are visited with the
// row they had, quiet (tmuxctl.Quiet): a stopped one is still looked at every revisit. It
// returns the panes that carry a request.
func (w *Watcher) visitAll(ctx context.Context, list []tmuxctl.Pane, full bool, now time.Time) (requests []tmuxctl.Pane, errs []error) {
	seen := make(map[string]bool, len(list))
	if full {
		w.latest = time.Time{}
	}
	for _, info := range list {
		seen[info.ID] = true
		if info.WindowActivity.After(w.latest) {
			w.latest = info.WindowActivity
		}
	}
	if !full {
		for id, p := range w.eachUnsettled() {
			// A quiet running session needs no look (needsLook): only the others are visited.
			if !seen[id] && p.state != Running {
				info := p.info
				info.Match = tmuxctl.Quiet
				list = append(list, info)
			}
		}
	}
	ids, fresh := w.prefetch(ctx, list, now, func() ([]identity, []bool) {
		ids := make([]identity, len(list))
		fresh := make([]bool, len(list))
		for i, info := range list {
			ids[i], fresh[i] = w.maybeClaude(ctx, info)
		}
		return ids, fresh
	})
	for i, info := range list {
		if err := w.visitAs(ctx, info, ids[i], fresh[i], now); err != nil {
			errs = append(errs, err)
		}
		if info.Request != "" && !w.cfg.DryRun {
			requests = append(requests, info)
		}
		if p := w.panes[info.ID]; p != nil {
			w.unsettled[info.ID] = p // looked at, or about to be answered: settled again at the end of the tick
		}
	}
	clear(w.screens) // a later look (before keys, for a request) captures afresh
	if !full {
		return requests, errs
	}
	for id := range w.restore {
		// The session of the record no longer runs in its pane (closed, or another program).
		w.cfg.Log.Debug().Str("pane", id).Msg("a stored wait whose session is gone; dropped")
		delete(w.restore, id)
	}
	for id := range w.panes {
		if !seen[id] {
			w.cfg.Log.Debug().Str("pane", id).Msg("pane closed; forgotten")
			delete(w.panes, id)
		}
	}
	for id := range w.idents {
		if !seen[id] {
			delete(w.idents, id)
		}
	}
	return requests, errs
}

// visit identifies one listed pane and looks at it when it needs a look.
func (w *Watcher) visit(ctx context.Context, info tmuxctl.Pane, now time.Time) error {
	id, fresh := w.maybeClaude(ctx, info)
	return w.visitAs(ctx, info, id, fresh, now)
}

// visitAs is visit of a pane whose identity maybeClaude has just given (fresh: asked of the
// process table).
func (w *Watcher) visitAs(ctx context.Context, info tmuxctl.Pane, id identity, fresh bool, now time.Time) error {
	if why := w.outOfScope(info); why != "" {
		return w.leave(ctx, info, why)
	}
	p := w.panes[info.ID]
	if !id.ok {
		return w.notClaude(ctx, info)
	}
	if p != nil {
		p.info = info
		// A fresh answer naming another process is a new session: look at it now.
		renewed := fresh && (p.Identity != id.Identity || p.unknown != id.unknown)
		if !renewed && !p.needsLook(now) {
			return nil
		}
	}
	// A look: confirm the process first, so a pane id reused by a new claude starts afresh.
	if !fresh {
		if id, _ = w.identify(ctx, info); !id.ok {
			return w.notClaude(ctx, info)
		}
	}
	if p == nil || p.Identity != id.Identity || p.unknown != id.unknown {
		if p != nil {
			w.cfg.Log.Info().Str("pane", info.ID).Str("target", info.Target()).Msg("a new claude session in the pane")
		}
		p = newPane(info, id, w.cfg.Schedule, w.cfg.Policy)
		w.panes[info.ID], w.unsettled[info.ID] = p, p
		w.cfg.Log.Info().Str("pane", info.ID).Str("target", info.Target()).Int("pid", id.PID).Str("how", id.how).Msg("supervising claude")
		if r, ok := w.restore[info.ID]; ok {
			delete(w.restore, info.ID)
			if !id.unknown && r.PID == id.PID && r.Start == id.Start {
				if err := p.restore(r); err != nil {
					p.event(w.cfg.Log.Warn()).Err(err).Msg("a stored wait not taken up; the pane is looked at afresh")
					return w.look(ctx, p, now)
				}
				p.event(w.cfg.Log.Info()).Str("state", r.State).Int("attempts", r.Attempts).Msg("taken up from the state file")
				if p.state == Resuming || p.state == Verifying {
					// Keys went out (or were about to) before the last watcher ended: look
					// for their effect now; they are never sent twice.
					p.checkAt = now
					return nil
				}
			}
		}
	}
	return w.look(ctx, p, now)
}

// notClaude forgets a pane where Claude Code does not run, and clears the options that say it is
// supervised: this watcher's, from a look before, or an earlier watcher's or session's. (A
// session that ended between two looks used to be forgotten with its options left, which
// `list` and the popup then showed as waiting until some output listed the pane again; on
// tmux 3.8, where a tick with no output lists nothing, that could be for good.)
func (w *Watcher) notClaude(ctx context.Context, info tmuxctl.Pane) error {
	supervised := w.panes[info.ID] != nil
	if supervised {
		w.cfg.Log.Info().Str("pane", info.ID).Str("target", info.Target()).Msg("claude no longer runs in the pane")
		delete(w.panes, info.ID)
	}
	// info may be a row listed before this watcher set the options: a pane it supervised is
	// cleared whatever the row says.
	if (!supervised && info.Options == (tmuxctl.Options{})) || w.cfg.DryRun {
		return nil
	}
	err := w.tmux.SetPaneOptions(ctx, info.ID, tmuxctl.OptionNames, tmuxctl.Options{}.Values())
	if errors.Is(err, tmuxctl.ErrNoTarget) {
		return nil // closed since: nothing to clear
	}
	return err
}

// look captures a pane, runs the detector and moves its state machine.
func (w *Watcher) look(ctx context.Context, p *pane, now time.Time) error {
	screen, v, ok, err := w.read(ctx, p, now)
	if !ok {
		return err
	}
	if v.Limited && v.Message != p.stop {
		// A stop the pane is not waiting on: it appeared since the last look, or is already
		// on screen at the first look (appearance unknown: docs/claude-code.md, Reset times).
		appeared := now
		if p.looks == 1 {
			appeared = time.Time{}
		}
		v = w.detect(p, screen, now, appeared)
		p.newStop(v, appeared, now)
	}
	if v.Limited {
		w.consult(ctx, p)
	}
	p.observe(v, now, w.message(p), w.cfg.Log)
	return nil
}

// read captures the pane's screen and runs the detector with the appearance instant of the
// stop the pane is handling. ok is false when the screen could not be read; a pane that is
// gone is forgotten without an error.
func (w *Watcher) read(ctx context.Context, p *pane, now time.Time) (text string, v detector.Verdict, ok bool, err error) {
	s, ok := w.screens[p.info.ID]
	delete(w.screens, p.info.ID)
	if !ok {
		s.taken = clock.Real.Now()
		s.text, s.err = w.tmux.Capture(ctx, p.info.ID)
	}
	if errors.Is(s.err, tmuxctl.ErrNoTarget) {
		delete(w.panes, p.info.ID)
		return "", v, false, nil
	}
	if s.err != nil {
		return "", v, false, s.err
	}
	v = w.detect(p, s.text, now, p.appeared)
	// tmux stamps window_activity with the system clock: lookedReal is read from it too, just
	// before the capture, so that activity in the second of the capture counts as a change.
	p.lookedReal = s.taken
	return s.text, v, true, nil
}

// detect runs the detector on a pane's screen with the given appearance instant of its stop
// and records the look.
func (w *Watcher) detect(p *pane, screen string, now, appeared time.Time) detector.Verdict {
	v := detector.Detect(screen, detector.Facts{Now: now, Appeared: appeared, Zone: w.cfg.Zone})
	p.lookedAt, p.activity, p.match = now, p.info.WindowActivity, p.info.Match
	if d := digest(screen); d != p.shown {
		p.shown, p.shownSince = d, now
	}
	p.looks++
	return v
}

// A tick goes over its listing's panes and the unsettled ones only, not every supervised pane
// (a loop over a thousand idle panes costs a cache miss each: docs/costs.md). A calm pane
// (running, nothing published on it, nothing due) stays calm until a listing shows it again,
// for its state changes only when it is looked at; settings reloaded unsettle every pane.

// eachUnsettled yields the unsettled panes that are still supervised, dropping the others
// (a pane forgotten since it was unsettled).
func (w *Watcher) eachUnsettled() iter.Seq2[string, *pane] {
	return func(yield func(string, *pane) bool) {
		for id, p := range w.unsettled {
			if w.panes[id] != p {
				delete(w.unsettled, id)
				continue
			}
			if !yield(id, p) {
				return
			}
		}
	}
}

// settle forgets a pane that has become calm. It comes after publish, which has told the
// pane's state (tell) and published its options when it could.
func (w *Watcher) settle(id string, p *pane) {
	if p.state == Running && p.published == (tmuxctl.Options{}) && p.wake().IsZero() {
		delete(w.unsettled, id)
	}
}

// schedule gives every waiting pane its due instant: reset + margin, staggered between panes
// of one account due at the same reset (on every server of its Group), later for panes whose
// own auto-continue goes first. A pane keeps its place in the stagger, and a capped pane its
// cap, until its stop changes.
func (w *Watcher) schedule() {
	var waits []scheduler.Wait
	for id, p := range w.eachUnsettled() {
		if (p.state == Waiting || p.state == Native) && p.retryAt.IsZero() && !p.pressEnter {
			waits = append(waits, scheduler.Wait{Pane: id, Account: p.account(), Reset: p.reset.At, Exact: p.exact(),
				Stopped: p.stopped, Native: p.state == Native, Kept: p.slot})
		}
	}
	for _, s := range w.cfg.Group.schedule(w, w.cfg.Schedule, waits) {
		p := w.panes[s.Pane]
		// A capped pane stays capped for its stop: the panes before it wake and leave the
		// group, which would otherwise bring it under the cap.
		p.due, p.slot = s.Due, s.Slot
		if s.Capped && !p.capped {
			w.cap(p)
		}
	}
}

// cap keeps a pane beyond watch.max_per_reset from waking by itself, and says so on the pane
// and in the log once, rather than show "waiting" with no due instant and no word.
func (w *Watcher) cap(p *pane) {
	p.capped = true
	p.capNote = fmt.Sprintf("not woken by itself: %d panes of its account already wake at this reset (watch.max_per_reset); cac-tmux resume %s wakes it",
		w.cfg.Schedule.MaxPerReset, p.info.ID)
	if p.state == Waiting && p.note == "" {
		p.note = p.capNote
	}
	p.event(w.cfg.Log.Warn()).Str("state", string(p.state)).Int("max_per_reset", w.cfg.Schedule.MaxPerReset).
		Msg("capped: beyond the panes that wake at this reset; it waits for a resume by hand")
}

// byDue returns the panes that may act (those with a due or check instant), earliest first;
// an idle pane is not even sorted.
func (w *Watcher) byDue() []*pane {
	var ps []*pane
	for _, p := range w.eachUnsettled() {
		if !p.wake().IsZero() {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b *pane) int {
		if c := a.wake().Compare(b.wake()); c != 0 {
			return c
		}
		return compareIDs(a.info.ID, b.info.ID)
	})
	return ps
}
