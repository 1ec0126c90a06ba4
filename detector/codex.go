package detector

import (
	"fmt"
	"regexp"
	"strings"
)

// DetectCodex classifies one screen of Codex CLI (0.171.0; docs/codex.md). screen is the pane
// as `capture-pane -p -J -e` prints it, SGR escapes kept: the red of an error cell and the dim
// of the composer's placeholder are read from them. f carries the capture instant, the
// appearance instant and the zone of Codex's app-server daemon (a printed reset has no zone
// and is in the daemon's). Pure, like Detect; Native is always NativeNone (Codex has no
// auto-resume) and Prefilled false.
//
// A stop is an error cell (a row starting "■ " in red) whose text, joined across the rows
// Codex wrapped it into, is a usage-limit wording; the last one on screen counts, and only
// when nothing newer follows it (a prompt, a reply or tool call "• …", another error, a
// running turn) and Codex still runs.
func DetectCodex(screen string, f Facts) Verdict {
	s := scanCodex(screen)
	v := Verdict{Line: -1, Native: NativeNone, Input: s.input, Menu: s.menu}
	last := s.lastStop()
	if last == nil {
		v.Busy, v.Exited = s.busyFrom(0), s.exited
		v.Reason = "no Codex usage-limit error cell (■) on screen"
		switch {
		case v.Exited:
			v.Reason = codexExited
		case s.quoted():
			v.Reason = "limit wording appears only outside an error cell (a reply, a draft or a notice)"
		}
		return v
	}
	v.Line, v.Message, v.Kind, v.Waitable = last.row, last.text, last.msg.kind, last.msg.waitable
	v.Prompt = s.promptAbove(last.row)
	v.Reset = codexReset(last.msg, f)
	v.Busy, v.Exited = s.busyFrom(last.end), s.exited
	newer := s.newerFrom(last.end)
	v.Resumed = newer != "" || v.Busy
	switch {
	case v.Exited:
		v.Reason = codexExited
	case newer != "":
		v.Reason = "newer activity follows the stop: " + newer
	case v.Busy:
		v.Reason = "a turn is running below the stop (Working, esc to interrupt)"
	default:
		v.Limited = true
		v.Menu.Escape = v.Menu.Open
		v.Reason = fmt.Sprintf("the last error cell (row %d) is a Codex usage-limit stop (%s) with nothing newer below it", last.row+1, v.Kind)
		if v.Menu.Open {
			v.Reason += "; the Approaching rate limits menu covers it (Esc closes it)"
		}
	}
	return v
}

// codexExited is the reason of a screen where a shell prompt took Codex's place.
const codexExited = "a shell prompt is on screen instead of Codex's: codex has exited"

// codexScreen is one Codex capture split into rows, with its live bottom found.
type codexScreen struct {
	rows   []codexRow
	styled bool
	// end is the top of the live bottom (the composer or the open menu), len(rows) when none:
	// the transcript is rows[:end].
	end    int
	input  Input
	menu   Menu
	exited bool
}

// codexStop is an error cell with a usage-limit wording.
type codexStop struct {
	row, end int // the cell's first row and one past its last
	text     string
	msg      codexMessage
}

// codexWorked is a finished turn's summary: "  Worked for 22s • 07:41".
var codexWorked = regexp.MustCompile(`^\s*Worked for \d`)

// codexLead are the runes Codex's own rows start with at column 0: prompt cells and the
// composer, error cells, replies and tool calls, notices, tool output.
const codexLead = "›■•◦⚠└"

// scanCodex reads the rows and finds the live bottom: the open menu when it is below the
// composer (it hides the composer while open), else the composer; with neither, whether a
// shell took Codex's place.
func scanCodex(screen string) *codexScreen {
	s := &codexScreen{}
	s.rows, s.styled = readCodexRows(screen)
	s.end = len(s.rows)
	title := s.findCodexMenu()
	composer := s.findComposer(title)
	switch {
	case title >= 0 && title > composer:
		s.menu.Open = true
		s.end = title
	case composer >= 0:
		s.menu = Menu{}
		s.end = composer
		s.input = s.readComposer(composer)
	default:
		s.menu = Menu{}
		s.exited = s.shellLast()
	}
	return s
}

