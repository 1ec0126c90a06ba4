// Package demo is `cac-tmux demo`: the whole cycle on a private tmux server, with no Claude
// account and without touching the user's tmux, state file or lock. Its own server (a socket
// and a generated configuration in a temporary directory) runs four simulated Claude Code
// sessions (package simclaude) stopped at a limit that resets at the next whole minute at least
// 45 s away: (a) a plain stop, (b) the options menu with its Stop row last, (c) auto-continue
// armed, which fires by itself, (d) a draft in the input box; and the real watcher in a pane
// (--margin 5s --interval 1s, its state and lock in the temporary directory).
//
// The simulator runs as the hidden command SimCommand through a link named "claude" to the
// cac-tmux binary (a copy where a link cannot be made), the executable the watcher identifies
// Claude Code by; nothing but the demo's panes runs it. On a terminal the demo attaches to its
// server, else it prints the timeline. A judge follows the published pane state and the
// simulators' logs: the cycle is complete when (a) and (b) got exactly the expected keys, (c)
// continued without a key and (d) got none. Detaching, the end or an interrupt kills the
// server and removes the temporary directory. With Options.Codex (cac-tmux demo sets it) a
// simulated Codex CLI (package simcodex, through a link named "codex") stops at the same reset
// with its rate-limit menu open; the judge wants the menu closed by Esc alone, then the
// message and Enter.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/demo/simclaude"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// SimCommand is the hidden command of cac-tmux that runs the simulated Claude Code.
const SimCommand = "__simclaude"

// SimCodexCommand is the hidden command of cac-tmux that runs the simulated Codex CLI.
const SimCodexCommand = "__simcodex"

// Minimum terminal size of the attached view: each simulated session needs 56 columns for the
// auto-continue's footer and 12 rows for the options menu under the wrapped stop; the watcher's
// table 11 rows; three pane borders and the status line.
const (
	MinWidth  = 2*56 + 1
	MinHeight = 2*12 + 11 + 3 + 1
	// codexWidth is the simulated Codex's column (Options.Codex): its rate-limit menu's label
	// column is 44 wide, its descriptions need the rest.
	codexWidth = 64
)

// Options are the settings of one demo.
type Options struct {
	// Exe is the cac-tmux binary: it runs the watcher, and the simulator through a link.
	Exe string
	// Out receives the timeline (as it happens when headless, at the end when attached); Err
	// notices.
	Out, Err io.Writer
	// Term, when set, is the user's terminal: the demo attaches it to its server.
	Term *Terminal
	// Codex adds a simulated Codex CLI (package simcodex) in a column of its own: stopped at
	// the same reset with its "Approaching rate limits" menu open, which the watcher must
	// close with Esc alone before resuming.
	Codex bool
	// tmux is the tmux binary, "tmux" when empty.
	tmux string
	// hold is how long the attached view stays after the cycle ended (default 20s).
	hold time.Duration
	// clock is the one clock; nil is clock.Real.
	clock clock.Clock
}

// minWidth is the least width of the attached view: MinWidth, and the Codex column with Codex.
func (o Options) minWidth() int {
	if o.Codex {
		return MinWidth + 1 + codexWidth
	}
	return MinWidth
}

// Terminal is the user's terminal and its size.
type Terminal struct {
	In, Out, Err  *os.File
	Width, Height int
}

// Run runs the demo until the cycle is complete, something went wrong, the user detaches or
// ctx ends, and cleans up after it. The error says what went wrong.
func Run(ctx context.Context, o Options) error {
	if o.clock == nil {
		o.clock = clock.Real
	}
	if o.hold <= 0 {
		o.hold = 20 * time.Second
	}
	if t := o.Term; t != nil && o.Codex && t.Width < o.minWidth() && t.Width >= MinWidth && t.Height >= MinHeight {
		fmt.Fprintf(o.Err, "cac-tmux demo: the Codex session's column needs a terminal %d wide (this one is %d): the view runs without it (--headless shows it)\n",
			o.minWidth(), t.Width)
		o.Codex = false
	}
	if t := o.Term; t != nil && (t.Width < o.minWidth() || t.Height < MinHeight) {
		fmt.Fprintf(o.Err, "cac-tmux demo: the view needs a terminal of at least %dx%d (this one is %dx%d); showing the timeline instead\n",
			MinWidth, MinHeight, t.Width, t.Height)
		o.Term = nil
	}
	w, err := setUp(ctx, o)
	if w != nil {
		defer w.tearDown()
	}
	if err != nil {
		return err
	}
	if o.Term == nil {
		return w.headless(ctx)
	}
	return w.attached(ctx)
}

