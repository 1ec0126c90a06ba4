package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/servers"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Choices of the flags that are not settings of the configuration file.
const (
	logFormatDefault = "auto"
	transportDefault = "control"
)

// watchOptions are the settings of `cac-tmux watch`: the configuration file, with the flags
// given on the command line over it.
type watchOptions struct {
	tmux *tmuxctl.Client
	// keyFlags are the flags that set a key of the configuration (config.KeyFlags), holding
	// the texts given, which config.Resolve reads.
	keyFlags  []config.KeyFlag
	dryRun    bool
	once      bool
	transport string
	logFormat string
	// configPath is the configuration file; set (after finish) is true when the flag was
	// given.
	configPath string

	// Set by finish: the log level, the configuration as read, and the flags given on the
	// command line, which win over the file and the tmux options (at start and on SIGHUP).
	// Each server's watcher.Config is made from loaded where its watcher starts.
	level  zerolog.Level
	loaded config.Loaded
	flags  []config.Flag
	// notify holds the notifier, replaced on SIGHUP.
	notify *notifiers
}

func newWatch(std *deps) *cobra.Command {
	o := &watchOptions{}
	c := &cobra.Command{
		Use:   "watch [-L NAME|-S PATH]",
		Short: "supervise every Claude Code pane and resume it after its reset",
		Long: `Supervise every Claude Code pane on the tmux server: wait for each usage-limit reset and
resume the session. Ctrl-C or SIGTERM stops it (the state is saved); SIGHUP reads the
configuration file and the tmux options @cac-tmux-* again, unless it is the hang-up of the
watcher's own terminal, which stops it.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.finish(c.Flags()); err != nil {
				return err
			}
			return runWatch(c.Context(), o, std)
		},
	}
	o.bind(c.Flags())
	return c
}

// bind defines the flags of watch on fs: the flag of every key that has one in the
// configuration's registry, with its help and default from there, and the flags of the
// command itself.
func (o *watchOptions) bind(fs *pflag.FlagSet) {
	o.tmux = socketFlags(fs)
	fs.StringVar(&o.configPath, "config", config.Path(os.Getenv), "configuration file (TOML; cac-tmux config example prints one); tmux options @cac-tmux-* win over it, flags over both")
	o.keyFlags = config.KeyFlags()
	for _, f := range o.keyFlags {
		fs.VarPF(f.Value, f.Name, "", f.Help).NoOptDefVal = f.Bare
	}
	fs.BoolVar(&o.dryRun, "dry-run", false, "decide and log, send no key, set no pane option, write no state")
	fs.BoolVar(&o.once, "once", false, "look once, print what watch would do, send nothing, exit")
	fs.StringVar(&o.logFormat, "log-format", logFormatDefault, "auto (a live table on a terminal, else JSON lines), json or console")
	fs.StringVar(&o.transport, "transport", transportDefault, "control (tmux commands over one control-mode client, tmux -C) or exec (a tmux process per command)")
}

// finish checks the flags of the command itself, then reads the configuration in effect: the
// file, the tmux options and the flags given that set a key, which config.Resolve parses and
// checks by the rules of their keys (a mistake names the flag). Nothing is started before.
func (o *watchOptions) finish(fs *pflag.FlagSet) error {
	if o.logFormat != "auto" && o.logFormat != "json" && o.logFormat != "console" {
		return usageErrorf("watch: --log-format: must be auto, json or console (got %s)", config.Quote(o.logFormat))
	}
	if o.transport != "control" && o.transport != "exec" {
		return usageErrorf("watch: --transport: must be control or exec (got %s)", config.Quote(o.transport))
	}
	o.flags = config.GivenFlags(o.keyFlags)
	// A file named on the command line must exist; the default one may not.
	// --all-servers supervises the other servers while the one of $TMUX (or the default one)
	// does not answer; one server is only watched when it does.
	l, err := settingsBeside(context.Background(), o.tmux, o.configPath, o.flags)
	if err == nil && l.Failed != nil && !l.Config.Servers.All {
		err = l.Failed
	}
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	if fs.Changed("config") && !l.File.Found {
		return usageErrorf("watch: --config: %s does not exist (without --config, %s is read when it exists)", o.configPath, config.Path(os.Getenv))
	}
	o.loaded = l
	o.level, _ = zerolog.ParseLevel(l.Config.Watch.LogLevel)
	return nil
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

// runWatch runs the watcher until Ctrl-C, SIGTERM or the hang-up of its terminal, or, with
// --once, for one look; with --all-servers (servers.all) one watcher per tmux server of the
// user (fleet).
func runWatch(ctx context.Context, o *watchOptions, std *deps) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP) // never the default (exit): the state would not be saved
	defer signal.Stop(hup)
	all := o.loaded.Config.Servers.All
	if all && !o.once && !o.dryRun { // a read-only watch takes no lock, as for one server
		lock, err := lockAll()
		if err != nil {
			return err
		}
		defer lock.Release()
	}
	if o.once && !all {
		if _, err := o.tmux.ListPanes(ctx, tmuxctl.Search{}); err != nil {
			return fmt.Errorf("watch: %s: %w", o.tmux.Name(), tmuxctl.Hint(err))
		}
	}
	live := std.outTTY && !o.once && o.logFormat == "auto"
	log, events := watchLog(o, std, live)
	o.notify = &notifiers{log: log}
	if _, err := o.notify.start(o.loaded.Config.Notify); err != nil {
		return usageErrorf("watch: %v", err)
	}
	defer o.notify.close()
	f := &fleet{Fleet: &servers.Fleet{Clock: std.clock}, o: o, d: std, log: log}
	if o.once {
		return watchOnce(ctx, f, std)
	}
	if p := o.loaded.Config.Phone; phoneOn(p) && !o.dryRun {
		if err := startPhone(ctx, f, p, o.notify); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	if live {
		name := o.tmux.Name()
		if all {
			name = "every tmux server"
		}
		s := &table.Live{Out: std.out, Size: std.outSize, Server: name, Interval: o.loaded.Config.Watch.Interval, Events: events, Now: std.clock.Now}
		fmt.Fprint(std.out, "\x1b[?25l\x1b[H\x1b[2J") // hide the cursor, clear once
		defer fmt.Fprint(std.out, "\x1b[?25h\r\n")
		f.OnRows = s.Draw
	}
	go onHangUp(ctx, hup, std.hungUp, func() { f.reload(ctx) }, func() {
		log.Info().Msg("the terminal hung up (SIGHUP): stopping")
		cancel()
	})
	return f.run(ctx)
}

// onHangUp handles SIGHUP until ctx ends: the hang-up of the watcher's own terminal (its tmux
// server or terminal emulator went away) stops it; any other SIGHUP reloads the configuration.
func onHangUp(ctx context.Context, hup <-chan os.Signal, hungUp func() bool, reload, stop func()) {
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

// watchLog builds the one logger of watch: on the live table's events (live), as readable
// lines on a terminal or with --log-format console, else as JSON lines on stderr.
func watchLog(o *watchOptions, std *deps, live bool) (zerolog.Logger, *table.Ring) {
	var events *table.Ring
	var sink io.Writer = std.err
	switch {
	case live:
		events = &table.Ring{Max: 50}
		sink = zerolog.ConsoleWriter{Out: events, NoColor: true, TimeFormat: time.TimeOnly, FormatPrepare: table.HumanDurations}
	case o.logFormat == "console" || o.logFormat == "auto" && std.errTTY:
		sink = zerolog.ConsoleWriter{Out: std.err, NoColor: !std.errTTY, TimeFormat: time.TimeOnly, FormatPrepare: table.HumanDurations}
	}
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00" // milliseconds: latencies are read from the log
	// A duration is a whole number of milliseconds under a key that says so ("took_ms"); the
	// console shows it as people write it (table.HumanDurations).
	zerolog.DurationFieldUnit, zerolog.DurationFieldInteger = time.Millisecond, true
	return zerolog.New(sink).Level(o.level).With().Timestamp().Logger(), events
}

// watchOnce looks once at the server (or every server) and prints the table.
func watchOnce(ctx context.Context, f *fleet, std *deps) error {
	var rows []watcher.Row
	f.OnRows = func(all []watcher.Row) { rows = all } // each server's look: the last has them all
	err := f.run(ctx)
	for _, line := range table.Format(table.Cells(rows, std.clock.Now()), 0) {
		fmt.Fprintln(std.out, line)
	}
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}
