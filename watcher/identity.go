package watcher

import (
	"context"
	"strconv"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// identity is what the watcher knows about the process in a pane.
type identity struct {
	proc.Identity
	agent   agent.Name // which agent runs there
	how     string
	unknown bool     // taken for Claude Code by command and title only
	ok      bool     // Claude Code runs in the pane
	key     identKey // the listing fields the answer was derived from
}

// identKey is what must change in a listing row for a cached answer to be asked again: the
// pane's process, its foreground command, and whether its title looks like Claude Code's. It
// is a comparable value, so the per-pane check of every tick allocates nothing.
type identKey struct {
	pid     int
	command string
	hint    bool
}

func keyOf(info tmuxctl.Pane) identKey {
	return identKey{info.PID, info.Command, proc.Hint("", info.Title)}
}

// maybeClaude says whether the pane runs Claude Code, from the cache while the pane's
// process, command and title hint are unchanged (a shell at its prompt costs nothing per tick).
// fresh is true when the answer was just asked of the process table.
func (w *Watcher) maybeClaude(ctx context.Context, info tmuxctl.Pane) (id identity, fresh bool) {
	if c, ok := w.idents[info.ID]; ok && c.key == keyOf(info) {
		return c, false
	}
	id, _ = w.identify(ctx, info)
	return id, true
}

// identify asks the process table which claude process runs in the pane. When neither /proc
// nor ps can tell, a pane whose command and title look like Claude Code is supervised with an
// unknown identity: its state is shown, but nothing is ever typed into it.
func (w *Watcher) identify(ctx context.Context, info tmuxctl.Pane) (identity, bool) {
	found, ok, err := w.finder.Find(ctx, info.PID)
	id := identity{key: keyOf(info)}
	switch {
	case err != nil:
		if _, warned := w.failing["process table"]; !warned {
			w.failing["process table"] = err.Error()
			w.cfg.Log.Warn().Err(err).Msg("cannot read the process table; panes are recognised by command and title only and never typed into")
		}
		if proc.Hint(info.Command, info.Title) {
			id.ok, id.unknown, id.agent, id.how = true, true, agent.Claude, "command "+strconv.Quote(info.Command)+" and title only"
		}
	case ok && w.cfg.Agents[found.Agent].Off:
		id.how = found.Agent.Title() + " runs in the pane, and the configuration turns it off"
	case ok:
		id.Identity, id.agent, id.how, id.ok = found.Identity, found.Agent, found.How, true
	case found.Starting:
		// tmux's fork, before the program: its row may already name the program, and so
		// will the next one, so the answer must not be kept under that row (found.Starting).
		delete(w.idents, info.ID)
		return id, false
	}
	w.idents[info.ID] = id
	return id, id.ok
}
