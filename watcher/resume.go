package watcher

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The safety case (SAFETY.md) lists every rule below with the test that proves it.

// act does what is due for a pane: resume a waiting one, check the effect of keys sent.
func (w *Watcher) act(ctx context.Context, p *pane, now time.Time) error {
	if (p.state == Resuming || p.state == Verifying) && p.checkAt.Sub(now) > w.cfg.Pause+w.cfg.Settle {
		p.checkAt = now // the clock went back: a check is never further away than this
	}
	switch p.state {
	case Waiting, Native:
		if scheduler.IsDue(p.dueAt(), now) && !p.dryRun { // a dry run decides once per stop
			return w.resume(ctx, p, now)
		}
	case Resuming:
		if scheduler.IsDue(p.checkAt, now) {
			return w.afterMenu(ctx, p, now)
		}
	case Verifying:
		if scheduler.IsDue(p.checkAt, now) {
			return w.verify(ctx, p, now)
		}
	}
	return nil
}

// unsafe says why keys sent to the pane now would go astray, "" when they would not (SAFETY.md,
// rule 1; tmux 3.3a's send-keys exits 0 in all these cases and delivers nothing, or delivers
// to copy mode or to every synchronized pane).
func unsafe(info tmuxctl.Pane) string {
	switch {
	case info.Dead:
		return "the pane is dead"
	case info.InputOff:
		return "the pane's input is disabled"
	case info.Synced:
		return "the window has synchronize-panes on (keys would reach its other panes)"
	case info.InMode:
		return "the pane is in copy mode (keys would go to the mode)"
	}
	return ""
}

// look is a fresh look at a pane that passed every gate.
type look struct {
	screen string
	v      detector.Verdict
}

// gate re-reads the pane right before a key, any key, and keeps SAFETY.md's rules but the
// reset's: (1) the pane exists, is alive, takes input, is not synchronized and not in copy
// mode; (2) the same claude process is in the foreground; (3) the stop it waits on is still
// the latest thing on screen; (4) classified afresh, the pane is waiting (no draft in the input
// box, a readable menu, an input box on screen) and Claude Code's own auto-continue is not
// armed, or is past its grace. When a gate is closed, ok is false and the pane's state or note
// says why (a pane or process that is gone is forgotten); l holds the look when there was one.
func (w *Watcher) gate(ctx context.Context, p *pane, now time.Time) (l look, ok bool, err error) {
	id, log := p.info.ID, w.cfg.Log
	info, err := w.tmux.PaneInfo(ctx, id)
	if errors.Is(err, tmuxctl.ErrNoTarget) {
		delete(w.panes, id)
		return l, false, nil
	}
	if err != nil {
		return l, false, err
	}
	info.Match = p.info.Match
	p.info = info
	if why := w.outOfScope(info); why != "" {
		// Set since the last listing (a listing of changes does not show option changes).
		return l, false, w.leave(ctx, info, why)
	}
	if why := unsafe(info); why != "" {
		p.note = why + "; nothing is sent until it is safe"
		return l, false, nil
	}
	found, same, err := w.finder.Find(ctx, info.PID)
	switch {
	case p.unknown || err != nil:
		p.set(Held, "cannot confirm the claude process; nothing will be typed")
		return l, false, nil
	case !same || found.Identity != p.Identity:
		log.Info().Str("pane", id).Str("target", info.Target()).Msg("the claude process that stopped is no longer in the foreground; nothing typed")
		w.startOver(id)
		return l, false, nil
	}
	if !w.recordsAllow(ctx, p) {
		return l, false, nil
	}
	screen, v, read, err := w.read(ctx, p, now)
	if !read {
		return l, false, err
	}
	l = look{screen, v}
	switch {
	case !v.Limited:
		p.observe(v, now, w.message(p), log) // resumed by someone else
		return l, false, nil
	case v.Message != p.stop:
		w.takeNewStop(ctx, p, screen, now, now)
		return l, false, nil
	}
	w.judge(ctx, p)
	p.classify(v, now, w.message(p))
	key, _ := p.program().MenuKey(v.Menu)
	switch {
	case p.state != Waiting && p.state != Native:
		return l, false, nil
	case v.Menu.Open && key == "":
		return l, false, nil // a menu no key may answer: waiting for it to close (classify's note)
	case v.Native == detector.NativeArmed && !scheduler.IsDue(w.cfg.Schedule.Due(p.reset.At, p.exact(), true), now):
		p.set(Native, "Claude Code's own auto-continue is armed; it goes first")
		return l, false, nil
	}
	return l, true, nil
}

