package popup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

var t0 = time.Date(2026, 11, 20, 19, 0, 0, 0, time.UTC)

func snapshot(n int) Snapshot {
	var rows []watcher.Row
	for i := range n {
		r := watcher.Row{Pane: "%" + string(rune('1'+i%9)), Target: "work:" + string(rune('1'+i%9)) + ".0", State: watcher.Waiting,
			Kind: "session", Reset: t0.Add(30 * time.Minute), Zone: "UTC", Due: t0.Add(31 * time.Minute)}
		if i == 1 {
			r.State, r.Note = watcher.Held, "a draft is in the input box; left alone until you resume by hand or send a prompt"
		}
		rows = append(rows, r)
	}
	return Snapshot{Rows: rows, Watcher: "watcher pid 4242"}
}

func model(n int, w, h int, color bool) (Model, *[]string) {
	var acts []string
	cfg := Config{
		Load: func(context.Context) (Snapshot, error) { return snapshot(n), nil },
		Act: func(_ context.Context, pane string, a watcher.Action) (watcher.Outcome, error) {
			acts = append(acts, string(a)+" "+pane)
			return watcher.Outcome{Done: a == watcher.Skip, Message: "a draft is in the input box"}, nil
		},
		clock: clocktest.New(t0), Color: color,
	}
	m, _ := New(cfg, snapshot(n)).Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m.(Model), &acts
}

// The popup fits 60×15, 200×50 and (preview on) 60×30 with few and many rows, and a screen of
// wide characters in the preview; without colour it writes no escape sequence.
func TestViewFits(t *testing.T) {
	wide := strings.Repeat("日本語のテキスト ", 40) + "\n" + strings.Repeat("x", 300) + "\n"
	for _, size := range [][2]int{{60, 15}, {200, 50}, {60, 30}} {
		for _, n := range []int{0, 3, 40} {
			m, _ := model(n, size[0], size[1], false)
			if size[1] >= previewHeight {
				m.cfg.Capture = func(context.Context, string) (string, error) { return wide, nil }
				next, cmd := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m = settle(t, next.(Model), cmd)
			}
			v := m.View()
			lines := strings.Split(v, "\n")
			if len(lines) > size[1] {
				t.Errorf("%dx%d, %d rows: %d lines", size[0], size[1], n, len(lines))
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%dx%d, %d rows: line %q is %d wide", size[0], size[1], n, l, w)
				}
			}
			if strings.Contains(v, "\x1b") {
				t.Errorf("%dx%d without colour: escape sequences in %q", size[0], size[1], v)
			}
			if n > 0 && (!strings.Contains(v, "› ") || !strings.Contains(v, "STATE") || !strings.Contains(v, keysHelp[:10])) {
				t.Errorf("%dx%d, %d rows: no selected row, header or keys:\n%s", size[0], size[1], n, v)
			}
			if n > 0 && size[1] >= previewHeight && !strings.Contains(v, "日本語") {
				t.Errorf("%dx%d, %d rows: no preview:\n%s", size[0], size[1], n, v)
			}
		}
	}
}

func press(m Model, keys ...string) (Model, []tea.Cmd) {
	var cmds []tea.Cmd
	for _, k := range keys {
		msg := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		switch k {
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "up":
			msg = tea.KeyMsg{Type: tea.KeyUp}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		}
		next, cmd := m.Update(msg)
		m, cmds = next.(Model), append(cmds, cmd)
	}
	return m, cmds
}

