//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// The Codex cases: each runs its own mock of Codex's backend, tmux server, Codex and watcher,
// so they run side by side (make e2e-codex: -parallel 5). A case stops Codex at a usage limit
// that lifts about a minute later on the real clock and reads what reached the backend from
// the mock's request log.

// codexMessage is the watcher's --message, told apart from anything else in the mock's log.
const codexMessage = "carry on from e2e"

// codexLead is how far after the stop an exact reset lies (the rollout gives it to the second).
const codexLead = 65 * time.Second

// A stop resumed once after its reset, on the same model, through the npm launcher (the
// pane's command is node) and the native binary run directly. At its first usage poll after
// the reset Codex 0.171.0 replaces the "Approaching rate limits" menu by itself with "You're
// no longer close to your usage limit. Dismissing in 5 seconds…" over a "› 1. Dismiss" row,
// which is no draft. The watcher presses no key in a menu but Esc (never a digit, never
// Enter: the model of the resumed request is the stopped one's, the footer still shows it,
// config.toml is untouched), types its message after the reset, and it reaches the backend
// exactly once.
func TestCodexStopResumed(t *testing.T) {
	t.Parallel()
	for _, how := range []struct {
		name    string
		native  bool
		command string
	}{{"npm launcher", false, "node"}, {"native binary", true, "codex"}} {
		t.Run(how.name, func(t *testing.T) {
			t.Parallel()
			tl := needCodex(t)
			m := startCodexMock(t, tl)
			c := startCodex(t, tl, m, codexHow{native: how.native, tz: "Europe/Berlin"})
			if got := strings.TrimSpace(c.srv.Tmux(t, "display-message", "-p", "-t", c.pane, "#{pane_current_command}")); got != how.command {
				t.Fatalf("the pane's command is %q, want %q", got, how.command)
			}
			cfg := codexConfig(t, m)
			w := startWatch(t, tl.cac, c, "--message", codexMessage)
			reset := time.Now().Add(codexLead).Truncate(time.Second)
			model := codexStopAt(t, m, c, reset, true)
			if waiting := w.waitLog(t, 30*time.Second, c.pane, "waiting"); !sameInstant(waiting["reset"], reset) {
				t.Errorf("the watcher waits for the reset %v (%v), want %s to the second", waiting["reset"], waiting["reset_source"], reset.Format(time.RFC3339))
			}

			codexResumed(t, m, c, w, reset, model, true)
			if got := codexConfig(t, m); got != cfg {
				t.Errorf("Codex's config.toml changed (a menu row was chosen):\n%s", got)
			}
		})
	}
}

// A daemon started from another zone: the first Codex (which starts the app-server daemon)
// runs in New York, the pane under test joins that daemon from Tokyo, the watcher runs in
// Kolkata. The mock sends no rate-limit headers, so the rollout has no resets_at and the reset
// is only the printed time, in the daemon's zone (New York); Codex opens no menu then. The
// resume reaches the backend after the reset plus the margin, and within a few seconds of it.
func TestCodexDaemonInAnotherZone(t *testing.T) {
	t.Parallel()
	tl := needCodex(t)
	m := startCodexMock(t, tl)
	ny := startCodex(t, tl, m, codexHow{native: true, tz: "America/New_York"})
	daemon := codexDaemonPid(t, m)
	c := startCodexBeside(t, tl, m, ny, "tokyo", codexHow{native: true, tz: "Asia/Tokyo"})
	if got := codexDaemonPid(t, m); got != daemon {
		t.Fatalf("the Tokyo Codex started a daemon of its own (pid %d), want it to join New York's (pid %d)", got, daemon)
	}
	w := startWatchEnv(t, tl.cac, c, []string{"TZ=Asia/Kolkata"}, "--message", codexMessage)
	// Codex prints the reset to the minute: a whole minute makes the printed time the reset.
	reset := time.Now().Add(time.Minute).Truncate(time.Minute).Add(time.Minute)
	model := codexStopAt(t, m, c, reset, false)
	printed := "try again at " + reset.In(zoneOf(t, "America/New_York")).Format("3:04 PM")
	if screen := c.capture(t); !strings.Contains(screen, printed) {
		t.Fatalf("the stop does not say %q (the reset in the daemon's zone):\n%s", printed, screen)
	}
	t.Logf("the stop says %q; Tokyo's is %s, the watcher's Kolkata %s", printed, reset.In(zoneOf(t, "Asia/Tokyo")).Format("15:04"), reset.In(zoneOf(t, "Asia/Kolkata")).Format("15:04"))
	waiting := w.waitLog(t, 30*time.Second, c.pane, "waiting")
	t.Logf("waiting for the reset %v (%v)", waiting["reset"], waiting["reset_source"])
	if !sameInstant(waiting["reset"], reset) {
		t.Errorf("the watcher waits for the reset %v, want %s", waiting["reset"], reset.Format(time.RFC3339))
	}

	r := codexResumed(t, m, c, w, reset, model, false)
	if late := r.at().Sub(reset); late < margin || late > margin+10*time.Second {
		t.Errorf("the message reached the backend %s after the reset, want from the margin %s to %s after it", late, margin, margin+10*time.Second)
	}
}

