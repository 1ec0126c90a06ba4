package detector

import (
	"regexp"
	"strconv"
	"strings"
)

// message is a limit message as read: what it says and the raw reset clause, before the
// reset is resolved to an instant.
type message struct {
	kind     Kind
	waitable bool
	epoch    int64 // legacy "|<unix>" form; 0 when absent or unknown
	hasEpoch bool
	clock    *clockText // the printed reset, nil when none could be read
	// resetWord is true when the message has a reset clause ("resets …", "will reset at …"),
	// even one that could not be read.
	resetWord bool
}

// normalize maps the characters Claude Code and users' reports vary on to one form, so the
// templates can be written once: U+2019 and U+2018 apostrophes become ASCII (Claude Code's own
// text is ASCII, pasted reports are not), NO-BREAK SPACE and NARROW NO-BREAK SPACE become a
// space (ICU puts U+202F before am/pm in some runtimes), and runs of spaces collapse.
func normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch r {
		case '\u2019', '\u2018':
			r = '\''
		case '\u00a0', '\u202f', '\u2009', '\t':
			r = ' '
		}
		if r == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// head is one template for the start of a limit message.
type head struct {
	re *regexp.Regexp
	// classify returns the kind and whether waiting clears it, from the submatches.
	classify func(m []string) (Kind, bool)
	// needReset: the head alone is too loose (it begins other notices too); the message is a
	// stop only with a reset clause or an admin clause.
	needReset bool
}

func fixed(k Kind, waitable bool) func([]string) (Kind, bool) {
	return func([]string) (Kind, bool) { return k, waitable }
}

// kindWord maps the word before "limit" to a kind.
func kindWord(w string) (Kind, bool) {
	switch strings.ToLower(strings.TrimSpace(w)) {
	case "":
		return KindUsage, true
	case "usage":
		return KindUsage, true
	case "session":
		return KindSession, true
	case "5-hour", "five-hour":
		return KindFiveHour, true
	case "weekly":
		return KindWeekly, true
	case "opus", "opus weekly":
		return KindOpus, true
	case "sonnet", "sonnet weekly":
		return KindSonnet, true
	case "org's monthly spend", "organization's monthly spend", "monthly spend":
		// Spend limits are not cleared by waiting for a reset (docs/claude-code.md, Messages).
		return KindSpendingCap, false
	}
	return KindUnknown, true
}

// heads are the message templates of every era (docs/claude-code.md, Messages), matched at the
// start of the normalized message text.
var heads = []head{
	// E0 raw internal form (≤1.0.83, also `claude -p` and Task results): "…|<epoch>".
	{re: regexp.MustCompile(`^Claude AI usage limit reached\|(-?\d{1,12})`), classify: fixed(KindLegacy, true)},
	// E0 rendered: "Claude usage limit reached. Your limit will reset at 3pm (America/Santiago)."
	{re: regexp.MustCompile(`^Claude (?:AI )?usage limit reached\b`), classify: fixed(KindLegacy, true)},
	// E3/E4: "You've hit your limit", "You've hit your session limit", "… org's monthly spend limit".
	{re: regexp.MustCompile(`^You've hit your (?:([A-Za-z0-9' -]{1,40}?) )?limit\b`),
		classify: func(m []string) (Kind, bool) { return kindWord(m[1]) }},
	// E3/E4: "You're out of extra usage", "You're out of usage credits".
	{re: regexp.MustCompile(`^You're out of extra usage\b`), classify: fixed(KindExtraUsage, true)},
	{re: regexp.MustCompile(`^You're out of usage credits\b`), classify: fixed(KindUsageCredits, true)},
	// E1/E2: "5-hour limit reached ∙ resets 12:50am", "Opus weekly limit reached ∙ …".
	// "Usage limit reached" also begins 2.1.3xx notices ("· wrapping up", "· continuing
	// automatically"), so it needs a reset or admin clause.
	{re: regexp.MustCompile(`^(5-hour|Session|Weekly|Opus weekly|Sonnet weekly|Opus|Sonnet) limit reached\b`),
		classify: func(m []string) (Kind, bool) { return kindWord(m[1]) }},
	{re: regexp.MustCompile(`^Usage limit reached\b`), classify: fixed(KindUsage, true), needReset: true},
	// E1 teams: "Session limit resets 3pm (Europe/Berlin) ∙ contact an admin to keep working".
	// The head stops before "resets" so the reset clause is read like any other.
	{re: regexp.MustCompile(`^(?:5-hour|Session|Weekly|Opus weekly|Sonnet weekly|Opus|Sonnet|Usage) limit\b`),
		classify: fixed(KindTeam, true), needReset: true},
	// E2 and teams: "Limit reached resets 12:50am (…) · /upgrade …", "Limit reached – contact an admin".
	{re: regexp.MustCompile(`^Limit reached\b`), classify: fixed(KindUsage, true), needReset: true},
	{re: regexp.MustCompile(`^Spending cap reached\b`), classify: fixed(KindSpendingCap, true)},
	// Org and seat stops: waiting cannot clear them (docs/claude-code.md, Messages).
	{re: regexp.MustCompile(`^Your (?:org|organization|organisation) is out of usage\b`), classify: fixed(KindTeam, false)},
	{re: regexp.MustCompile(`^Your seat type doesn't include usage credits\b`), classify: fixed(KindTeam, false)},
	{re: regexp.MustCompile(`^Usage is paused for your (?:org|organization|organisation)\b`), classify: fixed(KindTeam, false)},
}

