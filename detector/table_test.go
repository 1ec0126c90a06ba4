package detector

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // every zone below loads on any machine, as in the binary (docs/claude-code.md)
	"unicode/utf8"
)

// Table tests for Detect, one row per screen form of docs/claude-code.md (from Where the stop is
// drawn to Not stops). Screens are drawn by the small helpers below the way Claude Code draws
// them (see ../shared/fixtures/claude-screens).

const nb = "\u00a0" // NO-BREAK SPACE: after the gutter glyph and after the empty prompt glyph

func mustZone(name string) *time.Location {
	l, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return l
}

var (
	berlin     = mustZone("Europe/Berlin")
	newYork    = mustZone("America/New_York")
	santiago   = mustZone("America/Santiago")
	auckland   = mustZone("Pacific/Auckland")
	london     = mustZone("Europe/London")
	denver     = mustZone("America/Denver")
	bogota     = mustZone("America/Bogota")
	tokyo      = mustZone("Asia/Tokyo")
	chicago    = mustZone("America/Chicago")
	losAngeles = mustZone("America/Los_Angeles")
)

// now0 is the capture instant of most rows: Friday 2026-11-20 22:00 in Berlin (21:00 UTC).
var now0 = time.Date(2026, 11, 20, 22, 0, 0, 0, berlin)

// seen: the message appeared at the capture instant (the watcher saw it arrive).
func seen(at time.Time, zone *time.Location) Facts {
	return Facts{Now: at, Appeared: at, Zone: zone}
}

// unseen: the message was already on screen when the watcher started.
func unseen(now time.Time, zone *time.Location) Facts {
	return Facts{Now: now, Zone: zone}
}

var base = seen(now0, berlin)

// ui is the generation of Claude Code's input box.
type ui int

const (
	ui21 ui = iota // 2.1.x: "❯" + NBSP between two full-width rules
	ui20           // 2.0.x: ">" + NBSP between two full-width rules
	ui10           // 1.0.x: rounded box "│ > … │"
)

// gut is the first row of a response gutter: "  ⎿ " + NBSP + text (docs/claude-code.md, Where
// the stop is drawn).
func gut(text string) string { return "  ⎿ " + nb + text }

func rule(width int) string { return strings.Repeat("─", width) }

// boxRow draws one row of a rounded box width columns wide.
func boxRow(inner string, width int) string {
	pad := width - 2 - utf8.RuneCountInString(inner)
	if pad < 0 {
		pad = 0
	}
	return "│" + inner + strings.Repeat(" ", pad) + "│"
}

// prompt is a submitted prompt in the history of the given generation.
func prompt(u ui, text string) string {
	if u == ui21 {
		return "❯ " + text
	}
	return "> " + text
}

// inputBox draws the input box holding draft (rows separated by "\n"; "" for empty).
func inputBox(u ui, width int, draft string) []string {
	lines := strings.Split(draft, "\n")
	var out []string
	switch u {
	case ui10:
		out = append(out, "╭"+rule(width-2)+"╮")
		for i, l := range lines {
			switch {
			case i == 0 && l == "":
				out = append(out, boxRow(nb+">"+nb, width))
			case i == 0:
				out = append(out, boxRow(" > "+l, width))
			default:
				out = append(out, boxRow("   "+l, width))
			}
		}
		return append(out, "╰"+rule(width-2)+"╯")
	default:
		glyph := "❯"
		if u == ui20 {
			glyph = ">"
		}
		out = append(out, rule(width))
		for i, l := range lines {
			if i == 0 {
				out = append(out, glyph+nb+l)
			} else {
				out = append(out, "  "+l)
			}
		}
		return append(out, rule(width))
	}
}

// screenOf joins the transcript, a blank row, the box (input box or menu) and the footer.
func screenOf(transcript, box []string, footer ...string) string {
	rows := append([]string{}, transcript...)
	rows = append(rows, "")
	rows = append(rows, box...)
	rows = append(rows, footer...)
	return strings.Join(rows, "\n") + "\n"
}

// render draws a whole screen: transcript, input box with draft, footer (default
// "  ? for shortcuts").
func render(u ui, width int, transcript []string, draft string, footer ...string) string {
	if len(footer) == 0 {
		footer = []string{"  ? for shortcuts"}
	}
	return screenOf(transcript, inputBox(u, width, draft), footer...)
}

// menu21 draws the 2.1.x rate-limit options dialog; rows are "❯ 1. …" (focused) or "  2. …".
func menu21(rows ...string) []string {
	out := []string{rule(120), "  What do you want to do?", ""}
	for _, r := range rows {
		out = append(out, "  "+r)
	}
	return append(out, "", "  Enter to confirm · Esc to cancel")
}

// menu20 draws the 2.0.x rounded-box menu.
func menu20(rows ...string) []string {
	out := []string{"╭" + rule(118) + "╮", boxRow(" What do you want to do?", 120), boxRow("", 120)}
	for _, r := range rows {
		out = append(out, boxRow(" "+r, 120))
	}
	return append(out, "╰"+rule(118)+"╯")
}

// wrapCols word-wraps text into lines of at most cols columns, as Ink wraps a message in the
// text box beside the five-column gutter.
func wrapCols(text string, cols int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Split(text, " ") {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= cols:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	return append(lines, line)
}

// gutBlock is a gutter message (or hint, first=false) wrapped in a pane width columns wide:
// the first row after "  ⎿ " + NBSP, continuation rows indented five spaces.
func gutBlock(text string, width int, first bool) []string {
	var out []string
	for i, l := range wrapCols(text, width-5) {
		if i == 0 && first {
			out = append(out, gut(l))
		} else {
			out = append(out, "     "+l)
		}
	}
	return out
}

const rfc = "2006-01-02 15:04:05 MST"

func checkEq[T comparable](t *testing.T, in, field string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("Detect(%q).%s = %v, want %v", in, field, got, want)
	}
}

func checkAt(t *testing.T, in string, got Reset, want time.Time) {
	t.Helper()
	if !got.Known {
		t.Errorf("Detect(%q).Reset.Known = false, want true with At %s (%s)", in, want.Format(rfc), got.How)
		return
	}
	if !got.At.Equal(want) {
		t.Errorf("Detect(%q).Reset.At = %s, want %s (%s)", in, got.At.In(want.Location()).Format(rfc), want.Format(rfc), got.How)
	}
}

