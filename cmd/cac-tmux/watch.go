package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/pflag"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
	"github.com/cac-tmux/cac-tmux/watcher/proc"
	"github.com/cac-tmux/cac-tmux/watcher/store"
)

// watchOptions are the settings of `cac-tmux watch`: the configuration file, with the flags
// given on the command line over it.
type watchOptions struct {
	tmux      *tmuxctl.Client
	cfg       watcher.Config
	once      bool
	transport string
	level     zerolog.Level
	logFormat string
	// configPath is the configuration file (found: it exists); flags re-applies the flags
	// given on the command line over a configuration, at start and on SIGHUP.
	configPath string
	found      bool
	flags      func(*config.Watch)
}

func parseWatch(args []string, std stdio) (watchOptions, error) {
	fs := pflag.NewFlagSet("watch", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	d := config.Default().Watch
	o := watchOptions{tmux: socketFlags(fs)}
	var fl config.Watch
	fs.StringVar(&o.configPath, "config", config.Path(os.Getenv), "configuration file (TOML, [watch] table); flags win over it")
	fs.DurationVar(&fl.Interval, "interval", d.Interval, "time between two looks at the server")
	fs.DurationVar(&fl.Margin, "margin", d.Margin, "wait after the reset instant before resuming (the printed reset is truncated to the minute)")
	fs.StringVar(&fl.Message, "message", d.Message, "what to type into a stopped session")
	fs.BoolVar(&o.cfg.DryRun, "dry-run", false, "decide and log, send no key, set no pane option, write no state")
	fs.BoolVar(&o.once, "once", false, "look once, print what watch would do, send nothing, exit")
	fs.StringVar(&fl.LogLevel, "log-level", d.LogLevel, "debug, info, warn or error (pane text is logged at debug only)")
	fs.StringVar(&o.logFormat, "log-format", "auto", "auto (a live table on a terminal, else JSON lines), json or console")
	fs.StringVar(&o.transport, "transport", "control", "control (tmux commands over one control-mode client, tmux -C) or exec (a tmux process per command)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(std.out, "Usage: cac-tmux watch [-L NAME|-S PATH] [flags]\n\nSupervise every Claude Code pane on the tmux server: wait for each usage-limit reset and\nresume the session. Ctrl-C stops it; SIGHUP reloads the configuration file.\n\nFlags:\n")
			fs.SetOutput(std.out)
			fs.PrintDefaults()
			return o, err
		}
		return o, usageError("watch: %v (see cac-tmux watch --help)", err)
	}
	if fs.NArg() > 0 {
		return o, usageError("watch: unexpected argument %q (see cac-tmux watch --help)", fs.Arg(0))
	}
	switch {
	case fl.Interval < config.MinInterval:
		return o, usageError("watch: --interval: must be at least %s, like 2s (got %s)", config.MinInterval, fl.Interval)
	case fl.Margin < 0:
		return o, usageError("watch: --margin: must not be negative, like 60s (got %s)", fl.Margin)
	case strings.TrimSpace(fl.Message) == "":
		return o, usageError("watch: --message: must not be empty (default %q)", d.Message)
	case strings.ContainsFunc(fl.Message, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return o, usageError("watch: --message: must be one line without control characters (Enter is sent separately), got %q", fl.Message)
	}
	if !slices.Contains(config.LogLevels(), fl.LogLevel) {
		return o, usageError("watch: --log-level: must be debug, info, warn or error (got %q)", fl.LogLevel)
	}
	if o.logFormat != "auto" && o.logFormat != "json" && o.logFormat != "console" {
		return o, usageError("watch: --log-format: must be auto, json or console (got %q)", o.logFormat)
	}
	if o.transport != "control" && o.transport != "exec" {
		return o, usageError("watch: --transport: must be control or exec (got %q)", o.transport)
	}
	o.flags = func(w *config.Watch) {
		if fs.Changed("interval") {
			w.Interval = fl.Interval
		}
		if fs.Changed("margin") {
			w.Margin = fl.Margin
		}
		if fs.Changed("message") {
			w.Message = fl.Message
		}
		if fs.Changed("log-level") {
			w.LogLevel = fl.LogLevel
		}
	}
	// A file named on the command line must exist; the default one may not.
	w, found, err := loadWatch(o.configPath, o.flags)
	if err != nil {
		return o, usageError("watch: %v", err)
	}
	if fs.Changed("config") && !found {
		return o, usageError("watch: --config: %s does not exist (without --config, %s is read when it exists)", o.configPath, config.Path(os.Getenv))
	}
	o.found = found
	dry := o.cfg.DryRun
	o.cfg = settings(w)
	o.cfg.DryRun = dry
	o.level, _ = zerolog.ParseLevel(w.LogLevel)
	return o, nil
}

// loadWatch reads the configuration file and puts the command line's flags over it.
func loadWatch(path string, flags func(*config.Watch)) (config.Watch, bool, error) {
	c, found, err := config.Load(path)
	if err != nil {
		return config.Watch{}, found, err
	}
	flags(&c.Watch)
	return c.Watch, found, nil
}

// settings are the watcher's settings for a configuration.
func settings(w config.Watch) watcher.Config {
	cfg := watcher.Defaults
	cfg.Interval, cfg.Message = w.Interval, w.Message
	cfg.Schedule.Margin, cfg.Schedule.NativeGrace, cfg.Schedule.Stagger = w.Margin, w.NativeGrace, w.Stagger
	cfg.Schedule.MaxPerReset, cfg.Schedule.MaxAttempts = w.MaxPerReset, w.MaxAttempts
	return cfg
}

// reload reads the configuration file again on SIGHUP and hands it to the running watcher;
// a file with a mistake is reported and the settings stay as they were.
func reload(o watchOptions, w *watcher.Watcher, log zerolog.Logger) {
	c, found, err := loadWatch(o.configPath, o.flags)
	switch {
	case err != nil:
		log.Error().Err(err).Msg("configuration not reloaded; the watcher goes on with its settings")
	case !found:
		log.Info().Str("config", o.configPath).Msg("SIGHUP: there is no configuration file; nothing to reload")
	default:
		if lvl, _ := zerolog.ParseLevel(c.LogLevel); lvl != o.level {
			log.Warn().Str("log_level", c.LogLevel).Msg("a new log level takes effect when the watcher restarts")
		}
		w.Reconfigure(settings(c))
	}
}

func runWatch(args []string, std stdio) int {
	o, err := parseWatch(args, std)
	if errors.Is(err, pflag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(std.err, "cac-tmux: %v\n", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP) // never the default (exit): the state would not be saved
	defer signal.Stop(hup)
	if o.once {
		if _, err := o.tmux.ListPanes(ctx, tmuxctl.Search{}); err != nil {
			fmt.Fprintf(std.err, "cac-tmux: watch: %s: %v\n", serverName(o.tmux), hint(err))
			return 1
		}
	}
	st, lock, code, err := openState(o.tmux, o.cfg.DryRun || o.once)
	if err != nil {
		fmt.Fprintf(std.err, "cac-tmux: watch: %v\n", err)
		return code
	}
	defer lock.Release()
	o.cfg.Store = st

	live := std.outTTY && !o.once && o.logFormat == "auto"
	var events *ring
	var sink io.Writer = std.err
	switch {
	case live:
		events = &ring{max: 50}
		sink = zerolog.ConsoleWriter{Out: events, NoColor: true, TimeFormat: time.TimeOnly}
	case o.logFormat == "console" || o.logFormat == "auto" && std.errTTY:
		sink = zerolog.ConsoleWriter{Out: std.err, NoColor: !std.errTTY, TimeFormat: time.TimeOnly}
	}
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00" // milliseconds: latencies are read from the log
	log := zerolog.New(sink).Level(o.level).With().Timestamp().Logger()
	o.cfg.Log = log
	if o.once {
		o.cfg.DryRun = true
	}
	o.cfg.PID = os.Getpid()
	if !o.once && o.transport == "control" {
		o.tmux.Connect(transportLog(log))
		defer o.tmux.Close()
	}
	w := watcher.New(o.tmux, &proc.Finder{}, o.cfg)

	if o.once {
		_, err := w.Tick(ctx)
		for _, line := range formatTable(tableRows(w.Rows(), time.Now()), 0) {
			fmt.Fprintln(std.out, line)
		}
		if err != nil {
			fmt.Fprintf(std.err, "cac-tmux: watch: %v\n", err)
			return 1
		}
		return 0
	}

	if o.found {
		log.Info().Str("config", o.configPath).Msg("configuration read")
	}
	log.Info().Str("server", serverName(o.tmux)).Str("socket", st.Server).Str("state", st.Path).Dur("interval", o.cfg.Interval).
		Dur("margin", o.cfg.Schedule.Margin).Bool("dry_run", o.cfg.DryRun).Msg("watching every Claude Code pane")
	var onTick func([]watcher.Row)
	if live {
		s := &screen{out: std.out, size: std.outSize, server: serverName(o.tmux), cfg: o.cfg, events: events}
		fmt.Fprint(std.out, "\x1b[?25l\x1b[H\x1b[2J") // hide the cursor, clear once
		defer fmt.Fprint(std.out, "\x1b[?25h\r\n")
		onTick = s.draw
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				reload(o, w, log)
			}
		}
	}()
	w.Run(ctx, onTick)
	log.Info().Msg("stopped")
	return 0
}

