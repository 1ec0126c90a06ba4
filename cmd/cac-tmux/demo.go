package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/demo"
	"github.com/cac-tmux/cac-tmux/demo/simclaude"
	"github.com/cac-tmux/cac-tmux/demo/simcodex"
)

func newDemo(std *deps) *cobra.Command {
	var headless bool
	c := &cobra.Command{
		Use:   "demo [--headless]",
		Short: "see the whole cycle on a private tmux server, in about a minute",
		Long: `Start a private tmux server (never yours: its own socket, configuration, state and lock in a
temporary directory) with four simulated Claude Code sessions stopped at a usage limit that
resets at the next whole minute at least 45 s away: a plain stop, the options menu with its
Stop row last, Claude Code's own auto-continue armed, and a stop with a draft in the input box.
The real watcher runs beside them (--margin 5s --interval 1s).

On a terminal the demo attaches it: watch the stops seen, the countdown, the menu closed by its
Stop row, the resume, the auto-continue firing by itself and the draft left alone; C-q (or the
prefix, then d) leaves. Without a terminal, or with --headless, it prints the timeline. Either
way it exits 0 once the cycle is complete, 1 if anything went wrong, and removes everything it
made.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("demo: find the cac-tmux binary: %w", err)
			}
			o := demo.Options{Exe: exe, Codex: true, Out: std.out, Err: std.err}
			in, inFile := std.in.(*os.File)
			out, outFile := std.out.(*os.File)
			if !headless && std.inTTY && std.outTTY && inFile && outFile {
				w, h := std.outSize()
				o.Term = &demo.Terminal{In: in, Out: out, Err: out, Width: w, Height: h}
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			return demo.Run(ctx, o)
		},
	}
	c.Flags().BoolVar(&headless, "headless", false, "print the timeline instead of attaching the terminal")
	return c
}

// newSims are the hidden commands that run the simulated Claude Code and Codex CLI.
func newSims() []*cobra.Command {
	return []*cobra.Command{newSim(demo.SimCommand, simclaude.Run), newSim(demo.SimCodexCommand, simcodex.Run)}
}

// newSim is a hidden command that runs a simulated agent in the demo's panes, through a link
// named after the agent's executable (package demo): run is simclaude.Run or simcodex.Run.
func newSim(use string, run func(args []string) error) *cobra.Command {
	return &cobra.Command{
		Use:                use,
		Hidden:             true,
		DisableFlagParsing: true,
		RunE:               func(_ *cobra.Command, args []string) error { return run(args) },
	}
}