// TestTableTemplates: every message template (docs/claude-code.md, Messages) as the stop of a
// turn.
func TestTableTemplates(t *testing.T) {
	tests := []struct {
		era      ui
		msg      string
		kind     Kind
		waitable bool
		known    bool
		at       time.Time
		source   Source
	}{
		// E0 (≤1.0.83), rendered and raw.
		{ui10, "Claude usage limit reached. Your limit will reset at 3pm (America/Santiago).", KindLegacy, true, true,
			time.Date(2026, 11, 21, 15, 0, 0, 0, santiago), SourceClock},
		{ui10, "Claude AI usage limit reached|1760000400", KindLegacy, true, true, time.Unix(1760000400, 0), SourceEpoch},
		{ui10, "Claude AI usage limit reached|0", KindLegacy, true, false, time.Time{}, SourceNone},
		// E1 (1.0.88–2.0.50): U+2219, no zone (the host's, Berlin here).
		{ui10, "5-hour limit reached ∙ resets 12:50am", KindFiveHour, true, true, time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), SourceClock},
		{ui20, "Session limit reached ∙ resets 1am", KindSession, true, true, time.Date(2026, 11, 21, 1, 0, 0, 0, berlin), SourceClock},
		{ui20, "Weekly limit reached ∙ resets Nov 23, 11pm", KindWeekly, true, true, time.Date(2026, 11, 23, 23, 0, 0, 0, berlin), SourceDate},
		{ui20, "Opus weekly limit reached ∙ resets Nov 23, 12:50am", KindOpus, true, true, time.Date(2026, 11, 23, 0, 50, 0, 0, berlin), SourceDate},
		{ui20, "Usage limit reached ∙ resets 4pm", KindUsage, true, true, time.Date(2026, 11, 21, 16, 0, 0, 0, berlin), SourceClock},
		{ui10, "Spending cap reached resets 5pm", KindSpendingCap, true, true, time.Date(2026, 11, 21, 17, 0, 0, 0, berlin), SourceClock},
		{ui20, "Session limit resets 3pm (Europe/Berlin) ∙ contact an admin to keep working", KindTeam, true, true,
			time.Date(2026, 11, 21, 15, 0, 0, 0, berlin), SourceClock},
		{ui20, "Limit reached – contact an admin to keep working", KindTeam, false, false, time.Time{}, SourceNone},
		// E2 (2.0.51–2.0.70): U+00B7 and an upsell suffix.
		{ui20, "5-hour limit reached · resets 2pm (Pacific/Auckland) · /upgrade to Max 20x or turn on /extra-usage", KindFiveHour, true, true,
			time.Date(2026, 11, 21, 14, 0, 0, 0, auckland), SourceClock},
		{ui20, "Weekly limit reached · resets Nov 24, 9am (Europe/Berlin) · /upgrade to Max 20x or turn on /extra-usage", KindWeekly, true, true,
			time.Date(2026, 11, 24, 9, 0, 0, 0, berlin), SourceDate},
		{ui20, "Opus weekly limit reached · resets Nov 25, 3pm (America/New_York) · /upgrade to Max 20x or turn on /extra-usage", KindOpus, true, true,
			time.Date(2026, 11, 25, 15, 0, 0, 0, newYork), SourceDate},
		{ui20, "Sonnet weekly limit reached · resets Nov 26, 10am (Asia/Tokyo) · /upgrade to Max 20x or turn on /extra-usage", KindSonnet, true, true,
			time.Date(2026, 11, 26, 10, 0, 0, 0, tokyo), SourceDate},
		{ui20, "Usage limit reached · resets 3am (Europe/London) · /upgrade to Max or turn on /extra-usage", KindUsage, true, true,
			time.Date(2026, 11, 21, 3, 0, 0, 0, london), SourceClock},
		{ui20, "Limit reached resets 12:50am (Europe/Berlin) · /upgrade to Max or turn on /extra-usage", KindUsage, true, true,
			time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), SourceClock},
		{ui20, "Limit reached · resets 1am (Europe/Berlin) · /upgrade to Max or turn on /extra-usage", KindUsage, true, true,
			time.Date(2026, 11, 21, 1, 0, 0, 0, berlin), SourceClock},
		// E3 (2.0.71–2.1.14x): typed kinds, and the form without a reset time.
		{ui21, "You've hit your limit · resets 4pm (Europe/Berlin)", KindUsage, true, true, time.Date(2026, 11, 21, 16, 0, 0, 0, berlin), SourceClock},
		{ui21, "You’ve hit your limit · resets 4pm (Europe/Berlin)", KindUsage, true, true, time.Date(2026, 11, 21, 16, 0, 0, 0, berlin), SourceClock},
		{ui21, "You've hit your session limit · resets 5:20am (America/Denver)", KindSession, true, true,
			time.Date(2026, 11, 21, 5, 20, 0, 0, denver), SourceClock},
		{ui21, "You've hit your weekly limit · resets Nov 23, 11pm (Europe/Berlin)", KindWeekly, true, true,
			time.Date(2026, 11, 23, 23, 0, 0, 0, berlin), SourceDate},
		{ui21, "You've hit your Opus limit · resets Nov 24, 9am (Europe/London)", KindOpus, true, true,
			time.Date(2026, 11, 24, 9, 0, 0, 0, london), SourceDate},
		{ui21, "You've hit your Sonnet limit · resets 6am (Europe/Berlin)", KindSonnet, true, true, time.Date(2026, 11, 21, 6, 0, 0, 0, berlin), SourceClock},
		{ui21, "You've hit your usage limit · resets 7am (Europe/Berlin)", KindUsage, true, true, time.Date(2026, 11, 21, 7, 0, 0, 0, berlin), SourceClock},
		{ui21, "You're out of extra usage · resets 2am (America/Bogota)", KindExtraUsage, true, true,
			time.Date(2026, 11, 21, 2, 0, 0, 0, bogota), SourceClock},
		{ui21, "You've hit your limit", KindUsage, true, false, time.Time{}, SourceNone},
		{ui21, "You've hit your session limit", KindSession, true, false, time.Time{}, SourceNone},
		{ui21, "You've hit your weekly limit", KindWeekly, true, false, time.Time{}, SourceNone},
		// E4 (2.1.144+): usage credits, 5-hour, suffixes.
		{ui21, "You're out of usage credits · resets 3pm (Europe/Berlin)", KindUsageCredits, true, true,
			time.Date(2026, 11, 21, 15, 0, 0, 0, berlin), SourceClock},
		{ui21, "You've hit your 5-hour limit · resets 12:50am (Europe/Berlin)", KindFiveHour, true, true,
			time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), SourceClock},
		{ui21, "You've hit your 5-hour limit · resets 12:50am (Europe/Berlin) · progress saved", KindFiveHour, true, true,
			time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), SourceClock},
		{ui21, "You've hit your session limit · resets 1am (Europe/Berlin) · out of usage credits", KindSession, true, true,
			time.Date(2026, 11, 21, 1, 0, 0, 0, berlin), SourceClock},
		{ui21, "You've hit your weekly limit · resets Nov 23, 11pm (Europe/Berlin) · progress saved", KindWeekly, true, true,
			time.Date(2026, 11, 23, 23, 0, 0, 0, berlin), SourceDate},
		// Org and spend stops: waiting cannot clear them.
		{ui21, "Your org is out of usage · add funds to continue", KindTeam, false, false, time.Time{}, SourceNone},
		{ui21, "Your org is out of usage · contact your admin", KindTeam, false, false, time.Time{}, SourceNone},
		{ui21, "You've hit your org's monthly spend limit · ask your admin to raise it at claude.ai/admin-settings/usage", KindSpendingCap, false, false, time.Time{}, SourceNone},
		{ui21, "You've hit your monthly spend limit · raise it at claude.ai/settings/usage", KindSpendingCap, false, false, time.Time{}, SourceNone},
		{ui21, "Your seat type doesn't include usage credits", KindTeam, false, false, time.Time{}, SourceNone},
		{ui21, "Your seat type doesn’t include usage credits", KindTeam, false, false, time.Time{}, SourceNone},
		{ui21, "Usage is paused for your organization · contact your admin", KindTeam, false, false, time.Time{}, SourceNone},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			transcript := []string{prompt(tt.era, "hello"), gut(tt.msg)}
			v := Detect(render(tt.era, 120, transcript, ""), base)
			checkEq(t, tt.msg, "Limited", v.Limited, true)
			checkEq(t, tt.msg, "Message", v.Message, tt.msg)
			checkEq(t, tt.msg, "Line", v.Line, 1)
			checkEq(t, tt.msg, "Kind", v.Kind, tt.kind)
			checkEq(t, tt.msg, "Waitable", v.Waitable, tt.waitable)
			checkEq(t, tt.msg, "Reset.Known", v.Reset.Known, tt.known)
			checkEq(t, tt.msg, "Reset.Source", v.Reset.Source, tt.source)
			if tt.known {
				checkAt(t, tt.msg, v.Reset, tt.at)
			}
		})
	}
}

