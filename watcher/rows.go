package watcher

import (
	"fmt"
	"slices"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// Row is one supervised pane as `watch` and `list` show it.
type Row struct {
	// Server names the tmux server of the pane where rows of several are shown together
	// ("work", a socket path, "dev1" for another host's); "" when rows of one are shown.
	Server string
	Pane   string // "%12"
	Target string // session:window.pane
	// Agent is the agent that runs in the pane.
	Agent agent.Name
	State State
	Kind  string
	// Reset is the instant the limit lifts, in the zone it was printed in; zero when unknown.
	Reset time.Time
	Zone  string // the IANA zone of Reset as printed or assumed
	// Source says where Reset comes from; "" when Reset is unknown.
	Source ResetSource
	// Account is the claude process's config directory, "" when unknown.
	Account string
	// Due is when the watcher acts, zero when it will not.
	Due  time.Time
	Note string
}

// Rows returns the supervised panes, paused ones first (earliest due first), then the
// running ones by pane id.
func (w *Watcher) Rows() []Row {
	rows := make([]Row, 0, len(w.panes))
	for _, p := range w.panes {
		r := Row{Pane: p.info.ID, Target: p.info.Target(), Agent: p.agent, State: p.state, Kind: string(p.kind), Due: p.dueAt(), Note: p.note, Account: p.account()}
		if p.state.Paused() && p.reset.Known {
			r.Reset, r.Zone, r.Source = p.reset.At, p.reset.Zone, p.source
		}
		if !p.state.Paused() {
			r.Kind = ""
		}
		rows = append(rows, r)
	}
	sortRows(rows)
	return rows
}

// rowOf reads a row from the pane options a watcher published; a pane without them is
// running (and its agent Claude Code, which an unset @cac_agent is). It is how `list` works
// without a watcher. An unknown state, kind or agent (another version published it, or
// someone set the option by hand) is an error.
func rowOf(info tmuxctl.Pane) (Row, error) {
	o := info.Options
	r := Row{Pane: info.ID, Target: info.Target(), State: Running, Kind: o.Kind, Zone: o.Zone, Note: o.Note, Account: o.Account}
	who, err := agent.Parse(o.Agent)
	if err != nil {
		return Row{}, fmt.Errorf("watcher: pane %s: @cac_agent: %w", info.ID, err)
	}
	r.Agent = who
	if o.State != "" {
		st, err := parseState(o.State)
		if err != nil {
			return Row{}, fmt.Errorf("watcher: pane %s: @cac_state: %w", info.ID, err)
		}
		r.State = st
	}
	if _, err := detector.ParseKind(o.Kind); err != nil {
		return Row{}, fmt.Errorf("watcher: pane %s: @cac_kind: %w", info.ID, err)
	}
	r.Reset = parseInstant(o.Reset, o.Zone)
	if !r.Reset.IsZero() {
		src, err := parseResetSource(o.Source)
		if err != nil {
			return Row{}, fmt.Errorf("watcher: pane %s: @cac_source: %w", info.ID, err)
		}
		r.Source = src
	}
	r.Due = parseInstant(o.Due, o.Zone)
	return r, nil
}

// parseInstant reads an RFC3339 option value, in zone when it loads; zero when unset or
// unreadable.
func parseInstant(s, zone string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	if loc, err := time.LoadLocation(zone); err == nil && zone != "" {
		t = t.In(loc)
	}
	return t
}

// sortRows orders rows paused first, by due instant (none last), then by pane id.
func sortRows(rows []Row) {
	slices.SortStableFunc(rows, func(a, b Row) int {
		if pa, pb := a.State.Paused(), b.State.Paused(); pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		if a.Due.IsZero() != b.Due.IsZero() {
			if a.Due.IsZero() {
				return 1
			}
			return -1
		}
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		return compareIDs(a.Pane, b.Pane)
	})
}
