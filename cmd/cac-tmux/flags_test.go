package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// parseWatch parses the flags of watch as the command does, without running it.
func parseWatch(args []string) (*watchOptions, error) {
	fs := pflag.NewFlagSet("watch", pflag.ContinueOnError)
	o := &watchOptions{}
	o.bind(fs)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	return o, o.finish(fs)
}

// cfgOf is the watcher's Config of the settings o read, as each server's watcher makes it.
func cfgOf(o *watchOptions) watcher.Config { return watcher.ConfigFrom(o.loaded.Config) }

func TestWatchUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--interval", "10ms"}, "--interval: must be at least 100ms"},
		{[]string{"--interval", "soon"}, `watch: --interval: must be a duration like "90s" (got "soon")`}, // the rule of watch.interval, not pflag's words
		{[]string{"--margin", "soon"}, `watch: --margin: must be a duration like "90s" (got "soon")`},
		{[]string{"--margin="}, `watch: --margin: must be a duration like "90s" (got "")`},
		{[]string{"--dry-run=maybe"}, `watch: --dry-run: must be true or false (got "maybe")`},
		{[]string{"--margin", "-1s"}, "--margin: must not be negative"},
		{[]string{"--message", " "}, "--message: must not be blank"}, // the rule of watch.message (was "must not be empty")
		{[]string{"--message", "go on\n"}, "--message: must be one line"},
		{[]string{"--log-level", "loud"}, "--log-level: must be one of debug, info, warn, error"}, // the rule of watch.log_level
		{[]string{"--log-level", "trace"}, "--log-level: must be one of debug, info, warn, error"},
		{[]string{"--log-format", "xml"}, "--log-format: must be auto, json or console"},
		{[]string{"--transport", "pipe"}, "--transport: must be control or exec"},
		{[]string{"--frobnicate"}, "unknown flag: --frobnicate"},
		{[]string{"now"}, "unexpected argument \"now\""},
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"watch"}, tc.args...), stdio{out: &out, err: &errOut})
		if code != 2 || !strings.Contains(errOut.String(), tc.want) || out.Len() != 0 {
			t.Errorf("watch %q = %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out.String(), errOut.String(), tc.want)
		}
	}
	for _, args := range [][]string{{"--json=maybe"}, {"extra"}} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"list"}, args...), stdio{out: &out, err: &errOut}); code != 2 {
			t.Errorf("list %q = %d, stderr %q; want 2", args, code, errOut.String())
		}
	}
}