// TestTableTimeForms: the reset forms (docs/claude-code.md, Reset times) and how a time-only
// reset is placed.
func TestTableTimeForms(t *testing.T) {
	const hit = "You've hit your limit · resets "
	tests := []struct {
		msg         string
		after       []string // transcript rows after the stop
		f           Facts
		at          time.Time
		source      Source
		anchor      anchorKind
		ambiguous   bool
		zone        string
		zonePrinted bool
	}{
		// Clock forms, appearance known (22:00 Berlin).
		{msg: hit + "4pm (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 16, 0, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "4:30pm (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 16, 30, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "12am (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 0, 0, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "12:30am (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 0, 30, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "12pm (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 12, 0, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "11:59pm (Europe/Berlin)", f: base, at: time.Date(2026, 11, 20, 23, 59, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "4PM (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 16, 0, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "4 pm (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 16, 0, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "4\u202fPM (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 16, 0, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "4:30\u202fpm (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 16, 30, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "4\u00a0pm (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 16, 0, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		// Dates.
		{msg: "You've hit your weekly limit · resets Nov 23, 11pm (Europe/Berlin)", f: base,
			at: time.Date(2026, 11, 23, 23, 0, 0, 0, berlin), source: SourceDate, zone: "Europe/Berlin", zonePrinted: true},
		{msg: "You've hit your weekly limit · resets May 28 at 7pm (America/Los_Angeles)",
			f:  seen(time.Date(2026, 5, 25, 10, 0, 0, 0, losAngeles), losAngeles),
			at: time.Date(2026, 5, 28, 19, 0, 0, 0, losAngeles), source: SourceDate, zone: "America/Los_Angeles", zonePrinted: true},
		{msg: "You've hit your weekly limit · resets Jan 2, 2027, 5pm (America/Chicago)", f: base,
			at: time.Date(2027, 1, 2, 17, 0, 0, 0, chicago), source: SourceDate, zone: "America/Chicago", zonePrinted: true},
		// December → January: a date without a year that has passed this year is next year's.
		{msg: "You've hit your weekly limit · resets Jan 2, 5pm (Europe/Berlin)",
			f:  seen(time.Date(2026, 12, 30, 12, 0, 0, 0, berlin), berlin),
			at: time.Date(2027, 1, 2, 17, 0, 0, 0, berlin), source: SourceDate, zone: "Europe/Berlin", zonePrinted: true},
		{msg: "You've hit your weekly limit · resets Jan 2, 5pm (Europe/Berlin)",
			f:  unseen(time.Date(2026, 12, 30, 12, 0, 0, 0, berlin), berlin),
			at: time.Date(2027, 1, 2, 17, 0, 0, 0, berlin), source: SourceDate, zone: "Europe/Berlin", zonePrinted: true},
		{msg: "You've hit your weekly limit · resets Dec 31, 11pm (Europe/Berlin)",
			f:  seen(time.Date(2026, 12, 30, 12, 0, 0, 0, berlin), berlin),
			at: time.Date(2026, 12, 31, 23, 0, 0, 0, berlin), source: SourceDate, zone: "Europe/Berlin", zonePrinted: true},
		// The year is the one of the claude host's (printed) zone: already 2027 in Tokyo, still
		// 2026 in Los Angeles, at 2026-12-31 23:30 UTC.
		{msg: "You've hit your weekly limit · resets Jan 2, 5pm (Asia/Tokyo)",
			f:  seen(time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC), berlin),
			at: time.Date(2027, 1, 2, 17, 0, 0, 0, tokyo), source: SourceDate, zone: "Asia/Tokyo", zonePrinted: true},
		{msg: "You've hit your weekly limit · resets Jan 2, 5pm (America/Los_Angeles)",
			f:  seen(time.Date(2026, 12, 31, 23, 30, 0, 0, time.UTC), berlin),
			at: time.Date(2027, 1, 2, 17, 0, 0, 0, losAngeles), source: SourceDate, zone: "America/Los_Angeles", zonePrinted: true},
		// Zones, including ICU's legacy aliases.
		{msg: hit + "4pm (Asia/Calcutta)", f: base, at: time.Date(2026, 11, 21, 10, 30, 0, 0, time.UTC), // 16:00 IST
			source: SourceClock, anchor: anchorAppeared, zone: "Asia/Calcutta", zonePrinted: true},
		{msg: hit + "6pm (Etc/GMT+5)", f: base, at: time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC), // 18:00 at UTC−5
			source: SourceClock, anchor: anchorAppeared, zone: "Etc/GMT+5", zonePrinted: true},
		{msg: hit + "11pm (UTC)", f: base, at: time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC),
			source: SourceClock, anchor: anchorAppeared, zone: "UTC", zonePrinted: true},
		{msg: hit + "6pm (Etc/Unknown)", f: seen(now0, newYork), at: time.Date(2026, 11, 20, 18, 0, 0, 0, newYork),
			source: SourceClock, anchor: anchorAppeared, zone: "America/New_York", zonePrinted: false},
		// No zone printed: the claude host's zone (Facts.Zone; nil is UTC).
		{msg: "5-hour limit reached ∙ resets 6pm", f: seen(now0, newYork), at: time.Date(2026, 11, 20, 18, 0, 0, 0, newYork),
			source: SourceClock, anchor: anchorAppeared, zone: "America/New_York", zonePrinted: false},
		{msg: "Session limit reached ∙ resets 11pm", f: seen(now0, nil), at: time.Date(2026, 11, 20, 23, 0, 0, 0, time.UTC),
			source: SourceClock, anchor: anchorAppeared, zone: "UTC", zonePrinted: false},
		// DST: spring forward (New York 2026-03-08 02:00 EST → 03:00 EDT).
		{msg: "You've hit your session limit · resets 3:30am (America/New_York)",
			f:  seen(time.Date(2026, 3, 8, 0, 10, 0, 0, newYork), newYork),
			at: time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC), source: SourceClock, anchor: anchorAppeared, zone: "America/New_York", zonePrinted: true},
		{msg: "You've hit your session limit · resets 3:30am (America/New_York)",
			f:  unseen(time.Date(2026, 3, 8, 0, 10, 0, 0, newYork), newYork),
			at: time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "America/New_York", zonePrinted: true},
		// DST: fall back (New York 2026-11-01 02:00 EDT → 01:00 EST): 1:30am happens twice.
		// When both are at or after Appeared−1min, which one Claude Code meant cannot be
		// told: the later, ambiguous, never an hour early.
		{msg: "You've hit your session limit · resets 1:30am (America/New_York)",
			f:  seen(time.Date(2026, 11, 1, 4, 30, 0, 0, time.UTC), newYork), // 00:30 EDT
			at: time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC), source: SourceClock, anchor: anchorAppeared, ambiguous: true, zone: "America/New_York", zonePrinted: true},
		{msg: "You've hit your session limit · resets 1:30am (America/New_York)",
			f:  seen(time.Date(2026, 11, 1, 5, 45, 0, 0, time.UTC), newYork), // 01:45 EDT
			at: time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC), source: SourceClock, anchor: anchorAppeared, zone: "America/New_York", zonePrinted: true},
		{msg: "You've hit your session limit · resets 1:30am (America/New_York)",
			f:  seen(time.Date(2026, 11, 1, 6, 10, 0, 0, time.UTC), newYork), // 01:10 EST
			at: time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC), source: SourceClock, anchor: anchorAppeared, zone: "America/New_York", zonePrinted: true},
		{msg: "You've hit your session limit · resets 1:30am (America/New_York)",
			f:  seen(time.Date(2026, 11, 1, 5, 30, 20, 0, time.UTC), newYork), // 01:30:20 EDT: this minute, or 01:30 EST
			at: time.Date(2026, 11, 1, 6, 30, 0, 0, time.UTC), source: SourceClock, anchor: anchorAppeared, ambiguous: true, zone: "America/New_York", zonePrinted: true},
		{msg: "You've hit your session limit · resets 1:30am (America/New_York)",
			f:  unseen(time.Date(2026, 11, 1, 5, 45, 0, 0, time.UTC), newYork), // 01:45 EDT: 01:30 EDT passed 15 min ago
			at: time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "America/New_York", zonePrinted: true},
		// The printed time is the reset truncated to the minute.
		{msg: hit + "5:36pm (Europe/Berlin)",
			f:  Facts{Now: time.Date(2026, 11, 20, 17, 36, 30, 0, berlin), Appeared: time.Date(2026, 11, 20, 17, 36, 10, 0, berlin), Zone: berlin},
			at: time.Date(2026, 11, 20, 17, 36, 0, 0, berlin), source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "5:36pm (Europe/Berlin)", f: unseen(time.Date(2026, 11, 20, 17, 36, 30, 0, berlin), berlin),
			at: time.Date(2026, 11, 20, 17, 36, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: true},
		// Appearance known: the next occurrence after it, even when that has passed by now.
		{msg: "You've hit your session limit · resets 1am (Europe/Berlin)",
			f:  Facts{Now: time.Date(2026, 11, 21, 3, 0, 0, 0, berlin), Appeared: time.Date(2026, 11, 20, 21, 30, 0, 0, berlin), Zone: berlin},
			at: time.Date(2026, 11, 21, 1, 0, 0, 0, berlin), source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "9pm (Europe/Berlin)", f: base, at: time.Date(2026, 11, 21, 21, 0, 0, 0, berlin),
			source: SourceClock, anchor: anchorAppeared, zone: "Europe/Berlin", zonePrinted: true},
		// Appearance unknown (resolveUnanchored): a session/5-hour reset is at most 5 h ahead,
		// a time that passed less than an hour ago has passed, else the next occurrence.
		{msg: "You've hit your session limit · resets 12:50am (Europe/Berlin)", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: true},
		{msg: "You've hit your session limit · resets 8pm (Europe/Berlin)", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 20, 20, 0, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: true},
		{msg: "You've hit your 5-hour limit · resets 2am (Europe/Berlin)", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 21, 2, 0, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: true},
		{msg: "You've hit your 5-hour limit · resets 4am (Europe/Berlin)", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 20, 4, 0, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: true},
		{msg: "5-hour limit reached ∙ resets 2am", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 21, 2, 0, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: false},
		{msg: hit + "8pm (Europe/Berlin)", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 21, 20, 0, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "9:30pm (Europe/Berlin)", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 20, 21, 30, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: true},
		{msg: hit + "12:50am (Europe/Berlin)", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), source: SourceClock, anchor: anchorUnknown, ambiguous: true, zone: "Europe/Berlin", zonePrinted: true},
		{msg: "You've hit your weekly limit · resets Nov 23, 11pm (Europe/Berlin)", f: unseen(now0, berlin),
			at: time.Date(2026, 11, 23, 23, 0, 0, 0, berlin), source: SourceDate, zone: "Europe/Berlin", zonePrinted: true},
		// Appearance unknown, but the failed turn's summary "done 10:58 PM" dates the stop.
		{msg: hit + "12:50am (Europe/Berlin)", after: []string{"✻ Worked for 0s · done 10:58 PM"},
			f:  unseen(time.Date(2026, 11, 21, 8, 0, 0, 0, berlin), berlin),
			at: time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), source: SourceClock, anchor: anchorSummary, zone: "Europe/Berlin", zonePrinted: true},
	}
	for _, tt := range tests {
		name := tt.msg + " @" + tt.f.Now.Format(rfc)
		if tt.f.Appeared.IsZero() {
			name += " appeared-unknown"
		}
		t.Run(name, func(t *testing.T) {
			transcript := append([]string{"❯ hello", gut(tt.msg)}, tt.after...)
			v := Detect(render(ui21, 120, transcript, ""), tt.f)
			checkEq(t, tt.msg, "Limited", v.Limited, true)
			checkAt(t, tt.msg, v.Reset, tt.at)
			checkEq(t, tt.msg, "Reset.Source", v.Reset.Source, tt.source)
			checkEq(t, tt.msg, "Reset.Anchor", v.Reset.anchor, tt.anchor)
			checkEq(t, tt.msg, "Reset.Ambiguous", v.Reset.Ambiguous, tt.ambiguous)
			checkEq(t, tt.msg, "Reset.Zone", v.Reset.Zone, tt.zone)
			checkEq(t, tt.msg, "Reset.ZonePrinted", v.Reset.zonePrinted, tt.zonePrinted)
		})
	}
}

