//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The cases of docs/claude-code.md on Claude Code 2.1.332: the continue Claude Code puts
// into the input box itself, a reply or a tool's output that quotes the limit line, and a
// conversation reopened with its old stop redrawn.

// pressToContinue is the dim line Claude Code 2.1.330+ draws under a five-hour stop when it
// put "continue" into the input box itself (docs/claude-code.md, Changes in 2.1.331 and 2.1.332).
const pressToContinue = "Press ⏎ to continue after reset"

// The prefilled continue (docs/claude-code.md, Changes in 2.1.331 and 2.1.332): Claude Code
// put "continue" into the input box itself and says "Press ⏎ to continue after reset"; at the reset it does nothing by itself (measured with
// 2.1.332: the screen stays the same, no request, for minutes). The watcher must press Enter
// alone, after the reset: typing "continue" would make "continuecontinue". Exactly one
// "continue" reaches the API, answered ok, and the session resumes. With menu, the options menu
// opens as well (a Max 5x tier): the watcher presses its Stop row, after which the box holds
// Claude Code's "continue", and then Enter alone.
func TestPrefilledContinueGetsEnterOnly(t *testing.T) {
	t.Parallel()
	for _, menu := range []bool{false, true} {
		name := "no menu"
		if menu {
			name = "after the menu"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl := need(t)
			m := startMock(t, tl.mock)
			c := startClaude(t, tl.claude, m, settings{prefill: true, menu: menu})
			reset := c.stopAndLimit(t, m, lead)
			var digit string
			if menu {
				digit = stopDigit(t, c.waitText(t, 30*time.Second, "What do you want to do?"))
			} else {
				c.wait(t, 30*time.Second, fmt.Sprintf("%q under the stop and continue in the box", pressToContinue), func(s string) bool {
					return strings.Contains(below(s), pressToContinue) && inputLine(s) == "continue"
				})
			}
			t.Logf("the screen after the stop:\n%s", c.capture(t))
			w := startWatch(t, tl.cac, c)

			r := waitRequest(t, m, "continue", time.Until(reset)+2*time.Minute)
			t.Logf("continue reached the API %s after the reset", r.at().Sub(reset).Round(time.Millisecond))
			if r.at().Before(reset) || r.Answer != "ok" {
				t.Errorf("continue reached the API at %s answered %q, want after the reset %s and ok",
					r.at().Format(time.StampMilli), r.Answer, reset.Format(time.StampMilli))
			}
			c.waitText(t, time.Minute, reply)
			w.waitLog(t, time.Minute, c.pane, "resumed")
			quiet(t, m, c, len(m.requests(t)), 10*time.Second)
			if n := len(m.typed(t, "continue")); n != 1 {
				t.Errorf("continue reached the API %d times, want once", n)
			}
			for _, r := range m.requests(t) {
				if r.Tail != "continue" && r.Tail != "do more" {
					t.Errorf("the API got %q (answer %s): only Enter may be pressed into Claude Code's own continue", r.Tail, r.Answer)
				}
			}
			var want []string
			if menu {
				want = append(want, "press "+digit+" (the options menu's Stop row)")
			}
			got := w.keys(t, c.pane)
			if len(got) != len(want)+1 || !strings.HasPrefix(got[len(got)-1], "press Enter") || strings.Join(got[:len(got)-1], "|") != strings.Join(want, "|") {
				t.Errorf("the watcher sent %q, want %q then one \"press Enter (…)\"", got, want)
			}
			if screen := c.capture(t); strings.Contains(screen, "continuecontinue") {
				t.Errorf("continue was typed into Claude Code's own continue:\n%s", screen)
			}
		})
	}
}

