package watcher

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher/proc"
)

// identity is what the watcher knows about the process in a pane.
type identity struct {
	proc.Identity
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
			id.ok, id.unknown, id.how = true, true, "command "+strconv.Quote(info.Command)+" and title only"
		}
	case ok:
		id.Identity, id.how, id.ok = found.Identity, found.How, true
	}
	w.idents[info.ID] = id
	return id, id.ok
}

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

// unsafe says why keys sent to the pane now would go astray, "" when they would not (SPEC §5
// gate 1; tmux 3.3a's send-keys exits 0 in all these cases and delivers nothing, or delivers
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

// resume re-checks every gate of SPEC §5, in order, right before any key, then sends the
// keys that resume the session: the options menu's Stop digit, a bare Enter when Claude Code
// asks for one, or the message, a pause and a separate Enter.
func (w *Watcher) resume(ctx context.Context, p *pane, now time.Time) error {
	id, log := p.info.ID, w.cfg.Log
	prev, prevNote := p.state, p.note
	defer func() {
		if p.state != prev || p.note != prevNote {
			p.logState(log, prev)
		}
	}()

	// 1. The pane exists, is alive, takes input, is not synchronized, not in a mode.
	info, err := w.tmux.PaneInfo(ctx, id)
	if errors.Is(err, tmuxctl.ErrNoTarget) {
		delete(w.panes, id)
		return nil
	}
	if err != nil {
		return err
	}
	info.Match = p.info.Match
	p.info = info
	if why := unsafe(info); why != "" {
		p.note = why + "; nothing is sent until it is safe"
		return nil
	}
	// 2. The same claude process is in the foreground.
	found, ok, err := w.finder.Find(ctx, info.PID)
	switch {
	case p.unknown || err != nil:
		p.set(Held, "cannot confirm the claude process; nothing will be typed")
		return nil
	case !ok || found.Identity != p.Identity:
		log.Info().Str("pane", id).Str("target", info.Target()).Msg("the claude process that stopped is no longer in the foreground; nothing typed")
		delete(w.panes, id)
		delete(w.idents, id)
		return nil
	}
	// 3. The stop is still the latest thing on screen and auto-continue is not armed (past
	// its grace it is taken over).
	screen, v, ok, err := w.read(ctx, p, now)
	if !ok {
		return err
	}
	switch {
	case !v.Limited:
		p.observe(v, now, w.cfg.Message, log) // resumed by someone else
		return nil
	case v.Message != p.stop:
		w.restop(p, screen, now, now)
		return nil
	}
	// 4. The input box is empty (classify holds a draft), and the menu is readable.
	p.classify(v, w.cfg.Message)
	if p.state != Waiting && p.state != Native {
		return nil
	}
	// 5. The reset plus the margin (plus the native grace while armed) has passed.
	if v.Native == detector.NativeArmed && !scheduler.IsDue(w.cfg.Schedule.Due(p.reset.At, true), now) {
		p.set(Native, "Claude Code's own auto-continue is armed; it goes first")
		return nil
	}
	if !scheduler.IsDue(p.dueAt(), now) {
		return nil
	}

	typedOnly := p.typed && strings.TrimSpace(v.Input.Draft) == w.cfg.Message
	var what string
	switch {
	case v.Menu.Open:
		what = "press " + strconv.Itoa(v.Menu.StopDigit) + " (the options menu's Stop row)"
	case p.pressEnter || v.Native == detector.NativePressEnter:
		what = "press Enter (Claude Code asks for it)"
	case typedOnly:
		what = "press Enter (the message is already in the input box)"
	default:
		what = "type " + strconv.Quote(w.cfg.Message) + " and Enter"
	}
	if w.cfg.DryRun {
		if !p.dryRun {
			p.dryRun = true
			log.Info().Str("pane", id).Str("target", info.Target()).Msg("dry run: would " + what)
		}
		p.note = "dry run: would " + what
		return nil
	}

	log.Info().Str("pane", id).Str("target", info.Target()).Int("attempt", p.attempts+1).Msg(what)
	p.pre = digest(above(screen, v.Line))
	// Each resume is recorded in the state file before its keys go out: a watcher that dies
	// in between finds it sent and looks for its effect instead of sending it again.
	if v.Menu.Open {
		p.set(Resuming, "pressed the options menu's Stop row")
		p.checkAt = now.Add(w.cfg.Settle / 3)
		w.save()
		return w.tmux.SendKey(ctx, id, strconv.Itoa(v.Menu.StopDigit))
	}
	// The attempt is counted before its keys: a failed send is an attempt too, so a pane
	// that keeps failing cannot be typed into without bound.
	enterOnly := p.pressEnter || v.Native == detector.NativePressEnter || typedOnly
	p.attempts++
	p.sent = now
	p.typed = p.typed || !enterOnly
	p.set(Verifying, "sent; looking for a resumed turn")
	p.checkAt = now.Add(w.cfg.Settle)
	w.save()
	// Once the text is typed its Enter follows even when the watcher is being stopped: a
	// "continue" left in the input box would read as the user's draft.
	kctx := context.WithoutCancel(ctx)
	if enterOnly {
		return w.tmux.SendKey(kctx, id, "Enter")
	}
	if err := w.tmux.SendLiteral(kctx, id, w.cfg.Message); err != nil {
		return err
	}
	// Text and Enter in one call read as a paste (Claude Code 2.x): Enter goes alone.
	time.Sleep(w.cfg.Pause)
	return w.tmux.SendKey(kctx, id, "Enter")
}

// afterMenu checks that the options menu closed after its Stop digit, then goes on with the
// resume (every gate again). A menu still open is held: no key is pressed twice.
func (w *Watcher) afterMenu(ctx context.Context, p *pane, now time.Time) error {
	_, v, ok, err := w.read(ctx, p, now)
	if !ok {
		return err
	}
	if v.Menu.Open {
		prev := p.state
		p.set(Held, "the options menu did not close after its Stop row's digit; nothing more is pressed")
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
	prev := p.state
	switch {
	case !v.Limited:
		w.cfg.Log.Info().Str("pane", p.info.ID).Str("target", p.info.Target()).Int("attempts", p.attempts).
			Bool("evidence", v.Resumed || v.Busy).Msg("resumed")
		p.toRunning()
		return nil
	case v.Message != p.stop || digest(above(screen, v.Line)) != p.pre:
		w.restop(p, screen, now, p.sent)
		return nil
	case p.typed && strings.TrimSpace(v.Input.Draft) == w.cfg.Message:
		p.retry(now, "the message is still in the input box")
	default:
		p.retry(now, "no sign of a resumed turn")
	}
	p.logState(w.cfg.Log, prev)
	return nil
}

// restop handles a stop that replaced the one the pane waited on, seen at now and appeared
// at appeared: it is scheduled from its own message.
func (w *Watcher) restop(p *pane, screen string, now, appeared time.Time) {
	prev := p.state
	v := w.detect(p, screen, now, appeared)
	p.newStop(v, appeared, now)
	if p.state != Failed {
		p.classify(v, w.cfg.Message)
	}
	w.cfg.Log.Info().Str("pane", p.info.ID).Str("target", p.info.Target()).Msg("a new stop; rescheduled from its message")
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
