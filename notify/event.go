package notify

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
)

// EventKind is what happened to a supervised pane.
type EventKind string

// The events the watcher reports. Their names are the values of CAC_EVENT and of the
// *_events keys.
const (
	// Stopped: the session stopped at a usage limit and waits for its reset (Event.Reset,
	// zero when the screen printed none).
	Stopped EventKind = "stopped"
	// Resumed: the session was resumed and a new turn runs.
	Resumed EventKind = "resumed"
	// Held: nothing will be typed until the user acts; Event.Note says why (a draft in the
	// input box, a resume policy, a reset too far away, ...).
	Held EventKind = "held"
	// Failed: every resume attempt was used up; the session is left alone.
	Failed EventKind = "failed"
	// Again: the session reached its limit again right after it was resumed (the reset had
	// not lifted it); it waits for the next reset.
	Again EventKind = "again"
	// Skipped: the user skipped the wait (cac-tmux skip); the session is not resumed.
	Skipped EventKind = "skipped"
)

// eventKinds are the known events, in the order the documentation lists them.
var eventKinds = []EventKind{Stopped, Resumed, Held, Failed, Again, Skipped}

// defaultEvents returns the events a channel receives unless its *_events key says
// otherwise: every event but skipped, which the user caused and needs no telling of. The
// slice is the caller's.
func defaultEvents() []EventKind { return []EventKind{Stopped, Resumed, Held, Failed, Again} }

// parseEventKind reads an event name strictly: anything but a known name is an error.
func parseEventKind(s string) (EventKind, error) {
	if k := EventKind(s); slices.Contains(eventKinds, k) {
		return k, nil
	}
	return "", fmt.Errorf("notify: parse event %q: not an event (one of %s)", s, eventNames())
}

// eventNames lists the known events for messages: "stopped, resumed, ...".
func eventNames() string {
	names := make([]string, len(eventKinds))
	for i, k := range eventKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// Event is one thing to tell the user about one pane.
type Event struct {
	Kind EventKind
	// Pane is tmux's pane id, "%3".
	Pane string
	// Target is the pane as session:window.pane, "main:1.0".
	Target string
	// Agent is the agent that runs in the pane; "" is Claude Code.
	Agent agent.Name
	// Limit is the kind of limit as `cac-tmux list --json` prints it ("session", "weekly",
	// "opus", ...; see detector.Kind), "" when none.
	Limit string
	// Reset is when the limit lifts; zero when unknown.
	Reset time.Time
	// State is the pane's state after the event as the watcher publishes it ("waiting").
	State string
	// Note is the watcher's note on the pane (why it is held, what failed). It may quote the
	// screen: it only ever reaches a hook through its environment, never a command line.
	Note string
	// At is when it happened; zero means when Send is called.
	At time.Time
	// Actions are the buttons the notification offers (package phone makes them): only the
	// ntfy channel (url) shows them, the first maxActions of them; the hook and the desktop
	// leave them out. Their URLs and bodies hold single-use tokens: never logged.
	Actions []Action
	// Binding names the Claude Code session the event is about (watcher.BindingOf: its
	// process and conversation), "" when its process is not known: package phone binds each
	// button to it, and offers none without it.
	Binding string
}

// Action is a button of a notification. ntfy shows it as an "http" action (a tap POSTs Body
// to URL, then clears the notification) or, with View, as a "view" action (a tap opens URL in
// the phone's browser). Label, URL and Body must be printable text without a double quote or a
// backslash (an action with one is left out: ntfyActions).
type Action struct {
	// Label is the button's text: "Resume now".
	Label string
	// URL is what a tap reaches: an absolute http or https URL.
	URL string
	// Body is what a tap POSTs; unused with View.
	Body string
	// View makes the button open URL instead of POSTing Body to it.
	View bool
}

// presentation is how each event is shown: its title's verb, ntfy's priority (1 min to 5
// max), ntfy's emoji tag, and whether the desktop notification is critical (stays until
// dismissed: the user has something to do).
type presentation struct {
	verb     string
	priority int
	tag      string
	critical bool
}

var presentations = map[EventKind]presentation{
	Stopped: {"stopped at its limit", 3, "hourglass_flowing_sand", false},
	Resumed: {"resumed", 3, "arrow_forward", false},
	Held:    {"is held", 4, "raised_hand", true},
	Failed:  {"could not be resumed", 4, "x", true},
	Again:   {"hit its limit again", 4, "repeat", false},
	Skipped: {"wait skipped", 2, "fast_forward", false},
}

// titleOf is the one-line summary of e: "cac-tmux: Codex in main:1.0 stopped at its limit
// (weekly)". It never starts with "-" (it is an argument of notify-send and osascript).
func titleOf(e Event) string {
	who := e.Target
	if who == "" {
		who = e.Pane
	}
	t := "cac-tmux: " + agentTitle(e.Agent) + " in " + oneLine(who) + " " + presentations[e.Kind].verb
	if e.Limit != "" {
		t += " (" + oneLine(e.Limit) + ")"
	}
	return t
}

// bodyOf is the text of e's notification: what happened, the reset when known, the note.
func bodyOf(e Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in pane %s", agentTitle(e.Agent), oneLine(e.Pane))
	if e.Target != "" {
		fmt.Fprintf(&b, " (%s)", oneLine(e.Target))
	}
	b.WriteString(" " + presentations[e.Kind].verb + ".")
	switch {
	case e.Kind != Stopped && e.Kind != Again:
	case e.Reset.IsZero():
		b.WriteString(" The reset time is unknown.")
	default:
		b.WriteString(" It resets at " + e.Reset.Local().Format("Mon Jan 2 15:04 MST") + ".")
	}
	if e.Note != "" {
		b.WriteString("\n" + e.Note)
	}
	return b.String()
}

// agentName is the agent of an event as its hook's CAC_AGENT gives it: "claude" for "".
func agentName(n agent.Name) string {
	if n == "" {
		return string(agent.Claude)
	}
	return string(n)
}

// agentTitle is the agent of an event for people: "Codex", "Claude Code" for "".
func agentTitle(n agent.Name) string {
	return oneLine(agent.Name(agentName(n)).Title())
}

// oneLine replaces the control characters of s (newlines among them) by spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}