// TestTableWrapped: messages wrapped in a 50-column pane onto continuation rows indented five
// spaces, followed by (wrapped) hint rows (docs/claude-code.md, Where the stop is drawn).
func TestTableWrapped(t *testing.T) {
	const width = 50
	tests := []struct {
		era    ui
		msg    string
		split  []string // how Claude Code wraps msg in 45 columns (checked against wrapCols)
		hint   []string // hint rows, drawn as printed
		kind   Kind
		at     time.Time
		native Native
	}{
		{ui21, "You've hit your session limit · resets 12:50am (Europe/Berlin)",
			[]string{"You've hit your session limit · resets", "12:50am (Europe/Berlin)"},
			gutBlock("/upgrade or /usage-credits to finish what you’re working on.", width, false),
			KindSession, time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), NativeNone},
		{ui21, "You've hit your 5-hour limit · resets 12:50am (Europe/Berlin)",
			[]string{"You've hit your 5-hour limit · resets 12:50am", "(Europe/Berlin)"},
			gutBlock("/upgrade or /usage-credits to finish what you’re working on.", width, false),
			KindFiveHour, time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), NativeNone},
		{ui21, "You're out of extra usage · resets 2am (America/Bogota)",
			[]string{"You're out of extra usage · resets 2am", "(America/Bogota)"},
			[]string{"     Opening your options…"},
			KindExtraUsage, time.Date(2026, 11, 21, 2, 0, 0, 0, bogota), NativeNone},
		{ui20, "Sonnet weekly limit reached · resets Nov 26, 10am (Asia/Tokyo) · /upgrade to Max 20x or turn on /extra-usage",
			[]string{"Sonnet weekly limit reached · resets Nov 26,", "10am (Asia/Tokyo) · /upgrade to Max 20x or", "turn on /extra-usage"},
			[]string{"     Opening your options…"},
			KindSonnet, time.Date(2026, 11, 26, 10, 0, 0, 0, tokyo), NativeNone},
		{ui21, "You've hit your 5-hour limit · resets 12:50am (Europe/Berlin) · progress saved",
			[]string{"You've hit your 5-hour limit · resets 12:50am", "(Europe/Berlin) · progress saved"},
			gutBlock("/upgrade or /usage-credits to finish what you’re working on.", width, false),
			KindFiveHour, time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), NativeNone},
		{ui21, "You've hit your 5-hour limit · resets 12:50am (Europe/Berlin) · progress saved",
			[]string{"You've hit your 5-hour limit · resets 12:50am", "(Europe/Berlin) · progress saved"},
			gutBlock("Continuing automatically at 12:50am · esc to cancel", width, false),
			KindFiveHour, time.Date(2026, 11, 21, 0, 50, 0, 0, berlin), NativeArmed},
		{ui20, "Session limit resets 3pm (Europe/Berlin) ∙ contact an admin to keep working",
			[]string{"Session limit resets 3pm (Europe/Berlin) ∙", "contact an admin to keep working"},
			nil,
			KindTeam, time.Date(2026, 11, 21, 15, 0, 0, 0, berlin), NativeNone},
		{ui10, "Claude usage limit reached. Your limit will reset at 3pm (America/Santiago).",
			[]string{"Claude usage limit reached. Your limit will", "reset at 3pm (America/Santiago)."},
			[]string{"      • /upgrade to increase your usage limit."},
			KindLegacy, time.Date(2026, 11, 21, 15, 0, 0, 0, santiago), NativeNone},
	}
	for _, tt := range tests {
		name := strings.Join(tt.split, "⏎")
		if len(tt.hint) > 0 {
			name += " + " + strings.TrimSpace(tt.hint[0])
		}
		t.Run(name, func(t *testing.T) {
			if got := wrapCols(tt.msg, width-5); !slices.Equal(got, tt.split) {
				t.Fatalf("test data: %q wraps as %q in %d columns, not %q", tt.msg, got, width-5, tt.split)
			}
			transcript := []string{prompt(tt.era, "refactor the parser")}
			transcript = append(transcript, gutBlock(tt.msg, width, true)...)
			transcript = append(transcript, tt.hint...)
			for _, r := range transcript {
				if n := utf8.RuneCountInString(r); n > width {
					t.Fatalf("test data: row %q is %d columns, wider than %d", r, n, width)
				}
			}
			in := strings.Join(tt.split, "\n")
			v := Detect(render(tt.era, width, transcript, ""), base)
			checkEq(t, in, "Limited", v.Limited, true)
			checkEq(t, in, "Message", v.Message, tt.msg)
			checkEq(t, in, "Line", v.Line, 1)
			checkEq(t, in, "Kind", v.Kind, tt.kind)
			checkEq(t, in, "Waitable", v.Waitable, true)
			checkAt(t, in, v.Reset, tt.at)
			checkEq(t, in, "Native", v.Native, tt.native)
		})
	}
}

// TestTableHardNegatives: the hard negatives (docs/claude-code.md, Not stops) are not stops,
// wherever they are drawn.
func TestTableHardNegatives(t *testing.T) {
	notices := []struct {
		text   string
		gutter bool // it makes sense inside a response gutter too
	}{
		{"Approaching usage limit · resets at 1am", true},
		{"Approaching your 5-hour usage limit — Claude will wrap up the current step.", false},
		{"You've used 91% of your session limit · resets 3am (Europe/Berlin)", true},
		{"You've used 91% of your weekly limit · resets Nov 23, 11pm (Europe/Berlin)", true},
		{"85% of 5-hour limit used · resets 3am", true},
		{"Now using extra usage", true},
		{"You're now using extra usage · Your session limit resets 4pm (Europe/Berlin)", true},
		{"Claude Opus limit reached, now using Sonnet 4", true},
		{"Fast mode limit reached · resets in 12m 30s", true},
		{"You've hit your fast limit · resets in 12m 30s", true},
		{"API Error: Server is temporarily limiting requests (not your usage limit) · Rate limited", true},
		{"API Error: Request rejected (429) · This request would exceed your rate limit", true},
		{"Context limit reached · /compact or /clear to continue", true},
		{"Usage limit reached · wrapping up", true},
		{"5-hour limit reached · Retrying in 14s (5:38pm) · attempt 7/10", true},
	}
	pad := strings.Repeat(" ", 30)
	for _, n := range notices {
		placements := []struct{ where, screen string }{
			{"assistant line", render(ui21, 120, []string{"❯ refactor the parser", "● " + n.text}, "")},
			{"macOS assistant line", render(ui21, 120, []string{"❯ refactor the parser", "⏺ " + n.text}, "")},
			{"spinner line", render(ui21, 120, []string{"❯ refactor the parser", "✻ " + n.text}, "")},
			{"footer", render(ui21, 120, []string{"❯ refactor the parser", "● Done."}, "", "  ? for shortcuts"+pad+n.text)},
			{"1.0.x footer", render(ui10, 120, []string{"> refactor the parser", "● Done."}, "", "  ? for shortcuts"+pad+n.text)},
		}
		if n.gutter {
			placements = append(placements,
				struct{ where, screen string }{"gutter", render(ui21, 120, []string{"❯ refactor the parser", gut(n.text)}, "")},
				struct{ where, screen string }{"2.0.x gutter", render(ui20, 120, []string{"> refactor the parser", gut(n.text)}, "")},
			)
		}
		for _, p := range placements {
			t.Run(p.where+": "+n.text, func(t *testing.T) {
				v := Detect(p.screen, base)
				checkEq(t, n.text, "Limited", v.Limited, false)
				checkEq(t, n.text, "Message", v.Message, "")
				checkEq(t, n.text, "Line", v.Line, -1)
			})
		}
	}
}

