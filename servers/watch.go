package servers

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Watch is one `cac-tmux watch`: the Fleet of its watchers and what each is built from, for
// the server it was started for or, with [servers] all, for every tmux server of the user.
// What this package does not import is given as functions: the reading of the configuration
// beside a tmux server, and each server's notifier (the phone's buttons, [accounts] auto).
type Watch struct {
	*Fleet
	// Tmux is the server watch was started for; Loaded is the configuration read with its
	// options at the start, whose [servers] says which servers are supervised.
	Tmux   *tmuxctl.Client
	Loaded config.Loaded
	// Load reads the configuration again (the file and the flags of watch) with the tmux
	// options of the server of c; a server that cannot be asked is Loaded.Failed.
	Load func(ctx context.Context, c *tmuxctl.Client) (config.Loaded, error)
	// Once looks once and acts on nothing (--once); DryRun decides and acts on nothing;
	// Control sends tmux commands over one control-mode client (--transport control).
	Once, DryRun, Control bool
	Finder                watcher.Finder
	// Notifiers holds the process's notifier, which a reload replaces.
	Notifiers *notify.Current
	// Buttons, when set, is n with the phone's buttons on the events of the server on socket
	// ([phone]).
	Buttons func(socket string, n watcher.Notifier) watcher.Notifier
	// AutoSwitch, when set, is n switching the sessions that stop on the server on socket to
	// another account ([accounts] auto), starting, when restored, with the stops its state
	// file holds.
	AutoSwitch func(ctx context.Context, socket string, n watcher.Notifier, restored bool) watcher.Notifier
	Log        zerolog.Logger
	Getenv     func(string) string
	UID, PID   int

	// group is the stagger and the cap of wakes per reset of every server's watcher with
	// [servers] all (one account's panes wake apart on whichever server); nil with one
	// server, whose watcher keeps its own.
	group *watcher.Group
}

// all says whether the watch supervises every server of the user.
func (w *Watch) all() bool { return w.Loaded.Config.Servers.All }

// Run supervises the one server, or every server of the user, until ctx ends; with Once it
// looks at each once. Another watcher holding the server is a *watcher.HeldError, or
// watcher.ErrAnotherWatcher when it claimed the server first as it started again.
func (w *Watch) Run(ctx context.Context) error {
	if !w.all() {
		return w.watch(ctx, w.Tmux, w.Loaded)
	}
	dir := tmuxctl.SocketDir(w.Getenv, w.UID)
	find := func() ([]string, error) { return tmuxctl.Servers(dir, w.Loaded.Config.Servers.Sockets, w.UID) }
	if w.Once {
		sockets, err := find()
		for _, socket := range sockets {
			err = errors.Join(err, w.watchSocket(ctx, socket))
		}
		return err
	}
	w.group, w.Spread = watcher.NewGroup(), true
	logConfig(w.Log, w.Loaded, "configuration read")
	w.Log.Info().Str("directory", dir).Strs("sockets", w.Loaded.Config.Servers.Sockets).Msg("supervising every tmux server of the user")
	Run(ctx, Config{Find: find, Watch: w.watchSocket, Log: w.Log, Clock: w.Fleet.Clock})
	return nil
}

// Look is Run with Once: the rows of every server it looked at, for one table.
func (w *Watch) Look(ctx context.Context) ([]watcher.Row, error) {
	var rows []watcher.Row
	w.OnRows = func(all []watcher.Row) { rows = all } // each server's look: the last has them all
	err := w.Run(ctx)
	return rows, err
}

// loadAlone is Load for the watcher of the server of c alone: a server that cannot be asked
// is its error.
func (w *Watch) loadAlone(ctx context.Context, c *tmuxctl.Client) (config.Loaded, error) {
	l, err := w.Load(ctx, c)
	if err == nil {
		err = l.FailedAlone(true)
	}
	if err != nil {
		return config.Loaded{}, err
	}
	return l, nil
}

// watchSocket supervises the server on socket with the file, the flags and that server's own
// tmux options.
func (w *Watch) watchSocket(ctx context.Context, socket string) error {
	tmux := &tmuxctl.Client{SocketPath: socket}
	l, err := w.loadAlone(ctx, tmux)
	if err != nil {
		return err
	}
	return w.watch(ctx, tmux, l)
}

// watch supervises the server of tmux with the settings l until ctx ends (nil) or another
// watcher holds it. The lock and the state are opened first.
func (w *Watch) watch(ctx context.Context, tmux *tmuxctl.Client, l config.Loaded) error {
	readOnly := w.DryRun || w.Once
	st, lock, err := watcher.Hold(ctx, tmux, watcher.Holding{Getenv: w.Getenv, UID: w.UID, PID: w.PID,
		Name: tmux.Name(), ReadOnly: readOnly, Fleet: w.all()})
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer lock.Release()
	label := tmuxctl.Label(st.Server, tmuxctl.SocketDir(w.Getenv, w.UID))
	log := w.Log
	if w.all() {
		log = log.With().Str("server", label).Logger()
	}
	cfg := watcher.ConfigFrom(l.Config)
	cfg.DryRun, cfg.Notify = readOnly, w.notifier(ctx, st.Server, w.Notifiers.Notifier(), true) // the notifier of the last reload
	cfg.Store, cfg.Server, cfg.PID, cfg.Log, cfg.Group = st, st.Server, w.PID, log, w.group
	if !w.Once && w.Control {
		tmux.Connect(watcher.TransportLog(log))
		if !cfg.DryRun {
			tmux.PipeInto(st.Pipe())
		}
		defer tmux.Close()
	}
	m := &Member{Socket: st.Server, Label: label, Tmux: tmux, W: watcher.New(tmux, w.Finder, cfg)}
	if w.Once {
		return w.Supervise(ctx, m, cfg.Interval, true, nil)
	}
	err = w.Supervise(ctx, m, cfg.Interval, false, func() {
		if !w.all() { // once, after the state and lock opened: a mistake there comes alone
			logConfig(log, l, "configuration read")
		}
		line := log.Info()
		if !w.all() { // with every server, the logger names it already
			line = line.Str("server", tmux.Name())
		}
		line.Str("socket", st.Server).Str("state", st.Path).Dur("interval_ms", cfg.Interval).
			Dur("margin_ms", cfg.Schedule.Margin).Bool("dry_run", cfg.DryRun).Msg("watching every Claude Code pane")
	})
	log.Info().Msg("stopped")
	return err
}

