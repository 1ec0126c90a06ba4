package watcher

import (
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/hosts"
)

// A Row as `list --json` writes it, and back: hosts.Pane is the one definition of a listed
// pane, on this host and on another one reached through ssh.

// Listed is the row r as list --json writes it; watching says whether a watcher runs on its
// server. Server and Host are the listing's to set.
func (r Row) Listed(watching bool) hosts.Pane {
	return hosts.Pane{Pane: r.Pane, Target: r.Target, Agent: string(r.Agent), State: string(r.State), Reset: instant(r.Reset),
		Due: instant(r.Due), Zone: r.Zone, ResetSource: string(r.Source), Kind: r.Kind, Account: r.Account, Note: r.Note,
		WatcherRunning: watching}
}

// RowFromListed is a pane another host listed, as a row of the table: its reset shown in its zone
// when this host knows the zone. A time that does not parse is unknown (zero); an agent
// omitted (an older cac-tmux) is Claude Code, one this version does not know keeps its name.
func RowFromListed(p hosts.Pane) Row {
	who, err := agent.Parse(p.Agent)
	if err != nil {
		who = agent.Name(p.Agent)
	}
	r := Row{Pane: p.Pane, Target: p.Target, Agent: who, State: State(p.State), Zone: p.Zone,
		Source: ResetSource(p.ResetSource), Kind: p.Kind, Account: p.Account, Note: p.Note}
	if p.Reset != nil {
		r.Reset, _ = time.Parse(time.RFC3339, *p.Reset)
		if loc, err := time.LoadLocation(p.Zone); err == nil && p.Zone != "" {
			r.Reset = r.Reset.In(loc)
		}
	}
	if p.Due != nil {
		r.Due, _ = time.Parse(time.RFC3339, *p.Due)
	}
	return r
}

// instant is t in RFC 3339, nil when t is zero (unknown).
func instant(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.Format(time.RFC3339)
	return &s
}
