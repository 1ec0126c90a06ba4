package demo

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/demo/simclaude"
)

func TestNewPlan(t *testing.T) {
	for _, tc := range []struct{ now, reset string }{
		{"22:41:00", "22:42:00"}, // 60 s ahead
		{"22:41:14", "22:42:00"}, // 46 s
		{"22:41:15", "22:42:00"}, // exactly 45 s
		{"22:41:16", "22:43:00"}, // 44 s would be too soon: 104 s
		{"23:59:30", "00:01:00"},
	} {
		now, _ := time.Parse(time.TimeOnly, tc.now)
		p := newPlan(now)
		if got := p.reset.Format(time.TimeOnly); got != tc.reset {
			t.Errorf("newPlan(%s).reset = %s, want %s", tc.now, got, tc.reset)
		}
		if d := p.reset.Sub(now); d < lead || d >= lead+time.Minute {
			t.Errorf("newPlan(%s): reset %s ahead, want [%s, %s)", tc.now, d, lead, lead+time.Minute)
		}
		if !p.fire.Equal(p.reset.Add(fireAfter)) || !p.deadline().After(p.fire) {
			t.Errorf("newPlan(%s): fire %s, deadline %s", tc.now, p.fire, p.deadline())
		}
	}
}

// script drives a judge through a demo: at is seconds after the start.
type script struct {
	t    *testing.T
	j    *judge
	p    plan
	told []string
}

func newScript(t *testing.T) *script {
	start := time.Date(2026, 11, 20, 22, 41, 30, 0, time.UTC)
	p := newPlan(start)
	return &script{t: t, j: newJudge(p, sessions), p: p}
}

func (s *script) watched(key, state string) *script {
	due := time.Time{}
	if state == "waiting" {
		due = s.p.reset.Add(margin)
	}
	note := ""
	if state == "held" {
		note = "a draft is in the input box; left alone until you resume by hand or send a prompt"
	}
	s.j.Watched(key, state, note, due)
	return s
}

func (s *script) sim(key string, states ...string) *script {
	for _, st := range states {
		s.j.Logged(key, simclaude.Entry{State: st})
	}
	return s
}

func (s *script) read(key string, reads ...string) *script {
	for _, r := range reads {
		s.j.Logged(key, simclaude.Entry{At: s.p.reset, Read: r})
	}
	return s
}

// step runs the judge at the reset plus after and keeps the events' texts.
func (s *script) step(after time.Duration) *script {
	for _, e := range s.j.Step(s.p.reset.Add(after)) {
		who := "demo"
		if e.Key != "" {
			who = label(e.Key)
		}
		s.told = append(s.told, who+": "+e.Text)
	}
	return s
}

// seen is every session stopped and seen by the watcher, before the reset.
func (s *script) seen() *script {
	s.sim("a", "plain").sim("b", "menu").sim("c", "armed").sim("d", "draft")
	return s.watched("a", "waiting").watched("b", "waiting").watched("c", "native").watched("d", "held").step(-time.Minute)
}

// cycle is the whole cycle going right, up to the native auto-continue firing.
func (s *script) cycle() *script {
	s.seen()
	s.read("a", "continue", "\r").sim("a", "resumed").watched("a", "verifying").step(6 * time.Second)
	s.read("b", "3").sim("b", "menu-stopped").watched("b", "resuming").step(7 * time.Second)
	s.read("b", "continue", "\r").sim("b", "resumed").watched("b", "verifying").watched("a", "").step(8 * time.Second)
	return s.watched("b", "").step(10 * time.Second)
}

func TestJudgeCompleteCycle(t *testing.T) {
	s := newScript(t).cycle()
	if s.j.Complete() || s.j.Err() != nil {
		t.Fatalf("complete %v, err %v before the native one fired; want neither", s.j.Complete(), s.j.Err())
	}
	if done, all := s.j.Progress(); done != 2 || all != 4 {
		t.Errorf("Progress = %d of %d, want 2 of 4 (the draft is through with the cycle only)", done, all)
	}
	s.sim("c", "native-fired").step(15*time.Second).watched("c", "").step(16 * time.Second)
	if !s.j.Complete() || s.j.Err() != nil {
		t.Fatalf("complete %v, err %v; want complete\n%s", s.j.Complete(), s.j.Err(), strings.Join(s.told, "\n"))
	}
	want := []string{
		"(a) plain: seen: waiting for the reset; resume due 22:43:05",
		"(b) menu: seen: the options menu is open, focus on row 1, Stop is row 3; resume due 22:43:05",
		"(c) native: seen: Claude Code's own auto-continue is armed; the watcher sends nothing",
		"(d) draft: held: a draft is in the input box; left alone until you resume by hand or send a prompt",
		`(a) plain: resumed: received "continue", "\r" (message, then Enter)`,
		`(b) menu: the menu's Stop row pressed: received "3", the menu closed`,
		"(a) plain: the watcher sees it running again",
		`(b) menu: resumed: received "continue", "\r" (message, then Enter)`,
		"(b) menu: the watcher sees it running again",
		"(c) native: Claude Code continued by itself after the reset (no key received)",
		"(c) native: the watcher sees it running again",
		"(d) draft: untouched after the reset: the draft is still in the box, no key received",
		"demo: cycle complete in 1m46s: 2 sessions resumed, 1 continued by itself, 1 draft left alone",
	}
	if got := strings.Join(s.told, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("timeline:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if s.step(20 * time.Second); len(s.told) != len(want) {
		t.Errorf("events after the end: %q", s.told[len(want):])
	}
}

func TestJudgeFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(s *script)
		want string
	}{
		{"a key to the draft pane", func(s *script) { s.read("d", "c").step(6 * time.Second) },
			`(d) draft: received "c", expected nothing`},
		{"the native pane typed into", func(s *script) {
			s.read("c", "continue").sim("c", "native-cancelled").step(6 * time.Second)
		}, "(c) native: a key cancelled Claude Code's own auto-continue (simulator state native-cancelled)"},
		{"a paid menu row", func(s *script) { s.read("b", "1").sim("b", "harm").step(6 * time.Second) },
			"(b) menu: a paid option of the menu was chosen (simulator state harm)"},
		{"Enter in the menu", func(s *script) { s.read("b", "\r").step(6 * time.Second) },
			`(b) menu: received "\r", expected "3", "continue", "\r"`},
		{"continue before the reset", func(s *script) {
			s.read("a", "continue", "\r").sim("a", "limited-again").step(-10 * time.Second)
		}, "(a) plain: a prompt went out before the reset and hit the limit again"},
		{"a pane not resumed", func(s *script) {
			s.read("b", "3").sim("b", "menu-stopped").watched("b", "held").step(time.Minute).step(s.p.deadline().Sub(s.p.reset) + time.Second)
		}, "the cycle did not complete by 22:44:15: (a) plain: not resumed"},
		{"the watcher gone", func(s *script) { s.j.Gone("", "its pane shows: panic"); s.step(time.Second) },
			"the watcher is gone: its pane shows: panic"},
		{"a session's pane closed", func(s *script) { s.j.Gone("a", "its pane was closed"); s.step(time.Second) },
			"(a) plain: the simulated Claude Code is gone: its pane was closed"},
		{"the watcher gave up", func(s *script) { s.watched("a", "failed").step(time.Minute) },
			"(a) plain: the watcher gave up on it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScript(t).seen()
			tc.do(s)
			if err := s.j.Err(); err == nil || !strings.Contains(err.Error(), tc.want) || s.j.Complete() {
				t.Fatalf("err = %v, complete %v; want an error containing %q", err, s.j.Complete(), tc.want)
			}
			if last := s.told[len(s.told)-1]; !strings.Contains(last, "FAILED: ") {
				t.Errorf("last event %q, want the failure", last)
			}
		})
	}
}