// notifier is the notifier of the watcher of the server on socket: n, with the phone's
// buttons, and switching the sessions that stop with [accounts] auto ([phone] and [accounts]
// as watch started) in a watch that acts (neither DryRun nor Once), the stops of the state
// file first when the watcher starts (start; at a reload, the switch queue of the start
// still holds them). A nil n stays nil (Reconfigure keeps the notifier it has).
func (w *Watch) notifier(ctx context.Context, socket string, n *notify.Notifier, start bool) watcher.Notifier {
	if n == nil {
		return nil
	}
	var out watcher.Notifier = n
	if w.Buttons != nil {
		out = w.Buttons(socket, out)
	}
	if w.Loaded.Config.Accounts.Auto && !w.DryRun && !w.Once && w.AutoSwitch != nil {
		out = w.AutoSwitch(ctx, socket, out, start)
	}
	return out
}

// Reload reads the configuration again (SIGHUP) and hands it to every watcher: the file and
// the flags, with the tmux options of each watcher's own server; the notifications are the
// process's, read with the options of the server watch was started for. What takes effect
// only at a restart is warned of (AtRestart). A mistake is logged and the settings stay as
// they were.
func (w *Watch) Reload(ctx context.Context) {
	l, err := w.Load(ctx, w.Tmux)
	if err == nil {
		err = l.FailedAlone(!w.all())
	}
	if err != nil {
		w.Log.Error().Err(err).Msg("configuration not reloaded; the watcher goes on with its settings")
		return
	}
	logConfig(w.Log, l, "SIGHUP: configuration read")
	for _, warning := range AtRestart(w.Loaded.Config, l.Config) {
		w.Log.Warn().Msg(warning)
	}
	n, err := w.Notifiers.Start(l.Config.Notify)
	if err != nil {
		w.Log.Error().Err(err).Msg("notifications not reloaded; the previous ones go on")
		n = nil
	}
	w.Reconfigure(w.Log, func(m *Member) (watcher.Config, error) {
		ml := l
		if w.all() {
			var err error
			if ml, err = w.loadAlone(ctx, m.Tmux); err != nil {
				return watcher.Config{}, err
			}
		}
		cfg := watcher.ConfigFrom(ml.Config)
		if n != nil {
			cfg.Notify = w.notifier(ctx, m.Socket, n, false)
		}
		return cfg, nil
	})
}

// OnHangUp handles SIGHUP until ctx ends: the hang-up of the watcher's own terminal (hungUp:
// its tmux server or terminal emulator went away) stops it; any other SIGHUP reloads the
// configuration.
func OnHangUp(ctx context.Context, hup <-chan os.Signal, hungUp func() bool, reload, stop func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if hungUp != nil && hungUp() {
				stop()
				return
			}
			reload()
		}
	}
}

// heldAllError is the lock of the one `watch --all-servers` of the servers in Dir held by
// another one (PID, 0 when it has not written its pid yet).
type heldAllError struct {
	PID int
	Dir string
}

func (e *heldAllError) Error() string {
	who := "another cac-tmux watch --all-servers"
	if e.PID > 0 {
		who += fmt.Sprintf(" (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s holds the servers in %s; stop it first, or leave them to it (cac-tmux list shows what it supervises)", who, e.Dir)
}

// Held says whether err is a server held by another watcher (*watcher.HeldError,
// *heldAllError, watcher.ErrAnotherWatcher): the user's to resolve, in the words the error
// has (a command reports it as bad input).
func Held(err error) bool {
	return errors.As(err, new(*watcher.HeldError)) || errors.As(err, new(*heldAllError)) || errors.Is(err, watcher.ErrAnotherWatcher)
}

// LockAll takes the lock of the one `watch --all-servers` of the servers in the user's
// socket directory (store.LockAllServers): a second one would find every server held and
// retry forever. Another one holding it is a *heldAllError.
func LockAll(getenv func(string) string, uid int) (*store.Lock, error) {
	dir := tmuxctl.SocketDir(getenv, uid)
	lock, err := store.LockAllServers(getenv, dir)
	if locked := (*store.LockedError)(nil); errors.As(err, &locked) {
		return nil, &heldAllError{PID: locked.PID, Dir: dir}
	}
	return lock, err
}

// logConfig logs what the configuration was read from and the settings that are not the
// defaults, with where each came from.
func logConfig(log zerolog.Logger, l config.Loaded, msg string) {
	file := l.File.Path
	if !l.File.Found {
		file = "" // none
	}
	log.Info().Str("config", file).Bool("tmux_options_read", l.Served).Strs("settings", l.FromElsewhere()).Msg(msg)
}
