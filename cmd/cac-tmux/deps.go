package main

import (
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The one place cac-tmux's commands get what they are built from: the streams, the clock and
// the process finder are made once, in newRoot, and every command takes them from its deps;
// each command file then holds its flags and a call into the packages.

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
	// hungUp says whether the terminal the command was started on has hung up (nil: it had
	// none).
	hungUp func() bool
}

// deps are what every command is built from, made once per command line (newDeps).
type deps struct {
	stdio
	clock clock.Clock
	// finder identifies Claude Code in a pane, for every command (NoProcEnv).
	finder *proc.Finder
}

// newDeps builds the deps of a command line that talks to std.
func newDeps(std stdio) *deps {
	return &deps{stdio: std, clock: clock.Real, finder: newFinder()}
}

// socketFlags adds tmux's server selection to a command's flags: -L/--socket-name and
// -S/--socket-path exactly like tmux; with neither, tmux uses $TMUX's server, else the default.
func socketFlags(fs *pflag.FlagSet) *tmuxctl.Client {
	c := &tmuxctl.Client{}
	fs.StringVarP(&c.SocketName, "socket-name", "L", "", "tmux server socket name, as tmux -L")
	fs.StringVarP(&c.SocketPath, "socket-path", "S", "", "tmux server socket path, as tmux -S")
	return c
}

// NoProcEnv, set to 1, makes every command identify Claude Code the way it does where there is
// no /proc (ps and lsof, see package proc) even on Linux: to check that path on a
// machine at hand, or where /proc hides other processes.
const NoProcEnv = "CAC_TMUX_NO_PROC"

// newFinder is the process finder of every command.
func newFinder() *proc.Finder {
	return &proc.Finder{NoProc: os.Getenv(NoProcEnv) == "1"}
}
