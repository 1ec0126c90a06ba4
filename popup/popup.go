// Package popup is the interactive list of Claude Code sessions that `cac-tmux popup` shows in
// `tmux display-popup -E`: each supervised pane's target, state, reset in the user's zone,
// countdown, kind and note, and the selected pane's last screen lines. Arrows or j/k move,
// Enter jumps, r resumes (asking first before the reset), s skips, u unskips, / filters (each
// word in pane id, target, state, kind or note, any case; Esc clears), p toggles the preview,
// q or Esc closes. A bubbletea model: what it shows and does comes from functions the command
// gives it, so it is tested without a terminal or a tmux server.
package popup

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/printable"
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
	// Load reads the rows again (every refresh, and after an action).
	Load func(ctx context.Context) (Snapshot, error)
	// Act carries out r (watcher.ResumeNow), s (watcher.Skip) or u (watcher.Unskip) on a pane.
	Act func(ctx context.Context, pane string, a watcher.Action) (watcher.Outcome, error)
	// Capture returns a pane's visible screen (tmuxctl.Client.Capture) for the preview; nil
	// shows none.
	Capture func(ctx context.Context, pane string) (string, error)
	// clock drives the countdowns; nil is clock.Real.
	clock clock.Clock
	// Color turns on colours and reverse video (off with NO_COLOR).
	Color bool
	// Renderer draws the styles for the terminal it detects (lipgloss, which leaves out what
	// the terminal cannot show, and every colour under NO_COLOR); nil is lipgloss's default,
	// for standard output.
	Renderer *lipgloss.Renderer
	// refresh is how often the rows are read again; 0 is 2 s.
	refresh time.Duration
}

// previewHeight is the least height of the popup that shows the preview: below it the table
// keeps every line.
const previewHeight = 20

// Model is the popup's state.
type Model struct {
	cfg           Config
	snap          Snapshot
	shown         []int  // the rows the filter keeps, as indexes in snap.Rows
	cursor        int    // the selected row, an index in shown
	lastPane      string // the pane selected before the filter kept no row
	filter        string
	typing        bool // keys go to the filter
	width, height int
	status        string // the outcome of the last action, or an error
	busy          bool   // an action runs
	acts          int    // actions whose rows were read: a load begun before is older
	jump          string // the pane Enter chose
	noPreview     bool   // p hid the preview
	confirm       string // the pane r asks about before its reset: y resumes it
	pv            preview
	styles        styles
}

// preview is the last capture of a pane for the preview.
type preview struct {
	pane, text string // text is pane's screen
	err        error
	capturing  bool // a capture runs: the next one waits for it
}

// New returns the popup over a first snapshot (the command loads it before the first frame,
// so the popup opens with its rows).
func New(cfg Config, first Snapshot) Model {
	cfg.clock = clock.Or(cfg.clock)
	if cfg.refresh <= 0 {
		cfg.refresh = 2 * time.Second
	}
	if cfg.Renderer == nil {
		cfg.Renderer = lipgloss.DefaultRenderer()
	}
	m := Model{cfg: cfg, snap: first, width: 80, height: 24, styles: newStyles(cfg.Color, cfg.Renderer)}
	return m.refilter("")
}

// Jump is the pane chosen with Enter, "" when the popup was closed otherwise.
func (m Model) Jump() string { return m.jump }

// The messages of the popup.
type (
	tickMsg   time.Time // redraw the countdowns, capture the preview again
	loadedMsg struct {
		snap Snapshot
		err  error
		acts int // Model.acts when the load began
	}
	actedMsg struct {
		pane string
		out  watcher.Outcome
		err  error
		next loadedMsg // the rows read again after the action, shown with its outcome
	}
	capturedMsg struct {
		pane, text string
		err        error
	}
)

// Init starts the countdown tick.
func (m Model) Init() tea.Cmd { return m.tick() }

func (m Model) tick() tea.Cmd {
	return func() tea.Msg {
		t := m.cfg.clock.NewTimer(time.Second)
		return tickMsg(<-t.C())
	}
}