// notStop are phrases that make a message that starts like a stop something else: warnings,
// fallbacks, wrap-up and retry notices, fast-mode countdowns (docs/claude-code.md, Not stops).
var notStop = regexp.MustCompile(`(?i)wrapping up|continuing automatically|now using|retrying in|approaching|resets in \d|\b\d{1,3}% (?:of|used)`)

// admin is the team clause "contact an admin to keep working".
var admin = regexp.MustCompile(`(?i)contact (?:an|your) admin`)

// after is what may follow a head: nothing, a full stop, a separator (· ∙ • – — - |), or
// the reset clause itself. Anything else ("You've hit your limit for Claude messages", the
// claude.ai web UI wording) is not Claude Code's stop.
var after = regexp.MustCompile(`^(?:$|[.·∙•–—|:-]|,? ?(?:resets|will reset|reset at|Your limit will reset))`)

// resetClause finds the reset keyword; the text after it is read by parseClock.
var resetClause = regexp.MustCompile(`\b(?:resets|will reset at|reset at)(?: at)? `)

// maxMessageBytes bounds a limit message: the longest real one is under 200 bytes; longer
// gutter text is something else (tool output, a paste) and is not read further.
const maxMessageBytes = 600

// parseMessage reads one limit message (already normalized). ok is false when the text is not
// a usage-limit stop.
func parseMessage(text string) (message, bool) {
	if len(text) > maxMessageBytes {
		return message{}, false
	}
	text = strings.TrimPrefix(text, "Error: ")
	if notStop.MatchString(text) {
		return message{}, false
	}
	for _, h := range heads {
		m := h.re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		rest := strings.TrimSpace(text[len(m[0]):])
		if !after.MatchString(rest) {
			return message{}, false
		}
		kind, waitable := h.classify(m)
		msg := message{kind: kind, waitable: waitable}
		if kind == KindLegacy && strings.Contains(m[0], "|") {
			n, err := strconv.ParseInt(m[1], 10, 64)
			if err == nil && n > 0 {
				msg.epoch, msg.hasEpoch = n, true
			}
			msg.resetWord = true
			return msg, true
		}
		hasAdmin := admin.MatchString(rest)
		if hasAdmin {
			kind, msg.kind = KindTeam, KindTeam
		}
		if loc := resetClause.FindStringIndex(rest); loc != nil {
			msg.resetWord = true
			msg.clock = parseClock(rest[loc[1]:])
		}
		if h.needReset && !msg.resetWord && !hasAdmin {
			return message{}, false
		}
		if kind == KindTeam && hasAdmin && !msg.resetWord {
			// "Limit reached – contact an admin to keep working": no time, only an admin
			// can lift it.
			msg.waitable = false
		}
		if kind == KindUnknown && !msg.resetWord {
			return message{}, false
		}
		return msg, true
	}
	return message{}, false
}
