//go:build e2e

package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// Each case runs its own mock API, tmux server, Claude Code and watcher, so the cases run
// side by side. A case waits for a reset on the real clock: the next whole minute at least
// lead away, since Claude Code prints the reset to the minute and the watcher waits for the
// printed reset plus its margin.
const lead = 60 * time.Second

// nativePrompt is the start of the prompt Claude Code's own auto-continue sends.
const nativePrompt = "Your claude.ai usage limit has reset."

// upgradeFlow is text of an upgrade, purchase or login screen: never below the stop once the
// options menu is closed.
var upgradeFlow = []string{"Upgrade", "upgrade", "usage credits", "Add funds", "Switch to", "Login", "claude.ai/"}

// Plain stop with the options menu (autoContinueAtUsageLimit false): the watcher presses the
// Stop row's digit, then types continue once, after the reset plus the margin.
func TestMenuStopResumed(t *testing.T) {
	t.Parallel()
	tl := need(t)
	m := startMock(t, tl.mock)
	c := startClaude(t, tl.claude, m, settings{})
	reset := c.stopAndLimit(t, m, lead)
	menu := c.waitText(t, 30*time.Second, "What do you want to do?")
	digit := stopDigit(t, menu)
	w := startWatch(t, tl.cac, c)

	resumed(t, m, c, w, reset)
	want := []string{"press " + digit + " (the options menu's Stop row)", `type "continue" and Enter`}
	if got := w.keys(t, c.pane); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the watcher sent %q, want %q", got, want)
	}
	screen := c.capture(t)
	if strings.Contains(screen, "What do you want to do?") {
		t.Errorf("the options menu is still open:\n%s", screen)
	}
	for _, s := range upgradeFlow {
		if strings.Contains(below(screen), s) {
			t.Errorf("an upgrade flow (%q) below the stop:\n%s", s, screen)
		}
	}
}

// An exact reset: the limit lifts at a non-minute instant, which the screen prints
// cut to the minute and Claude Code's transcript records to the second. With a printed-reset
// margin of 2 minutes, only the transcript can make the watcher act a few seconds after the
// exact instant: continue reaches the API after that instant and never before, and
// `list --json` shows the reset to the second, from the transcript.
func TestExactResetFromTheTranscript(t *testing.T) {
	t.Parallel()
	tl := need(t)
	m := startMock(t, tl.mock)
	c := startClaude(t, tl.claude, m, settings{})
	reset := time.Now().Add(lead).Truncate(time.Minute).Add(time.Minute + 23*time.Second)
	c.stopAndLimitAt(t, m, reset)
	c.waitText(t, 30*time.Second, "What do you want to do?")
	w := startWatch(t, tl.cac, c, "--margin", "2m")

	waiting := w.waitLog(t, 30*time.Second, c.pane, "waiting")
	if waiting["reset_source"] != "transcript" {
		t.Errorf("waiting with reset_source %v (%v), want transcript", waiting["reset_source"], waiting["reset_how"])
	}
	row := listJSON(t, tl.cac, c)
	if row["reset_source"] != "transcript" || !sameInstant(row["reset"], reset) {
		t.Errorf("list --json = %v, want reset %s to the second from the transcript", row, reset.Format(time.RFC3339))
	}
	r := waitRequest(t, m, "continue", time.Until(reset)+2*time.Minute)
	late := r.at().Sub(reset)
	t.Logf("continue reached the API %s after the exact reset %s", late.Round(time.Millisecond), reset.Format(time.TimeOnly))
	if late < exactMargin || late > exactMargin+15*time.Second {
		t.Errorf("continue reached the API %s after the exact reset, want from %s to %s after it", late, exactMargin, exactMargin+15*time.Second)
	}
	if r.Answer != "ok" {
		t.Errorf("continue was answered %q, want ok (a continue before the reset gets the limit again)", r.Answer)
	}
	c.waitText(t, time.Minute, reply)
	// The screen decides that the session resumed; the transcript's proof is logged when
	// Claude Code wrote its row in time (it did not once, with the tmux tests running beside).
	resumed := w.waitLog(t, time.Minute, c.pane, "resumed")
	t.Logf("resumed: evidence on screen %v, in the transcript %v", resumed["evidence"], resumed["transcript"])
	if resumed["evidence"] != true {
		t.Errorf("resumed without a resumed turn on screen: %v", resumed)
	}
	if n := len(m.typed(t, "continue")); n != 1 {
		t.Errorf("continue reached the API %d times, want once", n)
	}
}

