package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/phone"
	"github.com/cac-tmux/cac-tmux/servers"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
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
	if err == nil {
		err = l.FailedAlone(!l.Config.Servers.All)
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

// runWatch runs the watcher until Ctrl-C, SIGTERM or the hang-up of its terminal, or, with
// --once, for one look; with --all-servers (servers.all) one watcher per tmux server of the
// user (servers.Watch).
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
		lock, err := servers.LockAll(os.Getenv, os.Getuid())
		if err != nil {
			return held(fmt.Errorf("watch: %w", err))
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
	w := newSupervision(o, std, log)
	if _, err := w.Notifiers.Start(o.loaded.Config.Notify); err != nil {
		return usageErrorf("watch: %v", err)
	}
	defer w.Notifiers.Close()
	var ph *phone.Phone
	if p := o.loaded.Config.Phone; p.On() && !o.dryRun && !o.once {
		var err error
		if ph, err = startPhone(ctx, w, std); err != nil {
			return fmt.Errorf("watch: %w", err)
		}
	}
	w.Buttons, w.AutoSwitch = ph.Notifier, autoSwitch(o.loaded.Config, log)
	if o.once {
		return watchOnce(ctx, w, std)
	}
	if live {
		s := &table.Live{Out: std.out, Size: std.outSize, Server: o.tmux.Name(), All: all, Interval: o.loaded.Config.Watch.Interval, Events: events, Now: std.clock.Now}
		s.Begin()
		defer s.End()
		w.OnRows = s.Draw
	}
	go servers.OnHangUp(ctx, hup, std.hungUp, func() { w.Reload(ctx) }, func() {
		log.Info().Msg("the terminal hung up (SIGHUP): stopping")
		cancel()
	})
	return held(w.Run(ctx))
}

// newSupervision is the servers.Watch of o, built on std, logging to log.
func newSupervision(o *watchOptions, std *deps, log zerolog.Logger) *servers.Watch {
	return &servers.Watch{Fleet: &servers.Fleet{Clock: std.clock}, Tmux: o.tmux, Loaded: o.loaded,
		Load: func(ctx context.Context, c *tmuxctl.Client) (config.Loaded, error) {
			return settingsBeside(ctx, c, o.configPath, o.flags)
		},
		Once: o.once, DryRun: o.dryRun, Control: o.transport == "control", Finder: std.finder,
		Notifiers: &notify.Current{Log: log, Clock: std.clock}, Log: log, Getenv: os.Getenv, UID: os.Getuid(), PID: os.Getpid()}
}

// held makes a server held by another watcher a usage error (exit 2): its words say what to
// do.
func held(err error) error {
	if servers.Held(err) {
		return &UsageError{Err: err}
	}
	return err
}

// watchLog builds the one logger of watch (table.Log): on the live table's events (live), as
// readable lines on a terminal or with --log-format console, else as JSON lines on stderr.
func watchLog(o *watchOptions, std *deps, live bool) (zerolog.Logger, *table.Ring) {
	console := o.logFormat == "console" || o.logFormat == "auto" && std.errTTY
	return table.Log(std.err, o.level, live, console, std.errTTY)
}

// watchOnce looks once at the server (or every server) and prints the table.
func watchOnce(ctx context.Context, w *servers.Watch, std *deps) error {
	rows, err := w.Look(ctx)
	for _, line := range table.Format(table.Cells(rows, std.clock.Now()), 0) {
		fmt.Fprintln(std.out, line)
	}
	if err != nil {
		return fmt.Errorf("watch: %w", held(err))
	}
	return nil
}
