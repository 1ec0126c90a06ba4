//go:build linux

// Command fakeclaude is a stand-in for Claude Code that the watcher's integration tests run in
// a tmux pane (SPEC §9). It draws 2.1.x-style screens like the captures in
// ../shared/fixtures/claude-screens, reads its terminal in raw mode and changes screen on input
// the way Claude Code does at a usage limit.
//
// Protocol. With --log FILE it appends one line per read(2) of its terminal:
//
//	2026-11-20T22:00:01.123456789+01:00<TAB>"continue"
//
// (an RFC3339Nano timestamp, a tab, the bytes quoted with strconv.Quote), and a line
// "# state NAME" whenever its state changes, the first one naming the scenario. With
// --pidfile FILE it writes its pid there. It redraws the whole screen on every input, state
// change and SIGWINCH (home, each row erased and rewritten, rest of the screen erased).
//
// Scenarios (--scenario) and the states they log:
//
//	plain    "❯ hello", then the gutter stop "You've hit your session limit · resets <T> (<ZONE>)"
//	         and an empty prompt. Printable bytes edit a draft in the input box (Backspace
//	         deletes, C-u and C-c clear it). Enter on a non-empty draft submits it: before
//	         --limit-until (or for the first --again N prompts) it echoes the prompt and a new
//	         stop that prints --next-reset (limited-again); after it,
//	         "● Resuming the task…" and a working spinner (resumed). A bare Enter does nothing.
//	         A "\r" that arrives in the same read after text is a pasted newline, not a
//	         submit, as in Claude Code (pasted-enter).
//	draft    plain with the box holding --draft.
//	menu     plain with the options menu open, rows from --rows. The Stop row's digit
//	         (menu-stopped) or Esc (menu-escaped) closes it; any other digit, or Enter on a row
//	         that is not Stop, starts an "UPGRADE FLOW STARTED" screen (harm); other bytes are lost.
//	armed    Claude Code's own auto-continue is armed: any read cancels it (native-cancelled;
//	         then it behaves like plain), else it fires at --fire-at: "● Usage limit reset ·
//	         Continuing automatically" and a working spinner (native-fired).
//	stopped  auto-continue already gave up ("Automatic continue stopped after repeated
//	         usage-limit hits"); behaves like plain.
//	pressenter  Claude Code asks for a bare Enter ("Your usage limit has reset · press enter to
//	         continue", after the machine slept), with --draft in the box: Enter on an empty
//	         box resumes (resumed); Enter on a draft submits it (draft-submitted: harm).
//	idle     a finished turn and an empty prompt, no stop; Enter on text echoes it and replies
//	         (replied). At --limit-at a prompt hits the limit: the plain stop (limit-hit).
//
// --vim normal|insert draws Claude Code's vim mode (2.1.330): "-- INSERT --" in the footer in
// INSERT mode, no label in NORMAL mode, where a read of i alone enters INSERT mode
// (vim-insert) and any other read is vim commands that change nothing; Esc goes back to
// NORMAL mode (vim-normal). --vim stuck is vim
// mode that eats every key.
//
// A menu row is a Stop row only when its label is exactly "Stop and wait for limit to
// reset" or "Stop"; any other row chosen is harm.
//
// --draw-delay DURATION draws what an input changed that much later, as a busy Claude Code
// does.
//
// --add "row\nrow" adds rows after the scenario's own (a quoted message, tool output).
// --exit-after DURATION exits (state exit) leaving the last screen in the pane. --spinner
// makes idle sessions run a turn and animates the working spinner every 100 ms.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	_ "time/tzdata" // --zone loads any IANA name
	"unicode/utf8"
	"unsafe"
)

// fake is the session on screen; only the main loop touches it.
type fake struct {
	scenario, resetAt, stopRow string
	nextRow                    string // the stop row after a prompt hits the limit again
	again                      int    // prompts that still hit the limit; -1: until limitUntil
	limitUntil, fireAt, hitAt  time.Time
	exitAfter                  time.Duration
	spinner                    bool
	log                        io.Writer
	width, height, frame       int
	transcript                 []string
	draft                      []byte
	menu                       []string // the open options menu's rows, nil when closed
	armed                      bool     // native auto-continue armed: the footer shows it
	limited                    bool     // a prompt submitted before limitUntil hits the limit
	busy                       bool     // a turn runs: a spinner row ends the transcript
	harm                       bool     // a paid option was chosen
	vim                        string   // "" (off), "normal", "insert" or "stuck"
	drawDelay                  time.Duration
}

