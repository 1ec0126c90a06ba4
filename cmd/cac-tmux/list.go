package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
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

// served is what list found on one tmux server of this host.
type served struct {
	label    string // the server in a table of several: "work", a socket path
	name     string // the server in a sentence (serverName)
	rows     []watcher.Row
	watching bool
	err      error  // why the server gave no listing; it hides no other server's
	problem  string // err as the line that names the server shows it; "" when none is shown
	warnings string // the lines that say which panes were left out of rows, and why
}

func runList(ctx context.Context, tmux *tmuxctl.Client, o listOptions, std *deps) error {
	var remote []hosts.Result
	var err error
	asked := make(chan struct{}) // the hosts are asked while the servers are listed
	go func() {
		defer close(asked)
		remote, err = listHosts(ctx, tmux, o)
	}()
	local := listServers(ctx, tmux, o, std.err)
	<-asked
	if err != nil {
		return err
	}
	for i := range local {
		local[i].problem = serverProblem(local[i], remote, o.oneServer)
	}
	if err := noneListed(local, remote); err != nil {
		return err
	}
	if o.asJSON {
		return writeListJSON(local, remote, o.all, std)
	}
	writeListTable(local, remote, o.all, std)
	return nil
}

// writeListTable writes the table of the panes (every one with all, else the paused ones) of
// this host's servers and the other hosts', each server or host without a listing named by a
// line of its own first.
func writeListTable(local []served, remote []hosts.Result, all bool, std *deps) {
	byServer := map[string][]watcher.Row{}
	for _, s := range local {
		if s.err != nil {
			if s.problem != "" {
				fmt.Fprintf(std.out, "%s: %s\n", table.Printable(s.name), table.Printable(s.problem))
			}
			continue
		}
		if !s.watching {
			fmt.Fprintf(std.out, "no watcher runs on %s: nothing here will be resumed (start one: cac-tmux watch)\n", table.Printable(s.name))
		}
		byServer[s.label] = watcher.Shown(s.rows, s.watching)
	}
	for _, r := range remote {
		if r.Err != nil {
			fmt.Fprintf(std.out, "host %s: %s\n", table.Printable(r.Host), table.Printable(hostProblem(r.Err)))
			continue
		}
		for _, p := range r.Panes {
			if !all && !watcher.State(p.State).Paused() { // the hosts list every pane
				continue
			}
			name := r.Host
			if p.Server != "" {
				name += ":" + p.Server
			}
			byServer[name] = append(byServer[name], watcher.Shown([]watcher.Row{watcher.RowFromListed(p)}, p.WatcherRunning)...)
		}
	}
	rows := table.Merge(byServer)
	if len(rows) == 0 {
		fmt.Fprintln(std.err, "cac-tmux: no paused Claude Code pane")
		return
	}
	width := 0
	if std.outTTY {
		width, _ = std.outSize()
	}
	for _, line := range table.Format(table.Cells(rows, std.clock.Now()), width) {
		fmt.Fprintln(std.out, line)
	}
}

// listServers lists the panes of the servers tmuxctl.Covered gives, all at once: a server that
// fails, or answers only when its calls time out, is a served with its error, and delays or
// hides no other server.
func listServers(ctx context.Context, tmux *tmuxctl.Client, o listOptions, warn io.Writer) []served {
	dir := tmuxctl.SocketDir(os.Getenv, os.Getuid())
	local := askAll(tmuxctl.Covered(tmux, o.oneServer, true, os.Getenv, os.Getuid()), func(c *tmuxctl.Client) served {
		s := served{label: serverName(c), name: serverName(c)}
		if socket, err := c.SocketFileHere(); err == nil {
			s.label = tmuxctl.Label(socket, dir)
		}
		_, s.watching = watcher.Watching(ctx, c, os.Getenv)
		var warnings strings.Builder
		s.rows, s.err = watcher.ListRows(ctx, c, newFinder(), o.all, s.watching, &warnings)
		s.warnings = warnings.String()
		return s
	})
	for _, s := range local {
		io.WriteString(warn, s.warnings)
	}
	return local
}

