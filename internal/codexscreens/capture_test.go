//go:build codexscreens

package codexscreens

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// daemonZone is the zone of the TUI that starts Codex's app-server daemon, so the zone every
// printed reset is in; tokyo is a second pane's zone joining that daemon.
const (
	daemonZone = "America/New_York"
	tokyo      = "Asia/Tokyo"
)

// capture holds what the scenarios share: the mock, the server, the book and the daemon's zone.
type capture struct {
	m    *mock
	b    *book
	zone *time.Location
	// appeared is when the latest stop of the main pane first showed.
	appeared time.Time
	// reset is the latest stop's expected reset as EXPECT.tsv writes it.
	reset string
	// provenance says how every screen was made, the tmux version included.
	provenance string
}

// TestCapture drives the real Codex through every screen of detector/testdata/codex-screens.
func TestCapture(t *testing.T) {
	if _, err := os.Stat(*prefix + "/bin/codex"); err != nil {
		t.Skipf("no real Codex at %s (run ../shared/tools/codex/real-codex.sh): %v", *prefix, err)
	}
	zone, err := time.LoadLocation(daemonZone)
	if err != nil {
		t.Fatal(err)
	}
	c := &capture{m: startMock(t, "plus"), b: &book{dir: *outDir}, zone: zone}
	s := startServer(t)
	c.provenance = fmt.Sprintf("captured: real Codex 0.171.0 (npm) in tmux %s against shared/tools/codex/mockcodex.py, offline, capture-pane -p -J -e",
		strings.TrimSpace(s.Tmux(t, "display-message", "-p", "#{version}")))
	a := c.start(t, s, "a", 80, daemonZone, true)
	c.composer(t, a)
	w := c.start(t, s, "m", 120, daemonZone, false)
	c.warning(t, w)
	c.firstStop(t, a)
	c.plans(t, a)
	c.tokyo(t, c.start(t, s, "t", 120, tokyo, false))
	c.resets(t, a)
	c.after(t, a)
	c.exit(t, a)
	c.synth(t)
	c.b.write(t)
}

// start opens a session running Codex and waits for its composer (and ~3 s of prewarming).
func (c *capture) start(t *testing.T, s *tmuxtest.Server, name string, width int, zone string, shell bool) pane {
	t.Helper()
	s.NewSession(t, name, width, 36, c.m.codexCommand(zone, shell)...)
	p := pane{s: s, target: name}
	p.waitText(t, "Ask Codex to do anything")
	p.settle(t)
	return p
}

// row is an EXPECT.tsv row for a screen just captured.
func (c *capture) row(file string, limited bool, notes string) expect {
	e := expect{file: file, limited: "no", reset: "none", kind: "none", zone: daemonZone,
		captured: clock.Real.Now(), provenance: c.provenance, notes: notes}
	if limited {
		e.limited, e.reset, e.kind, e.appeared = "yes", c.reset, "usage", c.appeared
	}
	return e
}

// composer: the empty composer's dim placeholder, a typed word, a draft of two lines.
func (c *capture) composer(t *testing.T, a pane) {
	c.b.save(t, a.settle(t), c.row("codex-composer-placeholder-80.txt", false, "fresh session: the composer shows its dim placeholder (SGR 2) \"Ask Codex to do anything\": no draft"))
	a.typeText(t, "hello")
	c.b.save(t, a.settle(t), c.row("codex-composer-draft-80.txt", false, "typed \"hello\", not submitted: a draft"))
	a.key(t, "C-j")
	a.key(t, "-l", "--", "second line")
	a.waitText(t, "second line")
	c.b.save(t, a.settle(t), c.row("codex-composer-draft-multiline-80.txt", false, "draft of two lines (hello, C-j, second line), not submitted"))
	for range len("hello") + len("second line") + 1 {
		a.key(t, "BSpace")
	}
	a.waitText(t, "Ask Codex to do anything")
}

// warning: the "Approaching rate limits" menu before any limit (usage ≥ 90 %), in a session
// of its own (the menu comes once per session).
func (c *capture) warning(t *testing.T, w pane) {
	c.m.set(t, map[string]any{"mode": "ok", "ok_primary_used": 95, "text": "Done."})
	w.submit(t, "list the files")
	w.waitText(t, "Approaching rate limits")
	c.b.save(t, w.settle(t), c.row("codex-menu-warning-no-stop-120.txt", false, "usage at 95 %: the Approaching rate limits menu over a reply, no stop: a warning, not limited, Esc not allowed"))
	w.key(t, "Escape")
	w.waitText(t, "Ask Codex to do anything")
	c.b.save(t, w.settle(t), c.row("codex-warning-after-esc-120.txt", false, "the warning menu closed with Esc: reply and composer, no stop"))
	w.tmux(t, "kill-session", "-t", w.target)
	c.m.set(t, map[string]any{"ok_primary_used": 12})
}