// step is what resumes a stopped session.
type step int

const (
	pressStop   step = iota + 1 // the options menu's Stop row's digit
	pressEnter                  // a bare Enter: Claude Code asks for it, or the message is in the box
	typeMessage                 // the message, then Enter after a fresh look
)

// plan chooses the step for a pane that passed every gate, and says it in words.
func (p *pane) plan(v detector.Verdict, message string) (step, string) {
	switch {
	case v.Menu.Open:
		key, does := p.program().MenuKey(v.Menu)
		return pressStop, "press " + key + " (" + does + ")"
	case p.pressEnter || v.Native == detector.NativePressEnter:
		return pressEnter, "press Enter (Claude Code asks for it)"
	case v.Prefilled:
		return pressEnter, "press Enter (Claude Code put " + strconv.Quote(v.Input.Draft) + " into the input box itself)"
	case p.typed && strings.TrimSpace(v.Input.Draft) == message:
		return pressEnter, "press Enter (the message is already in the input box)"
	}
	return typeMessage, "type " + strconv.Quote(message) + " and Enter"
}

// resume passes every gate right before the first key, then sends the step that resumes the
// session (a dry run only says it).
func (w *Watcher) resume(ctx context.Context, p *pane, now time.Time) error {
	prev, prevNote := p.state, p.note
	defer func() {
		if p.state != prev || p.note != prevNote {
			p.logState(w.cfg.Log, prev)
		}
	}()
	l, ok, err := w.gate(ctx, p, now)
	if !ok || !scheduler.IsDue(p.dueAt(), now) {
		return err
	}
	s, what := p.plan(l.v, w.message(p))
	if w.cfg.DryRun {
		if !p.dryRun {
			p.dryRun = true
			p.event(w.cfg.Log.Info()).Msg("dry run: would " + what)
		}
		p.note = "dry run: would " + what
		return nil
	}
	p.event(w.cfg.Log.Info()).Int("attempt", p.attempts+1).Msg(what)
	return w.send(ctx, p, l, s, now)
}

// unsaved keeps a pane waiting, its keys unsent, when its record could not be saved: a
// restart would not know the attempt and would send it again, past the bound on attempts.
// It is tried again at the next tick; the log says why once.
func (w *Watcher) unsaved(p *pane, err error) error {
	p.set(Waiting, "the state file cannot be written, so nothing is sent (a restart would repeat it): "+err.Error())
	p.checkAt = time.Time{}
	return nil
}

// send records the step in the state file, then sends its keys. Each resume is recorded
// before its keys go out: a watcher that dies in between finds it sent and looks for its
// effect instead of sending it again.
func (w *Watcher) send(ctx context.Context, p *pane, l look, s step, now time.Time) error {
	id := p.info.ID
	p.pre = digest(above(l.screen, l.v.Line))
	if s == pressStop {
		key, does := p.program().MenuKey(l.v.Menu)
		p.set(Resuming, "pressed "+does)
		p.pressed, p.checkAt = now, now.Add(w.cfg.Settle/3)
		if err := w.save(); err != nil {
			return w.unsaved(p, err)
		}
		return w.tmux.SendKey(ctx, id, key)
	}
	// The attempt is counted before its keys: a failed send is an attempt too, so a pane
	// that keeps failing cannot be typed into without bound.
	sent, typed := p.sent, p.typed
	p.attempts++
	p.sent = now
	p.typed = p.typed || s == typeMessage
	p.set(Verifying, "sent; looking for a resumed turn")
	p.checkAt = now.Add(w.cfg.Settle)
	if err := w.save(); err != nil {
		p.attempts, p.sent, p.typed = p.attempts-1, sent, typed // nothing went out
		return w.unsaved(p, err)
	}
	if s == pressEnter {
		return w.tmux.SendKey(ctx, id, "Enter")
	}
	// Once the text is typed the watcher finishes the step even when it is being stopped:
	// the Enter goes out only after a fresh look, which a stopping watcher still takes.
	return w.typeAndEnter(context.WithoutCancel(ctx), p, l.v)
}

