package detector

import (
	"fmt"
	"regexp"
	"slices"
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