// TestSameRuleByFlagAndFile gives each bad value once as a flag and once in the configuration
// file: both are refused with exit 2 by the same rule, in the same words, naming --flag and
// watch.key respectively.
func TestSameRuleByFlagAndFile(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "config.toml")
	for _, tc := range []struct {
		flag, value string // --flag VALUE
		file        string // the same value in [watch]
		rule        string // the rule's words
	}{
		{"interval", "50ms", `interval = "50ms"`, "must be at least 100ms"},
		{"interval", "0s", `interval = "0s"`, "must be at least 100ms"},
		{"margin", "-1s", `margin = "-1s"`, "must not be negative"},
		{"message", "", `message = ""`, `must not be blank; it is the text typed to resume, like "continue"`},
		{"message", "  ", `message = "  "`, `must not be blank; it is the text typed to resume, like "continue"`},
		{"message", "go\non", `message = "go\non"`, "must be one line"},
		{"message", "go\u2028on", `message = "go\u2028on"`, "must be one line"},
		{"message", "go\x1b[2J", `message = "go\u001b[2J"`, "must not contain control characters"},
		{"log-level", "loud", `log_level = "loud"`, "must be one of debug, info, warn, error"},
		{"log-level", "INFO", `log_level = "INFO"`, "must be one of debug, info, warn, error"},
		{"margin", "soon", `margin = "soon"`, `must be a duration like "90s"`}, // a value pflag cannot read
		{"interval", "1 s", `interval = "1 s"`, `must be a duration like "90s"`},
	} {
		value := tc.value
		var out, byFlag bytes.Buffer
		code := run([]string{"watch", "--config", conf + ".none", "--" + tc.flag, value}, stdio{out: &out, err: &byFlag})
		if want := "--" + tc.flag + ": " + tc.rule + " (got "; code != 2 || !strings.Contains(byFlag.String(), want) {
			t.Errorf("watch --%s %q = %d, stderr %q; want 2 and %q", tc.flag, value, code, byFlag.String(), want)
		}
		if err := os.WriteFile(conf, []byte("[watch]\n"+tc.file+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var byFile bytes.Buffer
		code = run([]string{"watch", "--config", conf}, stdio{out: &out, err: &byFile})
		key := "watch." + strings.ReplaceAll(tc.flag, "-", "_")
		if want := key + ": " + tc.rule + " (" + conf + " line 2, got "; code != 2 || !strings.Contains(byFile.String(), want) {
			t.Errorf("watch with %q in the file = %d, stderr %q; want 2 and %q", tc.file, code, byFile.String(), want)
		}
	}
}

// TestEveryTypedFlagHasARule gives every flag of every command that pflag reads as a type (a
// duration, a boolean, an integer) a value it cannot read: each is refused with exit 2 in the
// words of the configuration's rules, naming the command and the flag — the rule of the key
// the flag sets, else the rule of its type — and never in pflag's ("invalid argument … for
// … flag: strconv.ParseBool: …").
func TestEveryTypedFlagHasARule(t *testing.T) {
	typed := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.DisableFlagParsing {
			return
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "string" {
				return
			}
			args := append(strings.Fields(strings.TrimPrefix(c.CommandPath(), c.Root().Name())), "--"+f.Name+"=x!")
			var out, errOut bytes.Buffer
			code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
			want := "cac-tmux: " + prefix(c) + "--" + f.Name + ": must be "
			if code != 2 || out.Len() != 0 || !strings.HasPrefix(errOut.String(), want) || !strings.HasSuffix(errOut.String(), ` (got "x!")`+"\n") {
				t.Errorf("cac-tmux %q = %d, stdout %q, stderr %q; want 2 and %q… (got \"x!\")", args, code, out.String(), errOut.String(), want)
			}
			typed[strings.Join(args[:len(args)-1], " ")+" --"+f.Name+" "+f.Value.Type()] = true
		})
	}
	walk(newRoot(stdio{}))
	for _, f := range []string{"watch --interval duration", "watch --margin duration", "watch --once bool", "list --json bool", "demo --headless bool"} {
		if !typed[f] {
			t.Errorf("flag %s not seen; seen %v", f, typed)
		}
	}
}

// The flags whose values the command checks itself (a word of a list, an instant, a zone)
// say what the value must be in the same words, and what it got.
func TestCheckedFlagValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"watch", "--log-level", "loud"}, `watch: --log-level: must be one of debug, info, warn, error (got "loud")`},
		{[]string{"watch", "--log-format", "xml"}, `watch: --log-format: must be auto, json or console (got "xml")`},
		{[]string{"watch", "--transport", "pipe"}, `watch: --transport: must be control or exec (got "pipe")`},
		{[]string{"service", "install", "--platform", "upstart"}, `service install: --platform: must be systemd or launchd (got "upstart")`},
		{[]string{"inspect", "--now", "soon", "-"}, `inspect: --now: must be an RFC3339 instant like 2026-11-20T23:00:00+01:00 (got "soon")`},
		{[]string{"inspect", "--tz", "Mars/Olympus", "-"}, `inspect: --tz: must be an IANA time zone like Europe/Berlin (got "Mars/Olympus")`},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
		if want := "cac-tmux: " + tc.want + "\n"; code != 2 || out.Len() != 0 || errOut.String() != want {
			t.Errorf("cac-tmux %q = %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out.String(), errOut.String(), want)
		}
	}
}

// A key's flag holds the text given, for config.Resolve to read.
var _ pflag.Value = (*config.FlagValue)(nil)

