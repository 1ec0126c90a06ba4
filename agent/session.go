package agent

import (
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/records"
)

// Agent is what the engine is given about one agent: how its screen reads, how to type into
// it and how to open its records. The watcher holds no rule of its own about any agent.
type Agent struct {
	Name Name
	// Detect classifies one screen of the agent (pure; detector.Detect for Claude Code).
	Detect func(screen string, f detector.Facts) detector.Verdict
	// Styled: the screen is captured with its SGR escapes (capture-pane -e), for an agent
	// whose screen says by an attribute alone what a row is (Codex's dim placeholder).
	Styled bool
	// MenuKey is the one key the engine may press in a menu on screen and what it does; key
	// "" when none may be pressed, does then says why.
	MenuKey func(m detector.Menu) (key, does string)
	// MenuStuck is the note of a pane whose menu stayed open after its key.
	MenuStuck string
	// MenuWaits: a menu that no key may answer closes by itself or by hand (Codex's notice
	// that replaces its rate-limit menu after the reset closes in 5 s): the stop waits for it
	// to close, no key sent, rather than being held for a person.
	MenuWaits bool
	// Unzoned: the agent prints a reset without a zone, in a zone only its records tell
	// (Session.Zone): without its records nothing is typed, and a look without them shows
	// no reset.
	Unzoned bool
	// EnterAfter is how long the Enter waits after the look that showed the typed message
	// in the input box (Codex reads an Enter soon after typed text as a paste's newline).
	EnterAfter time.Duration
	// Open opens the records of the session of one process of the agent, found in env.
	Open func(env records.Env, p Process) Session
}

// Process is one process of an agent, as the process table names it.
type Process struct {
	PID int
	// ProcStart is field 22 of /proc/PID/stat, "" when the process was found without /proc.
	ProcStart string
	// Host answers what the records need of the process table beyond the environment; nil
	// when it cannot be asked.
	Host Host
}

// Host is what an agent's records need of the process table beyond the environment (the
// watcher gives proc.Finder's answers through it).
type Host interface {
	// Codex is what the process table tells of a Codex TUI process.
	Codex() (CodexProcess, error)
	// DaemonZone is the zone of the app-server daemon of the Codex home.
	DaemonZone(home string) (*time.Location, error)
}

// CodexProcess is what the process table tells of a Codex TUI process.
type CodexProcess struct {
	// Env is its environment: its Codex home (records.Env.CodexDir) is its account.
	Env records.Env
	// Query finds the thread it shows (records.Env.FindRollout), without the screen's part.
	Query records.CodexQuery
	// NoDaemon: it runs its app-server embedded (--no-daemon), not Codex's shared daemon.
	NoDaemon bool
}

// Session is what an agent's own records say about the session of one process. The screen
// stays the authority on what is on screen; the records confirm and refine it. A Session
// keeps which conversation the stop being handled belongs to, from its first read to Forget.
type Session interface {
	// Account is the directory of the account the process uses, "" when unknown.
	Account() string
	// Zone is the zone the agent prints a reset without a zone in; nil is the host's.
	Zone() *time.Location
	// Judge reads the records about the stop on screen.
	Judge(s Seen) Judgement
	// Before is checked before each key: changed is true when the process now runs another
	// conversation than the stop's; note, when not "", says why nothing may be typed now.
	Before() (changed bool, note string)
	// Proof says what the records tell of keys sent at since; typed is the message typed
	// ("" for a key alone).
	Proof(since time.Time, typed string) records.Outcome
	// VimMode reports whether the input box takes vim keys (Claude Code's editorMode "vim").
	VimMode() (bool, error)
	// Conversation is the id and directory of the conversation the process runs now, ""
	// when the records do not say.
	Conversation() (id, dir string)
	// Forget starts a new stop: the conversation is read again.
	Forget()
}

// Seen is what the screen shows of a stop: its kind, when it appeared (zero when unknown),
// and the prompt above it ("" when the screen does not show it whole).
type Seen struct {
	Kind     detector.Kind
	Appeared time.Time
	Prompt   string
}

// Judgement is what the records say of the stop on screen.
type Judgement struct {
	// Foreign, when not "", says why nothing may be typed for the stop on screen: it is not
	// the process's own (a quoted line, an older stop redrawn), or cannot be read.
	Foreign string
	// Limit is the records' latest limit, when it may be the stop on screen (a stop the
	// records call foreign is refined only by inspect).
	Limit *Limit
	// Err says why the records could not be read, nil when they were (for the debug log).
	Err error
}

// Limit is a usage limit as an agent's records write it.
type Limit struct {
	// At is when the record was written.
	At time.Time
	// ResetsAt is the exact reset the record holds.
	ResetsAt time.Time
	// Kind is the kind of limit the record names, given the screen's.
	Kind detector.Kind
	// Type is the record's own name of the limit, for the log.
	Type string
	// Sure: the record is the only reading of the reset (the screen's printed time cannot be
	// placed: Session.Zone is unknown); it stands when the screen's reading disagrees.
	Sure bool
	// Records names the records for people ("Claude Code's transcript"), Field the field that
	// holds the reset ("resetsAt"), and Source the word a reset from them is published with
	// ("transcript").
	Records, Field, Source string
}