// Vim mode in NORMAL mode (the user pressed Escape after the stop): the watcher presses i,
// sees INSERT, types continue once.
func TestVimNormalModeResumed(t *testing.T) {
	t.Parallel()
	tl := need(t)
	m := startMock(t, tl.mock)
	c := startClaude(t, tl.claude, m, settings{vim: true})
	reset := c.stopAndLimit(t, m, lead)
	c.waitText(t, 30*time.Second, "What do you want to do?")
	c.closeMenu(t)
	c.waitText(t, 30*time.Second, "-- INSERT --")
	c.key(t, "Escape") // INSERT → NORMAL
	c.wait(t, 30*time.Second, "NORMAL mode (no -- INSERT -- in the footer)", func(s string) bool {
		return !strings.Contains(s, "-- INSERT --")
	})
	w := startWatch(t, tl.cac, c)

	resumed(t, m, c, w, reset)
	if got, want := w.keys(t, c.pane), []string{`type "continue" and Enter`}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the watcher sent %q, want %q", got, want)
	}
}

// A draft in the input box: the watcher holds the pane and nothing reaches the API, well past
// the reset plus the margin; the draft stays in the box.
func TestDraftHeld(t *testing.T) {
	t.Parallel()
	const draft = "half written idea"
	m, c, w, reset, stopped := heldDraft(t, draft)
	t.Logf("held; waiting until %s (the reset plus the margin plus 30 s) for any request", reset.Add(margin+30*time.Second).Format(time.TimeOnly))
	quiet(t, m, c, stopped, time.Until(reset.Add(margin+30*time.Second)))
	if got := w.keys(t, c.pane); len(got) != 0 {
		t.Errorf("the watcher sent %q to a pane with a draft", got)
	}
	if screen := c.capture(t); inputLine(screen) != draft {
		t.Errorf("the input box lost the draft %q:\n%s", draft, screen)
	}
}

// The person deletes the draft (to type something else): the pane stays held, with the note
// that a person typed there, and nothing reaches the API well past the reset plus the margin.
func TestClearedDraftStaysHeld(t *testing.T) {
	t.Parallel()
	const draft = "half written idea"
	m, c, w, reset, stopped := heldDraft(t, draft)
	for range draft {
		c.key(t, "BSpace")
	}
	c.wait(t, 10*time.Second, "the input box empty", func(screen string) bool { return inputLine(screen) == "" })
	tmuxtest.WaitFor(t, 30*time.Second, "the watcher's note that a person typed at the pane", func() bool {
		for _, l := range w.lines(t) {
			if l["pane"] == c.pane && strings.Contains(fmt.Sprint(l["note"]), "a person typed here") {
				return true
			}
		}
		return false
	})
	quiet(t, m, c, stopped, time.Until(reset.Add(margin+30*time.Second)))
	if got := w.keys(t, c.pane); len(got) != 0 {
		t.Errorf("the watcher sent %q after the draft was deleted", got)
	}
}

// heldDraft stops a real Claude Code at a limit, closes its options menu, types draft into
// its input box and starts a watcher, which holds the pane for the draft. It returns the
// requests the mock API had received by then (stopped) and the reset.
func heldDraft(t *testing.T, draft string) (m *mock, c *session, w *watch, reset time.Time, stopped int) {
	t.Helper()
	tl := need(t)
	m = startMock(t, tl.mock)
	c = startClaude(t, tl.claude, m, settings{})
	reset = c.stopAndLimit(t, m, lead)
	c.waitText(t, 30*time.Second, "What do you want to do?")
	c.closeMenu(t)
	c.typeText(t, draft)
	stopped = len(m.requests(t))
	w = startWatch(t, tl.cac, c)
	if held := w.waitLog(t, 30*time.Second, c.pane, "held"); !strings.Contains(fmt.Sprint(held["note"]), "draft") {
		t.Errorf("held for %q, want for the draft", held["note"])
	}
	return m, c, w, reset, stopped
}