const (
	nbsp   = "\u00a0"
	hint   = "     /upgrade or /usage-credits to finish what you’re working on."
	frames = "·✢✳✶✻✽"
)

var header = []string{
	" ▐▛███▜▌   Claude Code v2.1.329 (fakeclaude)",
	"▝▜█████▛▘  Opus 5.5 · Claude Pro",
	"  ▘▘ ▝▝    ~/src/fake",
}

func main() {
	f := &fake{log: io.Discard, width: 120, height: 40}
	logPath := flag.String("log", "", "append every read and state change to this file")
	pidPath := flag.String("pidfile", "", "write the pid to this file")
	reset := flag.String("reset", "", "the reset instant, RFC3339 (default: in one hour)")
	until := flag.String("limit-until", "", "prompts submitted before this RFC3339 instant hit the limit again (default: --reset)")
	fire := flag.String("fire-at", "", "armed: the RFC3339 instant auto-continue fires")
	hit := flag.String("limit-at", "", "idle: at this RFC3339 instant a prompt hits the limit (limit-hit)")
	zone := flag.String("zone", "", "print the reset in this IANA zone (default: the zone of --reset's offset)")
	rows := flag.String("rows", "Stop and wait for limit to reset,Switch to usage credits,Upgrade your plan", "menu: the row labels, comma separated")
	stop := flag.String("stop", "You've hit your session limit", "the stop message before \" · resets …\"")
	draft := flag.String("draft", "", "draft: the text in the input box")
	next := flag.String("next-reset", "", "the reset a prompt that hits the limit again prints, RFC3339 (default: --reset)")
	add := flag.String("add", "", `rows to add to the transcript before the scenario's own, separated by "\n"`)
	flag.IntVar(&f.again, "again", -1, "the first N prompts hit the limit again, whatever the time (-1: use --limit-until)")
	flag.StringVar(&f.scenario, "scenario", "plain", "plain, draft, menu, armed, stopped, pressenter or idle")
	flag.StringVar(&f.vim, "vim", "", "vim mode: normal, insert or stuck (default off)")
	flag.DurationVar(&f.exitAfter, "exit-after", 0, "exit after this long (0: never)")
	flag.DurationVar(&f.drawDelay, "draw-delay", 0, "draw the screen this long after an input changed it (0: at once)")
	flag.BoolVar(&f.spinner, "spinner", false, "animate the working spinner every 100ms; idle runs a turn")
	flag.Parse()
	resetAt := instant(*reset, time.Now().Add(time.Hour).Truncate(time.Minute))
	f.limitUntil, f.fireAt, f.hitAt = instant(*until, resetAt), instant(*fire, time.Time{}), instant(*hit, time.Time{})
	at, name, err := zoned(resetAt, *zone)
	check(err)
	f.resetAt = clock(at)
	f.stopRow = "  ⎿ " + nbsp + *stop + " · resets " + resetText(at, time.Now()) + " (" + name + ")"
	f.nextRow = f.stopRow
	if *next != "" {
		at, name, err := zoned(instant(*next, resetAt), *zone)
		check(err)
		f.nextRow = "  ⎿ " + nbsp + *stop + " · resets " + resetText(at, time.Now()) + " (" + name + ")"
	}
	if *logPath != "" {
		lf, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		check(err)
		f.log = lf
	}
	if *pidPath != "" {
		check(os.WriteFile(*pidPath, []byte(fmt.Sprintln(os.Getpid())), 0o644))
	}
	check(f.setup(strings.Split(*rows, ","), *draft))
	if *add != "" {
		f.add(strings.Split(*add, `\n`)...)
	}
	restore := makeRaw(0)
	f.resize()
	f.run(restore)
}

func instant(s string, def time.Time) time.Time {
	if s == "" {
		return def
	}
	t, err := time.Parse(time.RFC3339, s)
	check(err)
	return t
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeclaude:", err)
		os.Exit(2)
	}
}