// noneListed is the error of a list that has nothing to show but failures: every server of
// this host failed and no host was asked. A server that failed among others, or beside the
// hosts, is a line of the listing instead (serverProblem).
func noneListed(local []served, remote []hosts.Result) error {
	var errs []error
	for _, s := range local {
		if s.err == nil {
			return nil
		}
		if s.problem != "" {
			errs = append(errs, fmt.Errorf("list: %s: %w", s.name, hint(s.err)))
		}
	}
	if len(remote) > 0 {
		return nil
	}
	return errors.Join(errs...)
}

// serverProblem is the line that names a server of this host that gave no listing, "" for
// none: with hosts asked, no tmux server at all on this host is no problem (unless -L or -S
// named one).
func serverProblem(s served, remote []hosts.Result, oneServer bool) string {
	if s.err == nil || len(remote) > 0 && !oneServer && errors.Is(s.err, tmuxctl.ErrNoServer) {
		return ""
	}
	return hint(s.err).Error()
}

// askAll calls ask for every client at once and returns the answers in the clients' order:
// every tmux call is bounded, so a hung server delays the answer by one bound, not by one
// for each such server.
func askAll[T any](clients []*tmuxctl.Client, ask func(*tmuxctl.Client) T) []T {
	out := make([]T, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { out[i] = ask(c) })
	}
	wg.Wait()
	return out
}

// listHosts asks the other hosts (--host, else [hosts] names) for their panes, all at once.
func listHosts(ctx context.Context, tmux *tmuxctl.Client, o listOptions) ([]hosts.Result, error) {
	names := o.hosts
	// A server that cannot be asked has a line of its own (listServers); the hosts are asked
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
	return hosts.ListAll(ctx, names, hostOptions(l.Config.Hosts)), nil
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

// hostOptions are how the settings of [hosts] reach other hosts.
func hostOptions(h config.Hosts) hosts.Options {
	return hosts.Options{SSH: h.SSH[0], SSHArgs: h.SSH[1:], Command: h.Command, Timeout: h.Timeout}
}

// hostProblem is why a host gave no listing, for a line that names the host.
func hostProblem(err error) string {
	if e := (*hosts.Error)(nil); errors.As(err, &e) {
		return e.Reason()
	}
	return err.Error()
}

// writeListJSON writes the panes (every one with all, else the paused ones) of this host's
// servers and the other hosts' as one JSON array; a host that did not answer is named on
// stderr.
func writeListJSON(local []served, remote []hosts.Result, all bool, std *deps) error {
	out := []hosts.Pane{}
	named := 0
	for _, s := range local {
		if len(s.rows) > 0 {
			named++
		}
	}
	for _, s := range local {
		if s.err != nil {
			if s.problem != "" {
				fmt.Fprintf(std.err, "cac-tmux: %s: %s\n", s.name, s.problem)
			}
			continue
		}
		if !s.watching {
			fmt.Fprintf(std.err, "cac-tmux: no watcher is running on %s: nothing will be resumed; states are the last a watcher published (start one with: cac-tmux watch)\n", s.name)
		}
		for _, r := range s.rows {
			p := r.Listed(s.watching)
			if named > 1 {
				p.Server = s.label
			}
			out = append(out, p)
		}
	}
	for _, r := range remote {
		if r.Err != nil {
			fmt.Fprintf(std.err, "cac-tmux: host %s: %s\n", r.Host, hostProblem(r.Err))
		}
		for _, p := range r.Panes {
			if all || watcher.State(p.State).Paused() {
				p.Host = r.Host
				out = append(out, p)
			}
		}
	}
	enc := json.NewEncoder(std.out)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("list: write: %w", err)
	}
	return nil
}

// paneRows are the rows of every Claude Code pane as the popup and the completions show them:
// those of list --all, as its table shows them (watcher.Shown).
func paneRows(ctx context.Context, tmux *tmuxctl.Client) ([]watcher.Row, error) {
	_, watching := watcher.Watching(ctx, tmux, os.Getenv)
	rows, err := watcher.ListRows(ctx, tmux, newFinder(), true, watching, io.Discard)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", serverName(tmux), hint(err))
	}
	return watcher.Shown(rows, watching), nil
}
