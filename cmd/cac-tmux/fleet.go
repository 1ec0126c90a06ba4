package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/phone"
	"github.com/cac-tmux/cac-tmux/servers"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// fleet builds the watchers of one `watch` from its settings and hands each to the
// servers.Fleet that runs them: one for the server it was started for, or with
// --all-servers (servers.all) one per tmux server of the user.
type fleet struct {
	*servers.Fleet
	o      *watchOptions
	d      *deps
	log    zerolog.Logger
	signer *phone.Signer // signs the phone's buttons; nil without [phone]
	listen func() bool   // whether the phone's endpoint listens now; nil without [phone]
	// group is the stagger and the cap of wakes per reset of every server's watcher with
	// --all-servers (one account's panes wake apart on whichever server); nil with one
	// server, whose watcher keeps its own.
	group *watcher.Group
}

// all says whether the fleet supervises every server of the user.
func (f *fleet) all() bool { return f.o.loaded.Config.Servers.All }

// run supervises the one server, or every server of the user until ctx ends.
func (f *fleet) run(ctx context.Context) error {
	if !f.all() {
		err := f.watch(ctx, f.o.tmux, f.o.loaded)
		if errors.Is(err, watcher.ErrAnotherWatcher) { // a server started again, claimed by another first
			return &UsageError{Err: err}
		}
		return err
	}
	dir := tmuxctl.SocketDir(os.Getenv, os.Getuid())
	find := func() ([]string, error) { return tmuxctl.Servers(dir, f.o.loaded.Config.Servers.Sockets, os.Getuid()) }
	if f.o.once {
		sockets, err := find()
		for _, socket := range sockets {
			err = errors.Join(err, f.watchSocket(ctx, socket))
		}
		return err
	}
	f.group, f.Spread = watcher.NewGroup(), true
	logConfig(f.log, f.o.loaded, "configuration read")
	f.log.Info().Str("directory", dir).Strs("sockets", f.o.loaded.Config.Servers.Sockets).Msg("supervising every tmux server of the user")
	servers.Run(ctx, servers.Config{Find: find, Watch: f.watchSocket, Log: f.log})
	return nil
}

// watchSocket supervises the server on socket with the file, the flags and that server's own
// tmux options.
func (f *fleet) watchSocket(ctx context.Context, socket string) error {
	tmux := &tmuxctl.Client{SocketPath: socket}
	l, err := loadSettings(ctx, tmux, f.o.configPath, f.o.flags)
	if err != nil {
		return err
	}
	return f.watch(ctx, tmux, l)
}

// lockAll takes the lock of the one watch --all-servers of the servers in the user's socket
// directory (store.LockAllServers): a second one would find every server held and retry
// forever. Another one running is a usage error (exit 2) naming its pid.
func lockAll() (*store.Lock, error) {
	dir := tmuxctl.SocketDir(os.Getenv, os.Getuid())
	lock, err := store.LockAllServers(os.Getenv, dir)
	if locked := (*store.LockedError)(nil); errors.As(err, &locked) {
		who := "another cac-tmux watch --all-servers"
		if locked.PID > 0 {
			who += fmt.Sprintf(" (pid %d)", locked.PID)
		}
		return nil, usageErrorf("watch: %s holds the servers in %s; stop it first, or leave them to it (cac-tmux list shows what it supervises)", who, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	return lock, nil
}

// watch supervises the server of tmux with the settings l until ctx ends (nil) or another
// watcher holds it. The lock and the state are opened first: another watcher's lock is a usage
// error, reported by the caller.
func (f *fleet) watch(ctx context.Context, tmux *tmuxctl.Client, l config.Loaded) error {
	o := f.o
	st, lock, err := watcher.Hold(ctx, tmux, watcher.Holding{Getenv: os.Getenv, UID: os.Getuid(), PID: os.Getpid(),
		Name: tmux.Name(), ReadOnly: o.dryRun || o.once, Fleet: f.all()})
	if held := (*watcher.HeldError)(nil); errors.As(err, &held) {
		err = &UsageError{Err: err}
	}
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer lock.Release()
	label := tmuxctl.Label(st.Server, tmuxctl.SocketDir(os.Getenv, os.Getuid()))
	log := f.log
	if f.all() {
		log = log.With().Str("server", label).Logger()
	}
	cfg := watcher.ConfigFrom(l.Config)
	cfg.DryRun, cfg.Notify = o.dryRun || o.once, f.notifierFor(ctx, st.Server, o.notify.current(), true) // the notifier of the last reload
	cfg.Store, cfg.Server, cfg.PID, cfg.Log, cfg.Group = st, st.Server, os.Getpid(), log, f.group
	if !o.once && o.transport == "control" {
		tmux.Connect(watcher.TransportLog(log))
		if !cfg.DryRun {
			tmux.PipeInto(st.Pipe())
		}
		defer tmux.Close()
	}
	w := watcher.New(tmux, f.d.finder, cfg)
	m := &servers.Member{Socket: st.Server, Label: label, Tmux: tmux, W: w}
	if o.once {
		return f.Supervise(ctx, m, cfg.Interval, true, nil)
	}
	err = f.Supervise(ctx, m, cfg.Interval, false, func() {
		if !f.all() { // once, after the state and lock opened: a mistake there comes alone
			logConfig(log, l, "configuration read")
		}
		line := log.Info()
		if !f.all() { // with every server, the logger names it already
			line = line.Str("server", tmux.Name())
		}
		line.Str("socket", st.Server).Str("state", st.Path).Dur("interval_ms", cfg.Interval).
			Dur("margin_ms", cfg.Schedule.Margin).Bool("dry_run", cfg.DryRun).Msg("watching every Claude Code pane")
	})
	log.Info().Msg("stopped")
	return err
}

// reload reads the configuration again on SIGHUP and hands it to every watcher: the file and
// the flags, with the tmux options of each watcher's own server; the notifications are the
// process's, read with the options of the server watch was started for. A mistake is
// reported and the settings stay as they were.
func (f *fleet) reload(ctx context.Context) {
	o := f.o
	l, err := settingsBeside(ctx, o.tmux, o.configPath, o.flags)
	if err == nil && l.Failed != nil && !f.all() {
		err = l.Failed
	}
	if err != nil {
		f.log.Error().Err(err).Msg("configuration not reloaded; the watcher goes on with its settings")
		return
	}
	logConfig(f.log, l, "SIGHUP: configuration read")
	for _, warning := range servers.AtRestart(o.loaded.Config, l.Config) {
		f.log.Warn().Msg(warning)
	}
	n, err := o.notify.start(l.Config.Notify)
	if err != nil {
		f.log.Error().Err(err).Msg("notifications not reloaded; the previous ones go on")
		n = nil
	}
	f.Reconfigure(f.log, func(m *servers.Member) (watcher.Config, error) {
		ml := l
		if f.all() {
			var err error
			if ml, err = loadSettings(ctx, m.Tmux, o.configPath, o.flags); err != nil {
				return watcher.Config{}, err
			}
		}
		cfg := watcher.ConfigFrom(ml.Config)
		if n != nil {
			cfg.Notify = f.notifierFor(ctx, m.Socket, n, false)
		}
		return cfg, nil
	})
}