// j/k and arrows move; Enter chooses the pane and quits; r (confirmed with y before the reset)
// and s act on the selected pane and show the outcome; q and Esc quit.
func TestKeys(t *testing.T) {
	m, acts := model(3, 80, 24, true)
	m, _ = press(m, "j", "down", "k")
	if m.cursor != 1 {
		t.Errorf("cursor after j, down, k = %d, want 1", m.cursor)
	}
	m, cmds := press(m, "r", "y")
	if !m.busy || !strings.Contains(m.status, "resuming %2") || cmds[1] == nil {
		t.Fatalf("after r, y: busy %v status %q", m.busy, m.status)
	}
	next, _ := m.Update(cmds[1]())
	m = next.(Model)
	if len(*acts) != 1 || (*acts)[0] != "resume %2" || !strings.Contains(m.status, "%2 refused: a draft") {
		t.Errorf("acts %q, status %q; want resume %%2 refused", *acts, m.status)
	}
	m, cmds = press(m, "s")
	next, _ = m.Update(cmds[0]())
	m = next.(Model)
	if (*acts)[1] != "skip %2" || m.status != "a draft is in the input box" {
		t.Errorf("acts %q, status %q; want skip %%2 done", *acts, m.status)
	}
	m, cmds = press(m, "enter")
	if m.Jump() != "%2" || cmds[0] == nil || cmds[0]() != tea.Quit() {
		t.Errorf("after enter: jump %q, want %%2 and quit", m.Jump())
	}
	for _, k := range []string{"q", "esc"} {
		m, _ := model(3, 80, 24, false)
		if m, cmds := press(m, k); m.Jump() != "" || cmds[0]() != tea.Quit() {
			t.Errorf("%s: jump %q, want none and quit", k, m.Jump())
		}
	}
}

// r on a pane whose reset has not come asks first, naming the reset in the user's zone; any
// key but y takes it back and nothing is done. Once the reset has passed, r resumes at once.
func TestResumeBeforeResetAsks(t *testing.T) {
	m, acts := model(3, 100, 24, false)
	m, cmds := press(m, "r")
	if cmds[0] != nil || m.busy || len(*acts) != 0 || !strings.Contains(m.status, "%1: reset not until 19:30 UTC — resume now anyway? y/n") {
		t.Fatalf("after r: busy %v, acts %q, status %q; want a question and nothing done", m.busy, *acts, m.status)
	}
	if v := m.View(); !strings.Contains(v, "resume now anyway? y/n") {
		t.Errorf("the question is not on screen:\n%s", v)
	}
	m, cmds = press(m, "n")
	if cmds[0] != nil || len(*acts) != 0 || m.status != "%1 not resumed" {
		t.Errorf("after r, n: acts %q, status %q; want nothing done", *acts, m.status)
	}
	m, _ = press(m, "j") // the question is over: keys move again
	if m.cursor != 1 {
		t.Errorf("cursor after r, n, j = %d, want 1", m.cursor)
	}
	m.cfg.clock = clocktest.New(t0.Add(30 * time.Minute))
	m, cmds = press(m, "r")
	if !m.busy || cmds[0] == nil || !strings.Contains(m.status, "resuming %2") {
		t.Errorf("r after the reset: busy %v, status %q; want it resumed without a question", m.busy, m.status)
	}
}

// u takes back the skip of the selected pane.
func TestUnskipKey(t *testing.T) {
	m, acts := model(3, 100, 24, false)
	m, cmds := press(m, "u")
	if !m.busy || cmds[0] == nil || m.status != "unskipping %1…" {
		t.Fatalf("after u: busy %v, status %q", m.busy, m.status)
	}
	m.Update(cmds[0]())
	if len(*acts) != 1 || (*acts)[0] != "unskip %1" {
		t.Errorf("acts %q, want unskip %%1", *acts)
	}
}

