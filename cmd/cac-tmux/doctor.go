package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/doctor"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/printable"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
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
	socket, _ := tmux.SocketFileHere()
	stateDir, err := store.StateDir(os.Getenv)
	lockDir, _ := store.LockDir(os.Getenv) // fails as StateDir does
	r := doctor.Run(ctx, doctor.Env{
		Tmux: tmux, Finder: std.finder, Server: tmux.Name(), Socket: socket,
		Config: func(ctx context.Context) (config.Config, string, error) {
			l, err := loadSettings(ctx, tmux, path, nil)
			if err != nil {
				return config.Config{}, "", err
			}
			return l.Config, strings.Join(l.Describe(), "; "), nil
		},
		Watcher:  func(ctx context.Context) (int, bool) { return watcher.Watching(ctx, tmux, os.Getenv) },
		StateDir: stateDir, LockDir: lockDir, DirErr: err,
		Getenv:       os.Getenv,
		WatchCommand: watchCommand(tmux),
	})
	if asJSON {
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("doctor: write: %w", err)
		}
	} else if err := r.Write(std.out); err != nil {
		return fmt.Errorf("doctor: write: %w", err)
	}
	if !r.OK {
		n := 0
		for _, c := range r.Checks {
			if !c.OK {
				n++
			}
		}
		return fmt.Errorf("doctor: %s found a problem; each comes with its fix", printable.Count(n, "check"))
	}
	return nil
}

// runRemoteDoctor runs `cac-tmux doctor` on host through ssh and prints its report; a host
// that ssh does not reach, or that has no cac-tmux, is the one problem reported, with its fix.
func runRemoteDoctor(ctx context.Context, tmux *tmuxctl.Client, host string, asJSON bool, std *deps) error {
	l, err := loadSettings(ctx, tmux, config.Path(os.Getenv), nil)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	args := []string{"doctor"}
	if asJSON {
		args = append(args, "--json")
	}
	reply, err := hosts.Run(ctx, host, hosts.OptionsOf(l.Config.Hosts), args...)
	switch {
	case errors.Is(err, hosts.ErrNoCacTmux):
		return fmt.Errorf("doctor: host %s: %s; install cac-tmux there, or set [hosts] command to its path (a non-interactive ssh session's PATH often lacks ~/go/bin)", host, hosts.Reason(err))
	case err != nil:
		return fmt.Errorf("doctor: host %s: %s; check that `ssh %s true` works without a prompt", host, hosts.Reason(err), host)
	}
	io.WriteString(std.out, reply.Stdout)
	io.WriteString(std.err, reply.Stderr)
	if reply.Code != 0 {
		return &exitError{reply.Code, fmt.Errorf("doctor: host %s found a problem; each comes with its fix", host)}
	}
	return nil
}

// watchCommand is the command line that starts a watcher of the client's server.
func watchCommand(c *tmuxctl.Client) string {
	switch {
	case c.SocketPath != "":
		return "cac-tmux watch -S " + c.SocketPath
	case c.SocketName != "":
		return "cac-tmux watch -L " + c.SocketName
	}
	return "cac-tmux watch"
}