// typeAndEnter types the message and presses Enter, each key after a fresh look through
// every gate: in vim mode's NORMAL mode it first presses i and waits to see INSERT; the
// Enter goes out only when the input box holds exactly the message.
func (w *Watcher) typeAndEnter(ctx context.Context, p *pane, v detector.Verdict) error {
	id, msg := p.info.ID, w.message(p)
	if !v.Input.VimInsert && w.vimMode(ctx, p) {
		if err := w.tmux.SendLiteral(ctx, id, "i"); err != nil {
			return err
		}
		ok, err := w.awaitShown(ctx, p, "after i for vim mode's INSERT mode", func(v detector.Verdict) shown {
			switch {
			case v.Input.Draft != "":
				return wrong
			case v.Input.VimInsert:
				return done
			}
			return pending
		})
		if !ok {
			return err
		}
	}
	if err := w.tmux.SendLiteral(ctx, id, msg); err != nil {
		return err
	}
	// Text and Enter in one call read as a paste (Claude Code 2.x, Codex): Enter goes alone.
	inBox := func(v detector.Verdict) shown {
		switch draft := strings.TrimSpace(v.Input.Draft); {
		case draft == msg:
			return done
		case strings.HasPrefix(msg, draft):
			return pending // not drawn yet, or drawn in part
		}
		return wrong
	}
	if ok, err := w.awaitShown(ctx, p, "before Enter", inBox); !ok {
		return err
	}
	if after := p.program().EnterAfter; after > 0 {
		// The agent reads an Enter soon after the text it drew as part of a paste
		// (agent.Agent.EnterAfter): the Enter waits that long after the look that showed the
		// text, then goes out after another look through every gate.
		if err := w.cfg.Clock.Sleep(ctx, after); err != nil {
			return err
		}
		if ok, err := w.awaitShown(ctx, p, "before Enter", inBox); !ok {
			return err
		}
	}
	return w.tmux.SendKey(ctx, id, "Enter")
}

// vimMode reports whether the pane's agent takes vim keys in its input box (its records say
// so: Claude Code's editorMode "vim"). When that cannot be read the answer is no: the look
// before Enter still finds a message that NORMAL mode ate.
func (w *Watcher) vimMode(ctx context.Context, p *pane) bool {
	s := w.recordsOf(ctx, p)
	if s == nil {
		return false
	}
	vim, err := s.VimMode()
	if err != nil {
		p.event(w.cfg.Log.Debug()).Err(err).Msg("editor mode unknown")
	}
	return vim
}

// shown is what the screen shows of the key just sent.
type shown int

const (
	done    shown = iota // what the key should have done
	pending              // not yet: Claude Code has not drawn it (all of it)
	wrong                // something else
)

// awaitShown waits for the screen to show what the key just sent should have done, looking every
// pause through every gate, for at most Settle (Claude Code can take a moment to draw). The
// next key may go out only when every gate holds and the screen shows it done. Otherwise the
// pane is held (or waits, when it stopped taking keys safely) and its note says what was seen.
func (w *Watcher) awaitShown(ctx context.Context, p *pane, when string, check func(detector.Verdict) shown) (bool, error) {
	state, note := p.state, p.note
	deadline := w.now().Add(w.cfg.Settle)
	for {
		if err := w.cfg.Clock.Sleep(ctx, w.cfg.Pause); err != nil {
			return false, err
		}
		l, ok, err := w.gate(ctx, p, w.now())
		if err != nil || w.panes[p.info.ID] != p {
			return false, err // or the pane or its claude process is gone
		}
		got := check(l.v)
		if ok && got == done {
			p.set(state, note)
			return true, nil
		}
		// A draft that is our text drawn in part closes the gate (classify holds it) but is
		// only not drawn yet; so is a capture of part of a frame.
		if !l.v.Limited && !wholeFrame(l.v) && p.state == state {
			got = pending
		}
		if (ok || p.state == Held && l.v.Input.Visible || p.state == state) && got == pending && w.now().Before(deadline) {
			p.set(state, note)
			continue
		}
		return false, w.stopTyping(p, ok, l.v, when)
	}
}

// stopTyping sets the state of a pane whose next key is not sent, from what then saw.
func (w *Watcher) stopTyping(p *pane, ok bool, v detector.Verdict, when string) error {
	switch {
	case ok: // every gate holds, but the screen never showed the key done
		p.set(Held, "the input box did not show what was typed "+when+" (vim mode's NORMAL mode?); nothing more is typed (resume by hand)")
		p.sticky = true
	case p.state == Verifying: // gate 1 closed: the pane stopped taking keys safely
		p.set(Waiting, p.note+" (what was typed is left in the input box)")
	case p.state == Held && v.Input.Draft != "":
		p.set(Held, "the input box held more than what was typed "+when+" (someone typed); no Enter was sent and the box is left as it is (resume by hand)")
		p.sticky = true
	default:
		return nil // the gate's own state: resumed, a new stop, armed, …
	}
	p.retryAt = time.Time{}
	w.save()
	return nil
}