// No limit at all: the reply quotes the stop line as its own paragraph, or a tool's output
// (a shell command run with !, which Claude Code draws "  ⎿  " with the no-break space, exactly
// like a stop) prints it, for a reset 2 minutes ahead. No key and no request may follow
// through the quoted reset, the margin and 30 s.
func TestQuotedLimitLineGetsNoKey(t *testing.T) {
	t.Parallel()
	for _, shell := range []bool{false, true} {
		name := "reply"
		if shell {
			name = "shell output"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tl := need(t)
			m := startMock(t, tl.mock)
			c := startClaude(t, tl.claude, m, settings{})
			w := startWatch(t, tl.cac, c)
			at := time.Now().Add(2 * time.Minute).Truncate(time.Minute)
			loc, err := time.LoadLocation(zone)
			if err != nil {
				t.Fatal(err)
			}
			var line string
			if shell {
				// The turn Claude Code runs on the command's output answers nothing, so the
				// quoted line is the last thing drawn but the turn's summary.
				line = "You've hit your 5-hour limit · resets " + clockText(at.In(loc)) + " (" + zone + ") · progress saved"
				m.set(t, map[string]any{"text": ""})
				c.srv.Tmux(t, "send-keys", "-t", c.pane, "-l", "--", "!")
				c.wait(t, 30*time.Second, "the shell mode's input box", func(s string) bool { return !strings.Contains(s, "❯\u00a0") })
				c.srv.Tmux(t, "send-keys", "-t", c.pane, "-l", "--", `printf '%s\n' "`+line+`"`)
				c.waitText(t, 30*time.Second, line+`"`)
				c.key(t, "Enter")
				c.waitText(t, 30*time.Second, "⎿ \u00a0"+line)
			} else {
				line = "You've hit your session limit · resets " + clockText(at.In(loc)) + " (" + zone + ")"
				m.set(t, map[string]any{"text": line})
				c.typeText(t, "say it")
				c.key(t, "Enter")
			}
			// Ended: the turn's summary (✻) below the line, and no "esc to interrupt": ✻ is
			// also one of the spinner's frames ("✻ Thinking…") while the turn runs.
			screen := c.wait(t, time.Minute, "the quoting turn's end", func(s string) bool {
				i := strings.LastIndex(s, line)
				return i >= 0 && strings.Contains(s[i:], "✻") && !strings.Contains(s, "esc to interrupt") && inputLine(s) == ""
			})
			t.Logf("the quoted line %q on screen:\n%s", line, screen)
			n := len(m.requests(t))
			until := at.Add(margin + 30*time.Second)
			t.Logf("waiting until %s (the quoted reset plus the margin plus 30 s) for any request", until.Format(time.TimeOnly))
			quiet(t, m, c, n, time.Until(until))
			if got := w.keys(t, c.pane); len(got) != 0 {
				t.Errorf("the watcher sent %q after a quoted limit line", got)
			}
			if s := c.capture(t); inputLine(s) != "" {
				t.Errorf("the input box holds %q:\n%s", inputLine(s), s)
			}
			t.Logf("the watcher logged %q", w.messages(t, c.pane))
		})
	}
}

