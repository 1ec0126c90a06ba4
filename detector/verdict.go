// Package detector decides, from the text of one tmux pane, whether Claude Code is stopped at
// a usage limit, when that limit lifts, and what is on screen around the stop: Claude Code's
// own auto-continue, the options menu, the draft in the input box, signs of a resumed turn.
// It is pure: Detect takes the screen (`tmux capture-pane -p -J`) and the Facts it cannot read
// there (capture instant, appearance instant, the claude host's zone) and returns a Verdict;
// no I/O, no clock. The binary embeds time/tzdata, so every IANA zone loads on any machine.
package detector

import (
	"fmt"
	"slices"
	"time"
)

// Facts are what Detect needs to know beyond the screen text.
type Facts struct {
	// Now is the capture instant. It is required.
	Now time.Time
	// Appeared is the instant the last limit message was first seen on screen, or the zero
	// time when it is unknown (a watcher that starts with the message already on screen).
	// Time-only resets are resolved as the next occurrence after this instant.
	Appeared time.Time
	// Zone is the time zone of the host that runs claude, used for messages that print no
	// zone (1.0.88–2.0.50) and for the printed zone "Etc/Unknown". Nil means UTC. For
	// DetectCodex it is the zone of Codex's app-server daemon, which formats the reset.
	Zone *time.Location
}

// Kind names which limit stopped the session.
type Kind string

// The kinds of limit Claude Code and Codex CLI report.
const (
	KindNone     Kind = ""
	KindSession  Kind = "session"
	KindFiveHour Kind = "5-hour"
	KindWeekly   Kind = "weekly"
	KindOpus     Kind = "opus"
	KindSonnet   Kind = "sonnet"
	// KindModel is a limit of one model that another model may not have (Codex CLI: "You’ve
	// hit your usage limit for <model>. Switch to another model now, …").
	KindModel        Kind = "model"
	KindUsage        Kind = "usage"
	KindExtraUsage   Kind = "extra-usage"
	KindUsageCredits Kind = "usage-credits"
	KindSpendingCap  Kind = "spending-cap"
	KindTeam         Kind = "team"
	KindLegacy       Kind = "legacy"
	KindUnknown      Kind = "unknown"
)

// kinds are the known kinds.
var kinds = []Kind{KindNone, KindSession, KindFiveHour, KindWeekly, KindOpus, KindSonnet, KindModel, KindUsage,
	KindExtraUsage, KindUsageCredits, KindSpendingCap, KindTeam, KindLegacy, KindUnknown}

// Kinds returns the kinds a stop can have, KindNone left out, in the order above. The slice is
// the caller's to keep.
func Kinds() []Kind { return slices.Clone(kinds[1:]) }

// ParseKind reads a kind as published (pane options, the state file); "" is KindNone and
// anything but a known kind is an error.
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); slices.Contains(kinds, k) {
		return k, nil
	}
	return "", fmt.Errorf("detector: parse kind %q: not a kind of limit", s)
}

// Native is the state of Claude Code's own auto-continue (2.1.234+) after the last stop.
type Native string

// The states of Claude Code's own auto-continue.
const (
	// NativeNone: nothing on screen says Claude Code will continue by itself.
	NativeNone Native = "none"
	// NativeArmed: Claude Code will continue by itself at the reset; send nothing, since
	// Esc or any typing cancels it.
	NativeArmed Native = "armed"
	// NativeFired: "Usage limit reset · Continuing automatically": the session resumed.
	NativeFired Native = "fired"
	// NativeCancelled: the user or a key cancelled it; the watcher takes over.
	NativeCancelled Native = "cancelled"
	// NativeStopped: Claude Code gave up (repeated hits, reset > 24 h, login change, turned
	// off, did not run); the watcher takes over.
	NativeStopped Native = "stopped"
	// NativePressEnter: "Your usage limit has reset · press enter to continue" (after the
	// machine slept): a bare Enter resumes.
	NativePressEnter Native = "press-enter"
)

// Source says how a reset instant was derived.
type Source string

// The ways a reset instant is derived from the message.
const (
	SourceNone  Source = ""
	SourceEpoch Source = "epoch" // legacy "…|<unix seconds>"
	SourceClock Source = "clock" // a wall-clock time only: "resets 4:30pm"
	SourceDate  Source = "date"  // a date and a time: "resets Nov 23, 11pm"
	// SourceRelative: a duration after the message appeared (older Codex CLI builds: "Try
	// again in 4 days 20 hours 9 minutes."), to the minute.
	SourceRelative Source = "relative"
)

