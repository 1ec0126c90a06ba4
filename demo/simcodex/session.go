package simcodex

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

// sim is the session on screen; only the main loop touches it.
type sim struct {
	scenario, plan, stopText string
	reset, until, hitAt      time.Time // the printed reset (zero: none), when the limit lifts, when it starts (idle)
	daemonZone, tuiZone      *time.Location
	menuOnStop               bool
	selfPrompt               bool // idle with --limit-at: the session submits "keep going" at hitAt
	turn, exitAfter          time.Duration
	cwd, model               string
	log                      io.Writer
	out                      io.Writer // the terminal
	width, height            int

	history   []cell
	draft     []rune
	menu      int       // the highlighted row of the open menu (1 to 3), 0 when closed
	stops     int       // the stops drawn so far in this session
	busySince time.Time // when the running turn began, zero when none runs
	resumed   bool      // the running turn follows a stop
	afterStop bool      // the last prompt was refused by a stop: the next turn resumes
	burst     burst
	rec       *recorder
	thread    string // the first prompt, the model line's thread name
}

// cellKind is what a history cell shows.
type cellKind int

const (
	cellPrompt cellKind = iota // a submitted prompt on a grey background
	cellReply                  // "• ok" and "Worked for …"
	cellStop                   // the red usage-limit error
	cellNote                   // a line of Codex's own, dim ("■ Conversation interrupted …")
)

// cell is one history cell.
type cell struct {
	kind cellKind
	text string
	at   time.Time     // a reply's end, printed in the TUI's zone
	took time.Duration // a reply's turn
}

// setup draws the scenario's history at the start.
func (s *sim) setup(now time.Time, draft string) {
	s.draft = []rune(draft)
	s.thread = "hello"
	s.history = []cell{{kind: cellPrompt, text: "hello"}}
	s.rec.prompt(now, "hello")
	if s.scenario == "idle" {
		s.history = append(s.history, cell{kind: cellReply, text: "ok", at: now})
		s.rec.reply(now, "ok")
		return
	}
	s.stop(now)
}

// stop draws a stop: the red cell, and the menu at the session's first one.
func (s *sim) stop(now time.Time) {
	s.history = append(s.history, cell{kind: cellStop, text: s.stopText})
	s.rec.limit(now, s.reset, s.stopText, s.plan)
	s.afterStop = true
	if s.stops == 0 && s.menuOnStop {
		s.menu = 1
	}
	s.stops++
}

// limited says whether a prompt submitted at t hits the limit.
func (s *sim) limited(t time.Time) bool { return !t.Before(s.hitAt) && t.Before(s.until) }

func (s *sim) setState(name string) { fmt.Fprintf(s.log, "# state %s\n", name) }

// after is a channel that receives once, d from now on the one clock.
func after(d time.Duration) <-chan time.Time { return clock.Real.NewTimer(d).C() }

// session runs the session on the terminal until its input ends, SIGTERM or SIGHUP, or the
// exit timer.
func (s *sim) session() error {
	tty, err := simterm.Open()
	if err != nil {
		return err
	}
	io.WriteString(s.out, "\x1b[?1049h") // the alternate screen, as Codex
	defer func() {
		io.WriteString(s.out, "\x1b[?25h\x1b[?1049l")
		tty.Close()
		s.rec.close()
	}()
	s.resize()
	var exit, tick, hit <-chan time.Time
	if s.exitAfter > 0 {
		exit = after(s.exitAfter)
	}
	if s.selfPrompt {
		hit = after(s.hitAt.Sub(clock.Real.Now()))
	}
	s.setState(s.scenario)
	s.draw()
	for {
		select {
		case c, ok := <-tty.Input:
			if !ok {
				return nil
			}
			simterm.Logged(s.log, c)
			s.handle(c.At, c.Bytes)
		case sig := <-tty.Signals:
			if sig != syscall.SIGWINCH {
				return nil
			}
			s.resize()
		case now := <-tick:
			tick = nil
			if !s.busySince.IsZero() && now.Sub(s.busySince) >= s.turn {
				s.turnDone(now)
			}
		case now := <-hit:
			hit = nil
			if s.busySince.IsZero() {
				s.prompt(now, "keep going")
			}
		case <-exit:
			s.setState("exit")
			return nil
		}
		if tick == nil && !s.busySince.IsZero() {
			tick = after(min(time.Second, s.turn-clock.Real.Now().Sub(s.busySince)))
		}
		s.draw()
	}
}

// handle reacts to one read of the terminal at at.
func (s *sim) handle(at time.Time, b []byte) {
	if s.menu > 0 {
		s.menuKeys(b)
		return
	}
	if text, ok := bracketed(b); ok { // paste-buffer -p: text, never a burst
		s.draft = append(s.draft, []rune(strings.ReplaceAll(text, "\r", "\n"))...)
		return
	}
	if b[0] == 0x1b {
		if string(b) == "\x1b" && !s.busySince.IsZero() {
			s.busySince, s.resumed = time.Time{}, false
			s.history = append(s.history, cell{kind: cellNote, text: "■ Conversation interrupted - tell the model what to do differently."})
			s.setState("interrupted")
		}
		return // other escapes (arrows, Alt-keys): nothing to do at the composer
	}
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		s.key(at, r)
	}
}