// TestTableNotStopContexts: a real stop message in the wrong place is not a stop
// (docs/claude-code.md, Not stops).
func TestTableNotStopContexts(t *testing.T) {
	usagePanel := strings.Join([]string{
		"  Settings:  Status   Config   Usage  (←/→ or tab to cycle)",
		"",
		"  Current session",
		"  " + strings.Repeat("█", 50) + " 100% used",
		"  Resets 10pm (America/Los_Angeles)",
		"",
		"  Current week (all models)",
		"  " + strings.Repeat("█", 16) + strings.Repeat(" ", 35) + "32% used",
		"  Resets Mar 5, 7pm (America/Los_Angeles)",
		"",
		"  Esc to cancel",
	}, "\n") + "\n"
	tests := []struct {
		name    string
		screen  string
		draft   string // Input.Draft
		exited  bool
		message string // Message: set when a real stop is on screen but no longer current
	}{
		{name: "assistant quotes the message inline",
			screen: render(ui21, 120, []string{"❯ what does the limit message look like?",
				"● It reads: You've hit your limit · resets 4pm (Europe/Berlin). Nothing is limited now."}, "")},
		{name: "assistant quotes the message on its own row",
			screen: render(ui21, 120, []string{"❯ what does the limit message look like?",
				"● Sure, the line reads:", "  You've hit your session limit · resets 5:20am (America/Denver)",
				"  Nothing is limited right now.", "", "✻ Cogitated for 0s · done 11:03 PM"}, "")},
		{name: "submitted prompt quotes the message",
			screen: render(ui21, 120, []string{`❯ why did it say "You've hit your limit · resets 3pm (Europe/Paris)" yesterday?`,
				"● That line is printed when a request is rejected by the plan usage limit."}, "")},
		{name: "submitted prompt is the message",
			screen: render(ui21, 120, []string{"❯ You've hit your limit · resets 3pm (Europe/Paris)", "", "✻ Thinking… (esc to interrupt)"}, "")},
		{name: "2.0.x submitted prompt holds the raw form",
			screen: render(ui20, 120, []string{"> Claude AI usage limit reached|1760000400 what is this?",
				"● That is the legacy internal form of the usage-limit message."}, "")},
		{name: "input box holds the message",
			screen: render(ui21, 120, []string{"● Done. The exporter now streams rows."}, "You've hit your limit · resets 4pm (Europe/Berlin)"),
			draft:  "You've hit your limit · resets 4pm (Europe/Berlin)"},
		{name: "input box holds a pasted gutter row",
			screen: render(ui21, 120, []string{"● Done. The exporter now streams rows."}, "look at this:\n⎿ "+nb+"You've hit your limit · resets 4pm (Europe/Berlin)"),
			draft:  "look at this:\n⎿ " + nb + "You've hit your limit · resets 4pm (Europe/Berlin)"},
		{name: "1.0.x input box holds the message",
			screen: render(ui10, 120, []string{"● Done."}, "Claude usage limit reached. Your limit will reset at 3pm (America/Santiago)."),
			draft:  "Claude usage limit reached. Your limit will reset at 3pm (America/Santiago)."},
		{name: "tool output under Bash(…)",
			screen: render(ui21, 120, []string{"❯ show the notes", "● Bash(cat notes.md)",
				gut("You've hit your limit · resets 4pm (Europe/Berlin)"), "     Claude AI usage limit reached|1760000400",
				"● The notes list two limit messages."}, "")},
		{name: "tool output under Bash(…) is the last thing on screen",
			screen: render(ui21, 120, []string{"❯ show the notes", "● Bash(cat notes.md)",
				gut("You've hit your session limit · resets 5:20am (America/Denver)")}, "")},
		{name: "tool output under Bash(…) with the raw form",
			screen: render(ui21, 120, []string{"❯ grep the logs", `● Bash(grep -rn "usage limit reached" logs/ | tail -1)`,
				gut("Claude AI usage limit reached|1760000400")}, "")},
		{name: "tool output under an MCP tool call",
			screen: render(ui21, 120, []string{"❯ search the tracker", `● tracker - search_issues (MCP)(query: "usage limit")`,
				gut("You've hit your limit · resets 4pm (Europe/Berlin)")}, "")},
		{name: "tool output under bash mode ! cat notes.md",
			screen: render(ui21, 120, []string{"! cat notes.md", gut("You've hit your session limit · resets 5:20am (America/Denver)")}, "")},
		{name: "tool output under 2.0.x bash mode",
			screen: render(ui20, 120, []string{"! cat notes.md", gut("5-hour limit reached · resets 2pm (Pacific/Auckland) · /upgrade to Max 20x or turn on /extra-usage")}, "")},
		{name: "the /usage panel at 100%", screen: usagePanel},
		{name: "print mode output in a shell",
			screen: "user@devbox:~/proj$ claude -p hello\nClaude AI usage limit reached|1795219800\nuser@devbox:~/proj$ claude -p hello\nYou've hit your limit · resets 1:10am (Europe/Berlin)\nuser@devbox:~/proj$ \n"},
		{name: "shell prompt after 2.0.x claude exited",
			screen: render(ui20, 120, []string{"> hello", gut("You've hit your limit · resets 1am (Europe/Berlin)"), "     Opening your options…"}, "",
				"  Press Ctrl-C again to exit", "user@devbox:~/proj$ "),
			exited: true, message: "You've hit your limit · resets 1am (Europe/Berlin)"},
		{name: "shell prompt after 2.1.x claude exited",
			screen: render(ui21, 120, []string{"❯ hello", gut("You've hit your 5-hour limit · resets 12:50am (Europe/Berlin)")}, "",
				"  ⏵⏵ auto mode on (shift+tab to cycle)", "", "Resume this session with:",
				"claude --resume a9d08c59-2561-4cb5-87d0-35db188a19a7", "user@devbox:~/proj$"),
			exited: true, message: "You've hit your 5-hour limit · resets 12:50am (Europe/Berlin)"},
		{name: "bare $ prompt after 1.0.x claude exited",
			screen: render(ui10, 120, []string{"> hello", gut("5-hour limit reached ∙ resets 12:50am"), "     /upgrade to increase your usage limit."}, "",
				"  ? for shortcuts", "$ "),
			exited: true, message: "5-hour limit reached ∙ resets 12:50am"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Detect(tt.screen, base)
			checkEq(t, tt.name, "Limited", v.Limited, false)
			checkEq(t, tt.name, "Message", v.Message, tt.message)
			checkEq(t, tt.name, "Input.Draft", v.Input.Draft, tt.draft)
			if tt.message != "" || tt.exited {
				checkEq(t, tt.name, "Exited", v.Exited, tt.exited)
			}
		})
	}
}

