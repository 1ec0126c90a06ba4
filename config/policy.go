package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
)

// Action is what the watcher does with a stop at one kind of limit.
type Action string

// The actions of [policy].
const (
	// ActionResume waits for the reset and resumes the session (the default).
	ActionResume Action = "resume"
	// ActionNotify tells (the held notification) and holds the pane until `cac-tmux
	// resume`.
	ActionNotify Action = "notify"
	// ActionNever never resumes the session by itself: the pane is held until `cac-tmux
	// resume`, without the held notification.
	ActionNever Action = "never"
)

var actions = []Action{ActionResume, ActionNotify, ActionNever}

// parseAction reads an action as written in the file or a tmux option: exactly "resume",
// "notify" or "never".
func parseAction(s string) (Action, error) {
	if a := Action(s); slices.Contains(actions, a) {
		return a, nil
	}
	return "", fmt.Errorf("config: parse action %q: %s", s, actionRule)
}

const actionRule = "must be resume, notify or never"

// Policy decides, for each kind of limit and each agent, whether a stop is resumed when its
// limit lifts.
type Policy struct {
	// Actions is the action of each kind of limit (detector.Kinds()); a kind that is not in
	// it is resumed. Default() holds every kind.
	Actions map[detector.Kind]Action
	// Agents is the action of every stop of each agent (agent.Names()), whatever its kind; an
	// agent that is not in it is resumed. Default() holds every agent.
	Agents map[agent.Name]Action
	// MaxWait holds a stop whose reset is further away than this, as ActionNotify does,
	// instead of waiting for it; 0 means no limit.
	MaxWait time.Duration
	// UntouchedAfter lets the watcher resume by itself a stop at which a person typed (a draft,
	// even one cleared since) once its input box has been empty and its screen unchanged this
	// long; 0 (the default) never: such a stop waits for a resume by hand or the person's Enter.
	UntouchedAfter time.Duration
}

// defaultPolicy resumes every kind and every agent and waits for any reset.
func defaultPolicy() Policy {
	p := Policy{Actions: make(map[detector.Kind]Action), Agents: make(map[agent.Name]Action)}
	for _, k := range detector.Kinds() {
		p.Actions[k] = ActionResume
	}
	for _, n := range agent.Names() {
		p.Agents[n] = ActionResume
	}
	return p
}

// For is the action for a stop of agent who, of kind, whose limit lifts at reset (zero when
// unknown), seen at now, and why it is not ActionResume ("" when it is): the agent's action
// when it is not resume, else the kind's; a resume whose reset is more than MaxWait after now
// becomes ActionNotify. An unknown reset is not held by MaxWait (how long it is cannot be
// told). Pure: it reads no clock.
func (p Policy) For(who agent.Name, kind detector.Kind, reset, now time.Time) (Action, string) {
	if a, ok := p.Agents[who]; ok && a != ActionResume {
		return a, fmt.Sprintf("policy.%s is %q", who, a)
	}
	a, ok := p.Actions[kind]
	if !ok {
		a = ActionResume
	}
	if a != ActionResume {
		return a, fmt.Sprintf("policy.%s is %q", kind, a)
	}
	if wait := reset.Sub(now); p.MaxWait > 0 && !reset.IsZero() && wait > p.MaxWait {
		return ActionNotify, fmt.Sprintf("the reset is %s away, more than policy.max_wait %s",
			formatDuration(wait.Round(time.Minute)), formatDuration(p.MaxWait))
	}
	return ActionResume, ""
}

// actionKind is an action: a string in the file, checked by actionRule.
var actionKind = &kind[Action]{
	name:     "string",
	fromTOML: func(v any) (Action, bool) { s, ok := v.(string); return Action(s), ok },
	fromText: func(s string) (Action, error) { return Action(s), nil },
	text:     func(a Action) string { return string(a) },
	format:   func(a Action) string { return tomlString(string(a)) },
}