// A draft never touched: after the stop a person closes the menu (Esc) and types a draft
// without Enter. The watcher holds the pane (@cac_state held) and sends no key: past the
// reset plus the margin the draft is still in the composer and the backend saw nothing.
func TestCodexDraftHeld(t *testing.T) {
	t.Parallel()
	const draft = "half written idea"
	tl := needCodex(t)
	m := startCodexMock(t, tl)
	c := startCodex(t, tl, m, codexHow{tz: "Europe/Berlin"})
	w := startWatch(t, tl.cac, c, "--message", codexMessage)
	reset := time.Now().Add(codexLead).Truncate(time.Second)
	codexStopAt(t, m, c, reset, true)
	w.waitLog(t, 30*time.Second, c.pane, "waiting")
	c.key(t, "Escape")
	tmuxtest.WaitFor(t, 30*time.Second, "the menu closed and the composer empty", func() bool {
		d, ok := composer(c.styled(t))
		return ok && d == ""
	})
	c.typeDraft(t, draft)
	stopped := len(m.requests(t))

	held := w.waitLog(t, 30*time.Second, c.pane, "held")
	t.Logf("held: %v", held["note"])
	if got := c.paneOption(t, "@cac_state"); got != "held" {
		t.Errorf("@cac_state = %q, want held", got)
	}
	until := reset.Add(margin + 20*time.Second)
	t.Logf("held; waiting until %s (the reset plus the margin plus 20 s) for any request", until.Format(time.TimeOnly))
	codexQuiet(t, m, c, stopped, time.Until(until))
	if got := w.keys(t, c.pane); len(got) != 0 {
		t.Errorf("the watcher sent %q to a pane with a draft", got)
	}
	if d, ok := composer(c.styled(t)); !ok || d != draft {
		t.Errorf("the composer holds %q (shown %v), want the draft %q:\n%s", d, ok, draft, c.capture(t))
	}
	if got := c.paneOption(t, "@cac_state"); got != "held" {
		t.Errorf("@cac_state = %q after the reset, want held", got)
	}
}

