package agent

import (
	"errors"
	"fmt"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/records"
)

// CodexCLI is Codex CLI as the engine sees it (SPEC §11, docs/codex.md): detector.DetectCodex
// reads its screen, captured with its escapes (its composer's placeholder is told from a draft
// by its dim attribute alone); the one key its "Approaching rate limits" menu may get is Esc,
// whose first row switches the user's model; an Enter within 120 ms of typed text is a paste's
// newline to it (0.171.0), so the Enter waits EnterAfter; its records are the rollout of the
// thread its TUI shows.
func CodexCLI() Agent {
	return Agent{Name: Codex, Detect: detector.DetectCodex, Styled: true, MenuKey: codexMenuKey,
		MenuStuck:  "Codex's rate-limit menu did not close after Esc; nothing more is pressed",
		EnterAfter: 500 * time.Millisecond, Open: openCodex, Unzoned: true, MenuWaits: true}
}

// codexMenuKey is Esc while the menu covers the stop that is the latest thing on screen
// (detector.Menu.Escape); nothing otherwise.
func codexMenuKey(m detector.Menu) (key, does string) {
	if !m.Escape {
		return "", "a Codex selection view that no key may answer is open (its rate-limit menu not over the latest stop, or the notice that replaces it after the reset); nothing is pressed until it closes"
	}
	return "Escape", "Esc, which closes Codex's \"Approaching rate limits\" menu"
}

// codexSession reads the rollout of the thread a Codex TUI shows (package records): the thread
// is matched to the process soundly (records.Env.FindRollout: its working directory, start,
// the thread its argv reopened, the stop's instant, the prompt above the stop), or not at
// all. Resets Codex prints without a zone are in its app-server daemon's zone (SPEC §11),
// which Zone gives.
type codexSession struct {
	env  records.Env
	q    records.CodexQuery
	qerr error // the process could not be read: no thread is matched
	zone *time.Location
	zerr error // the daemon's zone cannot be told
	// The rollout of the thread of the stop being handled, "" until matched.
	path, thread string
}

// openCodex opens the records of a Codex TUI. env, what Finder.Env read, is replaced by what
// the Host reads of the TUI (the same process: its CODEX_HOME and HOME).
func openCodex(env records.Env, p Process) Session {
	c := &codexSession{env: env}
	if p.Host == nil {
		c.qerr = errors.New("agent: codex: the process table was not asked")
		c.zerr = c.qerr
		return c
	}
	tui, err := p.Host.Codex()
	switch {
	case err != nil:
		c.qerr, c.zerr = err, err
	case tui.NoDaemon:
		c.env, c.q = tui.Env, tui.Query
		c.zerr = errors.New("it runs its app-server embedded (--no-daemon), which prints in the TUI's zone, not read")
	default:
		c.env, c.q = tui.Env, tui.Query
		c.zone, c.zerr = p.Host.DaemonZone(c.env.CodexDir())
	}
	return c
}

func (c *codexSession) Account() string      { return c.env.CodexDir() }
func (c *codexSession) Zone() *time.Location { return c.zone }
func (c *codexSession) VimMode() (bool, error) {
	return false, nil // Codex's composer has no vim mode (0.171.0)
}
func (c *codexSession) Forget() { c.path, c.thread = "", "" }

// rows reads the rollout of the stop's thread, matching it first when it is not known yet,
// with what the screen shows of the stop (when it appeared, the prompt above it).
func (c *codexSession) rows(seen Seen) ([]records.CodexRow, error) {
	if c.qerr != nil {
		return nil, c.qerr
	}
	if c.path == "" {
		q := c.q
		q.Stop, q.Prompt = seen.Appeared, seen.Prompt
		r, err := c.env.FindRollout(q)
		if err != nil {
			return nil, err
		}
		c.path, c.thread = r.Path, r.Thread
	}
	return records.ReadRollout(c.path)
}