// key applies one character read at at to the composer.
func (s *sim) key(at time.Time, r rune) {
	switch {
	case r == '\r' && s.burst.enterIsNewline(at):
		s.draft = append(s.draft, '\n')
		s.setState("pasted-enter")
	case r == '\r':
		s.submit(at)
	case r == 0x7f || r == 0x08:
		if len(s.draft) > 0 {
			s.draft = s.draft[:len(s.draft)-1]
		}
	case r == 0x15 || r == 0x03: // C-u, C-c
		s.draft = nil
	case r >= 0x20:
		s.burst.char(at)
		s.draft = append(s.draft, r)
	}
}

// The paste-burst thresholds of Codex's TUI (codex-rs/tui/src/bottom_pane/paste_burst.rs, on
// systems other than Windows): burstMinChars characters each within burstCharInterval of the
// last are a paste, and an Enter within enterSuppressWindow of the burst is a newline.
const (
	burstMinChars       = 3
	burstCharInterval   = 8 * time.Millisecond
	enterSuppressWindow = 120 * time.Millisecond
)

// burst is the paste-burst detector: characters arriving within burstCharInterval of each
// other, burstMinChars of them or more, open a window of enterSuppressWindow after the last
// one in which Enter inserts a newline instead of submitting.
type burst struct {
	last  time.Time // the last plain character
	run   int       // characters in a row, each within burstCharInterval of the last
	until time.Time // the end of the window in which Enter is a newline
}

// char counts a plain character read at at.
func (b *burst) char(at time.Time) {
	if !b.last.IsZero() && at.Sub(b.last) < burstCharInterval {
		b.run++
	} else {
		b.run = 1
	}
	b.last = at
	if b.run >= burstMinChars || at.Before(b.until) {
		b.until = at.Add(enterSuppressWindow)
	}
}

// enterIsNewline says whether an Enter read at at is part of a paste, and extends the window
// if so (a pasted text goes on after its newline).
func (b *burst) enterIsNewline(at time.Time) bool {
	if at.Before(b.until) {
		b.until, b.last = at.Add(enterSuppressWindow), at
		return true
	}
	return false
}

// bracketed returns the text of a read that is one bracketed paste (ESC [200~ … ESC [201~).
func bracketed(b []byte) (string, bool) {
	text, ok := strings.CutPrefix(string(b), "\x1b[200~")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(text, "\x1b[201~")
}

// menuKeys: Esc closes the menu; a digit or Enter picks a row, the arrows move the highlight,
// other bytes are lost.
func (s *sim) menuKeys(b []byte) {
	switch k := string(b); {
	case k == "\x1b":
		s.menu = 0
		s.setState("menu-escaped")
	case k == "\x1b[A" || k == "\x1bOA":
		s.menu = max(s.menu-1, 1)
	case k == "\x1b[B" || k == "\x1bOB":
		s.menu = min(s.menu+1, 3)
	case b[0] == 0x1b:
	default:
		for _, c := range b {
			switch {
			case c == '\r':
				s.pick(s.menu)
				return
			case c >= '1' && c <= '3':
				s.pick(int(c - '0'))
				return
			}
		}
	}
}

// pick chooses a row of the menu: each changes the user's settings, none is a key the watcher
// may press.
func (s *sim) pick(row int) {
	s.menu = 0
	switch row {
	case 1:
		s.model = "GPT-6-Luna medium"
		s.setState("model-switched")
		s.setState("harm")
	case 2:
		s.setState("menu-kept")
	case 3:
		s.setState("menu-never-show")
		s.setState("harm")
	}
}

// submit sends the draft at at: refused by a stop while the limit holds, else a turn.
func (s *sim) submit(at time.Time) {
	text := strings.TrimSpace(string(s.draft))
	if text == "" || !s.busySince.IsZero() {
		return
	}
	s.draft = nil
	s.prompt(at, text)
}

// prompt submits text at at: refused by a stop while the limit holds, else a turn.
func (s *sim) prompt(at time.Time, text string) {
	s.history = append(s.history, cell{kind: cellPrompt, text: text})
	s.rec.prompt(at, text)
	switch {
	case s.limited(at) && s.stops == 0:
		s.stop(at)
		s.setState("limited")
	case s.limited(at):
		s.stop(at)
		s.setState("limited-again")
	case s.afterStop:
		s.busySince, s.resumed, s.afterStop = at, true, false
		s.setState("resumed")
	default:
		s.busySince = at
		s.setState("replied")
	}
}

// turnDone ends the running turn at now with its reply.
func (s *sim) turnDone(now time.Time) {
	s.history = append(s.history, cell{kind: cellReply, text: "ok", at: now, took: now.Sub(s.busySince)})
	s.rec.reply(now, "ok")
	s.busySince, s.resumed = time.Time{}, false
	s.setState("turn-done")
}

// resize reads the terminal's size (120x36 when stdout is no terminal).
func (s *sim) resize() {
	s.width, s.height = simterm.Size(s.width, s.height)
}
