package demo

import (
	"strings"
	"time"
)

// role is the part a simulated session plays in the cycle.
type role string

const (
	rolePlain  role = "plain"  // a plain stop: resumed with the message
	roleMenu   role = "menu"   // the options menu open, Stop not first: its Stop row, then resumed
	roleNative role = "native" // Claude Code's own auto-continue armed: left alone, fires by itself
	roleDraft  role = "draft"  // a stop with a draft in the input box: held, never typed into
	// roleCodex is the simulated Codex CLI (Options.Codex): its rate-limit menu closed by Esc
	// alone, then resumed with the message, a pause and Enter.
	roleCodex role = "codex"
)

// The demo's settings of the watcher and of the simulated sessions.
const (
	margin   = 5 * time.Second // the watcher's --margin: the printed reset is a whole minute
	interval = time.Second     // the watcher's --interval
	message  = "continue"      // the watcher's default message
	// lead is the least time from the start to the reset: long enough to see the stops and
	// the countdown, short enough for a cycle of about a minute and a half.
	lead = 45 * time.Second
	// fireAfter is when the native auto-continue fires after the reset (the real one fires
	// 30–90 s after it; the watcher waits margin plus 3 minutes for it).
	fireAfter = 15 * time.Second
	// slack is how long after the native one fires the cycle may take before it has failed.
	slack = 60 * time.Second
	// menuStopRow is the menu's Stop row: last, as a server flag orders it.
	menuStopRow = 3
	keyDraft    = "d"
)

// menuRows are the options menu's rows, the Stop row last (row menuStopRow).
var menuRows = []string{"Switch to usage credits", "Upgrade your plan", "Stop and wait for limit to reset"}

// session is one simulated Claude Code session of the demo.
type session struct {
	key   string // "a"…"d"
	role  role
	label string // for the timeline: "(a) plain"
	title string // the pane's border
}

var sessions = []session{
	{"a", rolePlain, "(a) plain", "(a) plain stop"},
	{"b", roleMenu, "(b) menu", "(b) options menu, Stop row last"},
	{"c", roleNative, "(c) native", "(c) native auto-continue armed"},
	{keyDraft, roleDraft, "(d) draft", "(d) draft in the input box"},
}

// codexSession is the simulated Codex CLI's session, with Options.Codex only.
var codexSession = session{"e", roleCodex, "(e) codex", "(e) Codex: rate-limit menu over the stop"}

// plan is the timing of one demo.
type plan struct {
	start time.Time // when the demo started
	reset time.Time // the reset every session prints: a whole minute
	fire  time.Time // when the native auto-continue fires
}

func newPlan(now time.Time) plan {
	reset := now.Add(lead).Truncate(time.Minute)
	if reset.Before(now.Add(lead)) {
		reset = reset.Add(time.Minute)
	}
	return plan{start: now, reset: reset, fire: reset.Add(fireAfter)}
}

// deadline is when a cycle that has not completed has failed.
func (p plan) deadline() time.Time { return p.fire.Add(slack) }

// args is the simulator's command line for a session, logging to log.
func (s session) args(p plan, log string) []string {
	if s.role == roleCodex { // package simcodex: its records under the pane's CODEX_HOME
		return []string{"--log", log, "--reset", p.reset.Format(time.RFC3339), "--records"}
	}
	args := []string{"--log", log, "--name", "simulated", "--reset", p.reset.Format(time.RFC3339)}
	switch s.role {
	case rolePlain:
		args = append(args, "--scenario", "plain")
	case roleMenu:
		args = append(args, "--scenario", "menu", "--rows", strings.Join(menuRows, ","))
	case roleNative:
		args = append(args, "--scenario", "armed", "--fire-at", p.fire.Format(time.RFC3339))
	case roleDraft:
		args = append(args, "--scenario", "draft", "--draft", "now refactor the parser so that")
	}
	return args
}

// label names a session in the timeline.
func label(key string) string {
	for _, s := range append(sessions, codexSession) {
		if s.key == key {
			return s.label
		}
	}
	return key
}
