//go:build linux

package main

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/cac-tmux/cac-tmux/popup"
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
	return a.popupEnv(t, "")
}

// popupEnv is popup with environment variables ("NO_COLOR=1 ") before the command.
func (a *attached) popupEnv(t *testing.T, env string) string {
	t.Helper()
	a.inner.Tmux(t, "bind-key", "C", "display-popup", "-w", "100%", "-h", "100%", "-E", env+bins.cac+" popup -S "+a.inner.Socket)
	a.key(t, "C-b")
	a.key(t, "C")
	return a.screen(t, "Claude Code or Codex sessions")
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
		publish(held, "held", "a draft is in the input box; left alone until you resume by hand or send a prompt")
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

// r and s through the popup, without a watcher: r on a session whose reset has not come asks
// first, and y resumes it (one continue and Enter); s on the draft's pane marks it skipped; a
// refused r says why.
func TestPopupResumeAndSkip(t *testing.T) {
	t.Parallel()
	a := attach(t, 120, 30)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	held, heldLog := startClaude(t, a.inner, "--scenario", "draft", "--draft", "my idea", "--reset", reset)
	waiting, log := startClaude(t, a.inner, "--reset", reset, "--limit-until", time.Now().Format(time.RFC3339))
	// The states a watcher published before it ended (r and s look at the panes themselves).
	a.inner.Tmux(t, "set-option", "-p", "-t", held, "@cac_state", "held", ";", "set-option", "-p", "-t", waiting, "@cac_state", "waiting",
		";", "set-option", "-p", "-t", waiting, "@cac_due", reset, ";", "set-option", "-p", "-t", waiting, "@cac_reset", reset)
	a.popup(t)
	a.screen(t, waiting+" ") // the first row is selected
	a.key(t, "r")
	a.screen(t, "resume now anyway? y/n") // its reset has not come: asked first
	a.key(t, "y")
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
		return !strings.Contains(s, "Claude Code or Codex sessions")
	})
}

// The filter, the preview and the colours on a real client: / and text narrow the rows to the
// matching pane and the header counts them, the preview shows the selected pane's screen (the
// draft in its input box), the held row is red, Esc clears the filter and a second Esc closes
// the popup; opened again under NO_COLOR, the row has no colour nor reverse video.
func TestPopupFilter(t *testing.T) {
	t.Parallel()
	a := attach(t, 120, 30)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	held, _ := startClaude(t, a.inner, "--scenario", "draft", "--draft", "my idea", "--reset", reset)
	waiting, _ := startClaude(t, a.inner, "--reset", reset)
	a.inner.Tmux(t, "set-option", "-p", "-t", held, "@cac_state", "held", ";", "set-option", "-p", "-t", waiting, "@cac_state", "waiting",
		";", "set-option", "-p", "-t", waiting, "@cac_due", reset)
	target := func(pane string) string {
		return strings.TrimSpace(a.inner.Tmux(t, "display-message", "-p", "-t", pane, "#{session_name}:#{window_index}.#{pane_index}"))
	}
	heldAt, waitingAt := target(held), target(waiting)
	a.popup(t)
	a.screen(t, heldAt+" ")
	a.key(t, "/")
	a.screen(t, "/_") // read apart: one read of "/HELD" would be one key
	a.key(t, "HELD")  // whatever the case
	screen := a.screen(t, "1 of 2")
	if !strings.Contains(screen, "/HELD_") || !strings.Contains(screen, heldAt+" ") || strings.Contains(screen, waitingAt) {
		t.Errorf("/HELD: want the filter, %s and not %s:\n%s", heldAt, waitingAt, screen)
	}
	a.screen(t, "── "+held+" "+heldAt)
	a.screen(t, "my idea") // the draft, in the held pane's preview
	// Colours as lipgloss finds the popup's terminal able to show them: none for TERM=screen,
	// which tmux 3.2a gives popups (its default-terminal).
	term := strings.TrimSpace(a.inner.Tmux(t, "show-options", "-gv", "default-terminal"))
	if row := styledRow(a.outer.Tmux(t, "capture-pane", "-p", "-e", "-t", "main"), heldAt+"  held"); strings.Contains(term, "color") &&
		(!slices.Contains(sgr(row), "31") || !slices.Contains(sgr(row), "7")) {
		t.Errorf("the selected held row on %s is not red in reverse video: %q", term, row)
	}
	a.key(t, "Escape")
	tmuxtest.WaitFor(t, 10*time.Second, "the filter cleared", func() bool {
		s, _ := a.outer.Client.Capture(t.Context(), "main")
		return strings.Contains(s, waitingAt+" ") && strings.Contains(s, heldAt+" ") && !strings.Contains(s, "1 of 2")
	})
	a.key(t, "Escape")
	// Closed: its process gone, and its border with it (the screen empties a moment before).
	tmuxtest.WaitFor(t, 10*time.Second, "the popup closed", func() bool {
		s, _ := a.outer.Client.Capture(t.Context(), "main")
		return !strings.Contains(s, "Claude Code or Codex sessions") && !strings.Contains(s, "┌")
	})
	a.popupEnv(t, "NO_COLOR=1 ")
	a.screen(t, heldAt+"  held")
	// tmux itself may colour a popup (next-3.8 draws its text in grey): no red, no reverse.
	if row := styledRow(a.outer.Tmux(t, "capture-pane", "-p", "-e", "-t", "main"), heldAt+"  held"); slices.Contains(sgr(row), "31") ||
		slices.Contains(sgr(row), "7") {
		t.Errorf("the held row under NO_COLOR is red or in reverse video: %q", row)
	}
}