// kindHelp says which stops each kind is, for Example.
var kindHelp = map[detector.Kind]string{
	detector.KindSession:      `the session limit ("You've hit your session limit", "Session limit reached")`,
	detector.KindFiveHour:     `the 5-hour limit ("5-hour limit reached")`,
	detector.KindWeekly:       "the weekly limit: resuming at its reset spends the new week's quota",
	detector.KindOpus:         "the weekly Opus limit",
	detector.KindSonnet:       "the weekly Sonnet limit",
	detector.KindModel:        `one model's limit (Codex CLI: "You’ve hit your usage limit for <model>")`,
	detector.KindUsage:        `a limit of no named kind ("You've hit your limit", "Usage limit reached")`,
	detector.KindExtraUsage:   `"You're out of extra usage"`,
	detector.KindUsageCredits: `"You're out of usage credits"`,
	detector.KindSpendingCap:  `a spending cap ("Spending cap reached"; a monthly spend limit is never waited for)`,
	detector.KindTeam:         "an organisation's or a team's limit",
	detector.KindLegacy:       `the message of Claude Code 1.0.83 and older ("Claude AI usage limit reached")`,
	detector.KindUnknown:      "a limit of a kind cac-tmux does not know",
}

// kindAliases are names a user may try for a kind (the transcript's rateLimitType), for the
// "did you mean" of an unknown key of [policy].
var kindAliases = map[string]detector.Kind{
	"five_hour": detector.KindFiveHour, "seven_day": detector.KindWeekly, "week": detector.KindWeekly,
	"seven_day_opus": detector.KindOpus, "seven_day_sonnet": detector.KindSonnet,
	"overage": detector.KindExtraUsage, "credits": detector.KindUsageCredits,
}

// policyTable is [policy]: one key per kind of limit, one per agent, then max_wait.
var policyTable = table{name: "policy", help: []string{
	"What to do with a stop at each kind of limit (the kinds `cac-tmux list --json` prints),",
	"and with every stop of an agent (claude, codex: its key, when not \"resume\", wins over the",
	"kind's): \"resume\" waits for the reset and resumes; \"notify\" tells and holds the pane",
	"until `cac-tmux resume`; \"never\" holds it without telling."}, keys: policyKeys()}

func policyKeys() []setting {
	var keys []setting
	for _, k := range detector.Kinds() {
		keys = append(keys, actionKey(string(k), kindHelp[k], func(p *Policy) *map[detector.Kind]Action { return &p.Actions }, k))
	}
	for _, n := range agent.Names() {
		keys = append(keys, actionKey(string(n), "every stop of "+n.Title()+", whatever its kind (\"never\": never resumed by itself)",
			func(p *Policy) *map[agent.Name]Action { return &p.Agents }, n))
	}
	return append(keys, newKey(meta{table: "policy", name: "max_wait", want: wantDuration,
		help: `a reset further away than this is held and notified instead of waited for; "0": no limit`},
		durationKind, func(c *Config) *time.Duration { return &c.Policy.MaxWait }, notNegative),
		newKey(meta{table: "policy", name: "untouched_after", want: wantDuration,
			help: `once a person typed at a stopped pane, resume it by itself only after its input box has been empty and unchanged this long; "0": never, resume by hand`},
			durationKind, func(c *Config) *time.Duration { return &c.Policy.UntouchedAfter }, notNegative))
}

// actionKey is the key name of [policy]: the action of k in the map at(policy).
func actionKey[K comparable](name, help string, at func(*Policy) *map[K]Action, k K) setting {
	return accessKey(meta{table: "policy", name: name, want: `one of "resume", "notify", "never"`, help: help},
		actionKind,
		func(c *Config) Action { return (*at(&c.Policy))[k] },
		func(c *Config, a Action) {
			m := maps.Clone(*at(&c.Policy)) // a Config's copies share the map
			if m == nil {
				m = make(map[K]Action)
			}
			m[k] = a
			*at(&c.Policy) = m
		},
		func(a Action) string {
			if slices.Contains(actions, a) {
				return ""
			}
			return actionRule
		})
}

// suggestKind is the kind a user probably meant by an unknown key of [policy], "" when none.
func suggestKind(name string) string {
	if k, ok := kindAliases[strings.ReplaceAll(strings.ToLower(name), "-", "_")]; ok {
		return string(k)
	}
	return ""
}