func TestEventFormat(t *testing.T) {
	start := time.Date(2026, 11, 20, 22, 41, 30, 0, time.UTC)
	for _, tc := range []struct {
		e    event
		want string
	}{
		{event{At: start, Text: "go"}, "22:41:30     +0s  demo        go"},
		{event{At: start.Add(95 * time.Second), Key: "b", Text: "resumed"}, "22:43:05  +1m35s  (b) menu    resumed"},
	} {
		if got := tc.e.Format(start, label); got != tc.want {
			t.Errorf("Format = %q, want %q", got, tc.want)
		}
	}
}

// newCodexScript is newScript with the simulated Codex (Options.Codex).
func newCodexScript(t *testing.T) *script {
	s := newScript(t)
	s.j = newJudge(s.p, append(append([]session(nil), sessions...), codexSession))
	return s
}

// TestJudgeCodex: with Codex, the cycle is complete once its menu was closed by Esc alone and
// it resumed with the message and Enter; a digit or Enter in its menu, or Esc in Claude
// Code's menu, is a failure.
func TestJudgeCodex(t *testing.T) {
	s := newCodexScript(t).cycle()
	s.sim("e", "stop").watched("e", "waiting").step(11 * time.Second)
	s.read("e", "\x1b").sim("e", "menu-escaped").step(12 * time.Second)
	s.read("e", "continue", "\r").sim("e", "resumed").watched("e", "verifying").step(13 * time.Second)
	s.watched("e", "").sim("c", "native-fired").step(15*time.Second).watched("c", "").step(16 * time.Second)
	if !s.j.Complete() || s.j.Err() != nil {
		t.Fatalf("complete %v, err %v; want complete\n%s", s.j.Complete(), s.j.Err(), strings.Join(s.told, "\n"))
	}
	for _, want := range []string{
		"(e) codex: seen: Codex's rate-limit menu is open over the stop; Esc alone may close it; resume due 22:43:05",
		`(e) codex: the menu closed by Esc: received "\x1b", the composer empty`,
		`(e) codex: resumed: received "continue", "\r" (message, then Enter)`,
		"(e) codex: the watcher sees it running again",
		"demo: cycle complete in 1m46s: 2 sessions resumed, 1 continued by itself, 1 draft left alone, Codex resumed after Esc closed its menu",
	} {
		if !slices.Contains(s.told, want) {
			t.Errorf("the timeline has no %q:\n%s", want, strings.Join(s.told, "\n"))
		}
	}
	for _, tc := range []struct {
		name string
		do   func(s *script)
		want string
	}{
		{"a digit in Codex's menu", func(s *script) { s.read("e", "1").sim("e", "model-switched", "harm").step(6 * time.Second) },
			"(e) codex: a key in Codex's rate-limit menu switched the user's model (simulator state model-switched)"},
		{"Enter in Codex's menu", func(s *script) { s.read("e", "\r").step(6 * time.Second) },
			`(e) codex: received "\r", expected "\x1b", "continue", "\r"`},
		{"Esc in Claude Code's menu", func(s *script) { s.read("b", "\x1b").sim("b", "menu-escaped").step(6 * time.Second) },
			"(b) menu: the menu got an Escape (simulator state menu-escaped)"},
		{"Codex not resumed", func(s *script) {
			s.watched("e", "waiting").step(s.p.deadline().Sub(s.p.reset) + time.Second)
		}, "(e) codex: not its menu closed by Esc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newCodexScript(t).seen()
			tc.do(s)
			if err := s.j.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want an error containing %q", err, tc.want)
			}
		})
	}
}