// transportLog reports the control-mode connection's events: up, down and refused at info
// (the watcher works on by exec meanwhile), failed dials at debug (they repeat, ever less
// often, while no server or no session is there).
func transportLog(log zerolog.Logger) func(string, error) {
	return func(event string, err error) {
		switch event {
		case "up":
			log.Info().Msg("tmux commands go over a control-mode client (tmux -C)")
		case "down":
			log.Info().Err(err).Msg("the control-mode client is gone; tmux commands run as processes until it is back")
		case "refused":
			log.Info().Err(err).Msg("control mode is not used on this server; every tmux command runs as a process")
		default:
			log.Debug().Err(err).Str("event", event).Msg("no control-mode client")
		}
	}
}

// openState locks the server for this watcher and opens its state file. A read-only watcher
// (a dry run) reads the state but takes no lock and writes nothing. code is the exit code
// for err: 2 when another watcher holds the lock (SPEC §6), else 1.
func openState(c *tmuxctl.Client, readOnly bool) (st *store.Store, lock *store.Lock, code int, err error) {
	server, err := c.SocketFileHere()
	if err != nil {
		return nil, nil, 1, err
	}
	stateDir, err := store.StateDir(os.Getenv)
	if err != nil {
		return nil, nil, 1, err
	}
	st = store.New(stateDir, server)
	st.ReadOnly = readOnly
	if readOnly {
		return st, nil, 0, nil
	}
	lockDir, err := store.LockDir(os.Getenv)
	if err != nil {
		return nil, nil, 1, err
	}
	lock, err = store.Acquire(lockDir, server)
	var locked *store.LockedError
	if errors.As(err, &locked) {
		return nil, nil, 2, err
	}
	if err != nil {
		return nil, nil, 1, err
	}
	return st, lock, 0, nil
}