func (m Model) load() tea.Cmd {
	return func() tea.Msg {
		snap, err := m.cfg.Load(context.Background())
		return loadedMsg{snap, err, m.acts}
	}
}

// act runs an action and reads the rows again, so that its outcome and the rows it changed
// (a resumed pane moves below the paused ones) are drawn in one frame: a key pressed after
// the outcome shows acts on the rows as they are.
func (m Model) act(pane string, a watcher.Action) tea.Cmd {
	return func() tea.Msg {
		out, err := m.cfg.Act(context.Background(), pane, a)
		snap, loadErr := m.cfg.Load(context.Background())
		return actedMsg{pane, out, err, loadedMsg{snap, loadErr, m.acts}}
	}
}

// capture captures the selected pane for the preview when it is shown, unless a capture runs:
// one at a time, the next when it is over (follow).
func (m Model) capture() (Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok || !m.previewShown() || m.pv.capturing {
		return m, nil
	}
	m.pv.capturing = true
	capture := m.cfg.Capture
	return m, func() tea.Msg {
		text, err := capture(context.Background(), r.Pane)
		return capturedMsg{r.Pane, text, err}
	}
}

// follow captures the selected pane when the preview shows another one (the selection moved,
// the preview was turned on), with cmd.
func (m Model) follow(cmd tea.Cmd) (tea.Model, tea.Cmd) {
	if r, ok := m.selected(); ok && r.Pane != m.pv.pane {
		var c tea.Cmd
		m, c = m.capture()
		cmd = tea.Batch(cmd, c)
	}
	return m, cmd
}

// Update handles a key, a resize, a tick or the end of a load, an action or a capture.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m.follow(nil)
	case tea.KeyMsg:
		m, cmd := m.key(msg)
		return m.follow(cmd)
	case tickMsg:
		cmds := []tea.Cmd{m.tick()}
		if time.Time(msg).Unix()%int64(max(m.cfg.refresh/time.Second, 1)) == 0 {
			cmds = append(cmds, m.load())
		}
		m, c := m.capture() // the screen moves on: once a second at most
		return m, tea.Batch(append(cmds, c)...)
	case loadedMsg:
		if msg.acts != m.acts {
			break // begun before an action's rows were read: older than what is shown
		}
		if msg.err != nil {
			m.status = msg.err.Error()
			break
		}
		return m.reload(msg.snap).follow(nil)
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
		if msg.next.err != nil {
			return m, nil // the outcome stays on screen; the next refresh reads the rows
		}
		m.acts++
		return m.reload(msg.next.snap).follow(nil)
	case capturedMsg:
		m.pv = preview{pane: msg.pane, text: msg.text, err: msg.err}
		return m.follow(nil)
	}
	return m, nil
}

// reload takes a new snapshot, keeping the selection on the same pane when the filter still
// keeps it.
func (m Model) reload(snap Snapshot) Model {
	at := ""
	if r, ok := m.selected(); ok {
		at = r.Pane
	}
	m.snap = snap
	return m.refilter(at)
}

// selected is the selected row, false when the filter keeps none.
func (m Model) selected() (watcher.Row, bool) {
	if m.cursor >= len(m.shown) {
		return watcher.Row{}, false
	}
	return m.snap.Rows[m.shown[m.cursor]], true
}

// refilter works out the rows the filter keeps and keeps the selection on pane at when it is
// one of them, else at the same place (the last row when fewer are left). With at "" (no row
// was selected: the filter kept none) it is the pane selected before.
func (m Model) refilter(at string) Model {
	if at == "" {
		at = m.lastPane
	}
	m.lastPane = at
	m.shown = make([]int, 0, len(m.snap.Rows))
	for i, r := range m.snap.Rows {
		if matches(r, m.filter) {
			m.shown = append(m.shown, i)
		}
	}
	m.cursor = min(m.cursor, max(len(m.shown)-1, 0))
	for i, j := range m.shown {
		if m.snap.Rows[j].Pane == at {
			m.cursor = i
			break
		}
	}
	return m
}