// afterMenu checks that the menu closed after its key (agent.Agent.MenuKey: Claude Code's
// Stop digit, Codex's Esc), then goes on with the resume (every gate again). A menu still
// open Settle after the key is held: no key is pressed twice.
func (w *Watcher) afterMenu(ctx context.Context, p *pane, now time.Time) error {
	_, v, ok, err := w.read(ctx, p, now)
	if !ok {
		return err
	}
	if key, _ := p.program().MenuKey(v.Menu); v.Menu.Open && key == "" && p.program().MenuWaits {
		// Another menu took the place of the one the key closed (Codex's notice after the
		// reset): the resume waits for it to close (gate).
		p.set(Waiting, "")
		return w.resume(ctx, p, now)
	}
	if v.Menu.Open && now.Before(p.pressed.Add(w.cfg.Settle)) {
		// Not closed yet: a loaded machine's Claude Code took over a second to redraw (measured
		// 0.4–1.1 s). Looked at again every pause, up to Settle after the
		// digit; the digit is never pressed twice.
		p.checkAt = now.Add(w.cfg.Pause)
		return nil
	}
	if v.Menu.Open {
		prev := p.state
		p.set(Held, p.program().MenuStuck)
		p.sticky = true
		p.logState(w.cfg.Log, prev)
		return nil
	}
	p.set(Waiting, "")
	return w.resume(ctx, p, now)
}

// verify looks for the effect of the keys: a resumed turn (running), a new stop (rescheduled
// from its message; the same reset again counts as a failed attempt), or nothing (retried
// with backoff, then failed).
func (w *Watcher) verify(ctx context.Context, p *pane, now time.Time) error {
	screen, v, ok, err := w.read(ctx, p, now)
	if !ok {
		return err
	}
	prev, proof := p.state, w.proof(ctx, p)
	switch {
	case !v.Limited && proof == records.LimitAgain:
		p.again++
		p.retry(now, "the limit still holds: the transcript has a new usage-limit row")
	case !v.Limited && !wholeFrame(v) && now.Before(p.sent.Add(2*w.cfg.Settle)):
		p.checkAt = now.Add(w.cfg.Pause) // part of a frame: look again
		return nil
	case !v.Limited:
		p.event(w.cfg.Log.Info()).Int("attempts", p.attempts).Bool("evidence", v.Resumed || v.Busy).
			Bool("transcript", proof == records.Resumed).Msg("resumed")
		p.toRunning()
		return nil
	case v.Message != p.stop || digest(above(screen, v.Line)) != p.pre:
		w.takeNewStop(ctx, p, screen, now, p.sent)
		return nil
	case p.typed && strings.TrimSpace(v.Input.Draft) == w.message(p):
		p.retry(now, "the message is still in the input box")
	case proof == records.LimitAgain:
		p.again++
		p.retry(now, "the limit still holds: the transcript has a new usage-limit row")
	default:
		p.retry(now, "no sign of a resumed turn")
	}
	p.logState(w.cfg.Log, prev)
	return nil
}

// takeNewStop handles a stop that replaced the one the pane waited on, seen at now and appeared
// at appeared: it is scheduled from its own message. After keys went out, a time-only reset
// is read from just before the old reset, not from the keys: the same printed time is the
// same instant (the limit still holds), never the next day's.
func (w *Watcher) takeNewStop(ctx context.Context, p *pane, screen string, now, appeared time.Time) {
	prev := p.state
	if !p.sent.IsZero() && p.reset.Known {
		if before := p.reset.At.Add(-time.Minute); before.Before(appeared) {
			appeared = before
		}
	}
	v := w.detect(p, screen, now, appeared)
	p.newStop(v, appeared, now)
	w.consult(ctx, p)
	if p.state != Failed {
		p.classify(v, now, w.message(p))
	}
	p.event(w.cfg.Log.Info()).Msg("a new stop; rescheduled from its message")
	p.logState(w.cfg.Log, prev)
}

// above is the screen down to and including row line: what a new stop below it would not
// change.
func above(screen string, line int) string {
	rows := strings.SplitN(screen, "\n", line+2)
	return strings.Join(rows[:min(len(rows), line+1)], "\n")
}

// publish sets the pane's options when its state changed since they were last set.
func (w *Watcher) publish(ctx context.Context, p *pane) error {
	w.tell(p)
	o := p.options()
	if o == p.published || w.cfg.DryRun {
		return nil
	}
	if err := w.tmux.SetPaneOptions(ctx, p.info.ID, tmuxctl.OptionNames, o.Values()); err != nil {
		if errors.Is(err, tmuxctl.ErrNoTarget) {
			return nil
		}
		return err
	}
	p.published = o
	return nil
}
