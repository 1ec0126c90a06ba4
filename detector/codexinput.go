// Codex's live bottom: the composer ("› " and the text typed, or its dim placeholder) and the
// "Approaching rate limits" menu that hides it at the first stop of a session.

package detector

import (
	"regexp"
	"strconv"
	"strings"
)

// codexMenuRow is a row of the menu: "› 1. Switch to gpt-6-luna   Fast and affordable…" (the
// focused one) or "  2. Keep current model"; the label ends at the gap before its description.
var codexMenuRow = regexp.MustCompile(`^(› |  )(\d)\. (.+?)(?: {2,}\S.*)?$`)

// findComposer returns the composer's first row, -1 when it is not on screen: the last row
// starting "› " that is not a row of the menu titled at row title (-1: no menu), with only its
// own rows (a draft's further lines, indented), blank rows and Codex's indented footer below.
func (s *codexScreen) findComposer(title int) int {
	for i := len(s.rows) - 1; i >= 0; i-- {
		r := s.rows[i]
		if !(r.startsWith("› ") || r.text == "›") || (title >= 0 && i > title && codexMenuRow.MatchString(r.text)) {
			continue
		}
		for _, below := range s.rows[i+1:] {
			if !below.blank() && below.text[0] != ' ' {
				return -1 // a prompt cell of the transcript, with Codex's rows below it
			}
		}
		return i
	}
	return -1
}

// readComposer reads the composer from its first row: the draft is its text with every dim
// rune left out (the placeholder, "Ask Codex to do anything", is dim; typed text never is),
// over the further rows of a draft of several lines, up to the first blank row.
func (s *codexScreen) readComposer(top int) Input {
	lines := []string{s.rows[top].undimmed(min(2, len(s.rows[top].runes)))}
	for i := top + 1; i < len(s.rows) && !s.rows[i].blank() && s.rows[i].startsWith("  "); i++ {
		lines = append(lines, s.rows[i].undimmed(2))
	}
	return Input{Visible: true, Draft: strings.Trim(strings.Join(lines, "\n"), " \n\u00a0")}
}

// findCodexMenu reads the last "Approaching rate limits" menu on screen into s.menu and
// returns its title row, -1 when there is none (or it has no numbered rows).
func (s *codexScreen) findCodexMenu() int {
	title := -1
	for i := len(s.rows) - 1; i >= 0; i-- {
		if s.rows[i].text == "  Approaching rate limits" {
			title = i
			break
		}
	}
	if title < 0 {
		return -1
	}
	var m Menu
	for _, r := range s.rows[title+1:] {
		sub := codexMenuRow.FindStringSubmatch(r.text)
		if sub == nil {
			continue
		}
		d, _ := strconv.Atoi(sub[2])
		row := MenuRow{Digit: d, Label: strings.TrimSpace(sub[3]), Focused: sub[1] == "› "}
		m.Rows = append(m.Rows, row)
		if row.Focused {
			m.Focused = d
		}
	}
	if len(m.Rows) == 0 {
		return -1
	}
	s.menu = m
	return title
}