// TestWatchFlagsFromRegistry: the flags of watch that set a key are the registry's
// (config.KeyFlags), each with the key's help, its default and the type of its value, and
// --help shows every flag with its default; every other flag of watch is the command's own
// and sets no key.
func TestWatchFlagsFromRegistry(t *testing.T) {
	watch, _, err := newRoot(stdio{}).Find([]string{"watch"})
	if err != nil {
		t.Fatal(err)
	}
	fs := watch.LocalFlags()
	var help bytes.Buffer
	if code := run([]string{"watch", "--help"}, stdio{out: &help, err: &help}); code != 0 {
		t.Fatalf("watch --help = %d:\n%s", code, help.String())
	}
	keyFlags := map[string]bool{}
	for _, kf := range config.KeyFlags() {
		keyFlags[kf.Name] = true
		f := fs.Lookup(kf.Name)
		if f == nil {
			t.Errorf("watch has no --%s (the flag of %s)", kf.Name, kf.Key)
			continue
		}
		if _, ok := f.Value.(*config.FlagValue); !ok || f.Usage != kf.Help || f.DefValue != kf.Default || f.Value.Type() != kf.Value.Type() {
			t.Errorf("watch --%s = %T, help %q, default %q, type %q; want the registry's: help %q, default %q, type %q",
				kf.Name, f.Value, f.Usage, f.DefValue, f.Value.Type(), kf.Help, kf.Default, kf.Value.Type())
		}
		line := "--" + kf.Name + " " + kf.Value.Type()
		if kf.Bare != "" { // a flag that needs no value (--all-servers): its type is not shown
			line = "--" + kf.Name + " "
		}
		if f.NoOptDefVal != kf.Bare {
			t.Errorf("watch --%s given alone is %q, want the registry's %q", kf.Name, f.NoOptDefVal, kf.Bare)
		}
		if !strings.Contains(help.String(), line) || !strings.Contains(help.String(), kf.Help) {
			t.Errorf("watch --help lacks %q with %q:\n%s", line, kf.Help, help.String())
		}
	}
	own := []string{"config", "dry-run", "help", "log-format", "once", "socket-name", "socket-path", "transport"}
	fs.VisitAll(func(f *pflag.Flag) {
		if keyFlags[f.Name] {
			return
		}
		_, isKey := f.Value.(*config.FlagValue)
		key := "watch." + strings.ReplaceAll(f.Name, "-", "_")
		if isKey || config.OptionName(key) != "" || !slices.Contains(own, f.Name) {
			t.Errorf("watch --%s: a flag outside the registry (%T); a flag that sets a key is defined in config/keys.go only", f.Name, f.Value)
		}
	})
	fs.VisitAll(func(f *pflag.Flag) {
		def := f.DefValue
		if def == "" || def == "false" {
			return // none to show
		}
		if f.Value.Type() == "string" {
			def = strconv.Quote(def)
		}
		if !strings.Contains(help.String(), "--"+f.Name+" ") || !strings.Contains(help.String(), f.Usage+" (default "+def+")") {
			t.Errorf("watch --help does not show --%s with its default %s:\n%s", f.Name, def, help.String())
		}
	})
}

