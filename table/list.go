package table

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// The listing of `cac-tmux list`: the panes of this host's servers and of other hosts, as a
// table or as JSON, each server or host that gave none named with the reason, hiding no
// other.

// Served is what list found on one tmux server of this host.
type Served struct {
	Label    string // the server in a table of several: "work", a socket path
	Name     string // the server in a sentence ("server -L work")
	Rows     []watcher.Row
	Watching bool
	Err      error // why the server gave no listing; it hides no other server's
	// problem is Err as the line that names the server shows it; "" when none is shown.
	problem string
}

// Listing is what list shows: every pane with All, else the paused ones.
type Listing struct {
	Local  []Served
	Remote []hosts.Result
	All    bool
}

// NewListing is the listing of local and remote; oneServer is true when -L or -S named the
// one server of this host. With hosts asked, no tmux server at all on this host is no
// problem, unless -L or -S named one.
func NewListing(local []Served, remote []hosts.Result, all, oneServer bool) Listing {
	for i, s := range local {
		if s.Err != nil && (len(remote) == 0 || oneServer || !errors.Is(s.Err, tmuxctl.ErrNoServer)) {
			local[i].problem = s.Err.Error()
		}
	}
	return Listing{Local: local, Remote: remote, All: all}
}

// Unlisted are the servers whose failures are all a list has to show: every server of this
// host failed and no host was asked. A server that failed among others, or beside the hosts,
// is a line of the listing instead. nil when there is something to show.
func (l Listing) Unlisted() []Served {
	var failed []Served
	for _, s := range l.Local {
		if s.Err == nil {
			return nil
		}
		if s.problem != "" {
			failed = append(failed, s)
		}
	}
	if len(l.Remote) > 0 {
		return nil
	}
	return failed
}

// Print writes the listing as list prints it: JSON (WriteJSON) or the table fitted to width
// (WriteTable). When the listing has nothing to show but failures (Unlisted), it prints
// nothing and its error names each server that failed.
func (l Listing) Print(out, errw io.Writer, asJSON bool, width int, now time.Time) error {
	var errs []error
	for _, s := range l.Unlisted() {
		errs = append(errs, fmt.Errorf("list: %s: %w", s.Name, s.Err))
	}
	switch {
	case len(errs) > 0:
		return errors.Join(errs...)
	case asJSON:
		if err := l.WriteJSON(out, errw); err != nil {
			return fmt.Errorf("list: write: %w", err)
		}
	default:
		l.WriteTable(out, errw, width, now)
	}
	return nil
}

// WriteTable writes the table of the panes at now, fitted to width (0: unbounded), each
// server or host without a listing named by a line of its own first; with no pane to show,
// it says so on errw.
func (l Listing) WriteTable(out, errw io.Writer, width int, now time.Time) {
	byServer := map[string][]watcher.Row{}
	for _, s := range l.Local {
		if s.Err != nil {
			if s.problem != "" {
				fmt.Fprintf(out, "%s: %s\n", Printable(s.Name), Printable(s.problem))
			}
			continue
		}
		if !s.Watching {
			fmt.Fprintf(out, "no watcher runs on %s: nothing here will be resumed (start one: cac-tmux watch)\n", Printable(s.Name))
		}
		byServer[s.Label] = watcher.Shown(s.Rows, s.Watching)
	}
	for _, r := range l.Remote {
		if r.Err != nil {
			fmt.Fprintf(out, "host %s: %s\n", Printable(r.Host), Printable(hosts.Reason(r.Err)))
			continue
		}
		for _, p := range r.Panes {
			if !l.All && !watcher.State(p.State).Paused() { // the hosts list every pane
				continue
			}
			name := r.Host
			if p.Server != "" {
				name += ":" + p.Server
			}
			byServer[name] = append(byServer[name], watcher.Shown([]watcher.Row{watcher.RowFromListed(p)}, p.WatcherRunning)...)
		}
	}
	rows := Merge(byServer)
	if len(rows) == 0 {
		fmt.Fprintln(errw, "cac-tmux: no paused "+AnyAgent()+" pane")
		return
	}
	for _, line := range Format(Cells(rows, now), width) {
		fmt.Fprintln(out, line)
	}
}

// WriteJSON writes the panes as one JSON array of hosts.Pane on out; a server or host that
// gave none, or has no watcher, is named on errw.
func (l Listing) WriteJSON(out, errw io.Writer) error {
	panes := []hosts.Pane{}
	named := 0
	for _, s := range l.Local {
		if len(s.Rows) > 0 {
			named++
		}
	}
	for _, s := range l.Local {
		if s.Err != nil {
			if s.problem != "" {
				fmt.Fprintf(errw, "cac-tmux: %s: %s\n", s.Name, s.problem)
			}
			continue
		}
		if !s.Watching {
			fmt.Fprintf(errw, "cac-tmux: no watcher is running on %s: nothing will be resumed; states are the last a watcher published (start one with: cac-tmux watch)\n", s.Name)
		}
		for _, r := range s.Rows {
			p := r.Listed(s.Watching)
			if named > 1 {
				p.Server = s.Label
			}
			panes = append(panes, p)
		}
	}
	for _, r := range l.Remote {
		if r.Err != nil {
			fmt.Fprintf(errw, "cac-tmux: host %s: %s\n", r.Host, hosts.Reason(r.Err))
		}
		for _, p := range r.Panes {
			if l.All || watcher.State(p.State).Paused() {
				p.Host = r.Host
				panes = append(panes, p)
			}
		}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(panes)
}
