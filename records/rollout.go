package records

import (
	"bytes"
	"encoding/json"
	"time"
)

// What Codex CLI writes to a thread's rollout (SPEC §11, seen with 0.171.0): a JSON line per
// row, {"timestamp":"2026-11-28T12:40:47.308Z","type":…,"payload":{…}}. The daemon writes it;
// the rows read here are event_msg rows: a user message (item_completed of a UserMessage;
// older builds wrote user_message), the rate limits the server sent (token_count), and the end
// of each turn (task_complete, with an error when the turn failed). Other rows, among them
// the large response_item rows, are skipped undecoded.

// CodexKind is what a rollout row is, as far as cac-tmux cares.
type CodexKind int

// The kinds of rollout rows the reader keeps.
const (
	// CodexUser is a message the user submitted.
	CodexUser CodexKind = iota + 1
	// CodexRates is the rate limits the server sent with a response (token_count).
	CodexRates
	// CodexDone is a turn that ended without an error: a turn ran.
	CodexDone
	// CodexLimit is a turn that ended at a usage limit: task_complete with
	// error.codex_error_info "usage_limit_exceeded".
	CodexLimit
	// CodexError is a turn that ended with any other error.
	CodexError
)

// CodexRow is the part of one rollout row that cac-tmux reads. No message text is kept: a
// user message only as its Digest.
type CodexRow struct {
	Kind CodexKind
	At   time.Time // the row's timestamp
	// Prompt is Digest of a CodexUser row's text.
	Prompt uint64
	// ErrorInfo is the codex_error_info of a CodexLimit or CodexError row.
	ErrorInfo string
	// Rates is set on CodexRates rows; nil when the server sent none (rate_limits null, or
	// each of its fields null).
	Rates *RateLimits
}

// RateLimits are the rate limits of a token_count row.
type RateLimits struct {
	Primary, Secondary *RateWindow // nil when not sent
	Plan               string      // plan_type: "plus", "pro", "team", …; "" when not sent
	// ReachedType is rate_limit_reached_type: null in what 0.171.0 wrote against the mock;
	// the binary's strings name "rate_limit_reached", "workspace_owner_credits_depleted",
	// "workspace_member_credits_depleted", "workspace_owner_usage_limit_reached" and
	// "workspace_member_usage_limit_reached".
	ReachedType string
	// SpendControl is spend_control_reached sent and neither null nor false.
	SpendControl bool
}

// RateWindow is one window of the rate limits: the 5-hour (primary) or the weekly one
// (secondary), as the server sent it.
type RateWindow struct {
	UsedPercent   float64
	WindowMinutes int
	ResetsAt      time.Time // zero when not sent
}

// usageLimit is the codex_error_info of a usage-limit stop.
const usageLimit = "usage_limit_exceeded"

// rolloutLine is the shape of a rollout line, reduced to the fields named here.
type rolloutLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   struct {
		Type  string `json:"type"`
		Error *struct {
			Info json.RawMessage `json:"codex_error_info"`
		} `json:"error"`
		RateLimits *rateLimitsJSON `json:"rate_limits"`
		Message    *string         `json:"message"` // user_message
		Item       *struct {
			Type    string `json:"type"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"item"`
	} `json:"payload"`
}

type rateLimitsJSON struct {
	Primary      *windowJSON     `json:"primary"`
	Secondary    *windowJSON     `json:"secondary"`
	PlanType     *string         `json:"plan_type"`
	ReachedType  *string         `json:"rate_limit_reached_type"`
	SpendControl json.RawMessage `json:"spend_control_reached"`
}

type windowJSON struct {
	UsedPercent   float64 `json:"used_percent"`
	WindowMinutes int     `json:"window_minutes"`
	ResetsAt      *int64  `json:"resets_at"`
}

// The payload types the reader decodes; a line without one of them is skipped undecoded.
var rolloutKeep = [][]byte{[]byte(`"task_complete"`), []byte(`"token_count"`), []byte(`"UserMessage"`), []byte(`"user_message"`)}

