package watcher

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/detector"
)

// A prompt typed into an idle Claude Code session: a reply from a phone (package phone),
// opt-in. It goes through the request protocol like a resume, so that the running
// watcher, which owns the pane, is the one that types; and through gates of its own, stricter
// than a resume's: the session must be idle at its prompt, not stopped.

// Prompt types a prompt: the text literally, then Enter once the input box shows exactly it.
const Prompt Action = "prompt"

// CheckPrompt says what is wrong with text as a prompt, "" when nothing: the rule of the
// text typed into Claude Code's input box (config.CheckInput: not blank, one line, no control
// character, no leading "!" or "/"), and at most
// config.MaxPrompt characters.
func CheckPrompt(text string) string {
	if msg := config.CheckInput(text); msg != "" {
		return "the prompt " + msg
	}
	if n := utf8.RuneCountInString(text); n > config.MaxPrompt {
		return fmt.Sprintf("the prompt is %d characters long; at most %d are typed", n, config.MaxPrompt)
	}
	return ""
}

// prompt types text into session p, which do has just looked at: refused unless the session
// runs, idle at an empty input box, every key after a fresh look (idleAt).
func (w *Watcher) prompt(ctx context.Context, p *pane, text string) (Outcome, error) {
	if why := CheckPrompt(text); why != "" {
		return refused("%s; nothing was typed", why), nil
	}
	if p.state != Running {
		return refused("pane %s is %s: a prompt goes only to a session idle at its prompt (resume a stopped one); nothing was typed", p.info.ID, p.state), nil
	}
	v, why, err := w.idleAt(ctx, p)
	if err != nil || why != "" {
		return refused("%s; nothing was typed", why), err
	}
	if !v.Input.VimInsert && w.vimMode(ctx, p) {
		return refused("%s in pane %s has vim mode on: a prompt is typed only in its INSERT mode; nothing was typed", p.agent.Title(), p.info.ID), nil
	}
	if err := w.tmux.SendLiteral(ctx, p.info.ID, text); err != nil {
		return Outcome{}, err
	}
	p.event(w.cfg.Log.Info()).Int("chars", utf8.RuneCountInString(text)).Msg("typed a prompt asked for")
	if err := w.awaitDraft(ctx, p, text); err != nil {
		return Outcome{Sent: true, Message: err.Error() + "; no Enter was sent and the box is left as it is"}, nil
	}
	if after := p.program().EnterAfter; after > 0 { // as typeAndEnter: a look after the wait
		if err := w.cfg.Clock.Sleep(ctx, after); err != nil {
			return Outcome{}, err
		}
		if err := w.awaitDraft(ctx, p, text); err != nil {
			return Outcome{Sent: true, Message: err.Error() + "; no Enter was sent and the box is left as it is"}, nil
		}
	}
	if err := w.tmux.SendKey(ctx, p.info.ID, "Enter"); err != nil {
		return Outcome{}, err
	}
	return Outcome{Done: true, Message: "typed the prompt into " + p.info.Target() + " and pressed Enter"}, nil
}

// idleAt looks at session p afresh and says why no prompt may be typed into it, "" when it
// may: the pane takes keys safely (SAFETY.md, rule 1), the same claude process is in the
// foreground, and the screen shows it idle at an empty input box: no stop, no menu, no turn
// running, no draft.
func (w *Watcher) idleAt(ctx context.Context, p *pane) (detector.Verdict, string, error) {
	info, err := w.tmux.PaneInfo(ctx, p.info.ID)
	if err != nil {
		return detector.Verdict{}, "pane " + p.info.ID + " cannot be read", err
	}
	if why := unsafe(info); why != "" {
		return detector.Verdict{}, why, nil
	}
	found, same, err := w.finder.Find(ctx, info.PID)
	if err != nil || !same || found.Identity != p.Identity {
		return detector.Verdict{}, "the claude process is no longer in the foreground of pane " + p.info.ID, nil
	}
	a := p.program()
	text, err := w.capture(ctx, p.info.ID, a)
	if err != nil {
		return detector.Verdict{}, "pane " + p.info.ID + " cannot be captured", err
	}
	v := a.Detect(text, detector.Facts{Now: w.now(), Zone: w.zone(p)})
	switch {
	case v.Limited:
		return v, "pane " + p.info.ID + " is stopped at a limit (resume it instead)", nil
	case v.Menu.Open || !v.Input.Visible:
		return v, "pane " + p.info.ID + " shows no input box (a menu or a dialog is open)", nil
	case v.Busy:
		return v, "a turn runs in pane " + p.info.ID, nil
	case v.Input.Draft != "":
		return v, "the input box of pane " + p.info.ID + " holds a draft", nil
	}
	return v, "", nil
}

// awaitDraft waits, a fresh look every Pause for at most Settle, until the input box shows
// exactly text (Claude Code may take a moment to draw it); an error says what it showed
// instead.
func (w *Watcher) awaitDraft(ctx context.Context, p *pane, text string) error {
	deadline := w.now().Add(w.cfg.Settle)
	for {
		if err := w.cfg.Clock.Sleep(ctx, w.cfg.Pause); err != nil {
			return err
		}
		a := p.program()
		screen, err := w.capture(ctx, p.info.ID, a)
		if err != nil {
			return fmt.Errorf("pane %s could not be read after the prompt was typed", p.info.ID)
		}
		v := a.Detect(screen, detector.Facts{Now: w.now(), Zone: w.zone(p)})
		draft, want := unblank(v.Input.Draft), unblank(text)
		switch {
		case draft == want:
			return nil
		case !strings.HasPrefix(want, draft) || !w.now().Before(deadline):
			return fmt.Errorf("the input box of %s did not show the prompt typed", p.info.Target())
		}
	}
}

// unblank is s without its blanks: the input box wraps a long prompt over lines, and a line
// ends without the blank it wrapped at.
func unblank(s string) string { return strings.Join(strings.Fields(s), "") }
