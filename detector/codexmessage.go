// The wording of Codex CLI's usage-limit stops and their reset clause (docs/codex.md).

package detector

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// codexHead is one wording a Codex usage-limit stop starts with.
type codexHead struct {
	re       *regexp.Regexp
	kind     Kind
	waitable bool
}

// codexHeads are the stops of Codex 0.171.0 (the strings of its native binary; SPEC §11),
// matched at the start of the normalized message: the usage limit of every plan, one model's
// limit, a workspace out of credits and a spend cap (waiting clears neither of those two).
var codexHeads = []codexHead{
	{regexp.MustCompile(`^You've hit your usage limit for [^.]{1,80}\. Switch to another model now\b`), KindModel, true},
	{regexp.MustCompile(`^You've hit your usage limit\.`), KindUsage, true},
	{regexp.MustCompile(`^Your workspace is out of credits\.`), KindUsageCredits, false},
	{regexp.MustCompile(`^You hit your spend cap set (?:in your workspace|by the owner of your workspace)\.`), KindSpendingCap, false},
}

var (
	// codexAt is the printed reset: "try again at 12:44 AM." or, more than a day ahead,
	// "try again at Nov 30th, 2026 4:56 AM." (Codex's "%b %-d<suffix>, %Y %-I:%M %p").
	codexAt = regexp.MustCompile(`(?i)\btry again at (.+?)\.?$`)
	// codexIn is older builds' relative reset: "Try again in 4 days 20 hours 9 minutes."
	codexIn = regexp.MustCompile(`(?i)\btry again in ((?:\d{1,4} (?:days?|hours?|minutes?|seconds?)[ ,]*(?:and )?)+)\.?$`)
	// codexLater is a stop whose reset Codex does not know.
	codexLater = regexp.MustCompile(`(?i)\btry again later\.?$`)
	codexUnit  = regexp.MustCompile(`(\d{1,4}) (day|hour|minute|second)s?`)
	codexUnits = map[string]time.Duration{"day": 24 * time.Hour, "hour": time.Hour, "minute": time.Minute, "second": time.Second}
)

// codexMessage is a Codex stop as read: its kind and its reset clause.
type codexMessage struct {
	kind     Kind
	waitable bool
	text     string // normalized
}

// parseCodexMessage reads the text of an error cell; ok is false when it is not a usage-limit
// stop.
func parseCodexMessage(text string) (codexMessage, bool) {
	if len(text) > 2*maxMessageBytes { // normalize shortens it by little: spaces, apostrophes
		return codexMessage{}, false
	}
	n := normalize(text)
	if len(n) > maxMessageBytes {
		return codexMessage{}, false
	}
	for _, h := range codexHeads {
		if h.re.MatchString(n) {
			return codexMessage{kind: h.kind, waitable: h.waitable, text: n}, true
		}
	}
	return codexMessage{}, false
}

// codexReset works out the reset of a stop. A printed time has no zone: Codex's app-server
// daemon formats it in its own zone, f.Zone. A time of day is resolved against f.Appeared as
// Claude Code's time-only resets are (resolve: the next occurrence after the appearance, or
// the conservative choice around f.Now when the appearance is unknown).
func codexReset(m codexMessage, f Facts) Reset {
	loc := f.Zone
	if loc == nil {
		loc = time.UTC
	}
	zoneHow := "in the zone of Codex's daemon " + loc.String() + " (Codex prints none)"
	if sub := codexIn.FindStringSubmatch(m.text); sub != nil {
		return codexRelative(sub[1], f, loc)
	}
	sub := codexAt.FindStringSubmatch(m.text)
	if sub == nil {
		how := "Codex prints no reset time"
		if codexLater.MatchString(m.text) {
			how = `Codex does not know the reset ("try again later")`
		}
		return Reset{How: how}
	}
	c := parseClock(sub[1])
	if c == nil || c.zone != "" {
		return Reset{How: fmt.Sprintf("the reset time %q could not be read", sub[1])}
	}
	r := Reset{Known: true, printed: c.text, Zone: loc.String()}
	if c.day != 0 {
		r.Source = SourceDate
		r.At = resolveDate(c, loc, anchorOr(f.Appeared, f.Now))
		r.How = "date and time " + zoneHow
		return r
	}
	r.Source = SourceClock
	if f.Appeared.IsZero() {
		r.anchor, r.Ambiguous = anchorUnknown, true
		r.At, r.How = resolveUnanchored(f.Now, c, loc, m.kind)
		r.How += " " + zoneHow
		return r
	}
	r.anchor = anchorAppeared
	r.At, r.Ambiguous = nextAfter(f.Appeared.Add(-truncation), c.hour, c.minute, loc)
	r.How = fmt.Sprintf("next %s after the message appeared at %s, %s", clockString(c), f.Appeared.In(loc).Format(time.RFC3339), zoneHow) + twiceHow(r.Ambiguous)
	return r
}

// codexRelative reads "4 days 20 hours 9 minutes" after the appearance; not known when the
// appearance is.
func codexRelative(text string, f Facts, loc *time.Location) Reset {
	var d time.Duration
	for _, u := range codexUnit.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(u[1])
		d += time.Duration(n) * codexUnits[u[2]]
	}
	printed := strings.TrimSpace(text)
	if f.Appeared.IsZero() {
		return Reset{printed: printed, Source: SourceRelative,
			How: fmt.Sprintf("%q after the message appeared, and when it appeared is not known", printed)}
	}
	return Reset{Known: true, At: f.Appeared.Add(d).In(loc), printed: printed, Source: SourceRelative, Zone: loc.String(),
		How: fmt.Sprintf("%q after the message appeared at %s", printed, f.Appeared.In(loc).Format(time.RFC3339))}
}
