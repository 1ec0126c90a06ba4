package detector

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// gutter is U+23BF, the first rune of a response gutter row.
const gutter = '⎿'

// maxMessageRows bounds how many wrapped rows one message may span.
const maxMessageRows = 6

// Detect classifies one screen. screen is the pane text as `capture-pane -p -J` prints it
// (no escapes); f carries the capture instant, the appearance instant and the host zone.
//
// The rules follow what Claude Code draws (docs/claude-code.md): a stop is a limit message on
// the first line of a response gutter ("  ⎿ " then U+00A0) that is not tool output; the last one
// on screen counts, and only if no newer activity follows it and no shell prompt follows Claude
// Code's UI.
func Detect(screen string, f Facts) Verdict {
	s := scan(screen)
	v := Verdict{Line: -1, Native: NativeNone, Input: s.input, Menu: s.menu}

	last := s.last
	if last == nil {
		v.Busy = s.busyFrom(0)
		v.Exited = s.exitedFrom(0)
		v.Reason = "no usage-limit message in a response gutter"
		if s.quoted {
			v.Reason = "limit text appears only outside a response gutter (quoted, typed, tool output or a notice)"
		}
		return v
	}
	v.Line = last.row
	v.Message = last.text
	v.Kind = last.msg.kind
	v.Waitable = last.msg.waitable

	after := s.after(last.end)
	v.Native = after.native
	v.Busy = s.busyFrom(last.end)
	v.Exited = s.exitedFrom(last.end)
	v.Resumed = after.activity != "" || v.Native == NativeFired
	v.Reset = resolve(last.msg, f, after.summary)
	v.Prefilled = v.Input.Draft == prefilledText && s.pressToContinue(last.end)

	switch {
	case v.Exited:
		v.Reason = "a shell prompt follows Claude Code's screen: claude has exited"
	case v.Native == NativeFired:
		v.Reason = "Claude Code's own auto-continue fired after the stop"
	case after.activity != "":
		v.Reason = "newer activity follows the stop: " + after.activity
	case v.Busy:
		v.Resumed = true
		v.Reason = "a turn is running below the stop (esc to interrupt)"
	default:
		v.Limited = true
		v.Reason = fmt.Sprintf("the last response-gutter message (row %d) is a usage-limit stop (%s) with nothing newer below it", last.row+1, v.Kind)
	}
	return v
}

// screen is one capture split into rows with the structures found in it.
type screen struct {
	rows []string
	// width is the widest row, used to tell a wrapped message from the hint below it.
	width int
	// last is the bottom-most stop message in a response gutter, nil when there is none.
	last *limitAt
	// end is where the transcript ends: the top of the live input box or menu, or len(rows).
	end int
	// footer is the first row below the live input box or menu (len(rows) when none).
	footer int
	input  Input
	menu   Menu
	// quoted is true when limit wording appears outside any gutter (for the reason text).
	quoted bool
}

type limitAt struct {
	row, end int // first row and one past the last row of the message (with its wraps)
	text     string
	msg      message
}

var (
	// toolCall is a transcript line that owns tool output: "● Bash(ls)", "⏺ Read(f.go)",
	// "● context7 - resolve-library-id (MCP)(…)", and bash-mode "! cat notes.md".
	toolCall = regexp.MustCompile(`^(?:[●⏺] [\w.:-]+(?: [\w.:-]+){0,4}(?: \(MCP\))?\(|! )`)
	// promptRow is Claude Code's prompt: "❯" (2.1.x) or ">" (≤2.0.x), "!" in bash mode, then a
	// space or NO-BREAK SPACE, or nothing.
	promptRow = regexp.MustCompile(`^([❯>!])(?:[ \x{00a0}]|$)`)
	// menuRow is "❯ 1. Stop and wait for limit to reset" or "  2. Switch to extra usage".
	menuRow = regexp.MustCompile(`^([❯>›▸] ?)?(\d{1,2})\. +(\S.*)$`)
	// userHost is a typical shell prompt, with or without a command after it:
	// "user@devbox:~/proj$", "user@devbox:~/proj$ claude -c".
	userHost = regexp.MustCompile(`^[\w.-]+@[\w.-]+(?::\S*?)?[$#%>](?:[ \x{00a0}]|$)`)
	// limitWords is loose limit wording, used for the reason text and to tell a ● line that
	// reports a stop ("● Teammate @x failed: You've hit your session limit") from activity.
	limitWords = regexp.MustCompile(`(?i)hit your .{0,40}limit|limit reached|out of (?:extra usage|usage credits)|usage limit`)
	// summaryRow is a finished turn's summary: "✻ Worked for 0s · done 10:58 PM",
	// "✻ Brewed for 0s". It belongs to the turn that failed and is not new activity.
	summaryRow = regexp.MustCompile(`^\S+ \p{Lu}\p{Ll}+ for \d|· done \d`)
	doneClock  = regexp.MustCompile(`· done (\d{1,2}(?::\d{2})? ?[AaPp][Mm])`)
)

const spinnerGlyphs = "✻✽✶✳✢✺✹·*"

// scan splits the screen into rows and finds the input box, the menu and the last gutter stop.
func scan(text string) *screen {
	s := &screen{rows: strings.Split(text, "\n")}
	for i, r := range s.rows {
		r = strings.TrimRight(r, " \t\r")
		s.rows[i] = r
		if w := utf8.RuneCountInString(r); w > s.width {
			s.width = w
		}
	}
	s.findStructures()
	s.findLimits()
	return s
}

// findStructures locates the live bottom of Claude Code's screen: the last input box (between
// two full-width rules in 2.x, in a rounded box in 1.0.x) or the last options menu.
func (s *screen) findStructures() {
	s.end, s.footer = len(s.rows), len(s.rows)
	inTop, inBottom := s.findInput()
	menuTop, menuBottom := s.findMenu()
	switch {
	case menuTop >= 0 && menuTop > inTop:
		s.menu.Open = true
		s.end, s.footer = menuTop, menuBottom+1
	case inTop >= 0:
		s.menu = Menu{} // a menu above the input box is history
		s.end, s.footer = inTop, inBottom+1
		s.input = s.readInput(inTop, inBottom)
		s.input.VimInsert = s.vimInsert()
	default:
		s.menu = Menu{}
	}
}
