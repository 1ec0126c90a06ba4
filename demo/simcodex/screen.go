package simcodex

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cac-tmux/cac-tmux/clock"
)

// The SGR attributes of Codex 0.171.0's cells, as `capture-pane -e` shows them.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[38;5;1m"                // the stop's error cell
	sgrPrompt = "\x1b[38;5;255;48;5;238m"     // a submitted prompt's cell
	sgrMarker = "\x1b[1;2;38;5;255;48;5;238m" // its "› "
	sgrWarn   = "\x1b[1;38;5;179m"            // the status line's "⚠ 5h limit …"
	sgrModel  = "\x1b[38;5;223m"
	sgrPath   = "\x1b[38;5;151m"
	sgrThread = "\x1b[38;5;116m"
	sgrFg     = "\x1b[39m"
	menuLabel = 44 // the width of the menu's label column
)

// placeholder is the composer's dim text while it is empty.
const placeholder = "Ask Codex to do anything"

// screen returns the rows of the current frame at now, exactly the pane's height.
func (s *sim) screen(now time.Time) []string {
	top := []string{"", "  \x1b[38;5;75m>_ " + sgrBold + sgrFg + "OpenAI Codex" + sgrReset + sgrDim + " (v" + Version + ")", "     " + sgrDim + s.shownCwd(), ""}
	for _, c := range s.history {
		top = append(top, s.cellRows(c)...)
	}
	bottom := s.bottom(now)
	top = top[max(0, len(top)+len(bottom)-s.height):]
	for len(top)+len(bottom) < s.height {
		top = append(top, "")
	}
	return append(top, bottom...)
}

// shownCwd is the working directory with the home directory as ~.
func (s *sim) shownCwd() string {
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if rest, ok := strings.CutPrefix(s.cwd, home); ok && (rest == "" || rest[0] == '/') {
			return "~" + rest
		}
	}
	return s.cwd
}

// cellRows are the rows of one history cell, a blank row after it.
func (s *sim) cellRows(c cell) []string {
	var rows []string
	switch c.kind {
	case cellPrompt:
		blank := sgrPrompt + strings.Repeat(" ", s.width) + sgrReset
		rows = append(rows, blank)
		for i, l := range wrapLines(c.text, s.width-2) {
			lead := "  "
			if i == 0 {
				lead = sgrMarker + "› " + sgrReset
			}
			rows = append(rows, lead+sgrPrompt+pad(l, s.width-2)+sgrReset)
		}
		rows = append(rows, blank)
	case cellReply:
		rows = append(rows, sgrDim+"• "+sgrReset+c.text, "", sgrDim+"  Worked for "+took(c.took)+" • "+c.at.In(s.tuiZone).Format("15:04")+sgrReset)
	case cellStop:
		for _, l := range wrapLines("■ "+c.text, s.width) {
			rows = append(rows, sgrRed+l+sgrFg)
		}
	case cellNote:
		rows = append(rows, sgrDim+c.text+sgrReset)
	}
	return append(rows, "")
}

// bottom is the bottom pane: the menu, or the turn's status, the TUI's status line and the
// composer with the model and shortcuts lines.
func (s *sim) bottom(now time.Time) []string {
	if s.menu > 0 {
		return s.menuRows()
	}
	var rows []string
	if !s.busySince.IsZero() {
		secs := int(now.Sub(s.busySince).Seconds())
		rows = append(rows, "• "+sgrDim+"Working"+sgrReset+" "+sgrDim+fmt.Sprintf("(%ds • ", secs)+sgrReset+sgrBold+"esc"+sgrReset+sgrDim+" to interrupt)"+sgrReset)
	}
	rows = append(rows, s.statusLine(now), "")
	if len(s.draft) == 0 {
		rows = append(rows, sgrBold+"›"+sgrReset+" "+sgrDim+placeholder+sgrReset)
	} else {
		for i, l := range wrapLines(string(s.draft), s.width-2) {
			lead := "  "
			if i == 0 {
				lead = sgrBold + "›" + sgrReset + " "
			}
			rows = append(rows, lead+l)
		}
	}
	model := "  " + sgrModel + s.model + sgrFg + " · " + sgrPath + s.shownCwd() + sgrFg
	if s.thread != "" {
		model += " · " + sgrThread + s.thread + sgrFg
	}
	footer := ""
	if len(s.draft) == 0 {
		footer = "  " + sgrBold + "←" + sgrReset + " for agents · " + sgrBold + "?" + sgrReset + " for shortcuts"
	}
	return append(rows, "", model, footer)
}