// zoned returns t in the zone it is printed in and that zone's name: --zone, else the zone
// of t's offset as an IANA name ("UTC", "Etc/GMT-2" for +02:00), else UTC.
func zoned(t time.Time, name string) (time.Time, string, error) {
	if name != "" {
		loc, err := time.LoadLocation(name)
		return t.In(loc), name, err
	}
	switch _, off := t.Zone(); {
	case off == 0:
		return t.UTC(), "UTC", nil
	case off%3600 == 0:
		name = fmt.Sprintf("Etc/GMT%+d", -off/3600) // the sign of Etc/GMT zones is inverted
		return t.In(time.FixedZone(name, off)), name, nil
	}
	return t.UTC(), "UTC", nil
}

// clock prints a wall-clock time like Claude Code: "4pm", "4:30pm", "12am".
func clock(t time.Time) string {
	return strings.Replace(strings.ToLower(t.Format("3:04PM")), ":00", "", 1)
}

// resetText is the reset as printed: the clock, after a date when the reset is over 24 h away
// ("Nov 23, 11pm", "Jan 2, 2027, 5pm").
func resetText(at, now time.Time) string {
	switch {
	case at.Sub(now) <= 24*time.Hour:
		return clock(at)
	case at.Year() != now.In(at.Location()).Year():
		return at.Format("Jan 2, 2006, ") + clock(at)
	}
	return at.Format("Jan 2, ") + clock(at)
}

func (f *fake) setup(rows []string, draft string) error {
	f.transcript, f.limited = append([]string{}, header...), f.scenario != "idle"
	stop := []string{"❯ hello", f.stopRow}
	armed := "● Usage limit reached · continuing automatically at " + f.resetAt + " · esc to cancel"
	switch f.scenario {
	case "plain":
	case "draft":
		f.draft = []byte(draft)
	case "menu":
		f.menu = rows
	case "armed":
		stop, f.armed = append(stop, armed), true
	case "stopped":
		stop = append(stop, armed, "● Automatic continue stopped after repeated usage-limit hits · send a message to continue")
	case "pressenter":
		f.draft = []byte(draft)
		stop = append(stop, armed, "", "● Your usage limit has reset · press enter to continue")
	case "idle":
		f.add("❯ hello")
		f.add("● Hello! What should we work on?")
		stop, f.busy = []string{"✻ Worked for 3s"}, f.spinner
	default:
		return fmt.Errorf("unknown scenario %q", f.scenario)
	}
	f.add(stop...)
	return nil
}

// add appends a block of rows to the transcript after a blank row.
func (f *fake) add(rows ...string) { f.transcript = append(append(f.transcript, ""), rows...) }

func (f *fake) setState(name string) { fmt.Fprintf(f.log, "# state %s\n", name) }

func (f *fake) run(restore func()) {
	type chunk struct {
		at time.Time
		b  []byte
	}
	input := make(chan chunk)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				input <- chunk{time.Now(), append([]byte(nil), buf[:n]...)}
			}
			if err != nil {
				close(input)
				return
			}
		}
	}()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP)
	var tick, fire, hit, exit, redraw <-chan time.Time
	if !f.hitAt.IsZero() {
		hit = time.After(time.Until(f.hitAt))
	}
	if f.spinner {
		tick = time.NewTicker(100 * time.Millisecond).C
	}
	if f.armed && !f.fireAt.IsZero() {
		fire = time.After(time.Until(f.fireAt))
	}
	if f.exitAfter > 0 {
		exit = time.After(f.exitAfter)
	}
	quit := func() {
		os.Stdout.WriteString("\x1b[?25h\r\n") // the shell's prompt goes below the last screen
		restore()
		os.Exit(0)
	}
	f.draw()
	f.setState(f.scenario)
	for {
		select {
		case c, ok := <-input:
			if !ok {
				quit()
			}
			fmt.Fprintf(f.log, "%s\t%s\n", c.at.Format(time.RFC3339Nano), strconv.Quote(string(c.b)))
			f.handle(c.b)
			if f.drawDelay > 0 { // draw what the input changed a moment later
				redraw = time.After(f.drawDelay)
				continue
			}
		case <-redraw:
		case s := <-sigs:
			if s != syscall.SIGWINCH {
				quit()
			}
			f.resize()
		case <-tick:
			f.frame++
		case <-fire:
			if f.armed {
				f.armed, f.limited, f.busy = false, false, true
				f.add("● Usage limit reset · Continuing automatically")
				f.setState("native-fired")
			}
		case <-hit:
			f.busy, f.limited = false, true
			f.add("❯ keep going", f.stopRow, hint)
			f.setState("limit-hit")
		case <-exit:
			f.setState("exit")
			quit()
		}
		f.draw()
	}
}