// TestTableLastLimitWins: the last stop on screen counts, and only while nothing newer follows
// it; a turn summary, a hint or a slash-command echo is not newer activity (docs/claude-code.md,
// Where the stop is drawn).
func TestTableLastLimitWins(t *testing.T) {
	stop := gut("You've hit your limit · resets 12:50am (Europe/Berlin)")
	later := gut("You've hit your limit · resets 10:50pm (Europe/Berlin)")
	at0050 := time.Date(2026, 11, 21, 0, 50, 0, 0, berlin)
	at2250 := time.Date(2026, 11, 20, 22, 50, 0, 0, berlin)
	tests := []struct {
		name       string
		transcript []string
		line       int
		limited    bool
		resumed    bool
		busy       bool
		at         time.Time // checked when limited
		footer     []string  // footer rows, default "  ? for shortcuts"
	}{
		{"two stops: the later one counts", []string{"❯ hello", stop, "", "❯ continue", later}, 4, true, false, false, at2250, nil},
		{"two stops, later one printed the earlier reset", []string{"❯ hello", later, "", "❯ continue", stop}, 4, true, false, false, at0050, nil},
		{"repeated hits after Enter", []string{"❯ hello", stop, "", "❯ continue", stop,
			"     /upgrade or /usage-credits to finish what you’re working on.", "", "❯ again", stop,
			"     /upgrade or /usage-credits to finish what you’re working on."}, 8, true, false, false, at0050, nil},
		{"stop, reply, stop", []string{"❯ hello", later, "", "● Picking up where I left off.", "", "❯ go on", stop}, 6, true, false, false, at0050, nil},
		{"assistant reply after the stop", []string{"❯ hello", stop, "", "● Let me continue with the migration."}, 1, false, true, false, time.Time{}, nil},
		{"macOS assistant reply after the stop", []string{"❯ hello", stop, "", "⏺ Let me continue with the migration."}, 1, false, true, false, time.Time{}, nil},
		{"tool call after the stop", []string{"❯ hello", stop, "", "● Bash(go test ./...)", gut("ok  github.com/x/y  0.31s")}, 1, false, true, false, time.Time{}, nil},
		{"working spinner after the stop", []string{"❯ hello", stop, "", "✻ Thinking… (esc to interrupt)"}, 1, false, true, true, time.Time{}, nil},
		{"submitted prompt after the stop", []string{"❯ hello", stop, "", "❯ continue"}, 1, false, true, false, time.Time{}, nil},
		{"2.0.x submitted prompt after the stop", []string{"> hello", stop, "", "> continue"}, 1, false, true, false, time.Time{}, nil},
		{"running turn in the footer after the stop", []string{"❯ hello", stop}, 1, false, true, true, time.Time{},
			[]string{"  ⏵⏵ auto mode on (shift+tab to cycle) · esc to interrupt"}},
		{"turn summary after the stop", []string{"❯ hello", stop, "✻ Worked for 0s · done 10:58 PM"}, 1, true, false, false, at0050, nil},
		{"short turn summary after the stop", []string{"❯ hello", stop, "", "✻ Brewed for 0s"}, 1, true, false, false, at0050, nil},
		{"slash echo after the stop", []string{"❯ hello", stop, "", "❯ /rate-limit-options"}, 1, true, false, false, at0050, nil},
		{"2.0.x slash echo after the stop", []string{"> hello", stop, "     Opening your options…", "", "> /rate-limit-options"}, 1, true, false, false, at0050, nil},
		{"hint rows after the stop", []string{"❯ hello", stop, "     /upgrade or /usage-credits to finish what you’re working on."}, 1, true, false, false, at0050, nil},
		{"teammate failure report after the stop", []string{"● Teammate @followups finished", stop, "",
			"● Teammate @bhost failed: You've hit your limit · resets 12:50am (Europe/Berlin)"}, 1, true, false, false, at0050, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.transcript[len(tt.transcript)-1]
			if tt.footer != nil {
				in = tt.footer[0]
			}
			v := Detect(render(ui21, 120, tt.transcript, "", tt.footer...), base)
			checkEq(t, in, "Limited", v.Limited, tt.limited)
			checkEq(t, in, "Resumed", v.Resumed, tt.resumed)
			checkEq(t, in, "Busy", v.Busy, tt.busy)
			checkEq(t, in, "Line", v.Line, tt.line)
			checkEq(t, in, "Exited", v.Exited, false)
			if tt.limited {
				checkAt(t, in, v.Reset, tt.at)
			}
		})
	}
}

// TestTableNative: Claude Code's own auto-continue (docs/claude-code.md, Claude Code's own
// auto-continue).
func TestTableNative(t *testing.T) {
	stop := gut("You've hit your session limit · resets 12:50am (Europe/Berlin)")
	armedLine := "● Usage limit reached · continuing automatically at 12:50am · esc or type to cancel"
	at := time.Date(2026, 11, 21, 0, 50, 0, 0, berlin)
	tests := []struct {
		name       string
		transcript []string
		footer     []string
		native     Native
		limited    bool
		resumed    bool
	}{
		{"armed: hint row", []string{"❯ hello", stop, "     Continuing automatically at 12:50am · esc to cancel"}, nil, NativeArmed, true, false},
		{"armed: assistant line", []string{"❯ hello", stop, armedLine}, nil, NativeArmed, true, false},
		{"armed: assistant line, esc to cancel", []string{"❯ hello", stop,
			"● Usage limit reached · continuing automatically at 12:50am · esc to cancel"}, nil, NativeArmed, true, false},
		{"armed: macOS assistant line", []string{"❯ hello", stop,
			"⏺ Usage limit reached · continuing automatically at 12:50am · esc to cancel"}, nil, NativeArmed, true, false},
		{"armed: footer banner", []string{"❯ hello", stop},
			[]string{"  ⚠ Usage limit reached · limit resets 12:50am", "  ⏵⏵ auto mode on (shift+tab to cycle)"}, NativeArmed, true, false},
		{"armed: footer banner and hint", []string{"❯ hello", stop},
			[]string{"  ⚠ Usage limit reached · limit resets 12:50am", "    Continuing automatically at 12:50am · Esc to cancel"}, NativeArmed, true, false},
		{"armed: footer continuing automatically", []string{"❯ hello", stop},
			[]string{"  Continuing automatically at 12:50am · Esc to cancel"}, NativeArmed, true, false},
		{"armed: footer continuing shortly", []string{"❯ hello", stop},
			[]string{"  Continuing shortly · Esc to cancel"}, NativeArmed, true, false},
		{"armed: 2.1.250 screen", []string{"❯ hello", stop, "     Continuing automatically at 12:50am · esc to cancel", "",
			armedLine, "", "✻ Worked for 0s · done 10:58 PM"},
			[]string{"  ⚠ Usage limit reached · continuing automatically at 12:50am · esc to cancel", "  ⏸ manual mode on · ? for shortcuts"}, NativeArmed, true, false},
		{"armed: 2.1.330 assistant line", []string{"❯ hello", stop, "● Usage limit reached · set to continue automatically at 12:50am"}, nil, NativeArmed, true, false},
		{"fired", []string{"❯ hello", stop, armedLine, "", "● Usage limit reset · Continuing automatically"}, nil, NativeFired, false, true},
		{"fired: 2.1.330 wording", []string{"❯ hello", stop, "● Usage limit reached · set to continue automatically at 12:50am", "",
			"● Usage limit available again · continuing now"}, nil, NativeFired, false, true},
		{"fired, new turn running", []string{"❯ hello", stop, armedLine, "", "● Usage limit reset · Continuing automatically", "",
			"❯ Your claude.ai usage limit has reset. Continue the task.", "", "✻ Thinking… (esc to interrupt)"}, nil, NativeFired, false, true},
		{"cancelled", []string{"❯ hello", stop, armedLine, "", "● Automatic continue cancelled · type to continue when the limit resets"}, nil, NativeCancelled, true, false},
		{"stopped: repeated hits", []string{"❯ hello", stop, armedLine, "",
			"● Automatic continue stopped after repeated usage-limit hits · continue manually"}, nil, NativeStopped, true, false},
		{"stopped: more than 24 hours out", []string{"❯ hello", stop, armedLine, "",
			"● Automatic continue stopped · the usage limit now resets more than 24 hours out, continue manually"}, nil, NativeStopped, true, false},
		{"stopped: login changed", []string{"❯ hello", stop, armedLine, "",
			"● Automatic continue stopped · your login changed or ended · run /login"}, nil, NativeStopped, true, false},
		{"stopped: turned off", []string{"❯ hello", stop, armedLine, "",
			"● Automatic continue was turned off · continue manually"}, nil, NativeStopped, true, false},
		{"stopped: did not run", []string{"❯ hello", stop, armedLine, "",
			"● Automatic continue did not run · continue manually"}, nil, NativeStopped, true, false},
		{"press enter after sleep", []string{"❯ hello", stop, armedLine, "",
			"● Your usage limit has reset · press enter to continue"}, nil, NativePressEnter, true, false},
		{"press enter in the footer", []string{"❯ hello", stop},
			[]string{"  Your usage limit has reset · press enter to continue"}, NativePressEnter, true, false},
		{"armed earlier, press enter in the footer", []string{"❯ hello", stop, armedLine},
			[]string{"  ⚠ Your usage limit has reset · press enter to continue"}, NativePressEnter, true, false},
		{"fired earlier, stopped again and armed again", []string{"❯ hello", stop, armedLine, "",
			"● Usage limit reset · Continuing automatically", "", "● Resuming the migration.", "", "❯ go on", stop, armedLine}, nil, NativeArmed, true, false},
		{"fired earlier, stopped again, not armed", []string{"❯ hello", stop, armedLine, "",
			"● Usage limit reset · Continuing automatically", "", "● Resuming the migration.", "", "❯ go on", stop}, nil, NativeNone, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			footer := tt.footer
			if footer == nil {
				footer = []string{"  ⏵⏵ auto mode on (shift+tab to cycle)"}
			}
			v := Detect(render(ui21, 120, tt.transcript, "", footer...), base)
			in := tt.transcript[len(tt.transcript)-1]
			if tt.footer != nil {
				in = tt.footer[0]
			}
			checkEq(t, in, "Native", v.Native, tt.native)
			checkEq(t, in, "Limited", v.Limited, tt.limited)
			checkEq(t, in, "Resumed", v.Resumed, tt.resumed)
			checkEq(t, in, "Kind", v.Kind, KindSession)
			checkAt(t, in, v.Reset, at)
		})
	}
}