// The menu never answered: the watcher leaves it open and the pane waiting (list --json and
// @cac_state) until the due instant and presses no key before it, then closes it with Esc
// alone and resumes. Codex 0.171.0 replaces the menu by itself once its usage poll (every
// ~5 s) sees the limit lifted; here the mock's usage endpoint fails from the stop on (a poll
// that has not seen the reset yet), so the menu is still open at the due instant.
func TestCodexMenuOpenUntilDue(t *testing.T) {
	t.Parallel()
	tl := needCodex(t)
	m := startCodexMock(t, tl)
	c := startCodex(t, tl, m, codexHow{tz: "Europe/Berlin"})
	w := startWatch(t, tl.cac, c, "--message", codexMessage)
	reset := time.Now().Add(codexLead).Truncate(time.Second)
	model := codexStopAt(t, m, c, reset, true)
	m.set(t, map[string]any{"usage_status": 503})
	w.waitLog(t, 30*time.Second, c.pane, "waiting")

	row := listJSON(t, tl.cac, c)
	if row["state"] != "waiting" || !sameInstant(row["reset"], reset) {
		t.Errorf("list --json = %v, want waiting for the reset %s", row, reset.Format(time.RFC3339))
	}
	due, err := time.Parse(time.RFC3339, fmt.Sprint(row["due"]))
	if err != nil || due.Before(reset) {
		t.Fatalf("list --json's due %v is not an instant from the reset %s on: %v", row["due"], reset.Format(time.RFC3339), err)
	}
	t.Logf("list --json: waiting, due %s (reset %s, source %v)", due.Format(time.TimeOnly), reset.Format(time.TimeOnly), row["reset_source"])
	for time.Now().Before(due.Add(-time.Second)) {
		if got := c.paneOption(t, "@cac_state"); got != "waiting" {
			t.Fatalf("@cac_state = %q before the due instant %s, want waiting", got, due.Format(time.TimeOnly))
		}
		if screen := c.capture(t); !strings.Contains(screen, codexMenu) {
			t.Fatalf("the menu closed before the due instant %s:\n%s", due.Format(time.TimeOnly), screen)
		}
		if got := w.keys(t, c.pane); len(got) != 0 {
			t.Fatalf("the watcher sent %q before the due instant %s", got, due.Format(time.TimeOnly))
		}
		time.Sleep(250 * time.Millisecond)
	}

	codexResumed(t, m, c, w, reset, model, true)
	if keys := w.keys(t, c.pane); len(keys) != 2 || !strings.HasPrefix(keys[0], "press Esc") {
		t.Errorf("the watcher sent %q, want Esc for the menu open at the due instant, then the message", keys)
	}
	for _, l := range w.lines(t) {
		msg := fmt.Sprint(l["message"])
		if l["pane"] != c.pane || !strings.HasPrefix(msg, "press ") && !strings.HasPrefix(msg, "type ") {
			continue
		}
		if at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(l["time"])); err != nil || at.Before(due) {
			t.Errorf("the watcher sent %q at %v, want from the due instant %s on (%v)", msg, l["time"], due.Format(time.StampMilli), err)
		}
	}
}

// codexResumed waits for the watcher's message to reach the backend and checks it: after the
// reset, answered ok, on the stopped prompt's model, exactly once and nothing else typed; the
// reply on screen, the watcher logging resumed; its keys Esc for the menu (when menu), then
// the message and Enter; the footer still showing the stopped model. It returns the request.
func codexResumed(t *testing.T, m *codexMock, c *session, w *watch, reset time.Time, model string, menu bool) codexRequest {
	t.Helper()
	r := waitCodexRequest(t, m, c, w, codexMessage, time.Until(reset)+2*time.Minute)
	t.Logf("the message reached the backend %s after the reset", r.at().Sub(reset).Round(time.Millisecond))
	if r.at().Before(reset) {
		t.Errorf("the message reached the backend at %s, before the reset %s", r.at().Format(time.StampMilli), reset.Format(time.StampMilli))
	}
	if r.Answer != "ok" || r.Model != model {
		t.Errorf("the message was answered %q on model %q, want ok on %q (the stopped prompt's)", r.Answer, r.Model, model)
	}
	c.waitText(t, time.Minute, codexReply)
	w.waitLog(t, time.Minute, c.pane, "resumed")
	codexQuiet(t, m, c, len(m.requests(t)), 10*time.Second)
	if n := len(m.typed(t, codexMessage)); n != 1 {
		t.Errorf("the message reached the backend %d times, want once", n)
	}
	for _, p := range m.prompts(t) {
		if p.Text != codexMessage && p.Text != "do more" {
			t.Errorf("the backend got %q (answer %s): no other text may be typed", p.Text, p.Answer)
		}
	}
	// At most one Esc before the message: Codex 0.171.0 replaces the menu by itself at its
	// first usage poll after the reset (within ~5 s) with a notice that dismisses itself 5 s
	// later, so whether the menu is still there at the due instant is a race.
	keys, want := w.keys(t, c.pane), fmt.Sprintf("type %q and Enter", codexMessage)
	t.Logf("the watcher's keys: %q", keys)
	esc := len(keys) == 2 && strings.HasPrefix(keys[0], "press Esc")
	if len(keys) == 0 || keys[len(keys)-1] != want || len(keys) > 1 && !(menu && esc) {
		t.Errorf("the watcher sent %q, want %q after at most one Esc (only when the menu was open)", keys, want)
	}
	screen := c.capture(t)
	if strings.Contains(screen, codexMenu) {
		t.Errorf("the menu is still open:\n%s", screen)
	}
	if got := footerModel(screen, filepath.Join(m.dir, "w")); !strings.EqualFold(got, model) {
		t.Errorf("the footer shows the model %q, want %q (a model switch):\n%s", got, model, screen)
	}
	return r
}

