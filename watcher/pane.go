package watcher

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/printable"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// State is where a supervised session stands (docs/how-it-works.md, How the watcher decides).
type State string

// The states of a supervised session.
const (
	Running    State = "running"    // no stop on screen, or a turn ran after it
	Limited    State = "limited"    // stopped at a limit whose reset is not known
	Waiting    State = "waiting"    // stopped; due at the reset plus the margin
	Native     State = "native"     // Claude Code's own auto-continue is armed and goes first
	Held       State = "held"       // nothing will be typed until the user acts (see the note)
	Resuming   State = "resuming"   // the options menu's Stop row was pressed
	Verifying  State = "verifying"  // the message went out; looking for a resumed turn
	Failed     State = "failed"     // retries used up
	Unwaitable State = "unwaitable" // an org or spend limit: waiting cannot clear it
	Skipped    State = "skipped"    // the user skipped this wait
)

// Paused reports whether the state is one a user wants to see in `list`: every state but
// running.
func (s State) Paused() bool { return s != Running && s != Remote && s != "" }

// Remote is the state list --all gives a pane where Claude Code runs on another host, through
// ssh or mosh (its title is Claude Code's; its process is out of reach): never supervised
// here, never typed into. It is no state of a watcher's.
const Remote State = "remote"

// outlook is what becomes of a paused session; the status line counts the paused panes by it
// (StatusOf).
type outlook int

const (
	resumedByWatcher outlook = iota // waiting, native, resuming, verifying: on its own
	leftToUser                      // held, limited, skipped: nothing is typed until the user acts
	notResumed                      // failed, unwaitable: the watcher will not resume it
)

// outlook says what becomes of a session paused in state s.
func (s State) outlook() outlook {
	switch s {
	case Held, Limited, Skipped:
		return leftToUser
	case Failed, Unwaitable:
		return notResumed
	}
	return resumedByWatcher
}

// states are the known states.
var states = []State{Running, Limited, Waiting, Native, Held, Resuming, Verifying, Failed, Unwaitable, Skipped}

// parseState reads a state as published (pane options, the state file); anything but a known
// state is an error.
func parseState(s string) (State, error) {
	if st := State(s); slices.Contains(states, st) {
		return st, nil
	}
	return "", fmt.Errorf("watcher: parse state %q: not a state (one of %v)", s, states)
}

// pane is one supervised Claude Code session: a pane and the claude process in it.
type pane struct {
	info tmuxctl.Pane
	proc.Identity
	agent agent.Name // the agent that runs in the pane
	// unknown is true when the process could not be confirmed (no /proc, no ps) and the
	// pane was taken for Claude Code by its command and title only: it is never typed into.
	unknown bool
	sched   scheduler.Config

	state State
	note  string

	// The stop being handled; stop is "" while running. prompt is the prompt above it as the
	// screen shows it (detector.Verdict.Prompt), kept in memory only: it tells the agent's
	// records which conversation is the pane's.
	stop     string
	prompt   string
	appeared time.Time // when the stop appeared; zero when unknown
	stopped  time.Time // when the watcher first saw it
	reset    detector.Reset
	source   ResetSource // where reset comes from
	kind     detector.Kind
	due      time.Time // from the scheduler
	slot     time.Time // the pane's place in its group's stagger, kept once given
	capped   bool      // beyond the cap of wakes per reset
	capNote  string    // the note of a capped pane, "" when not capped
	armed    bool      // Claude Code's own auto-continue was seen armed for this stop
	retryAt  time.Time // after a failed attempt: replaces due
	// foreign says why Claude Code's records show that the stop on screen is not this
	// process's own (judge); "" when they do not say so. Judged again at every look.
	foreign string
	// pressEnter: Claude Code asks for a bare Enter ("press enter to continue").
	pressEnter bool
	attempts   int
	sent       time.Time // when keys last went out for this stop
	typed      bool      // the message was typed for this stop (an Enter may be missing)
	pre        string    // digest of the screen down to the stop, just before the keys
	checkAt    time.Time // when to look for the effect of the keys
	pressed    time.Time // when the options menu's Stop digit went out (afterMenu)
	dryRun     bool      // the dry-run decision for this stop is logged
	// sticky keeps a hold until the stop changes: a menu that did not close after its Stop
	// digit is never pressed again.
	sticky bool
	// manual: the user asked to resume now (cac-tmux resume): the reset does not gate it.
	manual bool
	// person: a person typed at the pane during this stop (a draft that is not the watcher's
	// message was seen). Nothing is typed by itself after that, the box cleared or not, unless
	// policy.untouched_after released it (released) after the box stayed empty and unchanged.
	person, released bool

	// Looks.
	looks      int
	lookedAt   time.Time // watcher clock
	lookedReal time.Time // wall clock, to compare with tmux's window_activity
	activity   time.Time // window_activity at the last look
	match      int       // the pre-filter's row at the last look
	shown      string    // digest of the screen at the last look
	shownSince time.Time // when the screen last changed, as far as the looks tell

	// recs locates Claude Code's records of the process.
	recs session
	// again counts the times the limit was found to hold after keys for this stop; told is
	// what the last event said; silent keeps a hold from being told (policy "never").
	again  int
	told   told
	silent bool
	// pol is the watcher's [policy]; policy what it said of this stop.
	pol    config.Policy
	policy decision
	// badMessage is the invalid @cac_message last warned about.
	badMessage string

	published tmuxctl.Options
}