// limit puts the mock into a limit that lifts at reset and returns the reset as EXPECT writes
// it: the minute Codex prints (it cuts the seconds off), in the daemon's zone.
func (c *capture) limit(t *testing.T, reset time.Time, extra map[string]any) {
	t.Helper()
	st := map[string]any{"mode": "limit", "reset": reset.Unix(), "limit_headers": true, "body_extra": map[string]any{}}
	for k, v := range extra {
		st[k] = v
	}
	c.m.set(t, st)
	c.reset = reset.Truncate(time.Minute).In(c.zone).Format(time.RFC3339)
}

// stop submits text and waits for one more stop than there was, checking its printed reset.
func (c *capture) stop(t *testing.T, p pane, text, printed string) {
	t.Helper()
	p.submit(t, text)
	p.wait(t, "a stop below "+text, func(s string) bool { return stopBelow(s, text) })
	c.appeared = clock.Real.Now()
	if printed != "" && !strings.Contains(p.joined(t), printed) {
		t.Fatalf("the stop does not print %q:\n%s", printed, p.plain(t))
	}
}

// menuStop: the first stop of a session lifting after wait, with the menu over it (saved as
// menu), then closed with Esc (saved as closed).
func (c *capture) menuStop(t *testing.T, p pane, wait time.Duration, text string, menu, closed expect) {
	reset := clock.Real.Now().Add(wait)
	c.limit(t, reset, nil)
	c.stop(t, p, text, "try again at "+reset.In(c.zone).Format("3:04 PM")+".")
	p.waitText(t, "Approaching rate limits")
	c.b.save(t, p.settle(t), c.row(menu.file, true, menu.notes))
	p.key(t, "Escape")
	p.waitText(t, "Ask Codex to do anything")
	c.b.save(t, p.settle(t), c.row(closed.file, true, closed.notes))
}

// firstStop: the first stop of the session with the menu over it, Esc, resizes, a draft.
func (c *capture) firstStop(t *testing.T, a pane) {
	c.menuStop(t, a, 2*time.Hour+7*time.Minute, "do more",
		expect{file: "codex-stop-menu-first-80.txt", notes: "first stop of the session (plus): the Approaching rate limits menu opens over it; Esc allowed"},
		expect{file: "codex-stop-after-esc-80.txt", notes: "the menu closed with Esc: the stop is the latest thing, the composer empty (placeholder)"})
	for _, w := range []struct {
		width int
		name  string
	}{{120, "codex-stop-resized-wider-120.txt"}, {60, "codex-stop-resized-narrower-60.txt"}, {200, "codex-stop-resized-200.txt"}} {
		a.resize(t, w.width)
		c.b.save(t, a.settle(t), c.row(w.name, true, fmt.Sprintf("the stop of codex-stop-after-esc-80 after resize-window -x %d: Codex re-wraps it", w.width)))
	}
	a.resize(t, 80)
	a.settle(t)
	a.typeText(t, "wait")
	c.b.save(t, a.settle(t), c.row("codex-stop-with-draft-80.txt", true, "the stop with \"wait\" typed in the composer: still limited, a draft"))
	for range len("wait") {
		a.key(t, "BSpace")
	}
	a.waitText(t, "Ask Codex to do anything")
}

// plans: a stop of each plan's wording, at the widths 60–200 (every one after the first of the
// session: no menu).
func (c *capture) plans(t *testing.T, a pane) {
	plans := []struct {
		plan  string
		width int
	}{{"plus", 80}, {"pro", 120}, {"prolite", 200}, {"team", 60}, {"business", 80}, {"free", 120}, {"go", 200}, {"enterprise", 60}, {"edu", 80}}
	for i, p := range plans {
		a.resize(t, p.width)
		a.settle(t)
		reset := clock.Real.Now().Add(time.Duration(90+7*i) * time.Minute)
		c.limit(t, reset, map[string]any{"plan_type": p.plan})
		c.stop(t, a, "next "+p.plan, reset.In(c.zone).Format("3:04 PM")+".")
		a.waitText(t, "Ask Codex to do anything")
		name := fmt.Sprintf("codex-stop-plan-%s-%d.txt", p.plan, p.width)
		note := fmt.Sprintf("plan_type %s, a later stop of the session (no menu), pane %d wide", p.plan, p.width)
		if i == 0 {
			name, note = "codex-stop-second-80.txt", "a second stop in the same session (plus): no menu; the latest ■ row counts"
		}
		c.b.save(t, a.settle(t), c.row(name, true, note))
	}
	a.resize(t, 80)
	c.m.set(t, map[string]any{"plan_type": "plus"})
}