// An action's outcome comes with the rows read after it, in one update: the resumed pane
// moves below the paused one and keeps the selection, so a key pressed once the outcome shows
// moves from where the rows are (the popup test on tmux 3.5a pressed k between the two). A
// refresh begun before the action and over after it does not bring the old rows back.
func TestActedReloads(t *testing.T) {
	before, after := filterSnapshot(), filterSnapshot()
	after.Rows[0].State, after.Rows[0].Due = watcher.Running, time.Time{}
	after.Rows[0], after.Rows[1] = after.Rows[1], after.Rows[0]
	acted := false
	m, _ := newModel(Config{
		Load: func(context.Context) (Snapshot, error) {
			if acted {
				return after, nil
			}
			return before, nil
		},
		Act: func(context.Context, string, watcher.Action) (watcher.Outcome, error) {
			acted = true
			return watcher.Outcome{Done: true, Message: "resumed: a turn runs in api:1.0"}, nil
		},
	}, before, 80, 24)
	older := m.load()()           // a refresh begun before the action, read before it
	m, cmds := press(m, "r", "y") // before its reset: asked, and answered
	next, _ := m.Update(cmds[1]())
	next, _ = next.Update(older) // and arriving after it: dropped
	m = next.(Model)
	if r, _ := m.selected(); r.Pane != "%1" || r.State != watcher.Running || m.cursor != 1 || m.status != "resumed: a turn runs in api:1.0" {
		t.Errorf("after the action: selected %s %s at %d, status %q; want %%1 running at 1 with the outcome", r.Pane, r.State, m.cursor, m.status)
	}
	m, _ = press(m, "k")
	if r, _ := m.selected(); r.Pane != "%2" {
		t.Errorf("k after the outcome selects %s, want %%2 (the row above)", r.Pane)
	}
}

// filterSnapshot is four panes in four states, for the filter.
func filterSnapshot() Snapshot {
	reset := t0.Add(30 * time.Minute)
	return Snapshot{Watcher: "watcher pid 4242", Rows: []watcher.Row{
		{Pane: "%1", Target: "api:1.0", State: watcher.Waiting, Kind: "session", Reset: reset, Zone: "UTC", Due: reset.Add(time.Minute)},
		{Pane: "%2", Target: "web:2.0", State: watcher.Held, Kind: "session", Reset: reset, Zone: "UTC",
			Note: "a draft is in the input box; left alone until you resume by hand or send a prompt"},
		{Pane: "%3", Target: "api:3.0", State: watcher.Running},
		{Pane: "%4", Target: "Docs:4.0", State: watcher.Failed, Kind: "weekly", Reset: reset, Zone: "UTC"},
	}}
}

// newModel is the popup over snap at w×h, with cfg's Load and Act as model's.
func newModel(cfg Config, snap Snapshot, w, h int) (Model, tea.Cmd) {
	if cfg.clock == nil {
		cfg.clock = clocktest.New(t0)
	}
	m, cmd := New(cfg, snap).Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m.(Model), cmd
}

func filterModel() (Model, *[]string) {
	var acts []string
	m, _ := newModel(Config{
		Load: func(context.Context) (Snapshot, error) { return filterSnapshot(), nil },
		Act: func(_ context.Context, pane string, a watcher.Action) (watcher.Outcome, error) {
			acts = append(acts, string(a)+" "+pane)
			return watcher.Outcome{Done: true, Message: "done"}, nil
		},
	}, filterSnapshot(), 100, 24)
	return m, &acts
}

// shownPanes are the panes of the rows the filter keeps, and the selected one.
func shownPanes(m Model) (panes []string, selected string) {
	for _, i := range m.shown {
		panes = append(panes, m.snap.Rows[i].Pane)
	}
	if r, ok := m.selected(); ok {
		selected = r.Pane
	}
	return panes, selected
}

