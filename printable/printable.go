// Package printable makes text that anyone can set (a session name, a note, a path, what
// another host printed) safe to show on a terminal: each control character (an escape
// sequence's ESC, which would retitle the terminal with OSC 2, set its clipboard with OSC 52
// or clear it with CSI 2J; a carriage return that would print over a line; C1 codes) and each
// byte that is not UTF-8 becomes "?". It is the one such rule of cac-tmux: table, the popup
// and hosts show text through it. It never drops or reorders what it keeps. Count writes a
// number of things for people, the one plural of cac-tmux.
package printable

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s for one line of a terminal: every control character (TAB and newline too) and
// every byte that is not UTF-8 as "?".
func Line(s string) string { return replace(s, unsafe) }

// Text is s as lines for a terminal: as Line, but newlines and tabs stay, and each "\r\n" (ssh
// ends its own messages so) is a newline.
func Text(s string) string {
	return replace(strings.ReplaceAll(s, "\r\n", "\n"), func(r rune) bool { return r != '\n' && r != '\t' && unsafe(r) })
}

// unsafe says whether r must not reach a terminal as it is: a control character, or
// utf8.RuneError (what ranging over a byte that is not UTF-8 gives).
func unsafe(r rune) bool { return unicode.IsControl(r) || r == utf8.RuneError }

func replace(s string, bad func(rune) bool) string {
	if !strings.ContainsFunc(s, bad) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if bad(r) {
			r = '?'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Count is n things for people: "1 pane", "3 panes", "0 attempts" (noun is the singular; an
// "s" makes its plural).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
