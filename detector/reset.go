package detector

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockText is a printed reset: a wall-clock time, optionally a date, optionally a zone.
type clockText struct {
	text         string // as printed, e.g. "Nov 23, 11pm (Europe/Berlin)"
	hour, minute int    // 24-hour clock
	month        time.Month
	day, year    int // day 0: no date printed; year 0: no year printed
	zone         string
}

// clockRE reads the reset forms (docs/claude-code.md, Reset times) at the start of the text
// after "resets": "4pm", "4:30pm", "12am", "4 PM" (a space, U+202F or U+00A0 before am/pm is
// normalized to a space), "Nov 23, 11pm" (Linux/Node), "May 28 at 7pm" (macOS native builds),
// "Jan 2, 2027, 5pm" when the year differs, and a 24-hour "17:00" for completeness; then an
// optional " (IANA/Zone)".
var clockRE = regexp.MustCompile(`^(?:(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?(?:,? at |, | ))?(\d{1,2})(?::(\d{2}))?(?: ?([AaPp])\.?[Mm]\.?)?(?: \(([A-Za-z0-9_+\-/]{1,64})\))?`)

var months = map[string]time.Month{
	"Jan": time.January, "Feb": time.February, "Mar": time.March, "Apr": time.April,
	"May": time.May, "Jun": time.June, "Jul": time.July, "Aug": time.August,
	"Sep": time.September, "Oct": time.October, "Nov": time.November, "Dec": time.December,
}

// parseClock reads a printed reset; nil when the text does not start with one.
func parseClock(s string) *clockText {
	m := clockRE.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	c := &clockText{text: strings.TrimSpace(m[0]), zone: m[7]}
	c.hour, _ = strconv.Atoi(m[4])
	switch {
	case m[6] != "": // 12-hour clock: 12am is midnight, 12pm is noon
		if c.hour < 1 || c.hour > 12 {
			return nil
		}
		c.hour %= 12
		if m[6] == "p" || m[6] == "P" {
			c.hour += 12
		}
	case m[5] != "": // 24-hour clock
		if c.hour > 23 {
			return nil
		}
	default: // a bare number is not a time
		return nil
	}
	if m[5] != "" {
		c.minute, _ = strconv.Atoi(m[5])
		if c.minute > 59 {
			return nil
		}
	}
	if m[1] != "" {
		c.month = months[m[1]]
		c.day, _ = strconv.Atoi(m[2])
		if c.day < 1 || c.day > 31 {
			return nil
		}
		if m[3] != "" {
			c.year, _ = strconv.Atoi(m[3])
		}
	}
	return c
}

// zones caches loaded locations: time.LoadLocation reads and parses zone data on every call.
var zones sync.Map // string → *time.Location

// loadZone returns the location for a printed IANA name. "Etc/Unknown" (ICU's name when the
// host has no zone) and names that do not load fall back to the assumed zone.
func loadZone(name string) (*time.Location, bool) {
	if name == "" || name == "Etc/Unknown" || name == "Unknown" || name == "Local" {
		return nil, false
	}
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location), true
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	zones.Store(name, l)
	return l, true
}

// Bounds on how far after its message a time-only reset can be (docs/claude-code.md, Reset
// times).
const (
	sessionBound = 5 * time.Hour  // a session (5-hour) limit resets at most 5 h after the stop
	dayBound     = 24 * time.Hour // a time-only reset is printed only when it is < 24 h away
	// truncation: the printed time is the reset truncated to the minute, so the true reset
	// can be up to 59 s after the printed one, and the message can appear in the minute the
	// printed time names.
	truncation = time.Minute
	// recentPast: with no appearance instant, a printed time that passed less than this ago
	// is taken as passed (resume now) rather than as the same time tomorrow: a wrong guess
	// costs one "limit again" that brings a fresh message, while the other mistake costs a day.
	recentPast = time.Hour
)

// resolve turns a parsed message into a reset instant. summary is the turn-summary clock
// ("done 10:58 PM") printed after the stop, nil when none.
func resolve(msg message, f Facts, summary *clockText) Reset {
	assumed := f.Zone
	if assumed == nil {
		assumed = time.UTC
	}
	if msg.hasEpoch {
		at := time.Unix(msg.epoch, 0).In(assumed)
		return Reset{Known: true, At: at, printed: strconv.FormatInt(msg.epoch, 10), Source: SourceEpoch,
			Zone: assumed.String(), How: "unix seconds printed by the legacy form"}
	}
	c := msg.clock
	if c == nil {
		how := "the message prints no reset time"
		if msg.resetWord {
			how = "the reset time could not be read"
		}
		return Reset{How: how}
	}
	loc, printed := loadZone(c.zone)
	zoneHow := "in the printed zone " + c.zone
	if !printed {
		loc = assumed
		zoneHow = "in the claude host's zone " + loc.String() + " (none printed)"
		if c.zone != "" {
			zoneHow = fmt.Sprintf("in the claude host's zone %s (printed %q)", loc.String(), c.zone)
		}
	}
	r := Reset{Known: true, printed: c.text, Zone: loc.String(), zonePrinted: printed}
	if c.day != 0 {
		r.Source = SourceDate
		r.At = resolveDate(c, loc, anchorOr(f.Appeared, f.Now))
		r.How = "date and time " + zoneHow
		if c.year == 0 {
			r.How += ", year of the capture (next year if the date has passed)"
		}
		return r
	}
	r.Source = SourceClock
	switch {
	case !f.Appeared.IsZero():
		r.anchor = anchorAppeared
		r.At, r.Ambiguous = nextAfter(f.Appeared.Add(-truncation), c.hour, c.minute, loc)
		r.How = fmt.Sprintf("next %s %s after the message appeared at %s", clockString(c), zoneHow, f.Appeared.In(loc).Format(time.RFC3339)) + twiceHow(r.Ambiguous)
	case summary != nil:
		// The turn summary printed right after the stop ("done 10:58 PM") gives the
		// appearance to the minute, in the same (host) zone.
		seen := lastAtOrBefore(f.Now.Add(truncation), summary.hour, summary.minute, loc)
		r.anchor = anchorSummary
		r.At, r.Ambiguous = nextAfter(seen.Add(-truncation), c.hour, c.minute, loc)
		r.How = fmt.Sprintf("next %s %s after the turn summary's %s", clockString(c), zoneHow, clockString(summary)) + twiceHow(r.Ambiguous)
	default:
		r.anchor = anchorUnknown
		r.Ambiguous = true
		r.At, r.How = resolveUnanchored(f.Now, c, loc, msg.kind)
		r.How += " " + zoneHow
	}
	return r
}

