// Command cac-tmux supervises Claude Code sessions in tmux panes: it recognises a usage-limit
// stop, works out when the limit lifts and resumes the session.
//
// This file dispatches subcommands. Each subcommand parses its own GNU-style flags (pflag),
// writes data to stdout and errors to stderr, and returns an exit code: 0 success, 1 runtime
// failure, 2 usage or configuration error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	_ "time/tzdata" // every IANA zone Claude Code may print loads on any machine (SPEC §4.3)

	"github.com/spf13/pflag"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// errUsage marks errors that exit 2: bad flags, arguments or configuration.
var errUsage = errors.New("usage")

// usageError wraps err so that it exits 2.
func usageError(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

const usageText = `cac-tmux: resume Claude Code sessions in tmux after a usage limit lifts

Usage:
  cac-tmux watch [flags]            supervise every Claude Code pane and resume it after its reset
  cac-tmux list [--all] [--json]    the paused panes (and with --all every Claude pane)
  cac-tmux inspect [FILE|-] [flags] classify one screen capture and explain the decision
  cac-tmux inspect --pane %N        classify a live pane
  cac-tmux help                     this text

Run "cac-tmux COMMAND --help" for a command's flags.
`

// stdio are the streams a command talks to.
type stdio struct {
	in       io.Reader
	out, err io.Writer
	// inTTY is true when in is a terminal (inspect then refuses to wait for stdin).
	inTTY bool
	// outTTY and errTTY are true when out and err are terminals: watch then draws its live
	// table (out) or writes readable log lines (err). outSize is out's width and height.
	outTTY, errTTY bool
	outSize        func() (width, height int)
}

func main() {
	os.Exit(run(os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr,
		inTTY: isTerminal(os.Stdin), outTTY: isTerminal(os.Stdout), errTTY: isTerminal(os.Stderr),
		outSize: func() (int, int) { return termSize(os.Stdout) }}))
}

// run executes one command line and returns its exit code.
func run(args []string, std stdio) int {
	if len(args) == 0 {
		fmt.Fprint(std.err, usageText)
		return 2
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(std.out, usageText)
		return 0
	case "inspect":
		return runInspect(args[1:], std)
	case "watch":
		return runWatch(args[1:], std)
	case "list":
		return runList(args[1:], std)
	}
	fmt.Fprintf(std.err, "cac-tmux: unknown command %q\n\n%s", args[0], usageText)
	return 2
}

// socketFlags adds tmux's server selection to a command's flags: -L/--socket-name and
// -S/--socket-path exactly like tmux; with neither, tmux uses $TMUX's server, else the default.
func socketFlags(fs *pflag.FlagSet) *tmuxctl.Client {
	c := &tmuxctl.Client{}
	fs.StringVarP(&c.SocketName, "socket-name", "L", "", "tmux server socket name, as tmux -L")
	fs.StringVarP(&c.SocketPath, "socket-path", "S", "", "tmux server socket path, as tmux -S")
	return c
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