// TestTableMenu: the rate-limit options menu (docs/claude-code.md, The options menu); StopDigit
// is the only key to press.
func TestTableMenu(t *testing.T) {
	stop21 := []string{"❯ hello", gut("You've hit your limit · resets 12:50am (Europe/Berlin)"), "", "❯ /rate-limit-options"}
	stop20 := []string{"> hello", gut("You've hit your limit · resets 12:50am (Europe/Berlin)"), "     Opening your options…", "> /rate-limit-options"}
	tests := []struct {
		name      string
		screen    string
		labels    []string
		focused   int
		stopDigit int
	}{
		{"2.1.x, Stop first",
			screenOf(stop21, menu21("❯ 1. Stop and wait for limit to reset", "  2. Switch to extra usage", "  3. Upgrade your plan")),
			[]string{"Stop and wait for limit to reset", "Switch to extra usage", "Upgrade your plan"}, 1, 1},
		{"2.1.x, Stop last",
			screenOf(stop21, menu21("❯ 1. Switch to extra usage", "  2. Upgrade your plan", "  3. Stop and wait for limit to reset")),
			[]string{"Switch to extra usage", "Upgrade your plan", "Stop and wait for limit to reset"}, 1, 3},
		{"2.1.x, Stop in the middle",
			screenOf(stop21, menu21("❯ 1. Switch to usage credits", "  2. Stop and wait for limit to reset", "  3. Upgrade your plan")),
			[]string{"Switch to usage credits", "Stop and wait for limit to reset", "Upgrade your plan"}, 1, 2},
		{"2.1.x, bare Stop label",
			screenOf(stop21, menu21("❯ 1. Upgrade your plan", "  2. Stop")),
			[]string{"Upgrade your plan", "Stop"}, 1, 2},
		{"2.1.x, focus on a non-Stop row",
			screenOf(stop21, menu21("  1. Stop and wait for limit to reset", "❯ 2. Switch to usage credits", "  3. Upgrade your plan")),
			[]string{"Stop and wait for limit to reset", "Switch to usage credits", "Upgrade your plan"}, 2, 1},
		{"2.1.x, no Stop row",
			screenOf(stop21, menu21("❯ 1. Switch to extra usage", "  2. Upgrade your plan")),
			[]string{"Switch to extra usage", "Upgrade your plan"}, 1, 0},
		{"2.1.x, rows skip a number",
			screenOf(stop21, menu21("❯ 1. Stop and wait for limit to reset", "  3. Upgrade your plan")),
			[]string{"Stop and wait for limit to reset", "Upgrade your plan"}, 1, 0},
		{"2.1.x, rows start at 2",
			screenOf(stop21, menu21("❯ 2. Stop and wait for limit to reset", "  3. Upgrade your plan")),
			[]string{"Stop and wait for limit to reset", "Upgrade your plan"}, 2, 0},
		{"2.1.x, Wait here row",
			screenOf(stop21, menu21("❯ 1. Stop and wait for limit to reset", "  2. Wait here, then continue automatically at 1am",
				"  3. Switch to usage credits", "  4. Upgrade your plan")),
			[]string{"Stop and wait for limit to reset", "Wait here, then continue automatically at 1am", "Switch to usage credits", "Upgrade your plan"}, 1, 1},
		{"2.1.x, Wait here first, Stop last",
			screenOf(stop21, menu21("❯ 1. Wait here, then continue automatically at 1am", "  2. Switch to usage credits",
				"  3. Upgrade your plan", "  4. Stop and wait for limit to reset")),
			[]string{"Wait here, then continue automatically at 1am", "Switch to usage credits", "Upgrade your plan", "Stop and wait for limit to reset"}, 1, 4},
		{"2.1.x, Wait here and Don’t continue, no Stop",
			screenOf(stop21, menu21("❯ 1. Wait here, then continue automatically at 1am", "  2. Don’t continue automatically")),
			[]string{"Wait here, then continue automatically at 1am", "Don’t continue automatically"}, 1, 0},
		{"2.1.9 dialog, one-space indent",
			strings.Join(append(stop21, rule(120), " What do you want to do?", "", " ❯ 1. Stop and wait for limit to reset",
				"   2. Switch to extra usage", "   3. Upgrade your plan", "", " Enter to confirm · escape to cancel"), "\n") + "\n",
			[]string{"Stop and wait for limit to reset", "Switch to extra usage", "Upgrade your plan"}, 1, 1},
		// A row is pressed only when its whole label is a known Stop label.
		{"2.1.x, a Stop row that switches to paid usage",
			screenOf(stop21, menu21("❯ 1. Upgrade your plan", "  2. Stop waiting and switch to usage credits ($)")),
			[]string{"Upgrade your plan", "Stop waiting and switch to usage credits ($)"}, 1, 0},
		{"2.1.x, an unknown Stop wording",
			screenOf(stop21, menu21("❯ 1. Stop and buy more usage", "  2. Upgrade your plan")),
			[]string{"Stop and buy more usage", "Upgrade your plan"}, 1, 0},
		{"2.1.x, Stop with a suffix",
			screenOf(stop21, menu21("❯ 1. Stop and wait for limit to reset (recommended)", "  2. Upgrade your plan")),
			[]string{"Stop and wait for limit to reset (recommended)", "Upgrade your plan"}, 1, 0},
		{"2.1.x, a known Stop label beside an unknown Stop wording",
			screenOf(stop21, menu21("❯ 1. Stop and switch to extra usage", "  2. Stop and wait for limit to reset")),
			[]string{"Stop and switch to extra usage", "Stop and wait for limit to reset"}, 1, 2},
		{"2.0.x box, Stop first",
			screenOf(stop20, menu20("❯ 1. Stop and wait for limit to reset", "  2. Switch to extra usage", "  3. Upgrade your plan")),
			[]string{"Stop and wait for limit to reset", "Switch to extra usage", "Upgrade your plan"}, 1, 1},
		{"2.0.x box, Stop last, echo below",
			screenOf(stop20[:3], menu20("❯ 1. Switch to extra usage", "  2. Upgrade your plan", "  3. Stop and wait for limit to reset"), "> /rate-limit-options"),
			[]string{"Switch to extra usage", "Upgrade your plan", "Stop and wait for limit to reset"}, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Detect(tt.screen, base)
			in := strings.Join(tt.labels, " | ")
			checkEq(t, in, "Limited", v.Limited, true)
			checkEq(t, in, "Menu.Open", v.Menu.Open, true)
			checkEq(t, in, "Menu.Focused", v.Menu.Focused, tt.focused)
			checkEq(t, in, "Menu.StopDigit", v.Menu.StopDigit, tt.stopDigit)
			checkEq(t, in, "Input.Visible", v.Input.Visible, false)
			checkEq(t, in, "Native", v.Native, NativeNone)
			var labels []string
			for _, r := range v.Menu.Rows {
				labels = append(labels, r.Label)
			}
			if !slices.Equal(labels, tt.labels) {
				t.Errorf("Detect(%q).Menu.Rows labels = %q, want %q", in, labels, tt.labels)
			}
			checkAt(t, in, v.Reset, time.Date(2026, 11, 21, 0, 50, 0, 0, berlin))
		})
	}

	// A menu that was closed and is followed by the prompt is history, not an open menu.
	t.Run("menu above the input box is closed", func(t *testing.T) {
		box := menu21("❯ 1. Stop and wait for limit to reset", "  2. Upgrade your plan")
		screen := render(ui21, 120, slices.Concat(stop21, box), "")
		v := Detect(screen, base)
		const in = "menu, then an empty prompt"
		checkEq(t, in, "Menu.Open", v.Menu.Open, false)
		checkEq(t, in, "Menu.StopDigit", v.Menu.StopDigit, 0)
		checkEq(t, in, "Input.Visible", v.Input.Visible, true)
	})
}