// / then text narrows the rows to those with each word in the pane, target, state, kind or
// note, whatever the case; the header shows the filter and "N of M"; the rows left out are not
// drawn.
func TestFilterNarrows(t *testing.T) {
	for _, c := range []struct {
		typed string
		want  []string
	}{
		{"api", []string{"%1", "%3"}},
		{"API", []string{"%1", "%3"}},
		{"held", []string{"%2"}},
		{"DRAFT", []string{"%2"}},   // the note
		{"weekly", []string{"%4"}},  // the kind
		{"docs", []string{"%4"}},    // the target, whatever the case
		{"api run", []string{"%3"}}, // every word
		{"%2", []string{"%2"}},      // the pane id
		{"session api", []string{"%1"}},
		{"nothing", nil},
	} {
		m, _ := filterModel()
		m, _ = press(m, append([]string{"/"}, strings.Split(c.typed, "")...)...)
		got, _ := shownPanes(m)
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("/%s keeps %q, want %q", c.typed, got, c.want)
		}
		v := m.View()
		header := fmt.Sprintf("/%s_  %d of 4", c.typed, len(c.want))
		if !strings.Contains(v, header) {
			t.Errorf("/%s: no %q in\n%s", c.typed, header, v)
		}
		for _, r := range filterSnapshot().Rows {
			if drawn, kept := strings.Contains(v, r.Target+"  "), slices.Contains(c.want, r.Pane); drawn != kept {
				t.Errorf("/%s: %s drawn %v, kept %v:\n%s", c.typed, r.Target, drawn, kept, v)
			}
		}
		if len(c.want) == 0 && !strings.Contains(v, "no pane matches /nothing") {
			t.Errorf("/nothing: no word of no match:\n%s", v)
		}
	}
}

