// After the stop: what the screen shows below the last limit message (newer activity,
// Claude Code's own auto-continue, a busy spinner, an exited process or a shell prompt), which
// decides whether the stop still holds.

package detector

import (
	"strings"
	"unicode/utf8"
)

// afterStop is what the rows below the last stop say.
type afterStop struct {
	native   Native
	activity string     // what newer activity was seen, "" when none
	summary  *clockText // "done 10:58 PM" of the turn summary, nil when none
}

// after reads the transcript rows below the stop, then the footer, for newer activity and for
// Claude Code's own auto-continue (docs/claude-code.md, Claude Code's own auto-continue). The
// latest auto-continue line in the transcript sets the state; an armed banner or a press-enter
// line in the footer is the current state and wins.
func (s *screen) after(from int) afterStop {
	a := afterStop{native: NativeNone}
	footer := NativeNone // the footer shows the current state: armed, or press enter
	// owner is what the current block hangs under: the rows right below the stop belong to
	// the failed turn ("Stop hook feedback", hints) until a blank row.
	owner := blockStop
	for i := from; i < len(s.rows); i++ {
		r := s.rows[i]
		t := strings.TrimSpace(r)
		if t == "" {
			owner = blockNone
			continue
		}
		n := nativeEvent(t)
		if i >= s.footer {
			switch {
			case n == NativeArmed, strings.HasPrefix(t, "⚠ Usage limit reached"):
				footer = NativeArmed
			case n == NativePressEnter:
				footer = NativePressEnter
			}
			continue
		}
		if i >= s.end {
			continue // the input box or the menu
		}
		if n != NativeNone {
			a.native = n
			if indent(r) == 0 {
				owner = blockQuiet
			}
			continue
		}
		text, isGutter := gutterText(r)
		switch {
		case isGutter:
			// A response row is newer activity unless it belongs to the failed turn, to a
			// slash command ("❯ /usage" → "Status dialog dismissed", "/model" → "Set model
			// to …"), to a turn summary (its todo list) or to an auto-continue line, or
			// reports an interruption.
			if owner == blockNone || owner == blockOther {
				if !strings.HasPrefix(text, "Interrupted") && a.activity == "" {
					a.activity = "a response line"
				}
			}
			continue
		case indent(r) > 0:
			continue // wrapped text, hints, notices
		}
		owner = blockOther
		if isSlashEcho(t) {
			owner = blockQuiet // a slash command's echo; its output is not a turn
		}
		if summaryRow.MatchString(t) {
			owner = blockQuiet
			if m := doneClock.FindStringSubmatch(t); m != nil && a.summary == nil {
				a.summary = parseClock(normalize(m[1]))
			}
		}
		if what := activity(r); what != "" && a.activity == "" {
			a.activity = what
		}
	}
	if footer != NativeNone {
		a.native = footer
	}
	return a
}

// prefilledText is what Claude Code puts into the input box itself with "Press ⏎ to continue
// after reset" under its stop (Verdict.Prefilled).
const prefilledText = "continue"

// pressToContinue reports "Press ⏎ to continue after reset" in the stop's own block: the
// indented rows right below the message, down to a blank row or the live input box (seen in
// Claude Code 2.1.332's code: a dim child of the limit line, like "Opening your options…").
func (s *screen) pressToContinue(from int) bool {
	for i := from; i < s.end; i++ {
		r := s.rows[i]
		t := strings.TrimSpace(r)
		switch {
		case t == "" || indent(r) == 0:
			return false
		case t == "Press ⏎ to continue after reset":
			return true
		}
	}
	return false
}

// The blocks rows below a stop can hang under, for telling activity from attachments.
const (
	blockNone  = iota // after a blank row
	blockStop         // the stop's own block
	blockQuiet        // a slash-command echo, a turn summary or an auto-continue line
	blockOther        // a prompt, a reply, a tool call
)

