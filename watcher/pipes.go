package watcher

import (
	"context"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The output pipes (tmuxctl/pipes.go): where the server signals no output itself (tmux 3.2a
// to 3.7), the watcher pipes the output of each Claude pane it supervises to itself, so that a
// tick with nothing printed lists nothing. A pane is piped once per process in it: a pipe
// closed under the watcher (the user's pipe-pane toggles it) is left closed, and while any
// Claude pane is not piped, every tick lists what changed, as without pipes.

// piper pipes panes' output (tmuxctl.Client); a Tmux without it pipes nothing.
type piper interface {
	PipeMark() string
	PipeOutput(ctx context.Context, panes []string) ([]tmuxctl.Pane, error)
}

// pipedFor is the longest time ticks list nothing while every Claude pane is piped and none
// printed: a pane that is not Claude's yet (a shell where claude is then started) is not
// piped, and is seen by the listing of changes made at the end of it.
const pipedFor = 5 * time.Second

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

// pipe pipes the output of each supervised pane that has no pipe and was not piped by the
// watcher for the process it runs now, and notes each pane's pipe as tmux then reports it.
// It runs at the end of a tick, after its listing's panes were visited.
func (w *Watcher) pipe(ctx context.Context) error {
	// The listing covered what printed before it only if the panes it showed first were
	// piped too.
	w.listed.piped = w.listed.piped && w.piped()
	mark := w.pipeMark()
	if mark == "" {
		return nil
	}
	var ids []string
	for id, p := range w.panes {
		if !p.info.Pipe && p.pipedPID != p.info.PID {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := w.tmux.(piper).PipeOutput(ctx, ids)
	for _, r := range rows {
		if p := w.panes[r.ID]; p != nil {
			p.info.Pipe, p.info.PipeMark, p.pipedPID = r.Pipe, r.PipeMark, p.info.PID
		}
	}
	return err
}