// matches says whether the filter keeps row r: each of its words is in r's pane id, target,
// agent, state, kind or note (as they are shown), whatever the case.
func matches(r watcher.Row, filter string) bool {
	words := strings.Fields(strings.ToLower(filter))
	if len(words) == 0 {
		return true
	}
	fields := []string{r.Pane, r.Target, string(r.Agent), string(r.State), r.Kind, r.Note}
	for i, f := range fields {
		fields[i] = strings.ToLower(table.Printable(f))
	}
	text := strings.Join(fields, "\n") // a word matches within one field
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// key handles one key.
func (m Model) key(k tea.KeyMsg) (Model, tea.Cmd) {
	if m.typing {
		return m.typeKey(k)
	}
	if m.confirm != "" {
		return m.answer(k)
	}
	r, ok := m.selected()
	switch k.String() {
	case "ctrl+c", "q":
		return m, tea.Quit
	case "esc":
		if m.filter == "" {
			return m, tea.Quit
		}
		m.filter = ""
		return m.refilter(r.Pane), nil
	case "/":
		m.typing = true
	case "up", "k":
		m.cursor = max(m.cursor-1, 0)
	case "down", "j":
		m.cursor = min(m.cursor+1, max(len(m.shown)-1, 0))
	case "p":
		m.noPreview = !m.noPreview
		switch {
		case m.noPreview:
		case m.cfg.Capture != nil && m.height < previewHeight:
			m.status = fmt.Sprintf("no room for the preview: it needs a popup %d lines tall", previewHeight)
		default:
			m.pv = preview{capturing: m.pv.capturing} // capture again: follow
		}
	case "enter":
		if ok {
			m.jump = r.Pane
			return m, tea.Quit
		}
	case "r", "s", "u":
		if !ok || m.busy {
			break
		}
		if k.String() == "r" && r.Reset.After(m.cfg.clock.Now()) {
			m.confirm = r.Pane
			m.status = fmt.Sprintf("%s: reset not until %s — resume now anyway? y/n", r.Pane, watcher.When(r.Reset, "15:04 MST", m.cfg.clock.Now()))
			break
		}
		return m.start(r.Pane, actions[k.String()])
	}
	return m, nil
}

// actions are the popup's action keys.
var actions = map[string]watcher.Action{"r": watcher.ResumeNow, "s": watcher.Skip, "u": watcher.Unskip}

// start shows that an action runs on pane and runs it.
func (m Model) start(pane string, a watcher.Action) (Model, tea.Cmd) {
	verb := map[watcher.Action]string{watcher.ResumeNow: "resuming ", watcher.Skip: "skipping ", watcher.Unskip: "unskipping "}[a]
	m.busy, m.status = true, verb+pane+"…"
	return m, m.act(pane, a)
}

// answer handles the key after r asked whether to resume a pane before its reset: y resumes
// it (a resume before the reset mostly meets the limit again, so it is asked), any other key
// takes r back.
func (m Model) answer(k tea.KeyMsg) (Model, tea.Cmd) {
	pane := m.confirm
	m.confirm = ""
	if k.String() == "y" && !m.busy {
		return m.start(pane, watcher.ResumeNow)
	}
	if k.String() == "ctrl+c" {
		return m, tea.Quit
	}
	m.status = pane + " not resumed"
	return m, nil
}

// typeKey handles a key while the filter is typed: text goes to the filter, Backspace and
// ctrl+u erase, arrows move, Enter ends the typing and keeps the filter, Esc clears it.
// Backspace on an empty filter stays here, so that a letter typed next is not taken for r or
// s.
func (m Model) typeKey(k tea.KeyMsg) (Model, tea.Cmd) {
	at := ""
	if r, ok := m.selected(); ok {
		at = r.Pane
	}
	switch k.Type {
	case tea.KeyCtrlC:
		return m, tea.Quit
	case tea.KeyEsc:
		m.typing, m.filter = false, ""
	case tea.KeyEnter:
		m.typing = false
		return m, nil
	case tea.KeyUp, tea.KeyCtrlP:
		m.cursor = max(m.cursor-1, 0)
		return m, nil
	case tea.KeyDown, tea.KeyCtrlN:
		m.cursor = min(m.cursor+1, max(len(m.shown)-1, 0))
		return m, nil
	case tea.KeyBackspace, tea.KeyCtrlH:
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	case tea.KeyCtrlU:
		m.filter = ""
	case tea.KeyRunes, tea.KeySpace:
		if k.Alt {
			return m, nil
		}
		for _, r := range k.Runes {
			if !unicode.IsControl(r) {
				m.filter += string(r)
			}
		}
	default:
		return m, nil
	}
	return m.refilter(at), nil
}

// previewShown says whether the preview is on screen: a pane can be captured, p did not hide
// it, and the popup is previewHeight or taller.
func (m Model) previewShown() bool {
	return m.cfg.Capture != nil && !m.noPreview && m.height >= previewHeight
}

// styles are the popup's looks; all plain without colour.
type styles struct {
	title, selected, dim, warn lipgloss.Style
	state                      map[string]lipgloss.Style // by the state's first word
}

// The colours of the states (the terminal's own palette): the ones that go on by themselves,
// the ones that wait for the user, the ones being resumed.
const (
	colorWaits  = lipgloss.Color("2") // green
	colorUser   = lipgloss.Color("1") // red
	colorActing = lipgloss.Color("6") // cyan
)

func newStyles(color bool, r *lipgloss.Renderer) styles {
	if !color {
		return styles{}
	}
	s := styles{
		title:    r.NewStyle().Bold(true),
		selected: r.NewStyle().Reverse(true),
		dim:      r.NewStyle().Faint(true),
		warn:     r.NewStyle().Foreground(lipgloss.Color("3")),
		state:    map[string]lipgloss.Style{},
	}
	for c, states := range map[lipgloss.Color][]watcher.State{
		colorWaits:  {watcher.Waiting, watcher.Native},
		colorUser:   {watcher.Held, watcher.Failed, watcher.Unwaitable, watcher.Limited, "stopped"},
		colorActing: {watcher.Resuming, watcher.Verifying},
	} {
		for _, st := range states {
			s.state[string(st)] = r.NewStyle().Foreground(c)
		}
	}
	s.state[string(watcher.Running)] = s.dim
	return s
}

// stateStyle is the style of a row in state st: by its first word, so that "held (stale)",
// which list shows while no watcher runs, looks as held does. Skipped and unknown states are
// plain.
func (s styles) stateStyle(st watcher.State) lipgloss.Style {
	first, _, _ := strings.Cut(string(st), " ")
	return s.state[first]
}

// The last line: the keys.
const (
	keysHelp   = "↑↓/jk move · enter jump · r resume · s skip · u unskip · / filter · p preview · q quit"
	keysFilter = "type to filter · ↑↓ move · enter done · esc clear · ctrl+u erase"
)

// View draws the popup: a title, the filter, the table with the selected row marked and each
// row coloured by its state, the preview of the selected pane, the selected row's note in
// full, the last action's outcome and the keys; cut to the popup's size.
func (m Model) View() string {
	w, now := max(m.width, 20), m.cfg.clock.Now()
	lines := []string{m.styles.title.Render(table.Cut(m.title(), w))}
	if m.snap.Watcher == "" {
		lines = append(lines, m.styles.warn.Render(table.Cut("no watcher runs: nothing is resumed by itself (cac-tmux watch)", w)))
	}
	lines = append(lines, m.filterLine(w))
	foot := m.footer(w)
	room := max(m.height-len(lines)-len(foot), 2)
	if _, sel := m.selected(); !m.previewShown() || !sel {
		lines = append(lines, m.rows(now, w, room)...)
	} else {
		// The table takes the lines its rows need, up to half; the preview the rest.
		tab := min(len(m.shown)+1, max(room/2, 2))
		top := len(lines) + tab
		lines = append(lines, m.rows(now, w, tab)...)
		for len(lines) < top {
			lines = append(lines, "")
		}
		lines = append(lines, m.previewLines(w, room-tab)...)
	}
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
	t := fmt.Sprintf("%s sessions · %s, %d paused", table.AnyAgent(), printable.Count(len(m.snap.Rows), "pane"), paused)
	if m.snap.Watcher != "" {
		t += " · " + m.snap.Watcher
	}
	return t
}

// filterLine is the filter as typed and how many rows it keeps ("/work_  2 of 5", the _ while
// it is typed); "" without a filter.
func (m Model) filterLine(w int) string {
	if !m.typing && m.filter == "" {
		return ""
	}
	s := "/" + m.filter
	if m.typing {
		s += "_"
	}
	return table.Cut(fmt.Sprintf("%s  %d of %d", s, len(m.shown), len(m.snap.Rows)), w)
}

// rows is the table in room lines: the header, then a window of the rows the filter keeps
// around the cursor. The columns are laid out over every row, so that they stay put as the
// filter changes.
func (m Model) rows(now time.Time, w, room int) []string {
	if len(m.snap.Rows) == 0 {
		return []string{m.styles.dim.Render("no " + table.AnyAgent() + " pane on this server")}
	}
	if len(m.shown) == 0 {
		return []string{m.styles.dim.Render(table.Cut("no pane matches /"+m.filter, w))}
	}
	cells := table.Cells(m.snap.Rows, now)
	for i := range cells {
		cells[i] = cells[i][1:] // the target names the pane well enough; the id is in the note line
	}
	body := table.Format(cells, w-2)
	first := min(max(m.cursor-(room-2), 0), max(len(m.shown)-(room-1), 0))
	out := []string{"  " + body[0]}
	for i := first; i < len(m.shown) && len(out) < room; i++ {
		r := m.snap.Rows[m.shown[i]]
		st := m.styles.stateStyle(r.State)
		if i == m.cursor {
			out = append(out, m.styles.selected.Inherit(st).Render("› "+body[m.shown[i]+1]))
		} else {
			out = append(out, st.Render("  "+body[m.shown[i]+1]))
		}
	}
	return out
}

// previewLines are room lines: a rule naming the selected pane, then the last lines of its
// screen that are not blank, each cut to w columns and every control character shown as "?"
// (table.Printable), so that nothing the pane printed reaches the terminal as a command.
func (m Model) previewLines(w, room int) []string {
	r, _ := m.selected()
	rule := table.Cut("── "+r.Pane+" "+r.Target+" ", w)
	rule += strings.Repeat("─", max(w-ansi.StringWidth(rule), 0))
	out := []string{m.styles.dim.Render(rule)}
	switch {
	case room < 2 || m.pv.pane != r.Pane:
		return out // the capture runs
	case m.pv.err != nil:
		return append(out, m.styles.warn.Render(table.Cut("no preview: "+m.pv.err.Error(), w)))
	}
	text := strings.Split(strings.TrimRight(m.pv.text, " \n"), "\n")
	text = text[max(len(text)-(room-1), 0):]
	for _, l := range text {
		out = append(out, ansi.Truncate(strings.TrimRight(table.Printable(l), " "), w, ""))
	}
	return out
}

// footer is the selected row's pane and note in full, the last outcome, and the keys.
func (m Model) footer(w int) []string {
	var f []string
	if r, ok := m.selected(); ok {
		note := r.Pane + " " + r.Target
		if r.Note != "" {
			note += ": " + r.Note
		}
		f = append(f, m.styles.dim.Render(table.Cut(note, w)))
	} else {
		f = append(f, "")
	}
	keys := keysHelp
	switch {
	case m.typing:
		keys = keysFilter
	case m.filter != "":
		keys = "esc clear filter · " + keys
	}
	return append(f, table.Cut(m.status, w), m.styles.dim.Render(table.Cut(keys, w)))
}