// While the filter is typed every letter goes to it: r and s do not act, q, j, k and p do
// nothing but type; arrows move. Enter ends the typing and keeps the filter: then r acts on
// the selected row the filter kept, and Enter jumps.
func TestFilterTypingTakesLetters(t *testing.T) {
	m, acts := filterModel()
	m, cmds := press(m, "/", "r", "s", "q", "j", "k", "p")
	for i, c := range cmds {
		if c != nil {
			t.Errorf("key %d while typing gave a command (%v)", i, c())
		}
	}
	if m.filter != "rsqjkp" || !m.typing || m.busy || len(*acts) != 0 || m.Jump() != "" || m.noPreview {
		t.Fatalf("after /rsqjkp: filter %q typing %v busy %v acts %q; want only the filter", m.filter, m.typing, m.busy, *acts)
	}
	m, _ = press(m, "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
	if m.filter != "" || !m.typing {
		t.Errorf("after backspaces: filter %q typing %v; want empty and still typing", m.filter, m.typing)
	}
	m, _ = press(m, "a", "p", "i", "down")
	if _, sel := shownPanes(m); sel != "%3" {
		t.Errorf("down while typing selects %s, want %%3", sel)
	}
	m, cmds = press(m, "enter")
	if m.typing || m.filter != "api" || m.Jump() != "" || cmds[0] != nil {
		t.Fatalf("enter while typing: typing %v filter %q jump %q; want the filter kept and no jump", m.typing, m.filter, m.Jump())
	}
	if v := m.View(); !strings.Contains(v, "/api  2 of 4") || !strings.Contains(v, "esc clear filter") {
		t.Errorf("the kept filter is not in the header or the keys:\n%s", v)
	}
	m, cmds = press(m, "r")
	if cmds[0] == nil {
		t.Fatal("r after enter does not act")
	}
	next, _ := m.Update(cmds[0]())
	m = next.(Model)
	if len(*acts) != 1 || (*acts)[0] != "resume %3" {
		t.Errorf("acts %q, want resume %%3", *acts)
	}
	m, _ = press(m, "k", "enter")
	if m.Jump() != "%1" {
		t.Errorf("enter jumps to %q, want %%1", m.Jump())
	}
}

// Esc clears the filter, while it is typed or after; a second Esc closes the popup.
func TestFilterEscClears(t *testing.T) {
	for _, keys := range [][]string{{"/", "h", "e", "l", "d"}, {"/", "h", "e", "l", "d", "enter"}} {
		m, _ := filterModel()
		m, _ = press(m, keys...)
		m, cmds := press(m, "esc")
		panes, sel := shownPanes(m)
		if cmds[0] != nil || m.filter != "" || m.typing || len(panes) != 4 || sel != "%2" {
			t.Errorf("%q then esc: filter %q typing %v rows %q selected %s; want all rows, %%2 still selected and no quit",
				keys, m.filter, m.typing, panes, sel)
		}
		if v := m.View(); strings.Contains(v, " of 4") || !strings.Contains(v, "web:2.0") || !strings.Contains(v, "api:3.0") {
			t.Errorf("%q then esc: the filter is still shown:\n%s", keys, v)
		}
		if _, cmds := press(m, "esc"); cmds[0] == nil || cmds[0]() != tea.Quit() {
			t.Errorf("%q then esc esc: no quit", keys)
		}
	}
}

// The selection stays on a row the filter keeps: on the same pane when it is kept, else at
// the same place or the last row; with no row kept nothing is selected, and Enter, r and s do
// nothing.
func TestFilterSelectionClamps(t *testing.T) {
	m, acts := filterModel()
	m, _ = press(m, "j", "j") // %3 api:3.0
	m, _ = press(m, "/", "a", "p", "i")
	if _, sel := shownPanes(m); sel != "%3" || m.cursor != 1 {
		t.Errorf("/api from %%3: selected %s (cursor %d), want %%3 kept", sel, m.cursor)
	}
	m, _ = press(m, "esc", "j") // %4 Docs:4.0
	m, _ = press(m, "/", "a", "p", "i")
	if _, sel := shownPanes(m); sel != "%3" || m.cursor != 1 {
		t.Errorf("/api from %%4: selected %s (cursor %d), want the last row kept, %%3", sel, m.cursor)
	}
	m, _ = press(m, "x")
	if panes, sel := shownPanes(m); len(panes) != 0 || sel != "" {
		t.Errorf("/apix: rows %q selected %q; want none", panes, sel)
	}
	m, _ = press(m, "enter", "down", "r", "s", "enter")
	if m.Jump() != "" || m.busy || len(*acts) != 0 {
		t.Errorf("keys on no row: jump %q busy %v acts %q", m.Jump(), m.busy, *acts)
	}
	m, _ = press(m, "/", "backspace")
	if _, sel := shownPanes(m); sel != "%3" {
		t.Errorf("/api again: selected %s, want %%3", sel)
	}
	// A new snapshot keeps the filter.
	snap := filterSnapshot()
	snap.Rows = append(snap.Rows, watcher.Row{Pane: "%5", Target: "api:5.0", State: watcher.Waiting})
	next, _ := m.Update(loadedMsg{snap: snap})
	if panes, sel := shownPanes(next.(Model)); strings.Join(panes, " ") != "%1 %3 %5" || sel != "%3" {
		t.Errorf("reloaded: rows %q selected %s; want %%1 %%3 %%5, %%3", panes, sel)
	}
}

// fakeScreens is a Capture over fixed screens, counting the captures.
type fakeScreens struct {
	mu      sync.Mutex
	screens map[string]string
	calls   []string
}

func (f *fakeScreens) capture(_ context.Context, pane string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, pane)
	s, ok := f.screens[pane]
	if !ok {
		return "", errors.New("can't find pane: " + pane)
	}
	return s, nil
}

func (f *fakeScreens) set(pane, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.screens[pane] = text
}

func (f *fakeScreens) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// screenOf is a screen of 40 numbered lines and blank ones below, the last one with an escape
// sequence, a tab, a bell and a byte that is not UTF-8.
func screenOf(pane string) string {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "%s line %02d\n", pane, i)
	}
	return b.String() + "\x1b]0;title\x07\x1b[31mred\x1b[0m\ttab \xff end   \n\n\n"
}

// settle feeds the popup the messages of cmd, and of the commands they give, until none is
// left: the captures of the preview.
func settle(t *testing.T, m Model, cmd tea.Cmd) Model {
	t.Helper()
	for n := 0; cmd != nil; n++ {
		if n > 10 {
			t.Fatal("the captures do not end")
		}
		msg := cmd()
		if _, ok := msg.(capturedMsg); !ok {
			t.Fatalf("a command gave %T, want a capture", msg)
		}
		next, c := m.Update(msg)
		m, cmd = next.(Model), c
	}
	return m
}