// parseRollout reads one rollout line. ok is false for rows of no interest and for anything
// that is not such a row: malformed JSON, a missing or bad timestamp, another shape.
func parseRollout(line []byte) (CodexRow, bool) {
	line = bytes.TrimRight(line, "\r\n")
	if !bytes.Contains(line, []byte(`"event_msg"`)) || !containsAny(line, rolloutKeep) {
		return CodexRow{}, false
	}
	var x rolloutLine
	if json.Unmarshal(line, &x) != nil || x.Type != "event_msg" {
		return CodexRow{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, x.Timestamp)
	if err != nil {
		return CodexRow{}, false
	}
	r := CodexRow{At: at}
	p := x.Payload
	switch {
	case p.Type == "task_complete" && p.Error == nil:
		r.Kind = CodexDone
	case p.Type == "task_complete":
		var info string
		_ = json.Unmarshal(p.Error.Info, &info) // an info that is an object stays ""
		r.Kind, r.ErrorInfo = CodexError, info
		if info == usageLimit {
			r.Kind = CodexLimit
		}
	case p.Type == "token_count":
		r.Kind, r.Rates = CodexRates, p.RateLimits.limits()
	case p.Type == "user_message" && p.Message != nil:
		r.Kind, r.Prompt = CodexUser, Digest(*p.Message)
	case p.Type == "item_completed" && p.Item != nil && p.Item.Type == "UserMessage":
		var text []byte
		for _, c := range p.Item.Content {
			if c.Type == "text" {
				text = append(text, c.Text...)
			}
		}
		r.Kind, r.Prompt = CodexUser, Digest(string(text))
	default:
		return CodexRow{}, false
	}
	return r, true
}

// limits is the rate limits as read; nil when none were sent.
func (j *rateLimitsJSON) limits() *RateLimits {
	if j == nil {
		return nil
	}
	l := &RateLimits{Primary: j.Primary.window(), Secondary: j.Secondary.window()}
	if j.PlanType != nil {
		l.Plan = *j.PlanType
	}
	if j.ReachedType != nil {
		l.ReachedType = *j.ReachedType
	}
	sc := string(bytes.TrimSpace(j.SpendControl))
	l.SpendControl = sc != "" && sc != "null" && sc != "false"
	if *l == (RateLimits{}) {
		return nil
	}
	return l
}

func (j *windowJSON) window() *RateWindow {
	if j == nil {
		return nil
	}
	w := &RateWindow{UsedPercent: j.UsedPercent, WindowMinutes: j.WindowMinutes}
	if j.ResetsAt != nil && *j.ResetsAt > 0 {
		w.ResetsAt = time.Unix(*j.ResetsAt, 0)
	}
	return w
}

func containsAny(b []byte, subs [][]byte) bool {
	for _, s := range subs {
		if bytes.Contains(b, s) {
			return true
		}
	}
	return false
}

// ReadRollout returns the rows found in the end of the rollout at path, oldest first, read as
// ReadTail reads a transcript: never the whole of a large file, the window growing only while
// it holds no user message and no usage-limit stop.
func ReadRollout(path string) ([]CodexRow, error) {
	return readTail(path, parseRollout, func(rows []CodexRow) bool {
		for _, r := range rows {
			if r.Kind == CodexUser || r.Kind == CodexLimit {
				return true
			}
		}
		return false
	})
}

// CodexStop is a usage-limit stop as a rollout records it.
type CodexStop struct {
	At time.Time // the task_complete row's timestamp
	// Reset is the exact reset: the resets_at of the window at 100 % in the rate limits of the
	// same turn (the later one when both are), zero when unknown (no rate limits, or no
	// window full). Window names it: "primary" (5 hours) or "secondary" (weekly).
	Reset  time.Time
	Window string
	Plan   string // the plan the rate limits name, "" when none
	// Credits: the rate limits say a workspace's credits or usage limit, or a spend cap, is
	// what stopped the turn: waiting for the reset does not lift it.
	Credits bool
}

// LatestCodexStop returns the last usage-limit stop of the rows, unless a user message comes
// after it (the thread went on after that stop, so it is not the one on screen).
func LatestCodexStop(rows []CodexRow) (CodexStop, bool) {
	for i := len(rows) - 1; i >= 0; i-- {
		switch rows[i].Kind {
		case CodexUser:
			return CodexStop{}, false
		case CodexLimit:
			return stopAt(rows, i), true
		}
	}
	return CodexStop{}, false
}

// stopAt is the stop of the limit row rows[i], with the rate limits of its turn: the last
// token_count row before it and after the turn's user message.
func stopAt(rows []CodexRow, i int) CodexStop {
	s := CodexStop{At: rows[i].At}
	for j := i - 1; j >= 0 && rows[j].Kind != CodexUser && rows[j].Kind != CodexDone && rows[j].Kind != CodexLimit; j-- {
		l := rows[j].Rates
		if rows[j].Kind != CodexRates || l == nil {
			continue
		}
		s.Plan = l.Plan
		s.Credits = l.SpendControl || (l.ReachedType != "" && l.ReachedType != "rate_limit_reached")
		for _, w := range []struct {
			name string
			w    *RateWindow
		}{{"primary", l.Primary}, {"secondary", l.Secondary}} {
			if w.w != nil && w.w.UsedPercent >= 100 && !w.w.ResetsAt.IsZero() && w.w.ResetsAt.After(s.Reset) {
				s.Reset, s.Window = w.w.ResetsAt, w.name
			}
		}
		break
	}
	return s
}

// CodexStopOf says whose stop a stop on a Codex screen is, as StopOf does for Claude Code,
// from the rows of the thread and the instant the Codex process started (zero when unknown):
// a real stop of this process is a usage-limit row written after it started with nothing
// after it but rate limits. A reopened thread (codex resume) whose last turn stopped redraws
// that old stop: StopEarlier.
func CodexStopOf(rows []CodexRow, started time.Time) Stop {
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		switch {
		case r.Kind == CodexRates:
			continue
		case r.Kind == CodexUser || r.Kind == CodexDone:
			return StopNone
		case r.Kind != CodexLimit || started.IsZero():
			return StopUnknown
		case r.At.Before(started):
			return StopEarlier
		}
		return StopOwn
	}
	return StopUnknown
}

// CodexProof says what the rows written at or after since tell about a resume that typed
// message, as Proof does for Claude Code: the first user message carrying it (any, for an
// empty message), then the first turn that ended after it: without an error, Resumed; at a
// usage limit, LimitAgain.
func CodexProof(rows []CodexRow, since time.Time, message string) Outcome {
	want, seen := Digest(message), false
	for _, r := range rows {
		if r.At.Before(since) {
			continue
		}
		switch {
		case r.Kind == CodexUser && (message == "" || r.Prompt == want):
			seen = true
		case !seen:
		case r.Kind == CodexDone:
			return Resumed
		case r.Kind == CodexLimit:
			return LimitAgain
		}
	}
	return Unproven
}