// Judge: a stop on screen is the TUI's own when its thread's rollout ends in a usage-limit
// turn written after the process started (records.CodexStopOf); the exact reset is that
// turn's rate limits' resets_at. Without the rollout, a reset printed without a zone can be
// read only in the daemon's zone: when that cannot be told either, nothing is typed.
func (c *codexSession) Judge(seen Seen) Judgement {
	rows, err := c.rows(seen)
	switch {
	case c.qerr == nil && errors.Is(err, records.ErrNoRecord):
		// Codex's daemon writes every stop into the thread's rollout within a second: none
		// written since the process started is a thread reopened (codex resume --last, the
		// picker) redrawing its old stop, or a stop not written yet (judged again at the
		// next look).
		return Judgement{Err: err, Foreign: "no rollout of this codex process's directory records a stop since the process started: the stop on screen is older (a thread reopened?) or not written yet; nothing will be typed"}
	case err != nil:
		return Judgement{Err: err, Foreign: c.zoneUnknown()}
	}
	j := Judgement{Foreign: codexForeign(records.CodexStopOf(rows, c.q.Started))}
	if st, ok := records.LatestCodexStop(rows); ok && j.Foreign == "" && !st.Reset.IsZero() {
		j.Limit = &Limit{At: st.At, ResetsAt: st.Reset, Kind: seen.Kind, Type: st.Window, Sure: c.zerr != nil,
			Records: "Codex's rollout", Field: "resets_at", Source: "rollout"}
	}
	if j.Limit == nil && j.Foreign == "" {
		j.Foreign = c.zoneUnknown()
	}
	return j
}

// zoneUnknown is the note of a stop whose printed reset cannot be read: no exact reset from
// the rollout, and the daemon's zone unknown. "" when the zone is known.
func (c *codexSession) zoneUnknown() string {
	if c.zerr == nil {
		return ""
	}
	return fmt.Sprintf("Codex prints the reset in its app-server's zone, which cannot be told (%v), and no rollout gives the exact reset; nothing will be typed", c.zerr)
}

// codexForeign is the note of a stop that Codex's rollout says is not the process's own.
func codexForeign(s records.Stop) string {
	switch s {
	case records.StopEarlier:
		return "the stop on screen is older than this codex process (a thread reopened: its rollout's usage-limit turn was written before the process started); nothing will be typed"
	case records.StopNone:
		return "Codex's rollout has a prompt or a finished turn after its last usage-limit turn (or none), so the stop on screen is only text; nothing will be typed"
	}
	return ""
}

// Before: the thread the process shows now is matched again; another thread than the stop's
// is a new session. A user message without the end of its turn is a turn running.
func (c *codexSession) Before() (changed bool, note string) {
	if c.qerr != nil || c.path == "" {
		return false, ""
	}
	if r, err := c.env.FindRollout(c.q); err == nil && r.Thread != c.thread {
		return true, ""
	}
	rows, err := records.ReadRollout(c.path)
	if err != nil {
		return false, ""
	}
	for i := len(rows) - 1; i >= 0; i-- {
		switch rows[i].Kind {
		case records.CodexRates:
			continue
		case records.CodexUser:
			return false, "Codex's rollout says a turn is running; nothing is sent until it ends"
		}
		break
	}
	return false, ""
}

// Proof is records.CodexProof over the thread's rollout; Unproven without it.
func (c *codexSession) Proof(since time.Time, typed string) records.Outcome {
	if c.path == "" {
		return records.Unproven
	}
	rows, err := records.ReadRollout(c.path)
	if err != nil {
		return records.Unproven
	}
	return records.CodexProof(rows, since, typed)
}

// Conversation is the TUI's working directory, and no id: a Codex session is bound by its
// process alone (a link's action is refused for another process), since its thread is matched
// only for a stop on screen; another thread in the process is a new session before each key
// (Before).
func (c *codexSession) Conversation() (id, dir string) { return "", c.q.Cwd }