// Claude Code's own auto-continue armed (the default): the watcher sends nothing, and Claude
// Code's own prompt, never continue, reaches the API after the reset.
func TestNativeAutoContinueLeftAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("e2e: -short: Claude Code's own auto-continue fires up to 90 s after the reset")
	}
	t.Parallel()
	tl := need(t)
	m := startMock(t, tl.mock)
	c := startClaude(t, tl.claude, m, settings{autoContinue: true})
	reset := c.stopAndLimit(t, m, lead)
	c.waitText(t, 30*time.Second, "Esc to cancel")
	w := startWatch(t, tl.cac, c)

	w.waitLog(t, 30*time.Second, c.pane, "native")
	native := waitRequest(t, m, nativePrompt, time.Until(reset)+3*time.Minute)
	t.Logf("Claude Code's own prompt reached the API %s after the reset", native.at().Sub(reset).Round(time.Millisecond))
	if native.at().Before(reset) || native.Answer != "ok" {
		t.Errorf("Claude Code's own prompt at %s answered %q, want after the reset %s and ok", native.at().Format(time.TimeOnly), native.Answer, reset.Format(time.TimeOnly))
	}
	c.waitText(t, time.Minute, reply)
	stopped := len(m.requests(t))
	quiet(t, m, c, stopped, 10*time.Second)
	if got := m.typed(t, "continue"); len(got) != 0 {
		t.Errorf("continue reached the API %d times while Claude Code continued by itself", len(got))
	}
	if got := w.keys(t, c.pane); len(got) != 0 {
		t.Errorf("the watcher sent %q while Claude Code's own auto-continue was armed", got)
	}
}

// resumed waits for the watcher's continue to reach the API and checks it: exactly one, after
// the reset plus the margin, answered ok, the reply on screen, the watcher logging resumed.
func resumed(t *testing.T, m *mock, c *session, w *watch, reset time.Time) {
	t.Helper()
	r := waitRequest(t, m, "continue", time.Until(reset)+2*time.Minute)
	t.Logf("continue reached the API %s after the reset", r.at().Sub(reset).Round(time.Millisecond))
	if due := reset.Add(margin); r.at().Before(due) {
		t.Errorf("continue reached the API at %s, before the reset plus the margin %s", r.at().Format(time.StampMilli), due.Format(time.StampMilli))
	}
	if r.Answer != "ok" {
		t.Errorf("continue was answered %q, want ok", r.Answer)
	}
	c.waitText(t, time.Minute, reply)
	w.waitLog(t, time.Minute, c.pane, "resumed")
	after := len(m.requests(t))
	quiet(t, m, c, after, 10*time.Second)
	if n := len(m.typed(t, "continue")); n != 1 {
		t.Errorf("continue reached the API %d times, want once", n)
	}
	for _, r := range m.requests(t) {
		if r.Tail != "continue" && r.Tail != "do more" {
			t.Errorf("the API got %q (answer %s): no other text may be typed", r.Tail, r.Answer)
		}
	}
}

// waitRequest waits for a message whose last user text starts with text.
func waitRequest(t *testing.T, m *mock, text string, d time.Duration) request {
	t.Helper()
	for end := deadline(d); ; time.Sleep(250 * time.Millisecond) {
		for _, r := range m.requests(t) {
			if strings.HasPrefix(r.Tail, text) {
				return r
			}
		}
		if time.Now().After(end) {
			t.Fatalf("e2e: waited %s for %q to reach the API; it got %+v", tmuxtest.Scale(d), text, m.requests(t))
		}
	}
}

// quiet checks for d that no message beyond the first n reaches the API. Waiting out the
// whole window is the point: it proves nothing was sent.
func quiet(t *testing.T, m *mock, c *session, n int, d time.Duration) {
	t.Helper()
	stayQuiet(t, c, n, d, "the API", func() []request { return m.requests(t) })
}

// stayQuiet checks for d that requests (of what) returns no more than its first n.
func stayQuiet[R any](t *testing.T, c *session, n int, d time.Duration, what string, requests func() []R) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(250 * time.Millisecond) {
		if rs := requests(); len(rs) > n {
			t.Fatalf("e2e: %s got %+v after it should have stayed quiet; the screen:\n%s", what, rs[n:], c.capture(t))
		}
	}
}

// stopDigit reads the digit of the options menu's Stop row.
func stopDigit(t *testing.T, menu string) string {
	t.Helper()
	for _, l := range strings.Split(menu, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "❯"))
		if d, label, ok := strings.Cut(l, ". "); ok && strings.HasPrefix(label, "Stop") {
			if _, err := strconv.Atoi(d); err == nil {
				return d
			}
		}
	}
	t.Fatalf("e2e: no Stop row in the options menu:\n%s", menu)
	return ""
}

// closeMenu closes the options menu with Escape, as a user would, and waits for the empty
// prompt.
func (c *session) closeMenu(t *testing.T) {
	t.Helper()
	c.key(t, "Escape")
	c.wait(t, 30*time.Second, "the options menu to close", func(s string) bool {
		return !strings.Contains(s, "What do you want to do?") && strings.Contains(s, "❯") && inputLine(s) == ""
	})
}