// serverName names the tmux server for people.
func serverName(c *tmuxctl.Client) string {
	switch {
	case c.SocketPath != "":
		return "server " + c.SocketPath
	case c.SocketName != "":
		return "server -L " + c.SocketName
	case os.Getenv("TMUX") != "":
		return "server " + strings.Split(os.Getenv("TMUX"), ",")[0]
	}
	return "the default tmux server"
}

// hint adds how to fix a tmux error a user can fix.
func hint(err error) error {
	if errors.Is(err, tmuxctl.ErrNoServer) {
		return fmt.Errorf("%w; start tmux, or select the server with -L NAME or -S PATH", err)
	}
	return err
}

// screen draws the live table of `watch` on a terminal: the cursor goes home and every line
// is rewritten and erased to its end, so nothing flickers; it fits the terminal's size.
type screen struct {
	out    io.Writer
	size   func() (int, int)
	server string
	cfg    watcher.Config
	events *ring
}

func (s *screen) draw(rows []watcher.Row) {
	width, height := s.size()
	if width <= 0 || height <= 0 {
		width, height = 80, 24
	}
	paused := 0
	for _, r := range rows {
		if r.State.Paused() {
			paused++
		}
	}
	lines := []string{
		cut(fmt.Sprintf("cac-tmux watch · %s · %d Claude pane%s, %d paused · every %s · Ctrl-C quits", s.server, len(rows), plural(len(rows)), paused, s.cfg.Interval), width),
		"",
	}
	table := formatTable(tableRows(rows, time.Now()), width)
	if len(rows) == 0 {
		table = []string{"no Claude Code pane on this server yet"}
	}
	room := max(height-len(lines)-4, 2) // leave room for a few events
	if len(table) > room {
		more := len(table) - room + 1
		table = append(table[:room-1], fmt.Sprintf("… and %d more (cac-tmux list)", more))
	}
	lines = append(lines, table...)
	if ev := s.events.last(height - len(lines) - 2); len(ev) > 0 {
		lines = append(lines, "")
		for _, e := range ev {
			lines = append(lines, cut(e, width))
		}
	}
	var b strings.Builder
	b.WriteString("\x1b[H")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(l)
		b.WriteString("\x1b[K")
	}
	b.WriteString("\x1b[J")
	io.WriteString(s.out, b.String())
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ring keeps the last lines written to it: the recent events under the live table.
type ring struct {
	mu    sync.Mutex
	lines []string
	max   int
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		r.lines = append(r.lines, l)
	}
	if over := len(r.lines) - r.max; over > 0 {
		r.lines = append([]string(nil), r.lines[over:]...)
	}
	return len(p), nil
}

// last returns the last n lines (none when n <= 0).
func (r *ring) last(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n <= 0 {
		return nil
	}
	return append([]string(nil), r.lines[max(len(r.lines)-n, 0):]...)
}