// twiceHow says why a reset known from its appearance is still ambiguous: its wall time
// happens twice that night.
func twiceHow(twice bool) string {
	if !twice {
		return ""
	}
	return "; that time happens twice that night (clocks go back), so the later one: never an hour early"
}

func anchorOr(t, or time.Time) time.Time {
	if t.IsZero() {
		return or
	}
	return t
}

// resolveDate reads "Nov 23, 11pm": the year is the printed one, else the anchor's year in
// the zone, moved to next year when that date has already passed (December → January).
func resolveDate(c *clockText, loc *time.Location, anchor time.Time) time.Time {
	year := c.year
	if year == 0 {
		year = anchor.In(loc).Year()
		if time.Date(year, c.month, c.day, c.hour, c.minute, 0, 0, loc).Before(anchor.Add(-dayBound)) {
			year++
		}
	}
	return time.Date(year, c.month, c.day, c.hour, c.minute, 0, 0, loc)
}

// resolveUnanchored chooses a time-only reset when the instant the message appeared is
// unknown (docs/claude-code.md, Reset times). The reset is the next occurrence of the printed
// time after the message; the message appeared at or before now. The candidates are the last
// occurrence at or before now (r1: the reset has passed) and the next one after now (r2). r2 is
// impossible when it lies further ahead than the limit's kind allows (a session resets ≤ 5 h
// after its message); a printed time that passed within the hour is taken as passed.
func resolveUnanchored(now time.Time, c *clockText, loc *time.Location, kind Kind) (time.Time, string) {
	r1 := lastAtOrBefore(now, c.hour, c.minute, loc)
	r2, _ := nextAfter(now.Add(time.Nanosecond), c.hour, c.minute, loc)
	bound := dayBound
	if kind == KindSession || kind == KindFiveHour {
		bound = sessionBound
	}
	switch {
	case r2.Sub(now) > bound:
		return r1, fmt.Sprintf("appearance unknown: the next %s is more than %s away, beyond what a %s limit allows, so the reset has passed;", clockString(c), shortDuration(bound), kind)
	case now.Sub(r1) <= recentPast:
		return r1, fmt.Sprintf("appearance unknown: %s passed less than %s ago, taken as passed;", clockString(c), shortDuration(recentPast))
	}
	return r2, fmt.Sprintf("appearance unknown: the next %s;", clockString(c))
}

// occurrences returns the instants at which the wall clock in loc reads h:m on the given
// day: one normally, two on a fall-back day when that hour repeats, and the normalized
// instant when it falls in a spring-forward gap.
func occurrences(y int, mo time.Month, d, h, m int, loc *time.Location) []time.Time {
	t := time.Date(y, mo, d, h, m, 0, 0, loc)
	out := []time.Time{t}
	for _, shift := range []time.Duration{-time.Hour, time.Hour} {
		u := t.Add(shift)
		if sameWall(u, t, loc) {
			out = append(out, u)
		}
	}
	if len(out) == 2 && out[1].Before(out[0]) {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

func sameWall(a, b time.Time, loc *time.Location) bool {
	a, b = a.In(loc), b.In(loc)
	return a.Year() == b.Year() && a.YearDay() == b.YearDay() && a.Hour() == b.Hour() && a.Minute() == b.Minute()
}

// nextAfter is the first instant at or after t whose wall clock in loc reads h:m.
func nextAfter(t time.Time, h, m int, loc *time.Location) (at time.Time, twice bool) {
	lt := t.In(loc)
	for d := 0; d < 3; d++ {
		occ := occurrences(lt.Year(), lt.Month(), lt.Day()+d, h, m, loc)
		for i, o := range occ {
			if !o.Before(t) {
				// The wall time repeats after t (a fall-back night): which of the two
				// Claude Code meant cannot be told, so the later, never an hour early.
				if i+1 < len(occ) {
					return occ[i+1].In(loc), true
				}
				return o.In(loc), false
			}
		}
	}
	return time.Date(lt.Year(), lt.Month(), lt.Day()+1, h, m, 0, 0, loc), false // unreachable: a day has every wall time
}

// lastAtOrBefore is the last instant at or before t whose wall clock in loc reads h:m.
func lastAtOrBefore(t time.Time, h, m int, loc *time.Location) time.Time {
	lt := t.In(loc)
	for d := 0; d > -3; d-- {
		occ := occurrences(lt.Year(), lt.Month(), lt.Day()+d, h, m, loc)
		for i := len(occ) - 1; i >= 0; i-- {
			if !occ[i].After(t) {
				return occ[i].In(loc)
			}
		}
	}
	return time.Date(lt.Year(), lt.Month(), lt.Day()-1, h, m, 0, 0, loc) // unreachable
}

func clockString(c *clockText) string {
	return fmt.Sprintf("%02d:%02d", c.hour, c.minute)
}

func shortDuration(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}
