// The options menu: where it is on screen and which of its items is the one that stops and
// waits; an item label not known here holds the pane (fail-closed).

package detector

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// findMenu reads the last rate-limit options menu ("What do you want to do?") and returns the
// rows of its top (the rule or box border above the title) and its last row, or -1, -1.
func (s *screen) findMenu() (top, bottom int) {
	title := -1
	for i := len(s.rows) - 1; i >= 0; i-- {
		if strings.Contains(s.rows[i], "What do you want to do?") {
			title = i
			break
		}
	}
	if title < 0 {
		return -1, -1
	}
	top, bottom = title, title
	for top > 0 && (strings.TrimSpace(s.rows[top-1]) == "" || isRule(s.rows[top-1]) || strings.HasPrefix(s.rows[top-1], "╭")) && top > title-3 {
		top--
	}
	var m Menu
	for i := title + 1; i < len(s.rows); i++ {
		r := strings.TrimSpace(boxInner(s.rows[i]))
		if strings.HasPrefix(s.rows[i], "╰") || strings.Contains(r, "Enter to confirm") {
			bottom = i
			break
		}
		if sub := menuRow.FindStringSubmatch(r); sub != nil {
			d := 0
			fmt.Sscan(sub[2], &d)
			row := MenuRow{Digit: d, Label: strings.TrimSpace(sub[3]), Focused: sub[1] != ""}
			m.Rows = append(m.Rows, row)
			if row.Focused {
				m.Focused = d
			}
			bottom = i
		}
	}
	m.StopDigit = stopDigit(m.Rows)
	s.menu = m
	return top, bottom
}

// stopDigit is the digit of the Stop row (docs/claude-code.md, The options menu), 0 unless the
// rows read as 1..N in order with exactly one Stop row: the order of the rows changes between
// accounts, and any other row can start an upgrade or a purchase.
func stopDigit(rows []MenuRow) int {
	stop := 0
	for i, r := range rows {
		if r.Digit != i+1 || r.Digit > 9 {
			return 0
		}
		if isStopLabel(r.Label) {
			if stop != 0 {
				return 0
			}
			stop = r.Digit
		}
	}
	return stop
}

// stopLabels are the Stop rows Claude Code is known to draw (2.0.45 → 2.1.330: docs/claude-code.md,
// The options menu). A row is pressed only when its whole label is one of them: the service can
// change these labels, and a new one ("Stop waiting and switch to usage credits") must not be
// taken for Stop.
var stopLabels = []string{"Stop and wait for limit to reset", "Stop"}

// paidWords are words of a row that spends money or changes the plan or the account. A Stop
// row never contains one; the check guards the known labels against a careless edit.
var paidWords = regexp.MustCompile(`(?i)purchase|buy|upgrade|plan|credit|fund|switch|money|pay|billing|subscri|extra usage|overage|team|login|[$€£]`)

// isStopLabel reports whether a menu row's label is a known Stop label that mentions no
// purchase, upgrade, plan, credits, funds, switching or money: the only row the watcher may
// press. Anything else fails closed.
func isStopLabel(label string) bool {
	label = strings.Join(strings.Fields(label), " ")
	return slices.Contains(stopLabels, label) && !paidWords.MatchString(label)
}