// handle reacts to one read of the terminal.
func (f *fake) handle(b []byte) {
	switch {
	case f.harm:
		return
	case f.armed: // "esc or type to cancel": the read is consumed
		f.armed = false
		f.add("● Automatic continue cancelled · send a message to continue after the reset")
		f.setState("native-cancelled")
		return
	case f.menu != nil:
		f.menuKeys(b)
		return
	case f.vim == "insert" && string(b) == "\x1b":
		f.vim = "normal"
		f.setState("vim-normal")
		return
	case b[0] == 0x1b:
		return // Esc, arrows, Alt-keys: nothing to do at the prompt
	case f.vim == "stuck":
		return
	case f.vim == "normal":
		// A read of i alone enters INSERT mode; any other read is taken as vim commands
		// that change nothing here ("continue": c, o, n, t waiting for its target i, …).
		if string(b) == "i" {
			f.vim = "insert"
			f.setState("vim-insert")
		}
		return
	}
	text := false
	for _, c := range b {
		switch {
		case c == '\r' && text: // text and Enter in one read is a paste: Enter is a newline
			f.draft = append(f.draft, '\n')
			f.setState("pasted-enter")
		case c == '\r':
			f.submit()
		case c == 0x7f || c == 0x08:
			_, n := utf8.DecodeLastRune(f.draft)
			f.draft = f.draft[:len(f.draft)-n]
		case c == 0x15 || c == 0x03: // C-u, C-c
			f.draft = nil
		case c >= 0x20:
			f.draft, text = append(f.draft, c), true
		}
	}
}

// menuKeys: the Stop row's digit or Esc closes the menu, Enter picks the focused (first) row,
// any other row is harm, other bytes are lost.
func (f *fake) menuKeys(b []byte) {
	if string(b) == "\x1b" {
		f.menu = nil
		f.setState("menu-escaped")
		return
	}
	for _, c := range b {
		if c != '\r' && (c < '1' || int(c-'0') > len(f.menu)) || b[0] == 0x1b {
			continue // lost, as in Claude Code; escape sequences too
		}
		row := 0
		if c != '\r' {
			row = int(c - '1')
		}
		if label := f.menu[row]; label == "Stop" || label == "Stop and wait for limit to reset" {
			f.menu = nil
			f.setState("menu-stopped")
		} else {
			f.harm = true
			f.setState("harm")
		}
		return
	}
}

func (f *fake) submit() {
	text := strings.TrimSpace(string(f.draft))
	switch {
	case f.scenario == "pressenter" && f.limited && text != "":
		f.draft, f.harm = nil, true
		f.setState("draft-submitted")
		return
	case f.scenario == "pressenter" && f.limited:
		f.limited, f.busy = false, true
		f.add("● Resuming the task…")
		f.setState("resumed")
		return
	case text == "":
		return
	}
	f.draft = nil
	echo := "❯ " + strings.ReplaceAll(text, "\n", "\n  ")
	switch {
	case f.limited && (f.again > 0 || f.again < 0 && time.Now().Before(f.limitUntil)):
		f.again--
		f.add(echo, f.nextRow, hint)
		f.setState("limited-again")
	case f.limited:
		f.limited, f.busy = false, true
		f.add(echo)
		f.add("● Resuming the task…")
		f.setState("resumed")
	default:
		f.add(echo)
		f.add("● Got it: " + strings.ReplaceAll(text, "\n", " "))
		f.setState("replied")
	}
}

