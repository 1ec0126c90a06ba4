// The limit messages: which rows of a response gutter say that a limit was hit, joined
// across their wrapped rows, and which line owns each gutter (tool output is not a stop).

package detector

import (
	"strings"
	"unicode/utf8"
)

// findLimits walks the transcript once, tracking which line owns each response gutter, and
// keeps the last gutter message that is a stop.
func (s *screen) findLimits() {
	owner := ownerNone
	for i := 0; i < s.end; i++ {
		r := s.rows[i]
		text, isGutter := gutterText(r)
		switch {
		case strings.TrimSpace(r) == "":
			owner = ownerNone
			continue
		case isGutter:
			// a gutter belongs to the block it hangs under; handled below
		case indent(r) >= 3:
			continue // a wrapped or indented line of the current block
		case indent(r) > 0:
			// A row indented by one or two spaces continues its block (a wrapped prompt or
			// tool call: "● Bash(… |" then "  cat -v)"); opening a block it is quoted text,
			// such as a transcript the assistant shows in a code block.
			if owner == ownerNone {
				owner = ownerQuoted
			}
			continue
		default:
			owner = ownerOther
			if (strings.HasPrefix(r, "! ") || strings.Contains(r, "(")) && toolCall.MatchString(r) {
				owner = ownerTool
			}
			s.quoted = s.quoted || mentionsLimit(r)
			continue
		}
		if owner == ownerTool || owner == ownerQuoted {
			s.quoted = s.quoted || mentionsLimit(text)
			continue // tool output: "● Bash(cat notes.md)" then "  ⎿  You've hit your limit…"
		}
		end := s.joinWrapped(i)
		full := text
		for j := i + 1; j < end; j++ {
			full += " " + strings.TrimSpace(s.rows[j])
		}
		if msg, ok := parseMessage(normalize(full)); ok {
			s.last = &limitAt{row: i, end: end, text: full, msg: msg}
		} else {
			s.quoted = s.quoted || mentionsLimit(full)
		}
		i = end - 1
	}
}

// mentionsLimit is a cheap test for limit wording, for the reason text only.
func mentionsLimit(r string) bool {
	return (strings.Contains(r, "imit") || strings.Contains(r, "usage")) && limitWords.MatchString(r)
}

type lineOwner int

const (
	ownerNone   lineOwner = iota // the gutter stands alone (a blank row above its block)
	ownerOther                   // a prompt, a reply, a notification
	ownerTool                    // a tool call: its gutter is tool output
	ownerQuoted                  // an indented row opened the block: quoted text, not a response
)

// gutterText returns the text after "  ⎿ " (spaces and U+00A0), and whether r is a gutter row.
func gutterText(r string) (string, bool) {
	t := strings.TrimLeft(r, " ")
	if len(r)-len(t) > 3 || !strings.HasPrefix(t, string(gutter)) {
		return "", false
	}
	return strings.TrimLeft(t[len(string(gutter)):], " \t\u00a0"), true
}

func indent(r string) int {
	return len(r) - len(strings.TrimLeft(r, " "))
}

// hintPrefixes begin the dim hint rows Claude Code prints under a stop ("/upgrade …",
// "Opening your options…", "Continuing automatically at …"); they are not part of the message.
var hintPrefixes = []string{"/", "•", "Opening your options", "Continuing ", "Press ", "Run ", "Tip:", "Esc ", "esc "}

// joinWrapped returns one past the last row of the message starting at row i: following rows
// indented like a wrap (five spaces) that are not hints, while the row above was full enough
// to have wrapped.
func (s *screen) joinWrapped(i int) int {
	end := i + 1
	for end < s.end && end-i < maxMessageRows {
		r := s.rows[end]
		if _, g := gutterText(r); g || indent(r) < 3 || strings.TrimSpace(r) == "" {
			break
		}
		t := strings.TrimSpace(r)
		hint := false
		for _, p := range hintPrefixes {
			if strings.HasPrefix(t, p) {
				hint = true
				break
			}
		}
		word, _, _ := strings.Cut(t, " ")
		prev := utf8.RuneCountInString(s.rows[end-1])
		if hint || prev+1+utf8.RuneCountInString(word) <= s.width-12 {
			break
		}
		end++
	}
	return end
}