// A conversation stopped at a limit about a minute away is quit before the reset and
// reopened with claude -c in the same pane after it: Claude Code redraws the old stop (the
// prompt below it empty, as after a real stop), but nothing may be typed into it for 60 s.
//
// Measured with 2.1.332 (logged by the test): the new process has its own registry entry (a
// new pid, a new startedAt, a new procStart). That entry first names a fresh session id that
// has no transcript, then, about 150 ms later on an idle machine and still after the old stop
// was drawn on a loaded one, the reopened conversation's id: claude -c keeps the session id,
// its transcript file and every old row with its timestamp, so the usage-limit row is older
// than the new startedAt. Only rows without a timestamp (mode, permission-mode, …) are
// appended while the conversation is just shown.
func TestReopenedConversationGetsNoKey(t *testing.T) {
	t.Parallel()
	tl := need(t)
	m := startMock(t, tl.mock)
	c := startClaude(t, tl.claude, m, settings{shell: true})
	w := startWatch(t, tl.cac, c)
	reset := c.stopAndLimit(t, m, 30*time.Second)
	c.waitText(t, 30*time.Second, "What do you want to do?")
	c.closeMenu(t)
	before := entries(t, c.home)
	c.typeText(t, "/exit")
	c.key(t, "Enter")
	c.waitText(t, 30*time.Second, "Resume this session with")

	// The point is the clock: reopen only once the reset plus the margin has passed, so a
	// redrawn stop taken for a live one would be due at once.
	time.Sleep(time.Until(reset.Add(margin + time.Second)))
	c.claude(t, "-c")
	c.wait(t, 30*time.Second, "the old stop redrawn", func(s string) bool { return strings.Contains(s, stopText) && inputLine(s) == "" })
	t.Logf("reopened:\n%s", c.capture(t))
	logRecords(t, c.home, "before the quit", before)
	logRecords(t, c.home, "after claude -c", entries(t, c.home))
	n := len(m.requests(t))
	quiet(t, m, c, n, 60*time.Second)
	logRecords(t, c.home, "60 s later", entries(t, c.home))
	if got := w.keys(t, c.pane); len(got) != 0 {
		t.Errorf("the watcher sent %q to a reopened conversation", got)
	}
	if s := c.capture(t); inputLine(s) != "" {
		t.Errorf("the input box holds %q:\n%s", inputLine(s), s)
	}
	t.Logf("the watcher logged %q", w.messages(t, c.pane))
}

// logRecords logs Claude Code's registry entries es and its transcripts under home: what
// claude -c keeps of the conversation it reopens.
func logRecords(t *testing.T, home, when string, es []map[string]any) {
	t.Helper()
	for _, e := range es {
		t.Logf("%s: registry entry pid %v, session %v, startedAt %s", when, e["pid"], e["sessionId"], time.UnixMilli(int64(num(e["startedAt"]))).Format(time.StampMilli))
	}
	paths, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	for _, p := range paths {
		var n int
		var first, last time.Time
		var limits []string
		for _, r := range transcriptRows(t, p) {
			n++
			if r.Timestamp.IsZero() {
				continue
			}
			if first.IsZero() {
				first = r.Timestamp
			}
			last = r.Timestamp
			if r.Error == "rate_limit" {
				limits = append(limits, fmt.Sprintf("row at %s resetsAt %s", r.Timestamp.Format(time.StampMilli), time.Unix(r.QuotaLimits.ResetsAt, 0).Format(time.TimeOnly)))
			}
		}
		t.Logf("%s: transcript %s: %d rows stamped %s to %s; usage-limit rows %q", when, filepath.Base(p), n,
			first.Format(time.StampMilli), last.Format(time.StampMilli), limits)
	}
}

// clockText is an instant as Claude Code prints a reset's time: "4pm", "4:30pm".
func clockText(at time.Time) string {
	if at.Minute() == 0 {
		return at.Format("3pm")
	}
	return at.Format("3:04pm")
}

// entries returns Claude Code's session registry under home (~/.claude/sessions/*.json).
func entries(t *testing.T, home string) []map[string]any {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(home, ".claude", "sessions", "*.json"))
	var out []map[string]any
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // ended meanwhile
		}
		var e map[string]any
		if json.Unmarshal(b, &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

// row is what logRecords reads of a transcript's row.
type row struct {
	Timestamp   time.Time `json:"timestamp"`
	Error       string    `json:"error"`
	QuotaLimits struct {
		ResetsAt int64 `json:"resetsAt"`
	} `json:"quotaLimits"`
}

// transcriptRows returns the rows of the transcript at path.
func transcriptRows(t *testing.T, path string) []row {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []row
	for line := range bytes.Lines(b) { // rows of tens of KB: no bufio.Scanner
		var r row
		if json.Unmarshal(line, &r) == nil {
			out = append(out, r)
		}
	}
	return out
}