// tokyo: a pane in Tokyo joining the New York daemon prints the reset in New York time.
func (c *capture) tokyo(t *testing.T, p pane) {
	c.menuStop(t, p, 3*time.Hour+11*time.Minute, "from tokyo",
		expect{file: "codex-stop-menu-tokyo-pane-120.txt", notes: "pane TZ=Asia/Tokyo, daemon TZ=America/New_York: the time printed is the daemon's; first stop of this session: the menu"},
		expect{file: "codex-stop-tokyo-pane-120.txt", notes: "the Tokyo pane after Esc: banner in New York time; the status line's \"resets at\" (24-hour, if shown) is Tokyo's"})
	p.tmux(t, "kill-session", "-t", p.target)
}

// resets: a reset more than a day ahead (a date), and no reset known ("later").
func (c *capture) resets(t *testing.T, a pane) {
	reset := clock.Real.Now().Add(50*time.Hour + 13*time.Minute)
	c.limit(t, reset, nil)
	c.stop(t, a, "far ahead", reset.In(c.zone).Format("3:04 PM")+".")
	a.waitText(t, "Ask Codex to do anything")
	c.b.save(t, a.settle(t), c.row("codex-stop-date-80.txt", true, "reset more than a day ahead: printed with its date (\"Nov 30th, 2026 4:56 AM\" style)"))
	c.limit(t, clock.Real.Now().Add(time.Hour), map[string]any{"limit_headers": false, "body_extra": map[string]any{"resets_at": nil, "resets_in_seconds": nil}})
	c.reset = "unknown"
	c.stop(t, a, "and later", "try again later.")
	a.waitText(t, "Ask Codex to do anything")
	c.b.save(t, a.settle(t), c.row("codex-stop-later-80.txt", true, "no x-codex-* headers and no resets_at: \"or try again later.\", reset not known"))
}

// after: a stop that lifts a minute later, "continue" after its reset (the mock answers ok
// once its clock passes the reset, as the service does): the turn running, then its reply;
// then a reply quoting the wording.
func (c *capture) after(t *testing.T, a pane) {
	reset := clock.Real.Now().Add(65 * time.Second)
	c.limit(t, reset, map[string]any{"auto_ok_after_reset": true, "text": "Resumed."})
	c.stop(t, a, "almost", reset.In(c.zone).Format("3:04 PM")+".")
	a.waitText(t, "Ask Codex to do anything")
	tmuxtest.WaitFor(t, 2*time.Minute, "the reset to pass", func() bool { return clock.Real.Now().After(reset.Add(time.Second)) })
	c.m.set(t, map[string]any{"delay_ms": 25000})
	a.submit(t, "continue")
	a.waitText(t, "esc to interrupt")
	c.b.save(t, a.screen(t), c.row("codex-busy-after-stop-80.txt", false, "\"continue\" after the reset: its turn running below the stop (\"Working\", esc to interrupt): busy, not limited"))
	c.m.set(t, map[string]any{"delay_ms": 0})
	a.waitText(t, "Resumed.")
	a.waitText(t, "Ask Codex to do anything")
	c.b.save(t, a.settle(t), c.row("codex-resumed-after-stop-80.txt", false, "\"continue\" after the reset answered below the stop: resumed, not limited"))
	c.m.set(t, map[string]any{"mode": "ok"})
	quote := "The banner said: ■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 3:00 PM."
	c.m.set(t, map[string]any{"text": quote})
	a.submit(t, "what did the banner say")
	a.waitText(t, "The banner said")
	a.waitText(t, "Ask Codex to do anything")
	c.b.save(t, a.settle(t), c.row("codex-reply-quotes-limit-80.txt", false, "the agent's reply (• …) quotes the whole stop, ■ included: never a stop"))
}

// exit: /quit leaves Codex's alternate screen for the shell.
func (c *capture) exit(t *testing.T, a pane) {
	a.submit(t, "/quit")
	a.waitText(t, "me@devbox:~/w$")
	c.b.save(t, a.settle(t), c.row("codex-exited-shell-80.txt", false, "after /quit: Codex's alternate screen is gone, the shell's prompt below its goodbye: exited"))
}

// startServer starts the private tmux server (tmuxtest: never the user's) the sessions run in.
func startServer(t *testing.T) *tmuxtest.Server {
	t.Helper()
	return tmuxtest.Start(t, 80, 36)
}