func previewModel(t *testing.T, w, h int) (Model, *fakeScreens) {
	f := &fakeScreens{screens: map[string]string{}}
	for _, p := range []string{"%1", "%2", "%3"} {
		f.set(p, screenOf(p))
	}
	m, cmd := newModel(Config{Load: func(context.Context) (Snapshot, error) { return filterSnapshot(), nil }, Capture: f.capture},
		filterSnapshot(), w, h)
	return settle(t, m, cmd), f
}

// The preview shows the last lines of the selected pane's screen, below the table, with every
// control character as "?", within the popup's width and height.
func TestPreviewShowsTheScreen(t *testing.T) {
	m, f := previewModel(t, 60, 30)
	v := m.View()
	if f.count() != 1 || !strings.Contains(v, "── %1 api:1.0 ──") || !strings.Contains(v, "%1 line 39") {
		t.Fatalf("captures %q; no preview of %%1 in\n%s", f.calls, v)
	}
	if strings.Contains(v, "%1 line 00") || !strings.Contains(v, "%1 line 30") {
		t.Errorf("the preview is not the last lines:\n%s", v)
	}
	if strings.ContainsAny(v, "\x1b\x07\t\xff") || !strings.Contains(v, "?]0;title??[31mred?[0m") || !strings.Contains(v, "?tab ? end\n") {
		t.Errorf("control characters reach the terminal, or are not shown as ?: %q", v)
	}
	lines := strings.Split(v, "\n")
	if len(lines) != 30 {
		t.Errorf("%d lines, want 30", len(lines))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 60 {
			t.Errorf("line %q is wider than 60", l)
		}
	}
	// Every row is still there, above the preview.
	for _, r := range filterSnapshot().Rows {
		if !strings.Contains(v, r.Target) {
			t.Errorf("no row %s above the preview:\n%s", r.Target, v)
		}
	}
}

// Moving the selection captures the newly selected pane; a capture still running when the
// selection moves is followed by one of the pane selected then, and the preview never shows
// one pane's screen under another; a pane that cannot be captured says why.
func TestPreviewFollowsTheSelection(t *testing.T) {
	m, f := previewModel(t, 80, 30)
	m, cmds := press(m, "j")
	m = settle(t, m, cmds[0])
	if v := m.View(); !strings.Contains(v, "── %2 web:2.0") || !strings.Contains(v, "%2 line 39") || strings.Contains(v, "%1 line") {
		t.Errorf("after j the preview is not %%2's:\n%s", v)
	}
	m, cmds = press(m, "j")  // a capture of %3 starts
	m, more := press(m, "j") // %4: waits for it
	if cmds[0] == nil || more[0] != nil {
		t.Fatalf("j, j: commands %v, %v; want one capture at a time", cmds[0] != nil, more[0] != nil)
	}
	next, cmd := m.Update(cmds[0]())
	m = next.(Model)
	if v := m.View(); strings.Contains(v, "%3 line") || !strings.Contains(v, "── %4 Docs:4.0") {
		t.Errorf("%%3's screen under %%4:\n%s", v)
	}
	m = settle(t, m, cmd)
	if v := m.View(); !strings.Contains(v, "no preview: can't find pane: %4") {
		t.Errorf("no error for %%4:\n%s", v)
	}
	if strings.Join(f.calls, " ") != "%1 %2 %3 %4" {
		t.Errorf("captures %q, want %%1 %%2 %%3 %%4", f.calls)
	}
}

