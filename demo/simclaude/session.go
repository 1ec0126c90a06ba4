package simclaude

import (
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/demo/simterm"
)

// timers are the session's own events: the spinner, the native auto-continue firing, the
// limit hit by an idle session, the exit; a nil channel never fires.
type timers struct {
	tick, fire, hit, exit, turn <-chan time.Time
}

// after is a channel that receives once, d from now on the one clock.
func after(d time.Duration) <-chan time.Time { return clock.Real.NewTimer(d).C() }

func (f *fake) timers() timers {
	var t timers
	now := clock.Real.Now()
	if !f.hitAt.IsZero() {
		t.hit = after(f.hitAt.Sub(now))
	}
	if f.spinner {
		t.tick = after(100 * time.Millisecond)
	}
	if f.armed && !f.fireAt.IsZero() {
		t.fire = after(f.fireAt.Sub(now))
	}
	if f.exitAfter > 0 {
		t.exit = after(f.exitAfter)
	}
	return t
}

// session runs the session on the terminal until its input ends, SIGTERM or SIGHUP, or the
// exit timer.
func (f *fake) session() error {
	tty, err := simterm.Open()
	if err != nil {
		return err
	}
	defer func() {
		io.WriteString(f.out, "\x1b[?25h\r\n") // the shell's prompt goes below the last screen
		tty.Close()
		f.rec.close()
	}()
	f.resize()
	t := f.timers()
	var redraw <-chan time.Time
	f.setState(f.scenario)
	if f.first != "" { // the prompt argument, as if typed and entered
		f.draft = []byte(f.first)
		f.submit()
		t.turnBegan(f)
	}
	f.draw()
	for {
		select {
		case c, ok := <-tty.Input:
			if !ok {
				return nil
			}
			simterm.Logged(f.log, c)
			f.handle(c.Bytes)
			t.turnBegan(f)
			if f.drawDelay > 0 { // draw what the input changed a moment later
				redraw = after(f.drawDelay)
				continue
			}
		case <-redraw:
		case s := <-tty.Signals:
			if s != syscall.SIGWINCH {
				return nil
			}
			f.resize()
		case <-t.tick:
			f.frame++
			t.tick = after(100 * time.Millisecond)
		case <-t.fire:
			f.fired()
		case <-t.hit:
			f.limitHit()
		case <-t.turn:
			t.turn = nil
			f.turnDone()
		case <-t.exit:
			f.setState("exit")
			return nil
		}
		f.draw()
	}
}

// turnBegan arms the end of a turn that has just begun (--turn): it ends that long after.
func (t *timers) turnBegan(f *fake) {
	if f.busy && f.turn > 0 && t.turn == nil {
		t.turn = after(f.turn)
	}
}

// limitHit is an idle session hitting its limit at --limit-at.
func (f *fake) limitHit() {
	f.busy, f.limited = false, true
	f.add("❯ keep going", f.stopRow, hint)
	f.rec.prompt("keep going")
	f.rec.limit(f.reset)
	f.setState("limit-hit")
}

// turnDone ends the running turn (--turn): a reply, and idle again.
func (f *fake) turnDone() {
	f.busy = false
	f.add("● Done.", "", "✻ Worked for "+f.turn.String())
	f.rec.reply("Done.")
	f.setState("turn-done")
}

// fired is Claude Code's own auto-continue firing, unless something cancelled it.
func (f *fake) fired() {
	if f.armed {
		f.armed, f.limited, f.busy = false, false, true
		f.add("● Usage limit reset · Continuing automatically")
		f.rec.prompt("Your claude.ai usage limit has reset. Continue where you left off.")
		f.rec.reply("Resuming the task…")
		f.setState("native-fired")
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
	f.edit(b)
}

// edit applies the bytes of one read to the input box.
func (f *fake) edit(b []byte) {
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
	f.rec.prompt(text)
	switch {
	case f.limited && (f.again > 0 || f.again < 0 && clock.Real.Now().Before(f.limitUntil)):
		f.again--
		f.add(echo, f.nextRow, hint)
		f.rec.limit(f.next)
		f.setState("limited-again")
	case f.limited:
		f.limited, f.busy = false, true
		f.add(echo)
		f.add("● Resuming the task…")
		f.rec.reply("Resuming the task…")
		f.setState("resumed")
	default:
		f.add(echo)
		f.add("● Got it: " + strings.ReplaceAll(text, "\n", " "))
		f.rec.reply("Got it")
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
	io.WriteString(f.out, "\x1b[?25l\x1b[H\x1b[2K"+strings.Join(rows, "\r\n\x1b[2K")+"\x1b[J")
}

// resize reads the terminal's size (120x40 when stdout is no terminal).
func (f *fake) resize() {
	f.width, f.height = simterm.Size(f.width, f.height)
}