// nativeEvent recognises Claude Code's auto-continue lines (2.1.234+), with or without their
// "● " or "⚠ " glyph.
func nativeEvent(t string) Native {
	t = strings.TrimLeft(t, "●⏺⚠ ")
	switch {
	case strings.HasPrefix(t, "Usage limit reset") && strings.Contains(t, "ontinuing automatically"),
		strings.HasPrefix(t, "Usage limit available again"): // 2.1.330: "… · continuing now"
		return NativeFired
	case strings.HasPrefix(t, "Automatic continue cancelled"):
		return NativeCancelled
	case strings.HasPrefix(t, "Automatic continue"): // stopped …, was turned off, did not run
		return NativeStopped
	case strings.Contains(t, "limit has reset") && strings.Contains(t, "press enter to continue"):
		return NativePressEnter
	case strings.HasPrefix(t, "Continuing automatically at"), strings.HasPrefix(t, "Continuing shortly"),
		strings.HasPrefix(t, "Usage limit reached · continuing automatically"),
		// "Wait here…" chosen in the menu (2.1.250+: "will continue automatically at"), and
		// 2.1.330's armed line ("Usage limit reached · set to continue automatically at").
		strings.Contains(t, "continue automatically at"):
		return NativeArmed
	}
	return NativeNone
}

// activity says what kind of newer activity the column-0 row r is, or "" when it is none: an
// assistant reply or tool call, a working spinner, a submitted prompt (not a slash command).
// Turn summaries, hints, notices and limit reports are not.
func activity(r string) string {
	t := strings.TrimSpace(r)
	if indent(r) > 0 {
		return "" // wrapped text, hints, notices
	}
	first, _ := utf8.DecodeRuneInString(t)
	switch {
	case first == '●' || first == '⏺':
		if mentionsLimit(t) {
			return ""
		}
		return "an assistant reply or tool call"
	case strings.ContainsRune(spinnerGlyphs, first):
		if summaryRow.MatchString(t) {
			return ""
		}
		return "a working spinner or a new turn"
	}
	if m := promptRow.FindStringSubmatch(t); m != nil {
		rest := strings.TrimSpace(t[len(m[0]):])
		if rest == "" || strings.HasPrefix(rest, "/") {
			return "" // an empty prompt or a slash-command echo ("> /rate-limit-options")
		}
		return "a submitted prompt"
	}
	return ""
}

// busyFrom reports a running turn at or below row from: "esc to interrupt" on a spinner row
// or in the footer.
func (s *screen) busyFrom(from int) bool {
	for i := from; i < len(s.rows); i++ {
		t := strings.TrimSpace(s.rows[i])
		if !strings.Contains(t, "to interrupt") || !strings.Contains(strings.ToLower(t), "esc to interrupt") {
			continue
		}
		first, _ := utf8.DecodeRuneInString(t)
		if i >= s.footer || strings.ContainsRune(spinnerGlyphs, first) {
			return true
		}
	}
	return false
}

// exitedFrom reports a shell prompt at column 0 below row from and below the transcript: claude
// exited and left its last screen behind (docs/claude-code.md, Not stops).
func (s *screen) exitedFrom(from int) bool {
	for i := from; i < len(s.rows); i++ {
		r := s.rows[i]
		switch {
		case i >= s.end && i < s.footer:
			// the live input box or menu
		case i >= s.footer:
			// Below the live input box Claude Code's own rows are indented; a row at column
			// 0 is a shell's ("➜  proj git:(main)", a starship or powerline prompt), except
			// the echo of a slash command under a 2.0.x menu ("> /rate-limit-options").
			if r != "" && r[0] != ' ' && !isSlashEcho(r) {
				return true
			}
		case isShellPrompt(r):
			return true // a shell between the stop and a newer claude, or no input box at all
		}
	}
	return false
}

func isSlashEcho(r string) bool {
	m := promptRow.FindStringSubmatch(r)
	return m != nil && strings.HasPrefix(strings.TrimSpace(r[len(m[0]):]), "/")
}

// claudeLead are the runes Claude Code's own rows can start with at column 0: prompts, bullets,
// spinners, boxes, rules, the logo and banners.
const claudeLead = "●⏺✻✽✶✳✢✺✹>❯!│╭╰─▐▝▘※▎⎿*·"

// isShellPrompt reports a row that looks like a shell prompt at column 0 ("user@devbox:~/proj$",
// "[me@box ~]# ", "% "): not one of Claude Code's own rows, ending in a prompt character.
func isShellPrompt(r string) bool {
	if r == "" || r[0] == ' ' || len(r) > 300 {
		return false
	}
	if first, _ := utf8.DecodeRuneInString(r); strings.ContainsRune(claudeLead, first) {
		return false
	}
	t := strings.TrimRight(r, " \u00a0")
	if t == "" {
		return false
	}
	if last := t[len(t)-1]; last == '$' || last == '#' || last == '%' {
		return true
	}
	return userHost.MatchString(r)
}