func newPane(info tmuxctl.Pane, id identity, sched scheduler.Config, pol config.Policy) *pane {
	return &pane{info: info, Identity: id.Identity, agent: id.agent, unknown: id.unknown, sched: sched, pol: pol, state: Running, told: told{state: Running}, published: info.Options}
}

// needsLook says whether the pane is captured on this tick: a running session when its
// window shows activity and the pre-filter sees limit text (or could not search it), or the
// matching row moved; a stopped one on activity and every `revisit`. Panes with keys in
// flight are looked at by act at their check instant instead.
func (p *pane) needsLook(now time.Time) bool {
	if p.state == Resuming || p.state == Verifying {
		return false
	}
	changed := p.active()
	if p.state != Running {
		at := p.releaseAt()
		return changed || now.Sub(p.lookedAt) >= revisit || !at.IsZero() && !now.Before(at) && p.lookedAt.Before(at)
	}
	if p.info.Match == tmuxctl.Quiet {
		return false // no activity since the last listing, which judged it already
	}
	return changed && (p.info.Match != 0 || p.info.Width < narrow) || p.info.Match > 0 && p.info.Match != p.match
}

// active says whether the pane's window showed activity since the last look. window_activity
// has 1 s resolution: activity in the second of the last look may have come after it, so that
// second counts as a change too.
func (p *pane) active() bool {
	return !p.info.WindowActivity.Equal(p.activity) || p.lookedReal.Unix() <= p.info.WindowActivity.Unix()
}

// newStop starts handling a stop that appeared at appeared (zero: unknown). After keys went
// out for the previous stop, a stop whose reset is the same, has passed, or is a session or
// 5-hour reset more than 5 h away (a printed time of today read as tomorrow's) means the
// limit still holds: its attempts carry on and it waits for the backoff, so "continue" never
// loops.
func (p *pane) newStop(v detector.Verdict, appeared, now time.Time) {
	old, oldSource, hadKeys := p.reset, p.source, !p.sent.IsZero()
	p.stop, p.appeared, p.stopped, p.reset, p.source, p.kind = v.Message, appeared, now, v.Reset, SourceScreen, v.Kind
	p.prompt = v.Prompt
	p.recs.forget() // the session is read again for this stop
	p.due, p.capped, p.retryAt, p.pressEnter, p.typed, p.dryRun, p.checkAt, p.sticky = time.Time{}, false, time.Time{}, false, false, false, time.Time{}, false
	p.capNote, p.armed, p.foreign = "", false, ""
	p.manual, p.slot, p.policy, p.silent, p.person, p.released = false, time.Time{}, decision{}, false, false, false
	if p.state == Failed || p.state == Skipped || p.state == Held {
		p.state = Limited // classify decides afresh
	}
	if holds, today := stillHolds(old, v, now, p.sched.SameReset); hadKeys && holds {
		if today {
			p.reset, p.source = old, oldSource
		}
		p.again++
		p.retry(now, "the limit still holds after "+printable.Count(p.attempts, "attempt"))
		return
	}
	p.attempts, p.sent, p.again = 0, time.Time{}, 0
}

