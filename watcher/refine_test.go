package watcher_test

import (
	"context"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Refine reads a live pane's records as the watcher does (`inspect --pane`): the transcript's
// reset to the second when its usage-limit row belongs to the stop on screen; otherwise, or
// without a claude process or its records, the screen's reading.
func TestRefine(t *testing.T) {
	ctx := context.Background()
	exact := time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC)
	printed := time.Date(2026, 11, 20, 19, 30, 0, 0, time.UTC)
	verdict := func(p *fakePane) detector.Verdict {
		return detector.Detect(p.screen, detector.Facts{Now: t0, Zone: time.UTC})
	}

	r := newRig(t, nil)
	p := limited(r, "%1", 100, exact)
	v, src, account := watcher.Refine(ctx, r.tmux, r.tmux, "%1", verdict(p), t0)
	if !v.Limited || !v.Reset.At.Equal(exact) || v.Reset.Ambiguous || src != watcher.SourceTranscript || account != p.env().Dir() {
		t.Errorf("Refine = reset %s, %s, %q; want %s from the transcript and the account %s", v.Reset.At, src, account, exact, p.env().Dir())
	}

	other := limited(r, "%2", 200, exact.Add(time.Hour)) // another stop's row
	if v, src, account := watcher.Refine(ctx, r.tmux, r.tmux, "%2", verdict(other), t0); !v.Reset.At.Equal(printed) || src != watcher.SourceScreen || account != other.env().Dir() {
		t.Errorf("Refine with a row of another stop = reset %s, %s, %q; want the printed %s, the screen, the account", v.Reset.At, src, account, printed)
	}

	running := r.tmux.add("%3", 300, idle())
	running.session(t, sess, "idle")
	if v, src, account := watcher.Refine(ctx, r.tmux, r.tmux, "%3", verdict(running), t0); v.Limited || src != watcher.SourceScreen || account != running.env().Dir() {
		t.Errorf("Refine of a running session = %v, %s, %q; want not limited, the screen, the account", v.Limited, src, account)
	}

	shell := r.tmux.add("%4", 400, stopped("7:30pm", ""))
	shell.claude = proc.Identity{} // the limit text in a shell
	for _, id := range []string{"%4", "%9"} {
		if v, src, account := watcher.Refine(ctx, r.tmux, r.tmux, id, verdict(shell), t0); !v.Reset.At.Equal(printed) || src != watcher.SourceScreen || account != "" {
			t.Errorf("Refine(%s) without a claude process = reset %s, %s, %q; want the printed %s, the screen, no account", id, v.Reset.At, src, account, printed)
		}
	}

	r.tmux.dir = "" // the process's environment is unreadable
	if v, src, account := watcher.Refine(ctx, r.tmux, r.tmux, "%1", verdict(p), t0); !v.Reset.At.Equal(printed) || src != watcher.SourceScreen || account != "" {
		t.Errorf("Refine without records = reset %s, %s, %q; want the printed %s, the screen, no account", v.Reset.At, src, account, printed)
	}
}