// screen returns the rows of the current frame.
func (f *fake) screen() []string {
	if f.harm {
		return []string{"UPGRADE FLOW STARTED", "", "  Opening claude.ai/upgrade in your browser…"}
	}
	var rows []string
	for _, r := range f.transcript {
		for _, l := range strings.Split(r, "\n") {
			rows = append(rows, wrap(l, f.width)...)
		}
	}
	if f.busy {
		glyph := "✻"
		if f.spinner {
			glyph = string([]rune(frames)[f.frame%utf8.RuneCountInString(frames)])
		}
		rows = append(rows, "", glyph+" Working… (esc to interrupt)")
	}
	rule := strings.Repeat("─", f.width)
	rows = append(rows, "", rule)
	if f.menu != nil {
		rows = append(rows, "  What do you want to do?", "")
		for i, label := range f.menu {
			focus := "  "
			if i == 0 {
				focus = "❯ "
			}
			rows = append(rows, fmt.Sprintf("  %s%d. %s", focus, i+1, label))
		}
		return append(rows, "", "  Enter to confirm · Esc to cancel")
	}
	prompt := "❯" + nbsp
	for _, l := range strings.Split(string(f.draft), "\n") {
		rows, prompt = append(rows, prompt+l), "  "
	}
	rows = append(rows, rule)
	if f.armed {
		return append(rows, "  ⚠ Usage limit reached · limit resets "+f.resetAt,
			"    Continuing automatically at "+f.resetAt+" · Esc to cancel")
	}
	if f.vim == "insert" {
		return append(rows, "  -- INSERT -- ⏵⏵ auto mode on (shift+tab to cycle)")
	}
	return append(rows, "  ? for shortcuts")
}

// wrap breaks a row at spaces to fit width, continuing gutter rows indented five spaces and
// other rows two.
func wrap(r string, width int) (out []string) {
	indent := "  "
	if strings.HasPrefix(r, "  ⎿") {
		indent = "     "
	}
	for runes := []rune(r); len(runes) > width && width > 10; runes = []rune(r) {
		cut := width
		for cut > len(indent)+1 && runes[cut] != ' ' {
			cut--
		}
		if cut <= len(indent)+1 {
			cut = width // no space to break at
		}
		out = append(out, string(runes[:cut]))
		r = indent + strings.TrimLeft(string(runes[cut:]), " ")
	}
	return append(out, r)
}

// draw writes the frame in one write: home, each row erased and rewritten, the rest of the
// screen erased. The top rows are dropped when the frame is taller than the pane.
func (f *fake) draw() {
	rows := f.screen()
	rows = rows[max(0, len(rows)-f.height):]
	os.Stdout.WriteString("\x1b[?25l\x1b[H\x1b[2K" + strings.Join(rows, "\r\n\x1b[2K") + "\x1b[J")
}

func ioctl(fd int, req uintptr, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

// resize reads the terminal's size (120x40 when stdout is no terminal).
func (f *fake) resize() {
	var ws struct{ row, col, x, y uint16 }
	if ioctl(1, syscall.TIOCGWINSZ, unsafe.Pointer(&ws)) == nil && ws.col > 0 && ws.row > 0 {
		f.width, f.height = int(ws.col), int(ws.row)
	}
}

// makeRaw puts the terminal on fd in raw mode like cfmakeraw(3): no echo, no line editing, no
// signals from keys, no output processing, a byte at a time. It returns the function that
// restores the old mode (a no-op when fd is no terminal).
func makeRaw(fd int) func() {
	var old syscall.Termios
	if ioctl(fd, syscall.TCGETS, unsafe.Pointer(&old)) != nil {
		return func() {}
	}
	t := old
	t.Iflag &^= syscall.IGNBRK | syscall.BRKINT | syscall.PARMRK | syscall.ISTRIP | syscall.INLCR |
		syscall.IGNCR | syscall.ICRNL | syscall.IXON
	t.Oflag &^= syscall.OPOST
	t.Lflag &^= syscall.ECHO | syscall.ECHONL | syscall.ICANON | syscall.ISIG | syscall.IEXTEN
	t.Cflag = t.Cflag&^(syscall.CSIZE|syscall.PARENB) | syscall.CS8
	t.Cc[syscall.VMIN], t.Cc[syscall.VTIME] = 1, 0
	check(ioctl(fd, syscall.TCSETS, unsafe.Pointer(&t)))
	return func() { ioctl(fd, syscall.TCSETS, unsafe.Pointer(&old)) }
}
