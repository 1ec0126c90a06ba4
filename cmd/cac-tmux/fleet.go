package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/phone"
	"github.com/cac-tmux/cac-tmux/servers"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// fleet is the watchers of one `watch`: one for the server it was started for, or with
// --all-servers (servers.all) one per tmux server of the user, each with its own control
// client, lock, claim and state. SIGHUP reconfigures every one, and the live table shows the
// rows of all of them.
type fleet struct {
	o      *watchOptions
	log    zerolog.Logger
	onRows func([]watcher.Row) // the live table, nil without one
	signer *phone.Signer       // signs the phone's buttons; nil without [phone]
	listen func() bool         // whether the phone's endpoint listens now; nil without [phone]
	// group is the stagger and the cap of wakes per reset of every server's watcher with
	// --all-servers (one account's panes wake apart on whichever server); nil with one
	// server, whose watcher keeps its own.
	group *watcher.Group

	mu      sync.Mutex
	members map[string]*member // by socket
}

// member is one server's watcher.
type member struct {
	socket string
	label  string // the server as people name it: "default", "work" or a socket path
	tmux   *tmuxctl.Client
	w      *watcher.Watcher
	rows   []watcher.Row
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
	f.group = watcher.NewGroup()
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
	st, lock, err := openState(tmux, o.dryRun || o.once)
	if held := (*heldError)(nil); errors.As(err, &held) {
		held.fleet = f.all() // it goes on with the other servers
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
	f.mu.Lock()
	cfg.DryRun, cfg.Notify = o.dryRun || o.once, f.notifierFor(ctx, st.Server, o.cfg.Notify, true) // the notifier of the last reload
	f.mu.Unlock()
	cfg.Store, cfg.Server, cfg.PID, cfg.Log, cfg.Group = st, st.Server, os.Getpid(), log, f.group
	if !o.once && o.transport == "control" {
		tmux.Connect(transportLog(log))
		defer tmux.Close()
	}
	w := watcher.New(tmux, newFinder(), cfg)
	f.join(st.Server, &member{socket: st.Server, label: label, tmux: tmux, w: w})
	if o.once { // it stays a member: the table printed at the end shows every server's rows
		_, err := w.Tick(ctx)
		f.tick(st.Server, w.Rows())
		return err
	}
	defer f.leave(st.Server)
	if !f.all() { // once, after the state and lock opened: a mistake there comes alone
		logConfig(log, l, "configuration read")
	}
	line := log.Info()
	if !f.all() { // with every server, the logger names it already
		line = line.Str("server", tmux.Name())
	}
	line.Str("socket", st.Server).Str("state", st.Path).Dur("interval_ms", cfg.Interval).
		Dur("margin_ms", cfg.Schedule.Margin).Bool("dry_run", cfg.DryRun).Msg("watching every Claude Code pane")
	if f.all() && clock.Real.Sleep(ctx, phase(st.Server, cfg.Interval)) != nil {
		return nil // stopped before the first tick
	}
	var onTick func([]watcher.Row) // the rows are built each tick only for a live table
	if f.onRows != nil {
		onTick = func(rows []watcher.Row) { f.tick(st.Server, rows) }
	}
	err = w.Run(ctx, onTick)
	log.Info().Msg("stopped")
	return err
}

// phase is how long into the interval the ticks of the server on socket come: the servers a
// watcher finds together would otherwise be listed at the same instant every tick, their tmux
// servers and the watcher competing for the same cores. A hash of the socket spreads them,
// the same for a server each time it is supervised.
func phase(socket string, interval time.Duration) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(socket))
	return time.Duration(h.Sum64() % uint64(max(interval, time.Millisecond)))
}

func (f *fleet) join(socket string, m *member) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.members == nil {
		f.members = map[string]*member{}
	}
	f.members[socket] = m
}

func (f *fleet) leave(socket string) {
	f.mu.Lock()
	delete(f.members, socket)
	f.mu.Unlock()
}

// tick keeps a watcher's rows and draws the live table of all of them (watchSocket passes it
// to the watcher only when there is a live table: building the rows of 1,000 panes each tick
// was most of an idle watcher's CPU on tmux 3.8, where a quiet tick sends tmux nothing).
func (f *fleet) tick(socket string, rows []watcher.Row) {
	f.mu.Lock()
	if m := f.members[socket]; m != nil {
		m.rows = rows
	}
	all := f.rows()
	f.mu.Unlock()
	f.onRows(all)
}

// rows are the rows of every watcher, server by server in the order of their names, each
// named by its server when more than one server has panes. f.mu is held.
func (f *fleet) rows() []watcher.Row {
	byServer := map[string][]watcher.Row{}
	for _, m := range f.members {
		byServer[m.label] = m.rows
	}
	return table.Merge(byServer)
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
	if lvl, _ := zerolog.ParseLevel(l.Config.Watch.LogLevel); lvl != o.level {
		f.log.Warn().Str("log_level", l.Config.Watch.LogLevel).Msg("a new log level takes effect when the watcher restarts")
	}
	if l.Config.Servers.All != f.all() || !slices.Equal(l.Config.Servers.Sockets, o.loaded.Config.Servers.Sockets) {
		f.log.Warn().Msg("a change of [servers] takes effect when the watcher restarts")
	}
	if l.Config.Phone != o.loaded.Config.Phone || l.Config.Accounts.Auto != o.loaded.Config.Accounts.Auto ||
		!slices.Equal(l.Config.Accounts.Dirs, o.loaded.Config.Accounts.Dirs) || l.Config.Accounts.MaxPerDay != o.loaded.Config.Accounts.MaxPerDay {
		f.log.Warn().Msg("a change of [phone] or [accounts] takes effect for the watcher when it restarts")
	}
	n, err := o.notify.start(l.Config.Notify)
	if err != nil {
		f.log.Error().Err(err).Msg("notifications not reloaded; the previous ones go on")
		n = nil
	}
	f.mu.Lock()
	if n != nil {
		o.cfg.Notify = n // for the watchers of servers that appear later
	}
	members := make([]*member, 0, len(f.members))
	for _, m := range f.members {
		members = append(members, m)
	}
	f.mu.Unlock()
	for _, m := range members {
		ml := l
		if f.all() {
			if ml, err = loadSettings(ctx, m.tmux, o.configPath, o.flags); err != nil {
				f.log.Error().Err(err).Str("server", m.label).Msg("configuration not reloaded for this server; its watcher goes on with its settings")
				continue
			}
		}
		cfg := watcher.ConfigFrom(ml.Config)
		if n != nil {
			cfg.Notify = f.notifierFor(ctx, m.socket, n, false)
		}
		m.w.Reconfigure(cfg)
	}
}