// world is the demo's private server and what runs on it.
type world struct {
	o      Options
	dir    string // the temporary directory: socket, link, logs, state, lock
	tmux   *tmuxctl.Client
	plan   plan
	all    []session // the simulated sessions: the Claude Code ones, then Codex's with Options.Codex
	judge  *judge
	panes  map[string]string // session key by pane id; the watcher's is ""
	logs   map[string]*tail  // the simulators' logs by session key
	titles map[string]string // pane id by session key
	shown  string            // the status line's text
}

// headless prints the timeline as it happens, until the cycle is complete or went wrong.
func (w *world) headless(ctx context.Context) error {
	err := w.observe(ctx, func(e event) { fmt.Fprintln(w.o.Out, e.Format(w.plan.start, label)) }, nil)
	if err != nil {
		return err
	}
	if err := w.judge.Err(); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// observe feeds the judge every 250 ms and hands each new event to told (then calls each,
// when set), until the cycle is complete or went wrong (nil), or ctx ends (its error).
func (w *world) observe(ctx context.Context, told func(event), each func()) error {
	for _, e := range append([]event(nil), w.judge.Events()...) {
		told(e)
	}
	for {
		for _, e := range w.step(ctx) {
			told(e)
		}
		if each != nil {
			each()
		}
		if w.judge.Err() != nil || w.judge.Complete() {
			return nil
		}
		if err := w.o.clock.Sleep(ctx, 250*time.Millisecond); err != nil {
			return fmt.Errorf("demo: interrupted: %w", err)
		}
	}
}

// step reads what the watcher published and what the simulators logged, and asks the judge.
func (w *world) step(ctx context.Context) []event {
	panes, err := w.tmux.ListPanes(ctx, tmuxctl.Search{})
	if err != nil && ctx.Err() == nil {
		w.judge.Gone("", "the private tmux server does not answer: "+err.Error())
	}
	seen := map[string]bool{}
	for _, p := range panes {
		key, ok := w.panes[p.ID]
		if !ok {
			continue
		}
		seen[p.ID] = true
		switch {
		case p.Dead && key == "":
			w.judge.Gone("", "its pane shows: "+w.lastLines(ctx, p.ID))
		case p.Dead:
			w.judge.Gone(key, "the process in its pane exited")
		case key != "":
			due, _ := time.Parse(time.RFC3339, p.Options.Due)
			w.judge.Watched(key, p.Options.State, p.Options.Note, due)
		}
	}
	for id, key := range w.panes {
		if !seen[id] && err == nil {
			w.judge.Gone(key, "its pane was closed")
		}
	}
	for key, t := range w.logs {
		for _, e := range t.read() {
			w.judge.Logged(key, e)
		}
	}
	return w.judge.Step(w.o.clock.Now())
}

// lastLines is the end of what a pane shows, on one line.
func (w *world) lastLines(ctx context.Context, pane string) string {
	out, err := w.tmux.Capture(ctx, pane)
	if err != nil {
		return "(cannot read it: " + err.Error() + ")"
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(len(lines)-4, 0):], " / ")
}

// tail reads the lines a simulator appends to its log.
type tail struct {
	path    string
	offset  int64
	partial string
}

// read returns the entries logged since the last read (none while the log does not exist).
func (t *tail) read() []simclaude.Entry {
	f, err := os.Open(t.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, t.offset, 1<<30))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	t.offset += int64(len(b))
	text := t.partial + string(b)
	lines := strings.Split(text, "\n")
	t.partial = lines[len(lines)-1]
	var out []simclaude.Entry
	for _, l := range lines[:len(lines)-1] {
		if e, ok := simclaude.ParseLine(l); ok {
			out = append(out, e)
		}
	}
	return out
}

// logPath is the simulator log of a session.
func (w *world) logPath(key string) string { return filepath.Join(w.dir, "sim-"+key+".log") }
