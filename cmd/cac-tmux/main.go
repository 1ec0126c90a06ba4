// Command cac-tmux supervises Claude Code sessions in tmux panes: it recognises a usage-limit
// stop, works out when the limit lifts and resumes the session.
//
// The commands are spf13/cobra commands with GNU-style flags (pflag). They write data to
// stdout and notices to stderr, and return an error; main alone prints the error and turns it
// into the exit code: 0 success, 1 runtime failure, 2 usage or configuration error.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	// Every IANA zone Claude Code may print loads on any machine (docs/claude-code.md, Reset times).
	_ "time/tzdata"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/servers"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Exit codes, for every command (docs/commands.md). inspect has its own contract on top: 0 limited,
// 1 not limited, 2 error.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// UsageError is a mistake in the command line or the configuration: exit 2.
type UsageError struct {
	Err error
	// Usage, when set, is printed after the error: the help of the command that was not
	// given one.
	Usage string
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf is a *UsageError with a formatted message.
func usageErrorf(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// exitError ends a command with its own exit code (inspect: any error is 2).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// notLimited is inspect's answer for a screen that is not stopped at a limit: exit 1, and
// nothing on stderr (the verdict is on stdout).
type notLimited struct{}

func (notLimited) Error() string { return "not limited" }

// exitCode is the exit code of a command's error.
func exitCode(err error) int {
	var usage *UsageError
	var coded *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, new(notLimited)):
		return exitFailure
	case errors.As(err, &usage):
		return exitUsage
	case errors.As(err, &coded):
		return coded.code
	}
	return exitFailure
}

func main() {
	// One P: every command waits on tmux, /proc and timers, and a watcher on a second P pays
	// for thread hand-offs at every tick (docs/costs.md, What a tick does). A GOMAXPROCS set
	// in the environment is kept. (Not in run: tests call it.)
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	std := stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr,
		inTTY: isTerminal(os.Stdin), outTTY: isTerminal(os.Stdout), errTTY: isTerminal(os.Stderr),
		outSize: func() (int, int) { return termSize(os.Stdout) },
		hungUp:  servers.HungUp(os.Stdin, os.Stdout, os.Stderr)}
	os.Exit(run(os.Args[1:], std))
}

// run is main without os.Exit, for tests: it runs one command line, prints its error, if any,
// and returns the exit code. It is the only code that prints an error, as it reads: a usage
// error is worded for people where it is made, and an error of a package names the package
// and what it was doing ("store: lock PATH: …"), each command adding what it was about.
func run(args []string, std stdio) int {
	root := newRoot(std)
	root.SetArgs(args)
	err := root.ExecuteContext(hosts.WhileCallerLives(context.Background(), os.Getenv, std.in))
	var usage *UsageError
	switch {
	case err == nil, errors.As(err, new(notLimited)):
	case errors.As(err, &usage) && usage.Usage != "":
		fmt.Fprintf(std.err, "cac-tmux: %v\n\n%s", err, usage.Usage)
	default:
		fmt.Fprintf(std.err, "cac-tmux: %v\n", err)
	}
	return exitCode(err)
}

// helpTemplate is the help of every command, on stdout for -h, --help and `help COMMAND`.
const helpTemplate = `Usage: {{.UseLine}}{{if .HasExample}}
{{.Example}}{{end}}
{{with (or .Long .Short)}}
{{. | trimTrailingWhitespaces}}
{{end}}{{if .HasAvailableSubCommands}}
Commands:{{range .Commands}}{{if .IsAvailableCommand}}
  {{rpad .Name .NamePadding}} {{.Short}}{{end}}{{end}}

Run "{{.CommandPath}} COMMAND --help" for a command's flags.
{{end}}{{if .HasAvailableLocalFlags}}
Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}
{{end}}`

// newRoot is the command tree, every command built on one deps (newDeps).
func newRoot(streams stdio) *cobra.Command {
	std := newDeps(streams)
	root := &cobra.Command{
		Use:           "cac-tmux COMMAND",
		Short:         "resume Claude Code sessions in tmux after a usage limit lifts",
		Version:       versionText(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetIn(std.in)
	root.SetOut(std.out)
	root.SetErr(std.err)
	root.SetHelpTemplate(helpTemplate)
	root.SetUsageTemplate(helpTemplate)
	root.SetVersionTemplate("cac-tmux {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		var bad *pflag.InvalidValueError
		if errors.As(err, &bad) {
			f := bad.GetFlag()
			return usageErrorf("%s%s", prefix(c), config.BadFlagValue("--"+f.Name, f.Value.Type(), bad.GetValue()))
		}
		return usageErrorf("%s%v (see %s --help)", prefix(c), err, c.CommandPath())
	})
	root.AddCommand(newDemo(std), newWatch(std), newList(std), newPopup(std), newStatus(std),
		newAction(std, watcher.ResumeNow), newAction(std, watcher.Skip), newAction(std, watcher.Unskip), newInspect(std), newVersion(std))
	root.AddCommand(newSims()...)
	root.AddCommand(newConfig(std.stdio), newDoctor(std))
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.AddCommand(newService(std))
	root.AddCommand(newSwitch(std))
	for _, c := range append(root.Commands(), root) {
		if c.HasSubCommands() {
			c.Args, c.RunE, c.SuggestionsMinimumDistance = needCommand, needCommand, 2
		}
	}
	return root
}

// prefix names a subcommand at the start of its errors: "watch: ".
func prefix(c *cobra.Command) string {
	if !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ") + ": "
}

// needCommand refuses a command line of a command that has subcommands without one of them,
// or with one it does not know.
func needCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return &UsageError{Err: fmt.Errorf("%sa command is needed", prefix(c)), Usage: c.UsageString()}
	}
	hint := ""
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		hint = "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usageErrorf("%sunknown command %q%s (see %s --help)", prefix(c), args[0], hint, c.CommandPath())
}

// noArgs refuses arguments to a command that takes none.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%sunexpected argument %q (see %s --help)", prefix(c), args[0], c.CommandPath())
	}
	return nil
}
