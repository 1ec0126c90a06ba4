package popup

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"

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
			r.State, r.Note = watcher.Held, "a draft is in the input box; it is left alone (resume by hand when ready)"
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
		Clock: clocktest.New(t0), Color: color,
	}
	m, _ := New(cfg, snapshot(n)).Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m.(Model), &acts
}

// The popup fits 60×15 and 200×50 with few and many rows, and without colour writes no escape
// sequence.
func TestViewFits(t *testing.T) {
	for _, size := range [][2]int{{60, 15}, {200, 50}} {
		for _, n := range []int{0, 3, 40} {
			m, _ := model(n, size[0], size[1], false)
			v := m.View()
			lines := strings.Split(v, "\n")
			if len(lines) > size[1] {
				t.Errorf("%dx%d, %d rows: %d lines", size[0], size[1], n, len(lines))
			}
			for _, l := range lines {
				if utf8.RuneCountInString(l) > size[0] {
					t.Errorf("%dx%d, %d rows: line %q is %d wide", size[0], size[1], n, l, utf8.RuneCountInString(l))
				}
			}
			if strings.Contains(v, "\x1b") {
				t.Errorf("%dx%d without colour: escape sequences in %q", size[0], size[1], v)
			}
			if n > 0 && (!strings.Contains(v, "› ") || !strings.Contains(v, "STATE") || !strings.Contains(v, keysHelp[:10])) {
				t.Errorf("%dx%d, %d rows: no selected row, header or keys:\n%s", size[0], size[1], n, v)
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
		}
		next, cmd := m.Update(msg)
		m, cmds = next.(Model), append(cmds, cmd)
	}
	return m, cmds
}

// j/k and arrows move; Enter chooses the pane and quits; r and s act on the selected pane and
// show the outcome; q and Esc quit.
func TestKeys(t *testing.T) {
	m, acts := model(3, 80, 24, true)
	m, _ = press(m, "j", "down", "k")
	if m.cursor != 1 {
		t.Errorf("cursor after j, down, k = %d, want 1", m.cursor)
	}
	m, cmds := press(m, "r")
	if !m.busy || !strings.Contains(m.status, "resuming %2") || cmds[0] == nil {
		t.Fatalf("after r: busy %v status %q", m.busy, m.status)
	}
	next, _ := m.Update(cmds[0]())
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
