package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

func newList(std *deps) *cobra.Command {
	var tmux *tmuxctl.Client
	var o listOptions
	c := &cobra.Command{
		Use:   "list [-L NAME|-S PATH] [--all] [--json] [--host HOST,…]",
		Short: "the paused panes (and with --all every Claude pane), of every server and host",
		Long: `The panes the watchers published as paused, earliest due first, on every tmux server of
the user (-L or -S: that one only), with a SERVER column when more than one has panes. It
reads the pane options (@cac_state, …). When no watcher runs on a server it says so first (in
--json, "watcher_running": false on each pane): nothing there will be resumed, a published
state is the last one a watcher published ("waiting (stale)"), and a Claude pane stopped at a
limit that nothing was published for is looked at here and shown as "stopped (not watched)"
(in --json, state "stopped"). A server that fails or does not answer (each tmux call is
bounded) is named with the reason, and the others are shown all the same.

--host (or [hosts] names in the configuration) adds the panes of other hosts, asked through
your own ssh (ssh HOST cac-tmux list --json --all), each within [hosts] timeout; a host that
does not answer is named with the reason, and the others are shown all the same.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.oneServer = c.Flags().Changed("socket-name") || c.Flags().Changed("socket-path")
			o.hostsGiven = c.Flags().Changed("host")
			if err := checkHosts(c, o.hosts...); err != nil {
				return err
			}
			return runList(c.Context(), tmux, o, std)
		},
	}
	tmux = socketFlags(c.Flags())
	c.Flags().BoolVar(&o.asJSON, "json", false, "print a JSON array")
	c.Flags().BoolVar(&o.all, "all", false, "also list the Claude Code panes that run normally")
	c.Flags().StringSliceVar(&o.hosts, "host", nil, "other hosts to ask through ssh, comma-separated (default: [hosts] names; --host= for none)")
	return c
}

// listOptions are the flags of list.
type listOptions struct {
	asJSON, all bool
	hosts       []string
	// oneServer is true when -L or -S named a server; hostsGiven when --host was given.
	oneServer, hostsGiven bool
}

func runList(ctx context.Context, tmux *tmuxctl.Client, o listOptions, std *deps) error {
	var remote []hosts.Result
	var err error
	asked := make(chan struct{}) // the hosts are asked while the servers are listed
	go func() {
		defer close(asked)
		remote, err = listHosts(ctx, tmux, o)
	}()
	clients := tmuxctl.Covered(tmux, o.oneServer, true, os.Getenv, os.Getuid())
	local := table.ListServers(ctx, clients, std.finder, o.all, os.Getenv, os.Getuid(), std.err)
	<-asked
	if err != nil {
		return err
	}
	width := 0
	if std.outTTY {
		width, _ = std.outSize()
	}
	l := table.NewListing(local, remote, o.all, o.oneServer)
	return l.Print(std.out, std.err, o.asJSON, width, std.clock.Now())
}

// listHosts asks the other hosts (--host, else [hosts] names) for their panes, all at once.
func listHosts(ctx context.Context, tmux *tmuxctl.Client, o listOptions) ([]hosts.Result, error) {
	names := o.hosts
	// A server that cannot be asked has a line of its own (table.ListServers); the hosts are asked
	// with the file's settings then.
	l, err := settingsBeside(ctx, tmux, config.Path(os.Getenv), nil)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	if !o.hostsGiven {
		names = l.Config.Hosts.Names
	}
	if len(names) == 0 {
		return nil, nil
	}
	return hosts.ListAll(ctx, names, hosts.OptionsOf(l.Config.Hosts)), nil
}

// checkHosts applies the rule of a host (config.CheckHost) to the hosts given with --host: a
// usage error naming the flag, before anything runs.
func checkHosts(c *cobra.Command, names ...string) error {
	for _, h := range names {
		if msg := config.CheckHost(h); msg != "" {
			return usageErrorf("%s--host: %s (got %s)", prefix(c), msg, config.Quote(h))
		}
	}
	return nil
}
