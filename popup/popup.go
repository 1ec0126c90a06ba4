// Package popup is the interactive list of Claude Code sessions that `cac-tmux popup` shows
// inside `tmux display-popup -E`: every supervised pane with its target, state, reset (in the
// zone Claude Code printed), a live countdown, the kind of limit and the note. Arrows or j/k
// move, Enter jumps to the pane, r resumes it now, s skips its wait, q or Esc closes.
//
// It is a bubbletea model (github.com/charmbracelet/bubbletea, lipgloss for the styles). What
// it shows and does comes from functions the command gives it, so it can be tested without a
// terminal or a tmux server.
package popup

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Snapshot is what the popup shows: the rows, and who supervises them.
type Snapshot struct {
	Rows []watcher.Row
	// Watcher describes the running watcher ("watcher pid 4242"), "" when none runs.
	Watcher string
}

// Config is what the popup needs from its command.
type Config struct {
	// Load reads the rows again (every Refresh, and after an action).
	Load func(ctx context.Context) (Snapshot, error)
	// Act carries out r (watcher.ResumeNow) or s (watcher.Skip) on a pane.
	Act func(ctx context.Context, pane string, a watcher.Action) (watcher.Outcome, error)
	// Clock drives the countdowns; nil is clock.Real.
	Clock clock.Clock
	// Color turns on colours and reverse video (off with NO_COLOR).
	Color bool
	// Refresh is how often the rows are read again; 0 is 2 s.
	Refresh time.Duration
}

// Model is the popup's state.
type Model struct {
	cfg           Config
	snap          Snapshot
	cursor        int
	width, height int
	status        string // the outcome of the last action, or an error
	busy          bool   // an action runs
	jump          string // the pane Enter chose
	styles        styles
}

// New returns the popup over a first snapshot (the command loads it before the first frame,
// so the popup opens with its rows).
func New(cfg Config, first Snapshot) Model {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = 2 * time.Second
	}
	return Model{cfg: cfg, snap: first, width: 80, height: 24, styles: newStyles(cfg.Color)}
}

// Jump is the pane chosen with Enter, "" when the popup was closed otherwise.
func (m Model) Jump() string { return m.jump }

// The messages of the popup.
type (
	tickMsg   time.Time // redraw the countdowns
	loadedMsg struct {
		snap Snapshot
		err  error
	}
	actedMsg struct {
		pane string
		out  watcher.Outcome
		err  error
	}
)

// Init starts the countdown tick.
func (m Model) Init() tea.Cmd { return m.tick() }

func (m Model) tick() tea.Cmd {
	return func() tea.Msg {
		t := m.cfg.Clock.NewTimer(time.Second)
		return tickMsg(<-t.C())
	}
}

func (m Model) load() tea.Cmd {
	return func() tea.Msg {
		snap, err := m.cfg.Load(context.Background())
		return loadedMsg{snap, err}
	}
}

func (m Model) act(pane string, a watcher.Action) tea.Cmd {
	return func() tea.Msg {
		out, err := m.cfg.Act(context.Background(), pane, a)
		return actedMsg{pane, out, err}
	}
}

// Update handles a key, a resize, a tick or the end of a load or an action.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyMsg:
		return m.key(msg)
	case tickMsg:
		cmds := []tea.Cmd{m.tick()}
		if time.Time(msg).Unix()%int64(max(m.cfg.Refresh/time.Second, 1)) == 0 {
			cmds = append(cmds, m.load())
		}
		return m, tea.Batch(cmds...)
	case loadedMsg:
		if msg.err != nil {
			m.status = msg.err.Error()
			break
		}
		m = m.reload(msg.snap)
	case actedMsg:
		m.busy = false
		switch {
		case msg.err != nil:
			m.status = msg.pane + ": " + msg.err.Error()
		case msg.out.Done:
			m.status = msg.out.Message
		case msg.out.Sent:
			m.status = msg.pane + " sent, not resumed: " + msg.out.Message
		default:
			m.status = msg.pane + " refused: " + msg.out.Message
		}
		return m, m.load()
	}
	return m, nil
}

// reload takes a new snapshot, keeping the cursor on the same pane when it is still there.
func (m Model) reload(snap Snapshot) Model {
	var at string
	if m.cursor < len(m.snap.Rows) {
		at = m.snap.Rows[m.cursor].Pane
	}
	m.snap = snap
	m.cursor = min(m.cursor, max(len(snap.Rows)-1, 0))
	for i, r := range snap.Rows {
		if r.Pane == at {
			m.cursor = i
		}
	}
	return m
}