// sgr are the attributes the SGR sequences of a captured line set ("31", "7"), the 256-colour
// and RGB colours (38;5;N, 38;2;R;G;B) as one attribute each.
func sgr(line string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`\x1b\[([0-9;]*)m`).FindAllStringSubmatch(line, -1) {
		p := strings.Split(m[1], ";")
		for i := 0; i < len(p); i++ {
			n := 1
			if (p[i] == "38" || p[i] == "48" || p[i] == "58") && i+1 < len(p) {
				n = map[string]int{"5": 3, "2": 5}[p[i+1]]
			}
			n = max(min(n, len(p)-i), 1)
			out = append(out, strings.Join(p[i:i+n], ";"))
			i += n - 1
		}
	}
	return out
}

// styledRow is the line of a screen captured with its escapes (capture-pane -e) where text is, "" when
// none is.
func styledRow(screen, text string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(ansi.Strip(l), text) {
			return l
		}
	}
	return ""
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
		snap, err := popup.Server{Tmux: s.Client, Finder: newFinder(), Getenv: os.Getenv}.Load(ctx)
		if err != nil || len(snap.Rows) == 0 {
			b.Fatalf("rows %d, %v", len(snap.Rows), err)
		}
	}
}

// Outside a popup (no terminal, outside tmux, in a pane) popup exits 2 at once with the key
// binding to use, never waiting on its input or printing bubbletea's error. The popups of the
// tests above run with $TMUX set and no $TMUX_PANE, as tmux sets them.
func TestPopupOutsideAPopup(t *testing.T) {
	for _, c := range []struct {
		name, tmux, pane string
		tty              bool
		want             string
	}{
		{"no terminal", "/tmp/s,1,0", "", false, "its standard input and output are not a terminal"},
		{"outside tmux", "", "", true, "it runs outside tmux"},
		{"in a pane", "/tmp/s,1,0", "%3", true, "it runs in the pane %3, not in a popup"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TMUX", c.tmux)
			t.Setenv("TMUX_PANE", c.pane)
			var out, errOut strings.Builder
			std := stdio{in: strings.NewReader(""), out: &out, err: &errOut, inTTY: c.tty, outTTY: c.tty}
			code := run([]string{"popup", "-S", t.TempDir() + "/none"}, std)
			want := "cac-tmux: popup: " + c.want + `: run it from a tmux key binding, bind-key C display-popup -E "cac-tmux popup" (the plugin binds prefix + C)` + "\n"
			if code != 2 || errOut.String() != want || out.Len() != 0 {
				t.Errorf("popup: exit %d, stdout %q, stderr %q; want 2, nothing and %q", code, out.String(), errOut.String(), want)
			}
		})
	}
}