// isErrorCell reports an error cell's first row: "■ " at column 0, in red when the capture
// kept its escapes (a reply quoting "■ You’ve hit…" has it after its "• ", not in red).
func (s *codexScreen) isErrorCell(i int) bool {
	r := s.rows[i]
	return r.startsWith("■ ") && (!s.styled || r.red[0])
}

// lastStop is the bottom-most error cell of the transcript with a usage-limit wording.
func (s *codexScreen) lastStop() *codexStop {
	for i := s.end - 1; i >= 0; i-- {
		if !s.isErrorCell(i) {
			continue
		}
		text, end := s.joinCell(i)
		if msg, ok := parseCodexMessage(text); ok {
			return &codexStop{row: i, end: end, text: text, msg: msg}
		}
	}
	return nil
}

// joinCell joins the rows Codex wrapped an error cell into: the rows after its first that
// start at column 0 with text of their own. Codex breaks a URL after a "/" (no space lost
// there) and other text at a space.
func (s *codexScreen) joinCell(i int) (string, int) {
	text := strings.TrimPrefix(s.rows[i].text, "■ ")
	j := i + 1
	for ; j < s.end && j < i+maxCodexMessageRows; j++ {
		r := s.rows[j]
		if r.blank() || r.text[0] == ' ' || strings.ContainsRune(codexLead, r.runes[0]) {
			break
		}
		if !strings.HasSuffix(text, "/") {
			text += " "
		}
		text += r.text
	}
	return text, j
}

// maxCodexMessageRows bounds one error cell: the longest stop (plus, 60 columns) is 4 rows.
const maxCodexMessageRows = 8

// newerFrom names the first sign of a turn in the transcript from row from on, "" for none.
func (s *codexScreen) newerFrom(from int) string {
	for i := from; i < s.end; i++ {
		r := s.rows[i]
		switch {
		case codexWorking(r.text):
			// a running turn: Busy
		case r.startsWith("› ") || r.text == "›":
			return "a prompt was submitted"
		case r.startsWith("• ") || r.startsWith("◦ "):
			return "the agent replied or ran a tool"
		case s.isErrorCell(i):
			return "a newer error"
		case strings.HasPrefix(strings.TrimSpace(r.text), "└ "):
			return "tool output"
		case codexWorked.MatchString(r.text):
			return "a turn finished"
		}
	}
	return ""
}

// promptAbove is the text of the last prompt cell above row: a "› " row followed by a blank
// one (Codex pads a prompt cell with a blank row on each side), so that the prompt fits one
// row and is read whole; "" otherwise.
func (s *codexScreen) promptAbove(row int) string {
	for i := row - 1; i >= 0; i-- {
		r := s.rows[i]
		if !r.startsWith("› ") {
			continue
		}
		if i+1 < len(s.rows) && s.rows[i+1].blank() {
			return strings.TrimSpace(strings.TrimPrefix(r.text, "› "))
		}
		return ""
	}
	return ""
}

// codexWorking reports the status row of a running turn: "• Working (2s • esc to interrupt)"
// ("◦" while it blinks).
func codexWorking(r string) bool {
	r = strings.TrimSpace(r)
	return strings.HasPrefix(r, "• Working") || strings.HasPrefix(r, "◦ Working") || strings.Contains(r, "esc to interrupt")
}

// busyFrom reports a running turn ("Working", "esc to interrupt") in the transcript from row
// from on.
func (s *codexScreen) busyFrom(from int) bool {
	for i := from; i < s.end; i++ {
		if codexWorking(s.rows[i].text) {
			return true
		}
	}
	return false
}

// quoted reports limit wording anywhere on screen, for the reason of a screen with no stop.
func (s *codexScreen) quoted() bool {
	for _, r := range s.rows {
		if limitWords.MatchString(r.text) {
			return true
		}
	}
	return false
}

// shellLast reports a shell prompt as the last row with text: codex exited (after /quit its
// alternate screen is gone and the shell's prompt follows its goodbye).
func (s *codexScreen) shellLast() bool {
	for i := len(s.rows) - 1; i >= 0; i-- {
		r := s.rows[i]
		if r.blank() {
			continue
		}
		return !strings.ContainsRune(codexLead, r.runes[0]) && isShellPrompt(r.text)
	}
	return false
}