// statusLine is the TUI's warning while the limit holds after a stop, right-aligned, its reset
// in the TUI's zone, 24-hour (without it below 100 columns); blank otherwise.
func (s *sim) statusLine(now time.Time) string {
	if s.stops == 0 || !now.Before(s.until) {
		return ""
	}
	text := "⚠ 5h limit: only <1% left · /status"
	if s.width >= 100 && !s.reset.IsZero() {
		text = "⚠ 5h limit: only <1% left · resets at " + s.reset.In(s.tuiZone).Format("15:04") + " · /status"
	}
	return strings.Repeat(" ", max(0, s.width-1-utf8.RuneCountInString(text))) + sgrWarn + text + sgrReset
}

// menuRows is the "Approaching rate limits" menu, the highlighted row in reverse video.
func (s *sim) menuRows() []string {
	rows := []string{"  " + sgrBold + "Approaching rate limits" + sgrReset, "  " + sgrDim + "Switch to gpt-6-luna for lower credit usage?" + sgrReset, "", ""}
	for i, r := range [][2]string{
		{"1. Switch to gpt-6-luna", "Fast and affordable model for easier tasks."},
		{"2. Keep current model", ""},
		{"3. Keep current model (never show again)", "Hide future rate limit reminders about switching models"},
	} {
		desc := wrapLines(r[1], max(s.width-menuLabel, 10))
		if i+1 == s.menu {
			rows = append(rows, "\x1b[1;7m"+pad("› "+r[0], menuLabel)+"\x1b[0;7m"+pad(desc[0], s.width-menuLabel)+sgrReset)
			for _, d := range desc[1:] {
				rows = append(rows, sgrBold+strings.Repeat(" ", menuLabel)+"\x1b[0;7m"+pad(d, s.width-menuLabel)+sgrReset)
			}
			continue
		}
		label := "  " + r[0]
		if desc[0] == "" {
			rows = append(rows, label)
			continue
		}
		rows = append(rows, pad(label, menuLabel)+sgrDim+desc[0]+sgrReset)
		for _, d := range desc[1:] {
			rows = append(rows, strings.Repeat(" ", menuLabel)+sgrDim+d+sgrReset)
		}
	}
	return append(rows, "", "  "+sgrBold+"enter"+sgrReset+sgrDim+" select · "+sgrReset+sgrBold+"esc"+sgrReset+sgrDim+" back"+sgrReset)
}

// took is a turn's length as Codex prints it: "<1s", "4s", "1m 05s".
func took(d time.Duration) string {
	switch secs := int(d.Seconds()); {
	case secs < 1:
		return "<1s"
	case secs < 60:
		return fmt.Sprintf("%ds", secs)
	default:
		return fmt.Sprintf("%dm %02ds", secs/60, secs%60)
	}
}

// pad fills s with spaces to width columns.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s)))
}

// wrapLines breaks each line of text to width columns as Codex does: greedily at spaces and
// after a "/" that ends a path segment (so a URL breaks mid-way: "…/settings/" then
// "usage"), a word longer than the width cut where it must.
func wrapLines(text string, width int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		out = append(out, wrapLine(line, max(width, 1))...)
	}
	return out
}

func wrapLine(line string, width int) []string {
	var out []string
	cur := ""
	for _, tok := range tokens(line) {
		switch next := cur + tok; {
		case utf8.RuneCountInString(strings.TrimRight(next, " ")) <= width:
			cur = next
		case cur != "":
			out, cur = append(out, strings.TrimRight(cur, " ")), tok
		default:
			cur = tok
		}
		for utf8.RuneCountInString(strings.TrimRight(cur, " ")) > width { // a word too long for a row
			r := []rune(cur)
			out, cur = append(out, string(r[:width])), string(r[width:])
		}
	}
	return append(out, strings.TrimRight(cur, " "))
}

// tokens splits a line after each run of spaces and after each "/" not followed by another.
func tokens(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		end := line[i] == ' ' && (i+1 == len(line) || line[i+1] != ' ') ||
			line[i] == '/' && i+1 < len(line) && line[i+1] != '/' && line[i+1] != ' '
		if end {
			out, start = append(out, line[start:i+1]), i+1
		}
	}
	return append(out, line[start:])
}

// draw writes the frame in one write: home, each row erased and rewritten, the rest of the
// screen erased. The size is read afresh for each frame: a frame taller than the pane scrolls
// its top away (seen in the demo's grid on tmux next-3.8, whose panes are split after the
// simulator started and whose SIGWINCH came before the size the frame was made for).
func (s *sim) draw() {
	s.resize()
	rows := s.screen(clock.Real.Now())
	for i, r := range rows {
		if r == "" {
			rows[i] = " " // Codex writes every cell: a blank row is spaces of the default colours
		}
	}
	io.WriteString(s.out, "\x1b[?25l\x1b[H\x1b[2K"+strings.Join(rows, sgrReset+"\r\n\x1b[2K")+sgrReset+"\x1b[J")
}
