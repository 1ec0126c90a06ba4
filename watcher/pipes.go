package watcher

import (
	"context"
	"slices"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The output pipes (tmuxctl/pipes.go): where the server signals no output itself (tmux 3.2a
// to 3.7), the watcher pipes the output of each Claude pane it supervises to itself, so that a
// tick with nothing printed lists nothing. A pane is piped once per process in it (the pane
// option that marks the pipe keeps the pane's pid): a pipe closed under the watcher, by the
// user's pipe-pane, is left closed, and while any Claude pane is not piped, every tick lists
// what changed, as without pipes.

// piper pipes panes' output (tmuxctl.Client); a Tmux without it pipes nothing.
type piper interface {
	PipeMark() string
	PipeOutput(ctx context.Context, panes []string) ([]tmuxctl.Pane, error)
}

// pipedFor is the longest time ticks list nothing while every Claude pane is piped and none
// printed: a pane that is not Claude's yet (a shell where claude is then started) is not
// piped, and is seen by the listing of changes made by the end of it.
const pipedFor = 5 * time.Second

// pipesPerTick is how many panes a tick pipes at most: each pipe forks the tmux server, and
// the user's commands wait meanwhile (tmuxctl's pipeBatch); 1,000 Claude panes are piped in
// 32 ticks.
const pipesPerTick = 32

// pipeMark is the PipeMark of the watcher's pipes, "" when it pipes nothing.
func (w *Watcher) pipeMark() string {
	if p, ok := w.tmux.(piper); ok && !w.cfg.DryRun {
		return p.PipeMark()
	}
	return ""
}

// piped reports whether every supervised pane's output is piped to the watcher, as its last
// row says.
func (w *Watcher) piped() bool {
	mark := w.pipeMark()
	if mark == "" {
		return false
	}
	for _, p := range w.panes {
		if !p.info.Pipe || p.info.PipeMark != mark {
			return false
		}
	}
	return true
}

// pipe pipes the output of each supervised pane that has no pipe and whose pipe was not the
// watcher's for the process it runs now, pipesPerTick at most, and notes each pane's pipe as
// tmux then reports it. It runs at the end of a tick, after its listing's panes were visited.
func (w *Watcher) pipe(ctx context.Context) error {
	mark := w.pipeMark()
	if mark == "" {
		w.listed.piped = false
		return nil
	}
	var ids []string
	all := true // every pane piped to the watcher: piped, in the same pass
	for id, p := range w.panes {
		all = all && p.info.Pipe && p.info.PipeMark == mark
		if closed := p.info.PipeMark == mark && p.info.PipePID == p.info.PID; !p.info.Pipe && !closed {
			ids = append(ids, id)
		}
	}
	// The listing covered what printed before it only if the panes it showed first were
	// piped too.
	w.listed.piped = w.listed.piped && all
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	rows, err := w.tmux.(piper).PipeOutput(ctx, ids[:min(len(ids), pipesPerTick)])
	for _, r := range rows {
		if p := w.panes[r.ID]; p != nil {
			p.info.Pipe, p.info.PipeMark, p.info.PipePID = r.Pipe, r.PipeMark, r.PipePID
		}
	}
	return err
}