// stillHolds says whether a stop that came back after keys for a stop with reset old is the
// same limit (see newStop); today is true when its reset was read as the next day's and the
// old reset stands instead.
func stillHolds(old detector.Reset, v detector.Verdict, now time.Time, same time.Duration) (holds, today bool) {
	cur := v.Reset
	switch {
	case !old.Known || !cur.Known:
		return false, false
	case !cur.At.After(old.At.Add(same)):
		return true, false
	case v.Kind == detector.KindSession || v.Kind == detector.KindFiveHour:
		far := cur.At.After(now.Add(5 * time.Hour))
		return far, far
	}
	return false, false
}

// observe moves the state machine after a look at the pane.
func (p *pane) observe(v detector.Verdict, now time.Time, message string, log zerolog.Logger) {
	prev, prevNote := p.state, p.note
	if !v.Limited && prev.Paused() && !wholeFrame(v) {
		return // part of a frame: looked at again
	}
	if !v.Limited {
		if prev.Paused() {
			how := "no longer stopped"
			switch {
			case v.Native == detector.NativeFired:
				how = "Claude Code continued by itself"
			case v.Resumed || v.Busy:
				how = "a turn ran after the stop"
			}
			p.event(log.Info()).Str("was", string(prev)).Msg("running: " + how)
		}
		p.toRunning()
		return
	}
	p.classify(v, now, message)
	if p.state != prev || p.note != prevNote {
		p.logState(log, prev)
	}
}

// wholeFrame reports whether a look that shows no stop can end one: Claude Code's live bottom (its
// input box or its menu) is on screen, a turn runs, its own auto-continue fired, or claude
// exited. A capture taken while tmux had drawn only part of a frame shows none of these (seen
// on a loaded machine, the stop row not drawn yet): such a look is not trusted, and the pane
// is looked at again.
func wholeFrame(v detector.Verdict) bool {
	return v.Input.Visible || v.Menu.Open || v.Busy || v.Exited || v.Native == detector.NativeFired
}

// classify sets the state of a pane stopped at p.stop from what is on screen now. A draft
// is checked before anything that leads to a key, a bare Enter included.
func (p *pane) classify(v detector.Verdict, now time.Time, message string) {
	// The message the watcher typed, or the one Claude Code put there itself, is no draft.
	draft := strings.TrimSpace(v.Input.Draft)
	ours := p.typed && draft == message || v.Prefilled
	// The watcher's own message drawn in part (Claude Code draws it over several frames on a
	// loaded machine) is no person's: the look before Enter waits for the rest (awaitShown).
	drawing := p.typed && strings.HasPrefix(message, draft)
	if draft != "" && !ours && !drawing {
		p.person, p.released = true, false
	}
	held, why := p.byPolicy()
	menuKey, does := p.program().MenuKey(v.Menu)
	switch {
	case !v.Waitable:
		p.set(Unwaitable, "waiting cannot clear this limit ("+string(v.Kind)+"); nothing will be typed")
	case p.state == Failed || p.state == Skipped || p.sticky:
		// stays until the stop changes or the session runs again
	case p.foreign != "":
		p.set(Held, p.foreign)
	case p.unknown:
		p.set(Held, "cannot confirm the claude process (neither /proc nor ps and lsof answered); nothing will be typed")
	case v.Input.Draft != "" && !ours:
		p.set(Held, "a draft is in the input box; left alone"+byHand)
	case p.person && !p.manual && !p.release(now):
		p.set(Held, p.personNote(now))
	case v.Menu.Open && menuKey == "" && p.program().MenuWaits:
		p.set(Waiting, does) // the gate sends nothing while it is open
	case v.Menu.Open && menuKey == "":
		p.set(Held, does)
	case v.Menu.Open && p.armed && !p.manual:
		// The user opened /rate-limit-options over the armed auto-continue, which the menu
		// hides; it still fires, and Stop would only close the user's menu.
		p.set(Held, "the options menu was opened over Claude Code's armed auto-continue; nothing is pressed (it goes first)")
	case !v.Menu.Open && !v.Input.Visible:
		p.set(Held, "no input box on screen; nothing will be typed")
	case held:
		p.set(Held, why)
	case v.Native == detector.NativePressEnter:
		p.pressEnter = true
		if p.due.IsZero() {
			p.due = p.stopped
		}
		p.set(Waiting, "Claude Code asks for Enter after the reset")
	case !p.reset.Known && !p.manual:
		p.set(Limited, "no reset time on screen; nothing will be typed")
	case v.Native == detector.NativeArmed:
		p.armed = true
		p.set(Native, "Claude Code's own auto-continue is armed; it goes first")
	case unsafe(p.info) != "":
		p.set(Waiting, unsafe(p.info)+"; nothing is sent until it is safe")
	case !p.retryAt.IsZero():
		p.set(Waiting, p.note) // keep the retry's note
	default:
		p.set(Waiting, p.capNote)
	}
}

