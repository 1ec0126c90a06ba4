// The input box: where Claude Code's prompt box is on screen, what is typed in it, and
// whether vim mode is inserting.

package detector

import (
	"strings"
)

func isRule(r string) bool {
	t := strings.TrimLeft(r, " ")
	return strings.HasPrefix(t, "─") && strings.Count(t, "─") >= 10
}

// boxInner strips a row of a rounded box ("│ > hello   │") to its content.
func boxInner(r string) string {
	r = strings.TrimPrefix(r, "│")
	r = strings.TrimRight(r, " \u00a0")
	r = strings.TrimSuffix(r, "│")
	return strings.Trim(r, " \u00a0")
}

// findInput returns the rows of the last input box's top and bottom borders, or -1, -1.
func (s *screen) findInput() (top, bottom int) {
	top, bottom = -1, -1
	for i := 0; i < len(s.rows)-2; i++ {
		r := s.rows[i]
		switch {
		case isRule(r) && promptRow.MatchString(s.rows[i+1]):
			for j := i + 2; j < len(s.rows) && j < i+40; j++ {
				if isRule(s.rows[j]) {
					top, bottom = i, j
					i = j - 1
					break
				}
			}
		case strings.HasPrefix(r, "╭") && promptRow.MatchString(boxInner(s.rows[i+1])):
			for j := i + 2; j < len(s.rows) && j < i+40; j++ {
				if strings.HasPrefix(s.rows[j], "╰") {
					top, bottom = i, j
					i = j - 1
					break
				}
			}
		}
	}
	return top, bottom
}

// readInput reads the draft between the input box's borders. Bash mode ("!") counts as a
// draft: "continue" typed there would run as a shell command.
func (s *screen) readInput(top, bottom int) Input {
	var lines []string
	boxed := strings.HasPrefix(s.rows[top], "╭")
	for i := top + 1; i < bottom; i++ {
		r := s.rows[i]
		if boxed {
			r = boxInner(r)
		}
		if i == top+1 {
			m := promptRow.FindStringSubmatch(r)
			r = r[len(m[0]):]
			if m[1] == "!" {
				r = "!" + r
			}
		} else {
			r = strings.TrimPrefix(r, "  ")
		}
		lines = append(lines, strings.TrimRight(r, " \u00a0"))
	}
	return Input{Visible: true, Draft: strings.Trim(strings.Join(lines, "\n"), " \n\u00a0")}
}

// vimInsert reports "-- INSERT --" at the start of a footer row: vim mode's INSERT mode
// ("  -- INSERT -- ⏵⏵ auto mode on (shift+tab to cycle)", 2.1.330).
func (s *screen) vimInsert() bool {
	for _, r := range s.rows[s.footer:] {
		if strings.HasPrefix(strings.TrimSpace(r), "-- INSERT --") {
			return true
		}
	}
	return false
}
