package demo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/demo/simclaude"
)

// event is one line of the timeline.
type event struct {
	At   time.Time
	Key  string // the session ("a"…"d"), "" for the demo itself
	Text string
}

// Format is the event as the timeline prints it: the wall-clock time, the time since start,
// the session and what happened.
func (e event) Format(start time.Time, label func(key string) string) string {
	who := "demo"
	if e.Key != "" {
		who = label(e.Key)
	}
	return fmt.Sprintf("%s  %6s  %-10s  %s", e.At.Format(time.TimeOnly), "+"+since(e.At.Sub(start)), who, e.Text)
}

// printed is a reset as Claude Code prints it: "4pm", "4:30pm".
func printed(t time.Time) string {
	return strings.Replace(strings.ToLower(t.Format("3:04PM")), ":00", "", 1)
}

// since shows an elapsed time in whole seconds: "42s", "1m05s".
func since(d time.Duration) string {
	s := int(max(d, 0).Round(time.Second).Seconds())
	if s < 60 {
		return strconv.Itoa(s) + "s"
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// track is what the judge knows of one session.
type track struct {
	session
	state, note string          // the watcher's state of the pane ("" while running) and its note
	due         time.Time       // when the watcher said it would act
	watched     map[string]bool // every state the watcher published for the pane
	sim         []string        // the simulator's states, in order
	reads       []string        // every read of the simulator's terminal
	told        int             // milestones told
	gone        string          // why the pane is gone, "" while it runs
}

// milestone is one step of a session's part of the cycle.
type milestone struct {
	want    string // what is awaited, for the failure of a late cycle
	reached func(t *track) bool
	text    func(t *track) string
}

// judge follows the sessions and decides when the cycle is complete and whether anything
// went wrong. It is pure: the demo feeds it what it reads from tmux and the simulators' logs.
type judge struct {
	plan     plan
	tracks   []*track
	events   []event
	err      error // the first thing that went wrong
	complete bool
	watcher  string // why the watcher is gone, "" while it runs
}

func newJudge(p plan, sessions []session) *judge {
	j := &judge{plan: p}
	who := fmt.Sprintf("%d simulated Claude Code sessions", len(sessions))
	if slices.ContainsFunc(sessions, func(s session) bool { return s.role == roleCodex }) {
		who = fmt.Sprintf("%d simulated Claude Code sessions and a simulated Codex", len(sessions)-1)
	}
	j.events = append(j.events, event{At: p.start, Text: fmt.Sprintf("%s stop at a limit that resets at %s (they print %q); the watcher runs with --margin %s --interval %s",
		who, p.reset.Format(time.TimeOnly), printed(p.reset), margin, interval)})
	for _, s := range sessions {
		j.tracks = append(j.tracks, &track{session: s, watched: map[string]bool{}})
	}
	return j
}

func (j *judge) track(key string) *track {
	for _, t := range j.tracks {
		if t.key == key {
			return t
		}
	}
	return nil
}

// Watched records the state the watcher publishes for a session's pane ("" while running).
func (j *judge) Watched(key, state, note string, due time.Time) {
	if t := j.track(key); t != nil {
		t.state, t.note, t.due = state, note, due
		if state != "" {
			t.watched[state] = true
		}
	}
}

// Logged records one entry of a session's simulator log.
func (j *judge) Logged(key string, e simclaude.Entry) {
	t := j.track(key)
	switch {
	case t == nil:
	case e.State != "":
		t.sim = append(t.sim, e.State)
	default:
		t.reads = append(t.reads, e.Read)
	}
}

// Gone records that a session's pane ("" for the watcher's) is dead or gone.
func (j *judge) Gone(key, why string) {
	if key == "" {
		j.watcher = why
	} else if t := j.track(key); t != nil {
		t.gone = why
	}
}

// Step tells what happened since the last step, at now, and returns the new events; Err and
// Complete then say where the cycle stands.
func (j *judge) Step(now time.Time) []event {
	if j.err != nil || j.complete {
		return nil
	}
	n := len(j.events)
	for _, t := range j.tracks {
		if err := t.harm(); err != nil {
			return j.fail(now, t.key, err)
		}
		for ms := milestones[t.role]; t.told < len(ms) && ms[t.told].reached(t); t.told++ {
			j.events = append(j.events, event{At: now, Key: t.key, Text: ms[t.told].text(t)})
		}
	}
	switch {
	case j.watcher != "":
		return j.fail(now, "", fmt.Errorf("the watcher is gone: %s", j.watcher))
	case j.done():
		j.complete = true
		summary := "2 sessions resumed, 1 continued by itself, 1 draft left alone"
		if j.track(codexSession.key) != nil {
			summary += ", Codex resumed after Esc closed its menu"
		}
		j.events = append(j.events, event{At: now, Key: j.track(keyDraft).key, Text: "untouched after the reset: the draft is still in the box, no key received"},
			event{At: now, Text: "cycle complete in " + since(now.Sub(j.plan.start)) + ": " + summary})
	case now.After(j.plan.deadline()):
		return j.fail(now, "", j.late())
	}
	return j.events[n:]
}

// fail ends the cycle with err, told as the last event.
func (j *judge) fail(now time.Time, key string, err error) []event {
	j.err = err
	if key != "" {
		j.err = fmt.Errorf("%s: %w", j.track(key).label, err)
	}
	j.events = append(j.events, event{At: now, Key: key, Text: "FAILED: " + err.Error()})
	return j.events[len(j.events)-1:]
}

// done: every session told all its milestones, and the draft's pane is past its reset.
func (j *judge) done() bool {
	for _, t := range j.tracks {
		if t.told < len(milestones[t.role]) {
			return false
		}
	}
	return true
}

// late says which sessions did not get through the cycle in time.
func (j *judge) late() error {
	var missing []string
	for _, t := range j.tracks {
		if ms := milestones[t.role]; t.told < len(ms) {
			state := t.state
			if state == "" {
				state = "running"
			}
			s := fmt.Sprintf("%s: not %s (the watcher shows %s", t.label, ms[t.told].want, state)
			if t.note != "" {
				s += ": " + t.note
			}
			missing = append(missing, s+")")
		}
	}
	return fmt.Errorf("the cycle did not complete by %s: %s", j.plan.deadline().Format(time.TimeOnly), strings.Join(missing, "; "))
}

// Err is what went wrong, nil while all is well.
func (j *judge) Err() error { return j.err }

// Complete says whether the whole cycle went through.
func (j *judge) Complete() bool { return j.complete }

// Events are all the events so far.
func (j *judge) Events() []event { return j.events }

// Progress is how many sessions got through their part of the cycle; the draft's is through
// with the cycle.
func (j *judge) Progress() (done, all int) {
	for _, t := range j.tracks {
		if t.told == len(milestones[t.role]) && (t.role != roleDraft || j.complete) {
			done++
		}
	}
	return done, len(j.tracks)
}

// bad are the simulator states that mean harm, or keys that should not have come.
var bad = map[string]string{
	"harm":             "a paid option of the menu was chosen",
	"draft-submitted":  "the draft was submitted",
	"pasted-enter":     "the message and its Enter came as one paste",
	"limited-again":    "a prompt went out before the reset and hit the limit again",
	"menu-escaped":     "the menu got an Escape",
	"native-cancelled": "a key cancelled Claude Code's own auto-continue",
	"model-switched":   "a key in Codex's rate-limit menu switched the user's model",
	"menu-kept":        "a key other than Esc answered Codex's rate-limit menu",
	"menu-never-show":  "a key in Codex's rate-limit menu hid its reminders for good",
	"interrupted":      "Esc interrupted Codex's running turn",
}

// allowed are the simulator states that are harm for Claude Code but a role's own step: Esc
// is the one key that may close Codex's rate-limit menu.
var allowed = map[role]string{roleCodex: "menu-escaped"}

// harm says what went wrong in a session, nil when nothing did.
func (t *track) harm() error {
	for _, s := range t.sim {
		if why, ok := bad[s]; ok && allowed[t.role] != s {
			return fmt.Errorf("%s (simulator state %s)", why, s)
		}
	}
	if t.gone != "" {
		return fmt.Errorf("the simulated Claude Code is gone: %s", t.gone)
	}
	if t.watched["failed"] {
		return fmt.Errorf("the watcher gave up on it: %s", t.note)
	}
	want := expectedReads[t.role]
	if len(t.reads) > len(want) || !slices.Equal(t.reads, want[:len(t.reads)]) {
		return fmt.Errorf("received %s, expected %s", quoteAll(t.reads), quoteAll(want))
	}
	return nil
}

// expectedReads are the exact reads each kind of session may get: the menu's Stop digit, the
// message and its Enter apart; nothing at all for the native auto-continue and the draft.
var expectedReads = map[role][]string{
	rolePlain: {message, "\r"},
	roleMenu:  {strconv.Itoa(menuStopRow), message, "\r"},
	roleCodex: {"\x1b", message, "\r"},
}

// quoteAll shows reads as Go strings: "continue", "\r"; "nothing" when there are none.
func quoteAll(reads []string) string {
	if len(reads) == 0 {
		return "nothing"
	}
	q := make([]string, len(reads))
	for i, r := range reads {
		q[i] = strconv.Quote(r)
	}
	return strings.Join(q, ", ")
}

func (t *track) simSaw(state string) bool { return slices.Contains(t.sim, state) }

// milestones are the steps of each kind of session, in order.
var milestones = map[role][]milestone{
	rolePlain: {seenWaiting("waiting for the reset"), resumed, confirmed},
	roleMenu: {seenWaiting(fmt.Sprintf("the options menu is open, focus on row 1, Stop is row %d", menuStopRow)),
		{"closed by its Stop row", func(t *track) bool { return t.simSaw("menu-stopped") },
			func(t *track) string {
				return fmt.Sprintf("the menu's Stop row pressed: received %q, the menu closed", strconv.Itoa(menuStopRow))
			}},
		resumed, confirmed},
	roleNative: {
		{"seen armed by the watcher", func(t *track) bool { return t.watched["native"] },
			func(*track) string {
				return "seen: Claude Code's own auto-continue is armed; the watcher sends nothing"
			}},
		{"continued by itself", func(t *track) bool { return t.simSaw("native-fired") },
			func(*track) string { return "Claude Code continued by itself after the reset (no key received)" }},
		confirmed},
	roleCodex: {seenWaiting("Codex's rate-limit menu is open over the stop; Esc alone may close it"),
		{"its menu closed by Esc", func(t *track) bool { return t.simSaw("menu-escaped") },
			func(*track) string { return `the menu closed by Esc: received "\x1b", the composer empty` }},
		resumed, confirmed},
	roleDraft: {{"held by the watcher", func(t *track) bool { return t.watched["held"] },
		func(t *track) string { return "held: " + t.note }}},
}

// seenWaiting is the watcher seeing a stopped session and scheduling its resume.
func seenWaiting(what string) milestone {
	return milestone{"seen waiting by the watcher", func(t *track) bool { return t.watched["waiting"] && !t.due.IsZero() },
		func(t *track) string {
			return fmt.Sprintf("seen: %s; resume due %s", what, t.due.Format(time.TimeOnly))
		}}
}

var resumed = milestone{"resumed", func(t *track) bool { return t.simSaw("resumed") },
	func(t *track) string {
		return "resumed: received " + quoteAll(t.reads[max(len(t.reads)-2, 0):]) + " (message, then Enter)"
	}}

var confirmed = milestone{"seen running again by the watcher", func(t *track) bool { return t.state == "" && t.told > 0 },
	func(*track) string { return "the watcher sees it running again" }}