func (p *pane) set(s State, note string) { p.state, p.note = s, note }

// byHand ends the note of a stop a person is at: what ends the hold (cac-tmux resume, the
// popup's r, the phone's Resume; a prompt the person sends).
const byHand = " until you resume by hand or send a prompt"

// release says whether policy.untouched_after lets the watcher resume a stop a person typed
// at: its screen (the box empty, as classify checked first) unchanged that long since the
// last change the looks saw. Once released, the stop stays so until a draft is seen again,
// so that the watcher's own keys, which change the screen, do not hold it.
func (p *pane) release(now time.Time) bool {
	if at := p.releaseAt(); !p.released && !at.IsZero() && !now.Before(at) {
		p.released = true
	}
	return p.released
}

// releaseAt is when policy.untouched_after releases a stop a person typed at if its screen
// stays as it is; zero when it does not apply.
func (p *pane) releaseAt() time.Time {
	if !p.person || p.released || p.pol.UntouchedAfter <= 0 || p.shownSince.IsZero() {
		return time.Time{}
	}
	return p.shownSince.Add(p.pol.UntouchedAfter)
}

// personNote says why a stop a person typed at is held, and when it is released if
// policy.untouched_after allows it.
func (p *pane) personNote(now time.Time) string {
	if at := p.releaseAt(); !at.IsZero() {
		return "a person typed here after the stop; resumed by itself once the input box has been empty and unchanged for " +
			p.pol.UntouchedAfter.String() + " (at " + When(at, time.TimeOnly, now.Local()) + "), or by hand sooner"
	}
	return "a person typed here after the stop; held" + byHand
}

// retry schedules the next attempt after one that showed no effect, or gives up.
func (p *pane) retry(now time.Time, why string) {
	at, ok := p.sched.Retry(now, p.attempts)
	if !ok {
		p.set(Failed, why+"; gave up after "+printable.Count(p.attempts, "attempt")+" (resume by hand)")
		p.retryAt = time.Time{}
		return
	}
	if due := p.sched.Due(p.reset.At, p.exact(), false); p.reset.Known && due.After(at) {
		at = due
	}
	p.retryAt = at
	p.set(Waiting, why+"; next attempt "+When(at, time.TimeOnly, now.Local()))
}

func (p *pane) toRunning() {
	*p = pane{info: p.info, Identity: p.Identity, agent: p.agent, unknown: p.unknown, sched: p.sched, pol: p.pol, state: Running, recs: p.recs, told: p.told, badMessage: p.badMessage,
		looks: p.looks, lookedAt: p.lookedAt, lookedReal: p.lookedReal, activity: p.activity, match: p.match, published: p.published}
}

// dueAt is when the pane may be acted on: the retry instant after a failed attempt, else the
// scheduled due instant; zero when it is not waiting or is capped.
func (p *pane) dueAt() time.Time {
	if (p.state != Waiting && p.state != Native) || p.capped {
		return time.Time{}
	}
	if !p.retryAt.IsZero() {
		return p.retryAt
	}
	return p.due
}

// wake is the next instant the pane wants the watcher's attention, zero for none.
func (p *pane) wake() time.Time {
	if p.state == Resuming || p.state == Verifying {
		return p.checkAt
	}
	return p.dueAt()
}

// options are the pane options that publish the state: all unset while running.
func (p *pane) options() tmuxctl.Options {
	if !p.state.Paused() {
		return tmuxctl.Options{}
	}
	o := tmuxctl.Options{State: string(p.state), Kind: string(p.kind), Note: oneLine(p.note), Account: p.account(), Agent: string(p.agent)}
	if p.reset.Known {
		o.Reset, o.Zone, o.Source = p.reset.At.Format(time.RFC3339), p.reset.Zone, string(p.source)
	}
	if d := p.dueAt(); !d.IsZero() {
		o.Due = d.In(p.reset.At.Location()).Format(time.RFC3339)
	}
	return o
}