// Once a second (the tick) the selected pane is captured again, unless a capture still runs.
func TestPreviewRefreshes(t *testing.T) {
	m, f := previewModel(t, 80, 30)
	f.set("%1", "%1 moved on\n")
	next, cmd := m.Update(tickMsg(t0.Add(time.Second)))
	m = next.(Model)
	captured := ranCaptures(m, cmd)
	if len(captured) != 1 || !m.pv.capturing {
		t.Fatalf("a tick captured %d times, want once", len(captured))
	}
	if _, cmd := m.Update(tickMsg(t0.Add(3 * time.Second))); len(ranCaptures(m, cmd)) != 0 {
		t.Errorf("a second tick captured while one runs: %q", f.calls)
	}
	next, _ = m.Update(captured[0])
	if v := next.(Model).View(); !strings.Contains(v, "%1 moved on") || strings.Contains(v, "%1 line") {
		t.Errorf("the preview is not refreshed:\n%s", v)
	}
}

// ranCaptures runs the commands of a tick, each on its own, and returns the captures among
// their messages; the tick's own command, which waits for the clock, is let go by moving the
// clock on.
func ranCaptures(m Model, cmd tea.Cmd) []capturedMsg {
	msgs := make(chan tea.Msg, 16)
	run := func(c tea.Cmd) { go func() { msgs <- c() }() }
	run(cmd)
	var out []capturedMsg
	for pending := 1; pending > 0; {
		select {
		case msg := <-msgs:
			pending--
			switch msg := msg.(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
					pending++
				}
			case capturedMsg:
				out = append(out, msg)
			}
		case <-time.After(200 * time.Millisecond):
			pending = 0
		}
	}
	m.cfg.clock.(*clocktest.Manual).Add(time.Hour)
	return out
}

// p hides the preview (the table then takes its lines) and shows it again with a fresh
// capture; a popup under previewHeight lines shows none and captures nothing, and p says why.
func TestPreviewToggle(t *testing.T) {
	m, f := previewModel(t, 80, 30)
	m, cmds := press(m, "p")
	if v := m.View(); cmds[0] != nil || strings.Contains(v, "%1 line") || strings.Contains(v, "── %1") {
		t.Errorf("p does not hide the preview:\n%s", v)
	}
	m, _ = press(m, "j", "j")
	if f.count() != 1 {
		t.Errorf("captures while the preview is hidden: %q", f.calls)
	}
	m, cmds = press(m, "p")
	m = settle(t, m, cmds[0])
	if v := m.View(); !strings.Contains(v, "── %3 api:3.0") || !strings.Contains(v, "%3 line 39") {
		t.Errorf("p again does not show %%3's screen:\n%s", v)
	}
	small, f := previewModel(t, 80, previewHeight-1)
	small, cmds = press(small, "j")
	if v := small.View(); f.count() != 0 || cmds[0] != nil || strings.Contains(v, "line") {
		t.Errorf("a %d-line popup captures %q or shows a preview:\n%s", previewHeight-1, f.calls, v)
	}
	small, _ = press(small, "p", "p")
	if !strings.Contains(small.status, "no room for the preview") {
		t.Errorf("p in a small popup: status %q", small.status)
	}
}

// colourModel is the popup over every state, drawn in colour as a terminal lipgloss takes for
// one of 16 colours (CLICOLOR_FORCE: the test's output is no terminal) would show it.
func colourModel(t *testing.T, color bool) (Model, []watcher.State) {
	t.Setenv("CLICOLOR_FORCE", "1")
	states := []watcher.State{watcher.Running, watcher.Limited, watcher.Waiting, watcher.Native, watcher.Held, watcher.Resuming,
		watcher.Verifying, watcher.Failed, watcher.Unwaitable, watcher.Skipped, "held (stale)", "stopped (not watched)"}
	var snap Snapshot
	for i, st := range states {
		snap.Rows = append(snap.Rows, watcher.Row{Pane: fmt.Sprintf("%%%d", i+1), Target: fmt.Sprintf("s:%d.0", i+1), State: st})
	}
	m, _ := newModel(Config{Color: color, Renderer: lipgloss.NewRenderer(io.Discard)}, snap, 100, 30)
	return m, states
}

