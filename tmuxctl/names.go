package tmuxctl

// The tmux user options cac-tmux sets and reads: the one place their names are written. The
// plugin's settings (@cac-tmux-margin, …) are the configuration's, in package config.

// The pane options that publish a supervised pane's state (Options), unset while it runs.
const (
	stateOption   = "@cac_state"   // the watcher's state: waiting, held, …
	resetOption   = "@cac_reset"   // the reset instant, RFC3339
	dueOption     = "@cac_due"     // when the watcher will act, RFC3339
	kindOption    = "@cac_kind"    // the kind of limit: session, weekly, …
	zoneOption    = "@cac_zone"    // the IANA zone the reset was printed in
	noteOption    = "@cac_note"    // why held, why failed
	sourceOption  = "@cac_source"  // where the reset comes from: screen or transcript
	accountOption = "@cac_account" // the claude process's config directory
	agentOption   = "@cac_agent"   // the agent that runs in the pane: claude or codex
)

// OptionNames are the tmux names of Options' fields, in field order.
var OptionNames = []string{stateOption, resetOption, dueOption, kindOption, zoneOption, noteOption, sourceOption, accountOption, agentOption}

// RequestOption is the pane option through which a command hands an action to the running
// watcher (Client.Request); ReplyOption is where the watcher answers it. requestsOption is the
// global option Request sets to each request it hands over: a listing of changes reads it (one
// option, not one per pane) to know that a pane carries a new one.
const (
	RequestOption  = "@cac_request"
	ReplyOption    = "@cac_reply"
	requestsOption = "@cac_requests"
)

// ignoreOption and messageOption are pane options a user sets: "@cac_ignore on" keeps the
// watcher's hands off a pane; @cac_message replaces the message typed into it.
const (
	ignoreOption  = "@cac_ignore"
	messageOption = "@cac_message"
)

// WatcherOption is the global user option a running watcher sets to its pid, so that
// readers of what it published can tell whether it is live.
const WatcherOption = "@cac_watcher"

// signalOption is the global user option that names the tmux client of the watcher's output
// signal (tmux 3.8, activity.go), for Request to wake it.
const signalOption = "@cac_signal"
