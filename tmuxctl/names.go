package tmuxctl

// The tmux user options cac-tmux sets and reads: the one place their names are written. The
// plugin's settings (@cac-tmux-margin, …) are the configuration's, in package config.

// The pane options that publish a supervised pane's state (Options), unset while it runs.
const (
	StateOption   = "@cac_state"   // the watcher's state: waiting, held, …
	ResetOption   = "@cac_reset"   // the reset instant, RFC3339
	DueOption     = "@cac_due"     // when the watcher will act, RFC3339
	KindOption    = "@cac_kind"    // the kind of limit: session, weekly, …
	ZoneOption    = "@cac_zone"    // the IANA zone the reset was printed in
	NoteOption    = "@cac_note"    // why held, why failed
	SourceOption  = "@cac_source"  // where the reset comes from: screen or transcript
	AccountOption = "@cac_account" // the claude process's config directory
)

// OptionNames are the tmux names of Options' fields, in field order.
var OptionNames = []string{StateOption, ResetOption, DueOption, KindOption, ZoneOption, NoteOption, SourceOption, AccountOption}

// RequestOption is the pane option through which a command hands an action to the running
// watcher (Client.Request); ReplyOption is where the watcher answers it. RequestsOption is the
// global option Request sets to each request it hands over: a listing of changes reads it (one
// option, not one per pane) to know that a pane carries a new one.
const (
	RequestOption  = "@cac_request"
	ReplyOption    = "@cac_reply"
	RequestsOption = "@cac_requests"
)

// IgnoreOption and MessageOption are pane options a user sets: "@cac_ignore on" keeps the
// watcher's hands off a pane; @cac_message replaces the message typed into it.
const (
	IgnoreOption  = "@cac_ignore"
	MessageOption = "@cac_message"
)

// WatcherOption is the global user option a running watcher sets to its pid, so that
// readers of what it published can tell whether it is live.
const WatcherOption = "@cac_watcher"