// record is what the state file keeps of the pane (docs/how-it-works.md, Restarts, crashes and a
// changing server); ok is false when there is nothing to keep: a running session, or one whose
// process is not confirmed.
func (p *pane) record() (r store.Pane, ok bool) {
	if !p.state.Paused() || p.unknown || p.stop == "" {
		return r, false
	}
	r = store.Pane{PID: p.PID, Start: p.Start, Agent: string(p.agent), State: string(p.state), Note: p.note, Stop: p.stop,
		Appeared: p.appeared, Stopped: p.stopped, Kind: string(p.kind), Due: p.due, RetryAt: p.retryAt,
		Attempts: p.attempts, Sent: p.sent, Typed: p.typed, PressEnter: p.pressEnter, Above: p.pre, Sticky: p.sticky,
		Person: p.person}
	if p.reset.Known {
		r.Reset, r.ResetHow, r.ResetZone, r.ResetSource = p.reset.At, p.reset.How, p.reset.Zone, string(p.source)
	}
	return r, true
}

// restore takes up the stop a previous watcher handled in this session. The next look
// classifies it afresh (a draft typed meanwhile is held); what a look cannot see again is
// kept: when the stop appeared, its reset, the attempts and keys sent, a hold that sticks. A
// record with an unknown state, kind or agent (another version wrote it), or of another agent
// than the one that runs, is not taken up.
func (p *pane) restore(r store.Pane) error {
	who, err := agent.Parse(r.Agent)
	if err != nil {
		return err
	}
	if who != p.agent {
		return fmt.Errorf("watcher: restore %s: the record is of %s, the pane runs %s", p.info.ID, who.Title(), p.agent.Title())
	}
	state, err := parseState(r.State)
	if err != nil {
		return err
	}
	kind, err := detector.ParseKind(r.Kind)
	if err != nil {
		return err
	}
	source, err := parseResetSource(r.ResetSource)
	if err != nil {
		return err
	}
	p.state, p.note, p.stop, p.appeared, p.stopped, p.kind = state, r.Note, r.Stop, r.Appeared, r.Stopped, kind
	p.told = told{state: state, kind: kind} // told by the watcher that stored it
	p.due, p.retryAt, p.attempts, p.sent, p.typed, p.pressEnter, p.pre, p.sticky = r.Due, r.RetryAt, r.Attempts, r.Sent, r.Typed, r.PressEnter, r.Above, r.Sticky
	p.person = r.Person
	if !r.Reset.IsZero() {
		at := r.Reset
		if loc, err := time.LoadLocation(r.ResetZone); err == nil {
			at = at.In(loc) // the printed zone, not just its offset
		}
		p.reset, p.source = detector.Reset{Known: true, At: at, How: r.ResetHow, Zone: r.ResetZone}, source
	}
	return nil
}

// exact says the reset is known to the second (from the transcript).
func (p *pane) exact() bool { return p.source != SourceScreen }

// program is what the engine is given about the pane's agent.
func (p *pane) program() agent.Agent { return agent.For(p.agent) }

// account is the directory of the account the process uses, "" when unknown.
func (p *pane) account() string {
	if p.recs.s == nil {
		return ""
	}
	return p.recs.s.Account()
}

// digest stands for screen text that is compared later but never stored.
func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// event starts a log event about the pane.
func (p *pane) event(e *zerolog.Event) *zerolog.Event {
	return e.Str("pane", p.info.ID).Str("target", p.info.Target())
}

// logState logs the pane's state after a change from prev.
func (p *pane) logState(log zerolog.Logger, prev State) {
	e := log.Info()
	if p.state == Failed || p.state == Held || p.state == Unwaitable {
		e = log.Warn()
	}
	e = p.event(e).Str("state", string(p.state)).Str("was", string(prev)).Str("kind", string(p.kind))
	if p.reset.Known {
		e = e.Time("reset", p.reset.At).Str("reset_source", string(p.source))
	}
	if d := p.dueAt(); !d.IsZero() {
		e = e.Time("due", d)
	}
	if p.note != "" {
		e = e.Str("note", p.note)
	}
	e.Msg(string(p.state))
	if prev == Running && log.GetLevel() <= zerolog.DebugLevel {
		p.event(log.Debug()).Str("message", p.stop).Str("reset_how", p.reset.How).Msg("stop message")
	}
}

// oneLine keeps a note to one line without the listing's separator.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// compareIDs orders pane ids "%2" < "%10".
func compareIDs(a, b string) int {
	x, errA := strconv.Atoi(strings.TrimPrefix(a, "%"))
	y, errB := strconv.Atoi(strings.TrimPrefix(b, "%"))
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	return x - y
}
