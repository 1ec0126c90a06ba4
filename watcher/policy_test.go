package watcher_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// [policy]: a weekly stop under "notify" gets no keys, is held and told, until `cac-tmux
// resume`; under "never" it is held without being told; a session stop still resumes; and
// max_wait holds a reset further away than it.
func TestUnitPolicy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		policy  func(p *config.Policy)
		screen  string
		held    bool
		told    bool
		noteHas string
	}{
		{"weekly notify", func(p *config.Policy) { p.Actions[detector.KindWeekly] = config.ActionNotify }, weekly("7:30pm", ""), true, true, `policy.weekly is "notify"; held until ` + "`cac-tmux resume %1`"},
		{"weekly never", func(p *config.Policy) { p.Actions[detector.KindWeekly] = config.ActionNever }, weekly("7:30pm", ""), true, false, `policy.weekly is "never"`},
		{"session under a weekly policy", func(p *config.Policy) { p.Actions[detector.KindWeekly] = config.ActionNever }, stopped("7:30pm", ""), false, false, ""},
		{"max_wait", func(p *config.Policy) { p.MaxWait = 20 * time.Minute }, stopped("7:30pm", ""), true, true, "more than policy.max_wait"},
		{"within max_wait", func(p *config.Policy) { p.MaxWait = time.Hour }, stopped("7:30pm", ""), false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got events
			pol := config.Default().Policy
			tc.policy(&pol)
			r := newRig(t, func(c *watcher.Config) { c.Policy, c.Notify = pol, &got })
			p := r.tmux.add("%1", 100, tc.screen)
			r.at(0)
			r.at(31 * time.Minute)
			row := r.row("%1")
			if !tc.held {
				r.wantKeys(p, "continue", "Enter")
				return
			}
			r.wantKeys(p)
			if row.State != watcher.Held || !strings.Contains(row.Note, tc.noteHas) {
				t.Errorf("row = %+v, want held with %q in the note", row, tc.noteHas)
			}
			if told := len(got) > 0 && got[0].Kind == "held"; told != tc.told {
				t.Errorf("events = %q, want the hold told: %v", got.kinds(), tc.told)
			}
			// cac-tmux resume: the policy does not gate a resume by hand.
			if out, err := r.w.Do(t.Context(), "%1", watcher.ResumeNow); err != nil || !out.Done {
				t.Fatalf("resume: %+v, %v", out, err)
			}
			r.wantKeys(p, "continue", "Enter")
		})
	}
}

// [panes] and @cac_ignore keep the watcher's hands off a pane, and clear what it published
// there; @cac_message replaces the message of one pane; a bad one is not typed.
func TestUnitWhichPanesAndWhatMessage(t *testing.T) {
	r := newRig(t, func(c *watcher.Config) { c.Panes = config.Panes{Exclude: []string{"scratch*"}} })
	a := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	b := r.tmux.add("%2", 101, stopped("7:30pm", ""))
	b.info.Session = "scratch-2"
	c := r.tmux.add("%3", 102, stopped("7:30pm", ""))
	c.info.Ignore = "on"
	d := r.tmux.add("%4", 103, stopped("7:30pm", ""))
	d.info.Message = "please go on"
	e := r.tmux.add("%5", 104, stopped("7:30pm", ""))
	e.info.Message = "   "
	r.at(0)
	for _, id := range []string{"%2", "%3"} {
		for _, row := range r.w.Rows() {
			if row.Pane == id {
				t.Errorf("pane %s is supervised: %+v", id, row)
			}
		}
	}
	r.at(31 * time.Minute)
	r.at(32 * time.Minute)
	r.wantKeys(a, "continue", "Enter")
	r.wantKeys(b)
	r.wantKeys(c)
	r.wantKeys(d, "please go on", "Enter")
	r.wantKeys(e, "continue", "Enter")
	// A pane supervised and then ignored: left alone, its options cleared.
	a.draw(stopped("8:30pm", ""))
	r.at(33 * time.Minute)
	if a.info.Options.State != "waiting" {
		t.Fatalf("options = %+v, want waiting", a.info.Options)
	}
	a.info.Ignore = "yes please"
	r.at(34 * time.Minute)
	if a.info.Options != (tmuxctl.Options{}) {
		t.Errorf("options of an ignored pane = %+v, want none", a.info.Options)
	}
	r.at(2 * time.Hour)
	r.wantKeys(a, "continue", "Enter")
}

// [claude] message is typed into a Claude Code pane in place of watch.message, [codex]
// message is not (the pane is not Codex's), a pane's @cac_message still wins, and a bad
// @cac_message falls back to the agent's message; policy.claude holds every Claude Code stop,
// whatever its kind. Each event names the pane's agent.
func TestUnitAgentMessageAndPolicy(t *testing.T) {
	var got events
	r := newRig(t, func(c *watcher.Config) {
		c.Agents = map[agent.Name]agent.Settings{agent.Claude: {Message: "go on, claude"}, agent.Codex: {Message: "go on, codex"}}
		c.Notify = &got
	})
	a := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	b := r.tmux.add("%2", 101, stopped("7:30pm", ""))
	b.info.Message = "please go on"
	c := r.tmux.add("%3", 102, stopped("7:30pm", ""))
	c.info.Message = "/compact"
	r.at(0)
	r.at(31 * time.Minute)
	r.at(32 * time.Minute)
	r.wantKeys(a, "go on, claude", "Enter")
	r.wantKeys(b, "please go on", "Enter")
	r.wantKeys(c, "go on, claude", "Enter")
	if len(got) == 0 {
		t.Fatal("no event told")
	}
	for _, e := range got {
		if e.Agent != agent.Claude {
			t.Errorf("event %s of %s names agent %q, want claude", e.Kind, e.Pane, e.Agent)
		}
	}

	pol := config.Default().Policy
	pol.Agents[agent.Claude] = config.ActionNever
	r = newRig(t, func(c *watcher.Config) { c.Policy = pol })
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.at(31 * time.Minute)
	r.wantKeys(p)
	if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, `policy.claude is "never"`) {
		t.Errorf("row = %+v, want held by policy.claude", row)
	}
}
