package agent

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/records"
)

// ClaudeCode is Claude Code as the engine sees it: detector.Detect reads its screen, text
// then Enter alone submits, and its registry and transcript are its records.
func ClaudeCode() Agent {
	return Agent{Name: Claude, Detect: detector.Detect, MenuKey: claudeMenuKey, Open: openClaude,
		MenuStuck: "the options menu did not close after its Stop row's digit; nothing more is pressed"}
}

// claudeMenuKey is the digit of the options menu's Stop row (detector.Menu.StopDigit): the
// only row that neither buys usage nor switches the account or the model.
func claudeMenuKey(m detector.Menu) (key, does string) {
	if m.StopDigit == 0 {
		return "", "the options menu has no row with a known Stop label; nothing will be pressed"
	}
	return strconv.Itoa(m.StopDigit), "the options menu's Stop row"
}

// claudeSession reads Claude Code's registry entry of one claude process and the end of its
// transcript (package records).
type claudeSession struct {
	env records.Env
	p   Process
	id  string // the registry's session id when the stop was taken on, "" when unknown
}

func openClaude(env records.Env, p Process) Session { return &claudeSession{env: env, p: p} }

func (c *claudeSession) Account() string      { return c.env.Dir() }
func (c *claudeSession) Zone() *time.Location { return nil }
func (c *claudeSession) Forget()              { c.id = "" }

// errNoEntry: the claude process has no readable registry entry.
var errNoEntry = errors.New("no registry entry")

// read reads the process's registry entry.
func (c *claudeSession) read() (records.Entry, error) {
	if c.env.Dir() == "" || c.p.ProcStart == "" {
		return records.Entry{}, errNoEntry
	}
	en, err := c.env.Session(c.p.PID, c.p.ProcStart)
	if err != nil {
		return records.Entry{}, fmt.Errorf("%w: %w", errNoEntry, err)
	}
	return en, nil
}

// entry reads the process's registry entry; the first one read names the stop's session.
func (c *claudeSession) entry() (records.Entry, error) {
	en, err := c.read()
	if err != nil {
		return en, err
	}
	if c.id == "" {
		c.id = en.SessionID
	}
	return en, nil
}

// rows reads the end of the transcript: errNoEntry without a registry entry, an error
// wrapping records.ErrNoRecord when its session has no transcript.
func (c *claudeSession) rows() ([]records.Row, records.Entry, error) {
	en, err := c.entry()
	if err != nil {
		return nil, en, err
	}
	path, err := c.env.Transcript(en)
	if err != nil {
		return nil, en, err
	}
	rows, err := records.ReadTail(path, en.SessionID)
	return rows, en, err
}

// Judge: a stop on screen is the process's own only when its transcript ends in a
// usage-limit row written after the process started (not a reply quoting the limit, nor an
// old stop redrawn by a reopened conversation); without records the screen decides. A
// registry entry whose session has no transcript is no stop of its own either: claude -c
// first names a fresh session, and the old one only later (over a second on a loaded
// machine), the old stop already on screen (Claude Code 2.1.332).
func (c *claudeSession) Judge(seen Seen) Judgement {
	rows, en, err := c.rows()
	switch {
	case errors.Is(err, errNoEntry):
		return Judgement{Err: err}
	case errors.Is(err, records.ErrNoRecord):
		return Judgement{Err: err, Foreign: "Claude Code's registry names a session without a transcript, so the stop on screen is not its own (a conversation being reopened?); nothing will be typed"}
	case err != nil:
		return Judgement{Err: err}
	}
	j := Judgement{Foreign: claudeForeign(records.StopOf(rows, en.Started()))}
	if row, found := records.LatestLimit(rows); found { // the watcher refines only its own stop
		j.Limit = &Limit{At: row.At, ResetsAt: row.ResetsAt, Kind: claudeKind(row.RateLimitType, seen.Kind), Type: row.RateLimitType,
			Records: "Claude Code's transcript", Field: "resetsAt", Source: "transcript"}
	}
	return j
}

// claudeForeign is the note of a stop that Claude Code's records say is not the process's own.
func claudeForeign(s records.Stop) string {
	switch s {
	case records.StopEarlier:
		return "the stop on screen is older than this claude process (a conversation reopened: its transcript's usage-limit row was written before the process started); nothing will be typed"
	case records.StopNone:
		return "Claude Code's transcript has a prompt or a reply after its last usage-limit row (or none), so the stop on screen is only text, such as a quoted line; nothing will be typed"
	}
	return ""
}

// claudeKind is the kind of limit a transcript's rateLimitType names; the screen's kind when
// it names none this version knows. five_hour is the limit Claude Code prints as the session
// limit or the 5-hour limit, depending on the version: the screen's name is kept.
func claudeKind(rateLimitType string, screen detector.Kind) detector.Kind {
	switch rateLimitType {
	case "five_hour":
		if screen == detector.KindSession {
			return screen
		}
		return detector.KindFiveHour
	case "seven_day":
		return detector.KindWeekly
	case "seven_day_opus":
		return detector.KindOpus
	case "seven_day_sonnet":
		return detector.KindSonnet
	case "overage":
		return detector.KindExtraUsage
	}
	return screen
}

// Before checks Claude Code's session registry: another session id in the process than the
// one that stopped is a new session, and a "busy" status is one more reason not to type. No
// entry allows: the screen decides, as without records.
func (c *claudeSession) Before() (changed bool, note string) {
	id := c.id
	en, err := c.entry()
	switch {
	case err != nil:
		return false, ""
	case id != "" && en.SessionID != id:
		return true, ""
	case en.Busy():
		return false, "Claude Code's registry says a turn is running; nothing is sent until it is idle"
	}
	return false, ""
}

// Proof is records.Proof over the transcript; Unproven without records.
func (c *claudeSession) Proof(since time.Time, typed string) records.Outcome {
	rows, _, err := c.rows()
	if err != nil {
		return records.Unproven
	}
	return records.Proof(rows, since, typed)
}

// VimMode reads Claude Code's editorMode (records.EditorMode, the project's settings read from
// the registry's cwd).
func (c *claudeSession) VimMode() (bool, error) {
	en, _ := c.entry()
	mode, err := c.env.EditorMode(en.Cwd)
	return mode == "vim", err
}

// Conversation reads the registry entry afresh.
func (c *claudeSession) Conversation() (id, dir string) {
	en, err := c.read()
	if err != nil {
		return "", ""
	}
	return en.SessionID, en.Cwd
}