// key handles one key.
func (m Model) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	n := len(m.snap.Rows)
	switch k.String() {
	case "q", "esc", "ctrl+c":
		return m, tea.Quit
	case "up", "k":
		m.cursor = max(m.cursor-1, 0)
	case "down", "j":
		m.cursor = min(m.cursor+1, max(n-1, 0))
	case "enter":
		if n > 0 {
			m.jump = m.snap.Rows[m.cursor].Pane
			return m, tea.Quit
		}
	case "r", "s":
		if n == 0 || m.busy {
			break
		}
		a, verb := watcher.ResumeNow, "resuming "
		if k.String() == "s" {
			a, verb = watcher.Skip, "skipping "
		}
		pane := m.snap.Rows[m.cursor].Pane
		m.busy, m.status = true, verb+pane+"…"
		return m, m.act(pane, a)
	}
	return m, nil
}

// styles are the popup's looks; all plain without colour.
type styles struct {
	title, selected, dim, warn lipgloss.Style
}

func newStyles(color bool) styles {
	if !color {
		return styles{}
	}
	return styles{
		title:    lipgloss.NewStyle().Bold(true),
		selected: lipgloss.NewStyle().Reverse(true),
		dim:      lipgloss.NewStyle().Faint(true),
		warn:     lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
	}
}

// keysHelp is the last line.
const keysHelp = "↑↓/jk move · enter jump · r resume now · s skip · q quit"

// View draws the popup: a title, the table with the selected row marked, the selected row's
// note in full, the last action's outcome and the keys; cut to the popup's size.
func (m Model) View() string {
	w, now := max(m.width, 20), m.cfg.Clock.Now()
	lines := []string{m.styles.title.Render(table.Cut(m.title(), w))}
	if m.snap.Watcher == "" {
		lines = append(lines, m.styles.warn.Render(table.Cut("no watcher runs: nothing is resumed by itself (cac-tmux watch)", w)))
	}
	lines = append(lines, "")
	foot := m.footer(w)
	room := max(m.height-len(lines)-len(foot), 2)
	lines = append(lines, m.rows(now, w, room)...)
	for len(lines) < m.height-len(foot) {
		lines = append(lines, "")
	}
	return strings.Join(append(lines, foot...), "\n")
}

func (m Model) title() string {
	paused := 0
	for _, r := range m.snap.Rows {
		if r.State.Paused() {
			paused++
		}
	}
	t := fmt.Sprintf("Claude Code sessions · %d pane%s, %d paused", len(m.snap.Rows), plural(len(m.snap.Rows)), paused)
	if m.snap.Watcher != "" {
		t += " · " + m.snap.Watcher
	}
	return t
}

// rows is the table in room lines: the header, then a window of rows around the cursor.
func (m Model) rows(now time.Time, w, room int) []string {
	if len(m.snap.Rows) == 0 {
		return []string{m.styles.dim.Render("no Claude Code pane on this server")}
	}
	cells := table.Cells(m.snap.Rows, now)
	for i := range cells {
		cells[i] = cells[i][1:] // the target names the pane well enough; the id is in the note line
	}
	body := table.Format(cells, w-2)
	first := min(max(m.cursor-(room-2), 0), max(len(m.snap.Rows)-(room-1), 0))
	out := []string{"  " + body[0]}
	for i := first; i < len(m.snap.Rows) && len(out) < room; i++ {
		line := "  " + body[i+1]
		if i == m.cursor {
			line = m.styles.selected.Render("› " + body[i+1])
		}
		out = append(out, line)
	}
	return out
}

// footer is the selected row's pane and note in full, the last outcome, and the keys.
func (m Model) footer(w int) []string {
	var f []string
	if m.cursor < len(m.snap.Rows) {
		r := m.snap.Rows[m.cursor]
		note := r.Pane + " " + r.Target
		if r.Note != "" {
			note += ": " + r.Note
		}
		f = append(f, m.styles.dim.Render(table.Cut(note, w)))
	}
	return append(f, table.Cut(m.status, w), m.styles.dim.Render(table.Cut(keysHelp, w)))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