// anchorKind says which instant a time-only reset was resolved against.
type anchorKind string

// The instants a time-only reset can be resolved against.
const (
	anchorNone     anchorKind = ""
	anchorAppeared anchorKind = "appeared" // Facts.Appeared
	anchorSummary  anchorKind = "summary"  // the "done 10:58 PM" turn summary after the stop
	anchorUnknown  anchorKind = "unknown"  // neither: a conservative choice around Facts.Now
)

// Reset is the instant a limit lifts and how it was worked out.
type Reset struct {
	// Known is false when the message prints no usable reset.
	Known bool
	// At is the reset instant, in the zone it was printed in (or the assumed zone).
	At time.Time
	// printed is the reset text as it appeared ("Nov 23, 11pm (Europe/Berlin)", "1760000400").
	printed string
	Source  Source
	// Zone is the IANA name the wall-clock time was read in; zonePrinted says whether the
	// message printed it or it was assumed (Facts.Zone).
	Zone        string
	zonePrinted bool
	// anchor is set for time-only resets.
	anchor anchorKind
	// Ambiguous is true when the appearance instant was unknown and the reset had to be
	// chosen between two candidate days (docs/claude-code.md, Reset times).
	Ambiguous bool
	// How explains the derivation in one sentence.
	How string
}

// MenuRow is one numbered row of the rate-limit options menu.
type MenuRow struct {
	Digit   int    `json:"digit"`
	Label   string `json:"label"`
	Focused bool   `json:"focused"`
}

// Menu is the rate-limit options menu ("What do you want to do?", 2.0.45+).
type Menu struct {
	// Open is true when the menu is the live bottom of the screen.
	Open bool
	Rows []MenuRow
	// Focused is the digit of the focused row, 0 when none could be read.
	Focused int
	// StopDigit is the digit of the one row whose label is a known Stop label (isStopLabel),
	// 0 when there is none or the rows could not be read as 1..N. It is the only key the
	// watcher may press.
	StopDigit int
	// Escape is true when Esc may be pressed: Codex CLI's "Approaching rate limits" menu is
	// open and the usage-limit stop it covers is the latest thing above it. Esc closes the
	// menu and is the only key the watcher may press there (Enter or a digit switches the
	// user's model). Never set for Claude Code's menu.
	Escape bool
}

// Input is Claude Code's input box.
type Input struct {
	// Visible is false when no input box is on screen (a menu hides it, or claude exited).
	Visible bool
	// Draft is the text in the box, empty when the box is empty.
	Draft string
	// VimInsert is true when the footer says "-- INSERT --": Claude Code's vim mode
	// (editorMode "vim") is on and in INSERT mode. Its NORMAL mode shows no label (seen with
	// 2.1.330), so false means vim mode off or NORMAL mode: only Claude Code's settings tell
	// the two apart.
	VimInsert bool
}

// Verdict is what Detect concludes about one screen.
type Verdict struct {
	// Limited is true when the latest thing on screen is a usage-limit stop of a live
	// Claude Code session.
	Limited bool
	// Message is the limit message (joined across wrapped lines), set whenever a stop
	// message is on screen, even when newer activity means the session is no longer stopped.
	Message string
	// Line is the 0-based screen row of the message's first line, -1 when there is none.
	Line int
	Kind Kind
	// Waitable is false for stops that waiting cannot clear (org and spend limits).
	Waitable bool
	Reset    Reset
	Native   Native
	Menu     Menu
	Input    Input
	// Prefilled is true when Claude Code put the message into the input box itself (2.1.330+,
	// behind a server flag, for a five-hour limit with no auto-continue armed): the stop's
	// block says "Press ⏎ to continue after reset" and the box holds exactly "continue". That
	// box is not the user's draft, and Enter after the reset submits it; typing would double it.
	Prefilled bool
	// Prompt is the last prompt the screen shows above the stop, exactly as submitted; ""
	// when it is not sure (none, or wrapped over rows). Codex only: it tells its thread.
	Prompt string
	// Busy is true when a turn is running ("esc to interrupt").
	Busy bool
	// Resumed is true when there is evidence below the last stop that a turn ran after it
	// (a reply, a tool call, a submitted prompt, a working spinner, native continue fired).
	Resumed bool
	// Exited is true when a shell prompt follows the stop: claude is no longer running.
	Exited bool
	// Reason says in one sentence why the screen is or is not a stop.
	Reason string
}