// TestTableInput: the input box and its draft in each generation (docs/claude-code.md, Where the
// stop is drawn); bash mode counts as a draft (a "continue" typed there would run as a shell
// command), recorded as the keys that recreate it.
func TestTableInput(t *testing.T) {
	stop := []string{"❯ hello", gut("You've hit your limit · resets 12:50am (Europe/Berlin)")}
	stop10 := []string{"> hello", gut("Claude usage limit reached. Your limit will reset at 12:50am (Europe/Berlin)."), "      • /upgrade to increase your usage limit."}
	raw := func(transcript []string, box ...string) string {
		return screenOf(transcript, box, "  ? for shortcuts")
	}
	tests := []struct {
		name   string
		screen string
		draft  string
	}{
		{"2.1.x empty", render(ui21, 120, stop, ""), ""},
		{"2.1.x one-line draft", render(ui21, 120, stop, "continue with the tests"), "continue with the tests"},
		{"2.1.x draft after a plain space", raw(stop, rule(120), "❯ fix the flaky test", rule(120)), "fix the flaky test"},
		{"2.1.x two-line draft", render(ui21, 120, stop, "first rename the package\nthen fix the imports"), "first rename the package\nthen fix the imports"},
		{"2.0.x empty", render(ui20, 120, stop, ""), ""},
		{"2.0.x draft", render(ui20, 120, stop, "keep going"), "keep going"},
		{"2.0.x empty, space then NBSP", raw(stop, rule(120), "> "+nb, rule(120)), ""},
		{"1.0.x empty box", render(ui10, 120, stop10, ""), ""},
		{"1.0.x draft", render(ui10, 120, stop10, "draft"), "draft"},
		{"1.0.x two-line draft", render(ui10, 120, stop10, "line one\nline two"), "line one\nline two"},
		{"2.1.x bash mode", raw(stop, rule(120), "!"+nb+"ls -la", rule(120)), "!ls -la"},
		{"2.1.x bash mode, empty", raw(stop, rule(120), "!"+nb, rule(120)), "!"},
		{"1.0.x bash mode", raw(stop10, "╭"+rule(118)+"╮", boxRow(" ! ls -la", 120), "╰"+rule(118)+"╯"), "!ls -la"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Detect(tt.screen, base)
			checkEq(t, tt.name, "Limited", v.Limited, true)
			checkEq(t, tt.name, "Input.Visible", v.Input.Visible, true)
			checkEq(t, tt.name, "Input.Draft", v.Input.Draft, tt.draft)
			checkEq(t, tt.name, "Menu.Open", v.Menu.Open, false)
		})
	}
}

// TestStopLabels: the known Stop labels are pressable; anything that mentions a purchase, an
// upgrade, a plan, credits, funds, switching or money is not, whatever its first word.
func TestStopLabels(t *testing.T) {
	for _, l := range stopLabels {
		if !isStopLabel(l) || !isStopLabel("  "+strings.ReplaceAll(l, " ", "  ")+" ") {
			t.Errorf("isStopLabel(%q) = false, want true", l)
		}
		if paidWords.MatchString(l) {
			t.Errorf("the known Stop label %q mentions something paid", l)
		}
	}
	for _, l := range []string{"Stop waiting and switch to usage credits ($)", "Stop and upgrade your plan",
		"Stop and add funds", "Stop and buy extra usage", "Stop and wait", "Stopp", "stop", "Upgrade your plan",
		"Switch to extra usage", "Wait here, then continue automatically at 1am", ""} {
		if isStopLabel(l) {
			t.Errorf("isStopLabel(%q) = true, want false", l)
		}
	}
}

// TestRealVimCaptures: Claude Code 2.1.330 with editorMode "vim", captured at a 5-hour limit
// (against ../shared/tools/mockapi): the options menu, then the prompt in INSERT mode (the
// footer says "-- INSERT --") and in NORMAL mode (no label).
func TestRealVimCaptures(t *testing.T) {
	now := time.Date(2026, 11, 23, 17, 57, 0, 0, time.UTC)
	tests := []struct {
		file            string
		menu, vimInsert bool
	}{
		{"2.1.330-vim-menu.txt", true, false},
		{"2.1.330-vim-insert-stop.txt", false, true},
		{"2.1.330-vim-normal-stop.txt", false, false},
	}
	for _, tt := range tests {
		b, err := os.ReadFile("testdata/real/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		v := Detect(string(b), Facts{Now: now, Zone: time.UTC})
		if !v.Limited || v.Kind != KindFiveHour || v.Menu.Open != tt.menu || v.Input.VimInsert != tt.vimInsert {
			t.Errorf("%s: limited %v kind %s menu %v vim insert %v, want limited 5-hour menu %v vim insert %v (%s)",
				tt.file, v.Limited, v.Kind, v.Menu.Open, v.Input.VimInsert, tt.menu, tt.vimInsert, v.Reason)
		}
		if tt.menu && v.Menu.StopDigit != 1 {
			t.Errorf("%s: StopDigit %d, want 1 (rows %+v)", tt.file, v.Menu.StopDigit, v.Menu.Rows)
		}
		if !tt.menu && (!v.Input.Visible || v.Input.Draft != "") {
			t.Errorf("%s: input %+v, want an empty visible box", tt.file, v.Input)
		}
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range kinds {
		if got, err := ParseKind(string(k)); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %q, %v", k, got, err)
		}
	}
	for _, s := range []string{"Session", "monthly", " session"} {
		if _, err := ParseKind(s); err == nil {
			t.Errorf("ParseKind(%q): no error", s)
		}
	}
	got := Kinds()
	if !slices.Equal(got, kinds[1:]) || slices.Contains(got, KindNone) {
		t.Errorf("Kinds() = %q, want %q without KindNone", got, kinds)
	}
	got[0] = "changed"
	if Kinds()[0] != KindSession {
		t.Errorf("Kinds() shares its slice with callers")
	}
}

// TestTablePrefilledContinue: Claude Code 2.1.330+ may put "continue" into the box itself,
// with "Press ⏎ to continue after reset" under the stop (docs/claude-code.md, Changes in 2.1.331
// and 2.1.332). Only that pair is Prefilled; any other box text is the user's draft.
func TestTablePrefilledContinue(t *testing.T) {
	stop := gut("You've hit your 5-hour limit · resets 7:03am (America/New_York)")
	hint := "     Press ⏎ to continue after reset"
	tests := []struct {
		name       string
		transcript []string
		draft      string
		prefilled  bool
	}{
		{"the hint and continue in the box", []string{"❯ do more", stop, hint}, "continue", true},
		{"the hint and an edited box", []string{"❯ do more", stop, hint}, "continue please", false},
		{"the hint and an empty box", []string{"❯ do more", stop, hint}, "", false},
		{"continue in the box without the hint", []string{"❯ do more", stop}, "continue", false},
		{"the hint text outside the stop's block", []string{"❯ do more", stop, "", "● Press ⏎ to continue after reset"}, "continue", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Detect(render(ui21, 120, tt.transcript, tt.draft), base)
			checkEq(t, tt.name, "Input.Draft", v.Input.Draft, tt.draft)
			checkEq(t, tt.name, "Prefilled", v.Prefilled, tt.prefilled)
			if tt.name != "the hint text outside the stop's block" {
				checkEq(t, tt.name, "Limited", v.Limited, true)
				checkEq(t, tt.name, "Message", v.Message, "You've hit your 5-hour limit · resets 7:03am (America/New_York)")
			}
		})
	}
}

// TestRealCaptures2_1_332: Claude Code 2.1.332 against ../shared/tools/mockapi. The
// prefilled continue (server flag tengu_vellum_anchor): "continue" in the box under "Press ⏎
// to continue after reset" is Prefilled, before and after the reset; the box after a typed
// "continue" is a draft. A reply quoting the line and a bash-mode command's output are no stop;
// a reopened conversation draws its old stop exactly like a real one: the screen cannot tell
// them apart, and Claude Code's records decide (watcher.judge).
func TestRealCaptures2_1_332(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		file                     string
		limited, menu, prefilled bool
		draft                    string
	}{
		{"2.1.332-prefilled-stop.txt", true, false, true, "continue"},
		{"2.1.332-prefilled-after-reset.txt", true, false, true, "continue"},
		{"2.1.332-prefilled-continuecontinue.txt", true, false, false, "continuecontinue"},
		{"2.1.332-prefilled-menu.txt", true, true, false, ""},
		{"2.1.332-prefilled-after-enter.txt", false, false, false, ""},
		{"2.1.332-quoted-reply.txt", false, false, false, ""},
		{"2.1.332-quoted-shell-output.txt", false, false, false, ""}, // under "! printf …": tool output
		{"2.1.332-reopened-stop.txt", true, false, false, ""},
	}
	for _, tt := range tests {
		b, err := os.ReadFile("testdata/real/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		v := Detect(string(b), Facts{Now: now, Zone: time.UTC})
		if v.Limited != tt.limited || v.Menu.Open != tt.menu || v.Prefilled != tt.prefilled || v.Input.Draft != tt.draft {
			t.Errorf("%s: limited %v menu %v prefilled %v draft %q, want %v %v %v %q (%s)",
				tt.file, v.Limited, v.Menu.Open, v.Prefilled, v.Input.Draft, tt.limited, tt.menu, tt.prefilled, tt.draft, v.Reason)
		}
		if tt.menu && v.Menu.StopDigit != 1 {
			t.Errorf("%s: StopDigit %d, want 1 (rows %+v)", tt.file, v.Menu.StopDigit, v.Menu.Rows)
		}
	}
}
