//go:build linux

package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// attached is a private server under test with a real client attached to it: an outer private
// server whose pane runs `tmux attach` to it. Keys go in through the outer pane, and what the
// client shows (the popup included) is read with capture-pane of the outer pane.
type attached struct {
	inner, outer *tmuxtest.Server
	client       string // the inner server's name for the attached client
}

func attach(t *testing.T, width, height int) *attached {
	t.Helper()
	inner := tmuxtest.Start(t, width, height)
	outer := tmuxtest.Start(t, width, height, "sh", "-c", "unset TMUX; exec tmux -S "+inner.Socket+" attach -t main")
	a := &attached{inner: inner, outer: outer}
	tmuxtest.WaitFor(t, 10*time.Second, "a client attached to the inner server", func() bool {
		a.client = strings.TrimSpace(inner.Tmux(t, "list-clients", "-F", "#{client_name}"))
		return a.client != ""
	})
	return a
}

// popup opens `cac-tmux popup` on the attached client as the plugin does: a key bound to
// display-popup, pressed through the client (prefix C); it waits for the first frame.
func (a *attached) popup(t *testing.T) string {
	t.Helper()
	a.inner.Tmux(t, "bind-key", "C", "display-popup", "-w", "100%", "-h", "100%", "-E", bins.cac+" popup -S "+a.inner.Socket)
	a.key(t, "C-b")
	a.key(t, "C")
	return a.screen(t, "Claude Code sessions")
}

// screen waits until the client's screen shows text and returns it.
func (a *attached) screen(t *testing.T, text string) string {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			s, _ := a.outer.Client.Capture(context.Background(), "main")
			t.Logf("the client's screen:\n%s", s)
		}
	})
	return a.outer.WaitScreen(t, "main", text)
}

// key presses a key in the popup, through the outer pane and the client.
func (a *attached) key(t *testing.T, key string) { a.outer.Tmux(t, "send-keys", "-t", "main", key) }

// The popup on a real client at 60×15 and 200×50: every pane with its target, state, note
// and the keys, each line within the width; Enter switches the client to the chosen pane.
func TestPopupSizesAndJump(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 15}, {200, 50}} {
		a := attach(t, size[0], size[1])
		reset := time.Now().Add(time.Hour).UTC().Truncate(time.Minute)
		held, _ := startClaude(t, a.inner, "--scenario", "draft", "--draft", "my idea", "--reset", reset.Format(time.RFC3339))
		waiting, _ := startClaude(t, a.inner, "--reset", reset.Format(time.RFC3339))
		// The states as a watcher publishes them (the popup reads the pane options; a 60×15
		// client leaves the sessions too small to show their stop to a watcher).
		publish := func(pane, state, note string) {
			a.inner.Tmux(t, "set-option", "-p", "-t", pane, "@cac_state", state, ";",
				"set-option", "-p", "-t", pane, "@cac_reset", reset.Format(time.RFC3339), ";",
				"set-option", "-p", "-t", pane, "@cac_kind", "session", ";",
				"set-option", "-p", "-t", pane, "@cac_zone", "UTC")
			if note != "" {
				a.inner.Tmux(t, "set-option", "-p", "-t", pane, "@cac_note", note)
			}
		}
		publish(held, "held", "a draft is in the input box; it is left alone (resume by hand when ready)")
		publish(waiting, "waiting", "")
		a.inner.Tmux(t, "set-option", "-p", "-t", waiting, "@cac_due", reset.Add(time.Minute).Format(time.RFC3339))
		screen := a.popup(t)
		screen = a.screen(t, "held")
		for _, want := range []string{"waiting", "held", "no watcher runs", "enter jump"} {
			if !strings.Contains(screen, want) {
				t.Errorf("%dx%d popup lacks %q:\n%s", size[0], size[1], want, screen)
			}
		}
		for _, l := range strings.Split(screen, "\n") {
			if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > size[0] {
				t.Errorf("%dx%d popup line %q is %d wide", size[0], size[1], l, n)
			}
		}
		// The rows are sorted by due instant (the held one has none): waiting first. j moves
		// to the held pane; Enter jumps there.
		a.key(t, "j")
		a.screen(t, held+" ")
		a.key(t, "Enter")
		tmuxtest.WaitFor(t, 10*time.Second, "the client on the chosen pane", func() bool {
			// list-clients, not display-message -c, which tmux 3.2a refuses with its usage.
			return strings.Contains(a.inner.Tmux(t, "list-clients", "-F", "#{client_name} #{pane_id}"), a.client+" "+held+"\n")
		})
	}
}

// r and s through the popup, without a watcher: r resumes the selected session (one continue
// and Enter), s on the draft's pane marks it skipped; a refused r says why.
func TestPopupResumeAndSkip(t *testing.T) {
	t.Parallel()
	a := attach(t, 120, 30)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	held, heldLog := startClaude(t, a.inner, "--scenario", "draft", "--draft", "my idea", "--reset", reset)
	waiting, log := startClaude(t, a.inner, "--reset", reset, "--limit-until", time.Now().Format(time.RFC3339))
	// The states a watcher published before it ended (r and s look at the panes themselves).
	a.inner.Tmux(t, "set-option", "-p", "-t", held, "@cac_state", "held", ";", "set-option", "-p", "-t", waiting, "@cac_state", "waiting",
		";", "set-option", "-p", "-t", waiting, "@cac_due", reset)
	a.popup(t)
	a.screen(t, waiting+" ") // the first row is selected
	a.key(t, "r")
	wantOneResume(t, log)
	a.screen(t, "resumed: a turn runs") // the outcome, once the action is over
	// Paused panes come first: the held one is now above the resumed one, which keeps the
	// cursor.
	a.key(t, "k")
	a.screen(t, held+" ")
	a.key(t, "r")
	a.screen(t, "refused")
	a.key(t, "s")
	tmuxtest.WaitFor(t, 10*time.Second, "the held pane skipped", func() bool {
		return strings.TrimSpace(a.inner.Tmux(t, "display-message", "-p", "-t", held, "#{@cac_state}")) == "skipped"
	})
	if ins, _, _ := inputs(t, heldLog); len(ins) != 0 {
		t.Errorf("the draft's pane received %q", ins)
	}
	a.key(t, "q")
	tmuxtest.WaitFor(t, 10*time.Second, "the popup closed", func() bool {
		s, _ := a.outer.Client.Capture(t.Context(), "main")
		return !strings.Contains(s, "Claude Code sessions")
	})
}

// BenchmarkPopupOpen is what the popup does before its first frame: the client's name, one
// listing, the Claude panes confirmed through /proc and whether a watcher runs, on a server
// with ten fake Claude Code panes (go test ./cmd/cac-tmux -run '^$' -bench PopupOpen).
func BenchmarkPopupOpen(b *testing.B) {
	s := tmuxtest.Start(b, 120, 30)
	for range 10 {
		s.Tmux(b, "new-window", "-d", bins.claude, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Client.Run(ctx, "display-message", "-p", "#{client_name}"); err != nil {
			b.Fatal(err)
		}
		rows, err := paneRows(ctx, s.Client, true, io.Discard)
		if err != nil || len(rows) == 0 {
			b.Fatalf("rows %d, %v", len(rows), err)
		}
		watcherText(ctx, s.Client)
	}
}
