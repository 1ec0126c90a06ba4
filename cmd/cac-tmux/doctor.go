package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/doctor"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

func newDoctor(std *deps) *cobra.Command {
	var tmux *tmuxctl.Client
	var asJSON bool
	var path, host string
	c := &cobra.Command{
		Use:   "doctor [-L NAME|-S PATH] [--config FILE] [--json] [--host HOST]",
		Short: "check what watch needs, explain every pane, and say how to fix each problem",
		Long: `Check what cac-tmux watch needs and say how to fix each problem: tmux and its version, the
server and its socket, every pane (the Claude Code ones and how each was identified, the ones
that look like Claude Code but are not taken for it and why, the ones the configuration leaves
out, the ones that run Claude Code out of their reach: under script(1) or in another tmux
server), Claude Code's records of each, the configuration (file and tmux options), the time
zone data, the state and lock directories (a small file written, synced to disk and removed in
each), and whether a watcher runs. It changes nothing else.
Exit 0 when all is well, 1 otherwise. With --host, the doctor of another host's default
server, run there through ssh: first whether ssh reaches it and finds cac-tmux there.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if c.Flags().Changed("host") {
				if err := checkHosts(c, host); err != nil {
					return err
				}
				return runRemoteDoctor(c.Context(), tmux, host, asJSON, std)
			}
			return runDoctor(c.Context(), tmux, path, asJSON, std)
		},
	}
	tmux = socketFlags(c.Flags())
	c.Flags().StringVar(&host, "host", "", "check another host instead, through ssh and the cac-tmux there ([hosts] command and ssh)")
	c.Flags().StringVar(&path, "config", config.Path(os.Getenv), "the configuration file watch reads")
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON object: ok, checks and panes")
	return c
}

func runDoctor(ctx context.Context, tmux *tmuxctl.Client, path string, asJSON bool, std *deps) error {
	settings := func(ctx context.Context) (config.Loaded, error) { return loadSettings(ctx, tmux, path, nil) }
	r := doctor.Run(ctx, doctor.NewEnv(tmux, std.finder, os.Getenv, settings))
	return r.Print(std.out, asJSON)
}

// runRemoteDoctor runs `cac-tmux doctor` on host through ssh and prints its report, and ends
// with its exit status.
func runRemoteDoctor(ctx context.Context, tmux *tmuxctl.Client, host string, asJSON bool, std *deps) error {
	l, err := loadSettings(ctx, tmux, config.Path(os.Getenv), nil)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	code, err := doctor.Remote(ctx, host, hosts.OptionsOf(l.Config.Hosts), asJSON, std.out, std.err)
	if code != 0 {
		return &exitError{code, err}
	}
	return err
}