// TestWatchMarginWalk follows --margin from the command line to the watcher's schedule: the
// text given reaches config.Resolve as it is, wins over the tmux option and the file, and is
// the margin of the scheduler's due instants; a bad value is refused with exit 2 in the key's
// rule, naming the flag, before anything starts.
func TestWatchMarginWalk(t *testing.T) {
	s := tmuxtest.Start(t, 80, 24)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(conf, []byte("[watch]\nmargin = \"10s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Tmux(t, "set-option", "-g", "@cac-tmux-margin", "20s")
	reset := time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		args   []string
		margin time.Duration
		src    string
	}{
		{nil, 20 * time.Second, "tmux option @cac-tmux-margin"},
		{[]string{"--margin", "7m"}, 7 * time.Minute, "flag --margin"},
		{[]string{"--margin=7m0s"}, 7 * time.Minute, "flag --margin"},
	} {
		o, err := parseWatch(append([]string{"-S", s.Socket, "--config", conf}, tc.args...))
		if err != nil {
			t.Errorf("watch %q: %v", tc.args, err)
			continue
		}
		if got := o.loaded.Sources["watch.margin"].String(); cfgOf(o).Schedule.Margin != tc.margin || got != tc.src {
			t.Errorf("watch %q: margin %s from %s, want %s from %s", tc.args, cfgOf(o).Schedule.Margin, got, tc.margin, tc.src)
		}
		if due := cfgOf(o).Schedule.Due(reset, false, false); !due.Equal(reset.Add(tc.margin)) {
			t.Errorf("watch %q: due %s for a reset at %s, want the margin %s later", tc.args, due, reset, tc.margin)
		}
		if len(tc.args) > 0 {
			want := []config.Flag{{Name: "--margin", Key: "watch.margin", Value: strings.TrimPrefix(tc.args[len(tc.args)-1], "--margin=")}}
			if !slices.Equal(o.flags, want) {
				t.Errorf("watch %q: flags for Resolve %q, want the text given %q", tc.args, o.flags, want)
			}
		}
	}
	for _, tc := range []struct{ value, want string }{
		{"-1s", `cac-tmux: watch: --margin: must not be negative (got "-1s")` + "\n"},
		{"soon", `cac-tmux: watch: --margin: must be a duration like "90s" (got "soon")` + "\n"},
		{" 7m", `cac-tmux: watch: --margin: must be a duration like "90s" (got " 7m")` + "\n"},
	} {
		code, out, errOut := cacBin(t, dir, "watch", "-S", s.Socket, "--config", conf, "--margin", tc.value)
		if code != 2 || out != "" || errOut != tc.want {
			t.Errorf("watch --margin %q = %d, stdout %q, stderr %q; want 2 and %q", tc.value, code, out, errOut, tc.want)
		}
		if held, err := s.Client.GlobalOption(context.Background(), tmuxctl.WatcherOption); err != nil || held != "" {
			t.Errorf("watch --margin %q claimed the server: @cac_watcher %q, %v", tc.value, held, err)
		}
	}
}

func TestWatchConfigFile(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.toml")
	write := func(s string) {
		if err := os.WriteFile(conf, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[watch]\nmargin = \"90s\"\ninterval = \"5s\"\nmax_attempts = 5\nmessage = 'go on'\n")
	o, err := parseWatch([]string{"--config", conf, "--interval", "1s"})
	if err != nil {
		t.Fatal(err)
	}
	if cfgOf(o).Interval != time.Second || cfgOf(o).Schedule.Margin != 90*time.Second || cfgOf(o).Schedule.MaxAttempts != 5 || cfgOf(o).Message != "go on" || !o.loaded.File.Found {
		t.Errorf("parseWatch(file, --interval 1s) = interval %s, margin %s, attempts %d, message %q; want the flag over the file",
			cfgOf(o).Interval, cfgOf(o).Schedule.Margin, cfgOf(o).Schedule.MaxAttempts, cfgOf(o).Message)
	}
	if cfgOf(o).Schedule.RetryBase != scheduler.Default.RetryBase || cfgOf(o).Pause != watcher.Defaults.Pause {
		t.Errorf("settings the file cannot set = %+v, want the defaults", cfgOf(o))
	}

	for _, tc := range []struct{ file, want string }{
		{"[watch]\nmargin = \"soon\"\n", `cac-tmux: watch: watch.margin: must be a duration like "90s" (` + conf + ` line 2, got "soon")` + "\n"}, // no "config: "
		{"[wach]\n", "unknown table [wach]"},
	} {
		write(tc.file)
		var out, errOut bytes.Buffer
		if code := run([]string{"watch", "--config", conf}, stdio{out: &out, err: &errOut}); code != 2 || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("watch with config %q = %d, stderr %q; want 2 and %q", tc.file, code, errOut.String(), tc.want)
		}
	}
	var out, errOut bytes.Buffer
	missing := filepath.Join(dir, "none.toml")
	if code := run([]string{"watch", "--config", missing}, stdio{out: &out, err: &errOut}); code != 2 || !strings.Contains(errOut.String(), "--config: "+missing+" does not exist") {
		t.Errorf("watch --config MISSING = %d, stderr %q; want 2 naming the file", code, errOut.String())
	}
	// The default file may be missing.
	t.Setenv("XDG_CONFIG_HOME", dir)
	if o, err := parseWatch(nil); err != nil || o.loaded.File.Found || cfgOf(o).Schedule.Margin != scheduler.Default.Margin {
		t.Errorf("parseWatch() without a default file = %v, found %v; want the defaults", err, o.loaded.File.Found)
	}
}

// TestCommandLine checks the rules every command shares: help on stdout with exit 0, usage
// errors on stderr with exit 2 and nothing on stdout, version and completion.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		out, err   string // substrings of stdout and stderr ("" for empty)
		outIsEmpty bool
	}{
		{nil, 2, "", "a command is needed\n\nUsage: cac-tmux COMMAND", true},
		{[]string{"help"}, 0, "Usage: cac-tmux COMMAND", "", false},
		{[]string{"--help"}, 0, "Run \"cac-tmux COMMAND --help\"", "", false},
		{[]string{"wach"}, 2, "", `unknown command "wach"; did you mean watch?`, true},
		{[]string{"--frobnicate"}, 2, "", "unknown flag: --frobnicate (see cac-tmux --help)", true},
		{[]string{"watch", "-h"}, 0, "Usage: cac-tmux watch", "", false},
		{[]string{"help", "list"}, 0, "Usage: cac-tmux list", "", false},
		{[]string{"list", "extra"}, 2, "", `list: unexpected argument "extra" (see cac-tmux list --help)`, true},
		{[]string{"list", "--json=maybe"}, 2, "", `cac-tmux: list: --json: must be true or false (got "maybe")` + "\n", true},
		{[]string{"unskip"}, 2, "", "unskip: one PANE is needed", true},
		{[]string{"unskip", "-h"}, 0, "Usage: cac-tmux unskip [-L NAME|-S PATH] PANE", "", false},
		{[]string{"help"}, 0, "unskip", "", false},
		{[]string{"inspect", "--bogus"}, 2, "", "inspect: unknown flag: --bogus (see cac-tmux inspect --help)", true},
		{[]string{"version"}, 0, "cac-tmux ", "", false},
		{[]string{"--version"}, 0, "(revision ", "", false},
		{[]string{"version", "x"}, 2, "", `version: unexpected argument "x"`, true},
		{[]string{"completion", "bash"}, 0, "bash completion", "", false},
		{[]string{"completion", "zsh"}, 0, "compdef", "", false},
		{[]string{"completion", "fish"}, 0, "complete -c cac-tmux", "", false},
		{[]string{"completion", "powershell"}, 0, "Register-ArgumentCompleter", "", false},
		{[]string{"completion", "tcsh"}, 2, "", `completion: unknown command "tcsh"`, true},
		{[]string{"completion"}, 2, "", "completion: a command is needed", true},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.err) ||
			tc.outIsEmpty && out.Len() != 0 || tc.err == "" && errOut.Len() != 0 {
			t.Errorf("cac-tmux %q = %d, stdout %.200q, stderr %.300q; want %d, stdout with %q, stderr with %q",
				tc.args, code, out.String(), errOut.String(), tc.code, tc.out, tc.err)
		}
	}
	// Both ways of asking print the same line.
	var a, b bytes.Buffer
	run([]string{"version"}, stdio{out: &a, err: &a})
	run([]string{"--version"}, stdio{out: &b, err: &b})
	if a.String() != b.String() || !strings.HasPrefix(a.String(), "cac-tmux ") {
		t.Errorf("version = %q, --version = %q; want the same line", a.String(), b.String())
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("boom"), exitFailure},
		{fmt.Errorf("watch: %w", &UsageError{Err: errors.New("bad")}), exitUsage},
		{notLimited{}, exitFailure},
		{&exitError{code: exitUsage, err: errors.New("inspect: read x")}, exitUsage},
	} {
		if got := exitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
