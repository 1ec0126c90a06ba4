package watcher

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// What a watcher published, read back by the commands that do not supervise: whether one
// runs (list, the popup, status, doctor, resume), the rows of the panes it published as
// paused (list, the popup) and the counts of the status line.

// unwatched is the state of a pane ListRows saw stopped at a limit while no watcher runs and
// none published anything for it (a server never watched, or a stop after the watcher
// ended). It is no state of a watcher's (parseState refuses it).
const unwatched State = "stopped"

// ListRows are the rows of the panes a watcher published as paused on the server of c,
// earliest due first, and with all the Claude Code panes that run normally too (f tells
// which do), and the panes where Claude Code runs on another host (Remote). When no watcher runs (watching false) a Claude pane nothing is published for
// whose screen may show a stop (tmux's search finds limit text there, or the pane is too
// narrow for the search) is looked at here, read-only: stopped at a limit, its row's state is
// "stopped". A pane whose published state cannot be read is left out, and warn says so. An
// error is tmux's listing's, as it came.
func ListRows(ctx context.Context, c *tmuxctl.Client, f Finder, all, watching bool, warn io.Writer) ([]Row, error) {
	var search tmuxctl.Search
	if !watching {
		search.Pattern = prefilter.Pattern
	}
	panes, err := c.ListPanes(ctx, search)
	if err != nil {
		return nil, err
	}
	var rows []Row
	now := clock.Or(c.Wall).Now()
	for _, p := range panes {
		r, err := rowOf(p)
		if err != nil {
			fmt.Fprintf(warn, "cac-tmux: %v; the pane is left out\n", err)
			continue
		}
		if r.State == Running {
			look := !watching && (p.Match > 0 || p.Width < narrow)
			a, claude := agent.Name(""), false
			if all || look {
				a, claude = agentIn(ctx, f, p)
			}
			if claude {
				r.Agent = a // nothing published: the process tells
			}
			if look && claude {
				r = stoppedHere(ctx, c, p, agent.For(a), r, now)
			}
			if all && !claude && proc.RemoteShell(p.Command) && proc.Hint("", p.Title) {
				r.State, r.Note = Remote, remoteNote(p.Command)
			}
			if r.State == Running && (!all || !claude) {
				continue
			}
		}
		rows = append(rows, r)
	}
	sortRows(rows)
	return rows, nil
}

// remoteNote says why a pane where Claude Code runs on another host is not supervised, and
// what to do.
func remoteNote(command string) string {
	return "Claude Code on another host, through " + command + ": nothing is typed here; run cac-tmux watch on that host"
}

// stoppedHere looks at the screen of Claude pane p, which has no published state, while no
// watcher runs: a stop at a limit makes its row r unwatched, with the reset and kind the
// screen prints (read as a watcher starting now would). It only captures the pane.
func stoppedHere(ctx context.Context, c *tmuxctl.Client, p tmuxctl.Pane, a agent.Agent, r Row, now time.Time) Row {
	screen, err := c.CaptureShot(ctx, tmuxctl.Shot{Pane: p.ID, Styled: a.Styled})
	if err != nil {
		return r
	}
	v := a.Detect(screen, detector.Facts{Now: now, Zone: time.Local})
	if !v.Limited {
		return r
	}
	r.State, r.Kind, r.Agent = unwatched, string(v.Kind), a.Name
	if v.Reset.Known && !a.Unzoned { // an unzoned reset needs the agent's records to be placed
		r.Reset, r.Zone, r.Source = v.Reset.At, v.Reset.Zone, SourceScreen
	}
	return r
}

// agentIn says which agent a pane runs: by its process, or by its command and title (Claude
// Code) where the process table cannot be read.
func agentIn(ctx context.Context, f Finder, p tmuxctl.Pane) (agent.Name, bool) {
	found, ok, err := f.Find(ctx, p.PID)
	if err != nil {
		return agent.Claude, proc.Hint(p.Command, p.Title)
	}
	return found.Agent, ok
}

// Shown are rows (ListRows) as the table of list and the popup show them. While no watcher
// runs nothing acts at a due instant, so none is shown (the countdown goes to the reset), and
// each paused state says that nobody keeps it: "waiting (stale)", the last one published, or
// "stopped (not watched)".
func Shown(rows []Row, watching bool) []Row {
	if watching {
		return rows
	}
	out := slices.Clone(rows)
	for i := range out {
		r := &out[i]
		switch {
		case r.State == unwatched:
			r.State = "stopped (not watched)"
		case r.State.Paused():
			r.State += " (stale)"
		}
		r.Due = time.Time{}
	}
	return out
}

// Status is what the status line says of a server: its paused panes, counted by what becomes
// of each (State.outlook), the soonest due instant among them, and whether a watcher runs.
type Status struct {
	// Paused counts the panes in a paused state (every published state but running); Waiting
	// those the watcher resumes on its own, Held those left to the user, Failed those it will
	// not resume. Waiting + Held + Failed = Paused.
	Paused, Waiting, Held, Failed int
	// Next is the soonest due instant among them; zero when none is due.
	Next time.Time
	// Watching is true when a watcher runs on the server: without one, what was published is
	// what the last watcher saw, and nothing is resumed.
	Watching bool
}

// StatusOf is the status of the server of c from its paused panes as one listing gave them
// (tmuxctl.Client.PausedPanes). A pane whose published state cannot be read (another
// version's, or set by hand) is left out. Whether a watcher runs is asked of the lock here
// (getenv finds its directory), else of the pid published with the panes (every row carries
// the same), and not at all when nothing is paused: no other tmux call, as a status line runs
// it every status-interval.
func StatusOf(c *tmuxctl.Client, getenv func(string) string, panes []tmuxctl.Pane) Status {
	var s Status
	rows := make([]Row, 0, len(panes))
	for _, p := range panes {
		if r, err := rowOf(p); err == nil && r.State.Paused() {
			rows = append(rows, r)
		}
	}
	sortRows(rows) // earliest due first, none last
	for _, r := range rows {
		s.Paused++
		switch r.State.outlook() {
		case leftToUser:
			s.Held++
		case notResumed:
			s.Failed++
		default:
			s.Waiting++
		}
	}
	if len(rows) > 0 {
		s.Next = rows[0].Due
	}
	if len(panes) > 0 {
		_, s.Watching = heldLock(c, getenv)
		if !s.Watching {
			_, s.Watching = Alive(panes[0].Watcher)
		}
	}
	return s
}
