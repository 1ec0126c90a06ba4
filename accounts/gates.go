package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// gates checks on a fresh look that the session may be moved now: the same Claude Code
// process in the pane, stopped at a usage limit (the detector) that its transcript records
// for this process (records.StopOf: not a stop redrawn by a reopened conversation, nor one
// quoted in a reply), no draft in the input box, no turn running (screen and registry), the
// same session.
func (sw *switching) gates(ctx context.Context) error {
	id := sw.pane.ID
	info, err := sw.Tmux.PaneInfo(ctx, id)
	if errors.Is(err, tmuxctl.ErrNoTarget) {
		return sw.refusal("pane %s is gone", id)
	}
	if err != nil {
		return err
	}
	found, ok, err := sw.Finder.Find(ctx, info.PID)
	if err != nil {
		return err
	}
	if !ok || info.PID != sw.pane.PID || found.Identity != sw.found.Identity {
		return sw.refusal("the Claude Code process looked at (pid %d) is no longer in the foreground of pane %s", sw.found.PID, id)
	}
	screen, err := sw.Tmux.Capture(ctx, id)
	if err != nil {
		return err
	}
	switch v := detector.Detect(screen, detector.Facts{Now: sw.Clock.Now(), Zone: time.Local}); {
	case v.Busy:
		return sw.refusal("a turn runs in pane %s", id)
	case !v.Limited:
		return sw.refusal("pane %s is not stopped at a usage limit (%s)", id, v.Reason)
	case v.Input.Draft != "" && !v.Prefilled:
		return sw.refusal("the input box of pane %s holds a draft: send it or clear it first", id)
	}
	return sw.recorded(found)
}

// recorded checks Claude Code's own records of process found: its registry entry names the
// same session, idle, and its transcript ends in a usage limit of this process.
func (sw *switching) recorded(found proc.Found) error {
	start, _ := found.ProcStart()
	entry, err := sw.env.Session(found.PID, start)
	switch {
	case err != nil:
		return sw.refusal("Claude Code's session registry has no entry for pid %d any more (%v)", found.PID, err)
	case entry.SessionID != sw.entry.SessionID:
		return sw.refusal("Claude Code (pid %d) runs another session now (%s)", found.PID, entry.SessionID)
	case entry.Busy():
		return sw.refusal("Claude Code's session registry says a turn runs (pid %d)", found.PID)
	}
	rows, err := records.ReadTail(sw.script, entry.SessionID)
	if err != nil {
		return sw.refusal("the transcript of session %s cannot be read: %v", entry.SessionID, err)
	}
	switch records.StopOf(rows, entry.Started()) {
	case records.StopOwn:
		return nil
	case records.StopEarlier:
		return sw.refusal("the stop on screen is an earlier process's, redrawn by a reopened conversation: session %s is not stopped now", entry.SessionID)
	case records.StopNone:
		return sw.refusal("the transcript of session %s goes on after its last usage limit: the stop on screen is only text", entry.SessionID)
	}
	return sw.refusal("the transcript of session %s does not end in a usage limit of this process", entry.SessionID)
}