// waitCodexRequest waits for a prompt whose text is text; it fails at once when the watcher
// gives c's pane up (held or failed).
func waitCodexRequest(t *testing.T, m *codexMock, c *session, w *watch, text string, d time.Duration) codexRequest {
	t.Helper()
	for end := deadline(d); ; time.Sleep(250 * time.Millisecond) {
		if rs := m.typed(t, text); len(rs) > 0 {
			return rs[0]
		}
		for _, l := range w.lines(t) {
			if l["pane"] == c.pane && (l["message"] == "held" || l["message"] == "failed") {
				t.Fatalf("e2e: the watcher %s the pane (%v) at %v; the screen now:\n%s", l["message"], l["note"], l["time"], c.capture(t))
			}
		}
		if time.Now().After(end) {
			t.Fatalf("e2e: waited %s for %q to reach Codex's backend; it got %+v", tmuxtest.Scale(d), text, m.prompts(t))
		}
	}
}

// codexQuiet checks for d that no model request beyond the first n reaches the mock.
// Waiting out the whole window is the point: it proves nothing was sent.
func codexQuiet(t *testing.T, m *codexMock, c *session, n int, d time.Duration) {
	t.Helper()
	stayQuiet(t, c, n, d, "Codex's backend", func() []codexRequest { return m.requests(t) })
}

// footerModel is the model Codex's footer names ("GPT-6.2-Sol default · DIR · …"), "" when
// no footer names the work directory dir.
func footerModel(screen, dir string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, " · "+dir) {
			if f := strings.Fields(l); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// codexConfig returns Codex's config.toml (the menu's "never show again" row writes there).
func codexConfig(t *testing.T, m *codexMock) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(m.home(), ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// codexDaemonPid returns the pid of the app-server daemon of m's CODEX_HOME, from its pid file.
func codexDaemonPid(t *testing.T, m *codexMock) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(m.home(), ".codex", "app-server-daemon", "daemon.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Pid int `json:"pid"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Pid == 0 {
		t.Fatalf("e2e: Codex's daemon.pid %q: %v", b, err)
	}
	return f.Pid
}

// zoneOf loads the IANA zone name.
func zoneOf(t *testing.T, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// composer on lines captured with capture-pane -e from Codex 0.171.0: the dim placeholder is
// no draft, a typed draft is, and the menu's focused row is no composer.
func TestCodexComposer(t *testing.T) {
	const history = "\x1b[1;2m› \x1b[0m\x1b[38;5;255m\x1b[48;5;238mdo more\n"
	for _, tc := range []struct {
		name, screen, draft string
		ok                  bool
	}{
		{"placeholder", history + "\x1b[1m›\x1b[0m\x1b[39m\x1b[49m \x1b[2mAsk Codex to do anything\n", "", true},
		{"draft", history + "\x1b[1m›\x1b[0m\x1b[39m\x1b[49m half written idea\n", "half written idea", true},
		{"menu", history + "  \x1b[1m" + codexMenu + "\n\x1b[1;7m› 1. Switch to gpt-6-luna   \x1b[0;7m\x1b[39m\x1b[49mFast\x1b[1m\n", "", false},
		{"a coloured draft", "\x1b[1m›\x1b[0m \x1b[38;5;2mgreen\n", "green", true},
	} {
		if d, ok := composer(tc.screen); d != tc.draft || ok != tc.ok {
			t.Errorf("%s: composer = %q, %v, want %q, %v", tc.name, d, ok, tc.draft, tc.ok)
		}
	}
}
