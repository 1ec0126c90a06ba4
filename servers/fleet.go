package servers

import (
	"context"
	"hash/fnv"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Fleet is the watchers of one `watch`: one for the server it was started for, or with
// --all-servers one per tmux server of the user (Run starts and stops them), each with its
// own control client, lock, claim and state. A reload reconfigures every member, and the
// live table shows the rows of all of them.
type Fleet struct {
	// OnRows, when set, is given the rows of every member after each tick of one (the live
	// table, or the table of watch --once); set it before the first Supervise.
	OnRows func([]watcher.Row)
	// Spread puts each member's ticks at its own phase of the interval (Phase): the servers of
	// --all-servers, found together, would otherwise be listed at the same instant.
	Spread bool
	Clock  clock.Clock // clock.Real when nil

	mu      sync.Mutex
	members map[string]*Member // by socket
}

// Member is one server's watcher.
type Member struct {
	Socket string
	Label  string // the server as people name it: "default", "work" or a socket path
	Tmux   *tmuxctl.Client
	W      *watcher.Watcher
	rows   []watcher.Row
}

// Supervise runs m's watcher as a member of the fleet until ctx ends (nil) or the watcher
// ends with an error; once ticks it once and keeps it a member, so that the table printed at
// the end shows every server's rows. joined, when set, is called once m is a member (Client
// finds it), before the first tick.
func (f *Fleet) Supervise(ctx context.Context, m *Member, interval time.Duration, once bool, joined func()) error {
	f.join(m)
	if joined != nil {
		joined()
	}
	if once {
		_, err := m.W.Tick(ctx)
		f.tick(m.Socket, m.W.Rows())
		return err
	}
	defer f.leave(m.Socket)
	if f.Spread && f.clock().Sleep(ctx, Phase(m.Socket, interval)) != nil {
		return nil // stopped before the first tick
	}
	var onTick func([]watcher.Row) // the rows are built each tick only for a live table
	if f.OnRows != nil {
		onTick = func(rows []watcher.Row) { f.tick(m.Socket, rows) }
	}
	return m.W.Run(ctx, onTick)
}

func (f *Fleet) clock() clock.Clock {
	return clock.Or(f.Clock)
}

// Phase is how long into the interval the ticks of the server on socket come: the servers a
// watcher finds together would otherwise be listed at the same instant every tick, their tmux
// servers and the watcher competing for the same cores. A hash of the socket spreads them,
// the same for a server each time it is supervised.
func Phase(socket string, interval time.Duration) time.Duration {
	h := fnv.New64a()
	h.Write([]byte(socket))
	return time.Duration(h.Sum64() % uint64(max(interval, time.Millisecond)))
}

func (f *Fleet) join(m *Member) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.members == nil {
		f.members = map[string]*Member{}
	}
	f.members[m.Socket] = m
}

func (f *Fleet) leave(socket string) {
	f.mu.Lock()
	delete(f.members, socket)
	f.mu.Unlock()
}

// tick keeps a watcher's rows and hands the rows of all of them to OnRows. Supervise passes
// it to the watcher only when OnRows is set: building the rows of 1,000 panes each tick is
// most of an idle watcher's CPU on tmux 3.8, where a quiet tick sends tmux nothing
// (docs/costs.md).
func (f *Fleet) tick(socket string, rows []watcher.Row) {
	f.mu.Lock()
	if m := f.members[socket]; m != nil {
		m.rows = rows
	}
	all := f.rows()
	f.mu.Unlock()
	if f.OnRows != nil {
		f.OnRows(all)
	}
}

// rows are the rows of every watcher, server by server in the order of their names, each
// named by its server when more than one server has panes. f.mu is held.
func (f *Fleet) rows() []watcher.Row {
	byServer := map[string][]watcher.Row{}
	for _, m := range f.members {
		byServer[m.Label] = m.rows
	}
	return table.Merge(byServer)
}

// Client is the tmux client of the server on socket while a member supervises it.
func (f *Fleet) Client(socket string) (*tmuxctl.Client, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m := f.members[socket]; m != nil {
		return m.Tmux, true
	}
	return nil, false
}

// Reconfigure hands every member the configuration cfgFor makes for it; a member for which
// cfgFor fails keeps its settings, and log says so.
func (f *Fleet) Reconfigure(log zerolog.Logger, cfgFor func(*Member) (watcher.Config, error)) {
	f.mu.Lock()
	members := make([]*Member, 0, len(f.members))
	for _, m := range f.members {
		members = append(members, m)
	}
	f.mu.Unlock()
	for _, m := range members {
		cfg, err := cfgFor(m)
		if err != nil {
			log.Error().Err(err).Str("server", m.Label).Msg("configuration not reloaded for this server; its watcher goes on with its settings")
			continue
		}
		m.W.Reconfigure(cfg)
	}
}

// AtRestart is the reload policy of a running watch: what of the configuration re-read (now)
// differs from the one it started with (then) and takes effect only when the watcher
// restarts, one warning each. Every other setting takes effect at once (Reconfigure).
func AtRestart(then, now config.Config) []string {
	var warn []string
	if level(now.Watch.LogLevel) != level(then.Watch.LogLevel) {
		warn = append(warn, "a new log level takes effect when the watcher restarts")
	}
	if now.Servers.All != then.Servers.All || !slices.Equal(now.Servers.Sockets, then.Servers.Sockets) {
		warn = append(warn, "a change of [servers] takes effect when the watcher restarts")
	}
	if now.Phone != then.Phone || now.Accounts.Auto != then.Accounts.Auto ||
		!slices.Equal(now.Accounts.Dirs, then.Accounts.Dirs) || now.Accounts.MaxPerDay != then.Accounts.MaxPerDay {
		warn = append(warn, "a change of [phone] or [accounts] takes effect for the watcher when it restarts")
	}
	return warn
}

// level is the log level of a setting as the logger reads it.
func level(s string) zerolog.Level {
	l, _ := zerolog.ParseLevel(s)
	return l
}
