package table

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cac-tmux/cac-tmux/printable"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Live draws the live table of `watch` on a terminal: the cursor goes home and every line
// is rewritten and erased to its end, so nothing flickers; it fits the terminal's size.
type Live struct {
	Out io.Writer
	// Size is the terminal's width and height; 80x24 when it says nothing.
	Size     func() (width, height int)
	Server   string        // the server as the header names it
	All      bool          // every tmux server of the user is supervised: the header says so
	Interval time.Duration // the watcher's tick, as the header says
	Events   *Ring         // the recent log lines under the table; nil for none
	Now      func() time.Time
}

// Begin hides the cursor and clears the terminal once, before the first Draw.
func (s *Live) Begin() { fmt.Fprint(s.Out, "\x1b[?25l\x1b[H\x1b[2J") }

// End shows the cursor again, on a line of its own under the table.
func (s *Live) End() { fmt.Fprint(s.Out, "\x1b[?25h\r\n") }

// Draw writes the table of rows, the header above it and the recent events below.
func (s *Live) Draw(rows []watcher.Row) {
	width, height := s.Size()
	if width <= 0 || height <= 0 {
		width, height = 80, 24
	}
	paused := 0
	for _, r := range rows {
		if r.State.Paused() {
			paused++
		}
	}
	server := s.Server
	if s.All {
		server = "every tmux server"
	}
	lines := []string{
		Cut(fmt.Sprintf("cac-tmux watch · %s · %s, %d paused · every %s · Ctrl-C quits", server, printable.Count(len(rows), "pane"), paused, s.Interval), width),
		"",
	}
	body := Format(Cells(rows, s.Now()), width)
	if len(rows) == 0 {
		body = []string{"no " + AnyAgent() + " pane on this server yet"}
	}
	room := max(height-len(lines)-4, 2) // leave room for a few events
	if len(body) > room {
		more := len(body) - room + 1
		body = append(body[:room-1], fmt.Sprintf("… and %d more (cac-tmux list)", more))
	}
	lines = append(lines, body...)
	if ev := s.Events.Last(height - len(lines) - 2); len(ev) > 0 {
		lines = append(lines, "")
		for _, e := range ev {
			lines = append(lines, Cut(e, width))
		}
	}
	var b strings.Builder
	b.WriteString("\x1b[H")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(l)
		b.WriteString("\x1b[K")
	}
	b.WriteString("\x1b[J")
	io.WriteString(s.Out, b.String())
}

// Ring keeps the last Max lines written to it: the recent events under the live table.
type Ring struct {
	Max   int
	mu    sync.Mutex
	lines []string
}

func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		r.lines = append(r.lines, l)
	}
	if over := len(r.lines) - r.Max; over > 0 {
		r.lines = append([]string(nil), r.lines[over:]...)
	}
	return len(p), nil
}

// Last returns the last n lines (none when n <= 0 or r is nil).
func (r *Ring) Last(n int) []string {
	if r == nil || n <= 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines[max(len(r.lines)-n, 0):]...)
}