// Each row is drawn in the colour of its state: green for the ones that go on by themselves
// (waiting, native), red for the ones that wait for the user (held, failed, unwaitable,
// limited, stopped), cyan while being resumed (resuming, verifying), faint when running;
// skipped is plain. The selected row is in reverse video with its colour.
func TestStateColours(t *testing.T) {
	m, states := colourModel(t, true)
	want := map[watcher.State]string{
		watcher.Running: "\x1b[2m", watcher.Limited: "\x1b[31m", watcher.Waiting: "\x1b[32m", watcher.Native: "\x1b[32m",
		watcher.Held: "\x1b[31m", watcher.Resuming: "\x1b[36m", watcher.Verifying: "\x1b[36m", watcher.Failed: "\x1b[31m",
		watcher.Unwaitable: "\x1b[31m", watcher.Skipped: "", "held (stale)": "\x1b[31m", "stopped (not watched)": "\x1b[31m",
	}
	lines := strings.Split(m.View(), "\n")
	for i, st := range states {
		var line string
		for _, l := range lines {
			if strings.Contains(l, fmt.Sprintf("s:%d.0 ", i+1)) {
				line = l
			}
		}
		switch {
		case line == "":
			t.Errorf("no row in state %s", st)
		case i == 0 && !strings.HasPrefix(line, "\x1b[7;2m"):
			t.Errorf("the selected row (running) is %q, want reverse video and faint", line)
		case i > 0 && want[st] == "" && strings.Contains(line, "\x1b"):
			t.Errorf("the %s row is %q, want it plain", st, line)
		case i > 0 && want[st] != "" && !strings.HasPrefix(line, want[st]):
			t.Errorf("the %s row is %q, want it in %q", st, line, want[st])
		}
	}
}

// The colours follow NO_COLOR: the rows are coloured with Color on and the terminal able to
// show it, and there is no colour, no reverse video, no escape at all with Color off (the
// command turns it off under NO_COLOR) or when lipgloss finds NO_COLOR itself.
func TestNoColour(t *testing.T) {
	m, _ := colourModel(t, true)
	if v := m.View(); !strings.Contains(v, "\x1b[32m  s:3.0 ") {
		t.Errorf("no colour with Color on:\n%q", v)
	}
	m, _ = colourModel(t, false)
	if v := m.View(); strings.Contains(v, "\x1b") {
		t.Errorf("escapes without colour:\n%q", v)
	}
	t.Setenv("NO_COLOR", "1")
	m, _ = colourModel(t, true)
	if v := m.View(); strings.Contains(v, "\x1b") {
		t.Errorf("escapes under NO_COLOR:\n%q", v)
	}
	for _, st := range []watcher.State{watcher.Waiting, watcher.Held, watcher.Resuming, watcher.Running} {
		if s := newStyles(false, lipgloss.NewRenderer(io.Discard)).stateStyle(st); s.GetForeground() != (lipgloss.NoColor{}) || s.GetFaint() {
			t.Errorf("the %s style without colour is not plain", st)
		}
	}
}

// Panes of two agents: the popup's table has the AGENT column, and the filter finds a pane
// by its agent.
func TestAgentShownAndFiltered(t *testing.T) {
	snap := snapshot(3)
	snap.Rows[2].Agent = agent.Codex
	snap.Rows[0].Agent, snap.Rows[1].Agent = agent.Claude, agent.Claude
	m, _ := newModel(Config{Load: func(context.Context) (Snapshot, error) { return snap, nil }, clock: clocktest.New(t0)}, snap, 100, 15)
	if v := m.View(); !strings.Contains(v, "AGENT") || !strings.Contains(v, "codex") || !strings.Contains(v, "Claude Code or Codex sessions · 3 panes") {
		t.Errorf("view of two agents:\n%s\nwant an AGENT column and the title", v)
	}
	if got := matches(snap.Rows[2], "codex"); !got {
		t.Errorf("filter codex: the Codex pane is not kept")
	}
	if got := matches(snap.Rows[0], "codex"); got {
		t.Errorf("filter codex: a Claude Code pane is kept")
	}
}
