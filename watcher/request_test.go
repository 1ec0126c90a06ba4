package watcher_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/watcher"
	"github.com/cac-tmux/cac-tmux/watcher/proc"
)

// Unit tests of the actions a user asks for (cac-tmux resume / skip, the popup), on the fake
// server and a manual clock.

func (r *rig) do(id string, a watcher.Action) watcher.Outcome {
	r.t.Helper()
	out, err := r.w.Do(context.Background(), id, a)
	if err != nil {
		r.t.Fatalf("Do(%s, %s): %v", id, a, err)
	}
	return out
}

// Resume now: before the reset, through every gate but the reset, one resume.
func TestUnitResumeNow(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.at(time.Minute) // 29 minutes before the reset
	out := r.do("%1", watcher.ResumeNow)
	if !out.Done {
		t.Fatalf("Do(resume) = %+v, want done", out)
	}
	r.wantKeys(p, "continue", "Enter")
	p.draw(resumed("7:30pm"))
	r.at(time.Minute + 3*time.Second)
	if got := r.state("%1"); got != watcher.Running {
		t.Errorf("state after the resumed turn = %s, want running", got)
	}
	if out := r.do("%1", watcher.ResumeNow); out.Done || !strings.Contains(out.Message, "not stopped") {
		t.Errorf("Do(resume) of a running session = %+v, want refused: not stopped", out)
	}
	r.wantKeys(p, "continue", "Enter")
}

// Each gate refuses a resume now, says which, and changes nothing: the wait goes on.
func TestUnitResumeNowRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, why string
		pane      func(*fakePane)
	}{
		{"draft", "draft", func(p *fakePane) { p.draw(stopped("7:30pm", "my idea")) }},
		{"copy mode", "copy mode", func(p *fakePane) { p.info.InMode = true }},
		{"synchronized", "synchronize-panes", func(p *fakePane) { p.info.Synced = true }},
		{"another process", "no longer in the foreground", func(p *fakePane) { p.claude = proc.Identity{} }},
		{"busy", "not stopped", func(p *fakePane) { p.draw(resumed("7:30pm")) }},
		{"auto-continue armed", "auto-continue", func(p *fakePane) {
			p.draw(screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)",
				"● Usage limit reached · continuing automatically at 7:30pm · esc to cancel"}, prompt("")...)...))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
			r.at(0)
			tc.pane(p)
			out := r.do("%1", watcher.ResumeNow)
			if out.Done || !strings.Contains(out.Message, tc.why) {
				t.Errorf("Do(resume) = %+v, want refused naming %q", out, tc.why)
			}
			r.wantKeys(p)
		})
	}
	r := newRig(t, nil)
	if out := r.do("%9", watcher.ResumeNow); out.Done || !strings.Contains(out.Message, "no pane %9") {
		t.Errorf("Do(resume) of a missing pane = %+v", out)
	}
}

// A refused resume leaves the wait as it was: the pane is resumed at its due instant.
func TestUnitRefusedResumeKeepsTheWait(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	p.info.InMode = true
	if out := r.do("%1", watcher.ResumeNow); out.Done {
		t.Fatalf("Do(resume) in copy mode = %+v, want refused", out)
	}
	r.at(time.Minute)
	r.wantKeys(p) // not resumed as soon as copy mode ends: the refusal was final
	p.info.InMode = false
	r.at(2 * time.Minute)
	r.wantKeys(p)
	r.at(31 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
}

// Skip: left alone until the next stop.
func TestUnitSkip(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	if out := r.do("%1", watcher.Skip); !out.Done {
		t.Fatalf("Do(skip) = %+v", out)
	}
	r.at(31 * time.Minute)
	r.at(2 * time.Hour)
	r.wantKeys(p)
	if got := r.state("%1"); got != watcher.Skipped || p.info.Options.State != "skipped" {
		t.Errorf("state = %s (published %q), want skipped", got, p.info.Options.State)
	}
	// The next stop is handled again.
	p.draw(screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)", "", "❯ more",
		"  ⎿ \u00a0You've hit your session limit · resets 11pm (UTC)"}, prompt("")...)...))
	r.at(2*time.Hour + time.Second)
	if got := r.state("%1"); got != watcher.Waiting {
		t.Errorf("state after the next stop = %s, want waiting", got)
	}
	r2 := newRig(t, nil)
	r2.tmux.add("%1", 100, idle())
	r2.at(0)
	if out := r2.do("%1", watcher.Skip); out.Done {
		t.Errorf("Do(skip) of a running session = %+v, want refused", out)
	}
}

// A request a command left in @cac_request is carried out once by the running watcher, and
// answered in @cac_reply with its nonce.
func TestUnitRequestThroughPaneOption(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	p.info.Request = "resume n42"
	r.at(time.Second)
	r.wantKeys(p, "continue", "Enter")
	if p.info.Request != "" || !strings.HasPrefix(p.reply, "n42 ok ") {
		t.Errorf("request %q reply %q, want withdrawn and answered ok", p.info.Request, p.reply)
	}
	r.at(2 * time.Second)
	r.wantKeys(p, "continue", "Enter") // once
	p.info.Request = "reboot n43"
	r.at(3 * time.Second)
	if !strings.HasPrefix(p.reply, "n43 refused unknown request") {
		t.Errorf("reply to an unknown request = %q", p.reply)
	}
}

// Claude Code's own auto-continue armed, then the user opens /rate-limit-options, which hides
// the armed line: the menu is the user's, the auto-continue still fires, and Stop is never
// pressed (issue 22, finding 10).
func TestUnitMenuOverArmedAutoContinue(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)",
		"● Usage limit reached · continuing automatically at 7:30pm · esc to cancel"}, prompt("")...)...))
	r.at(0)
	if got := r.state("%1"); got != watcher.Native {
		t.Fatalf("state = %s, want native", got)
	}
	p.draw(screen("❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)", "", rule,
		"  What do you want to do?", "", "  ❯ 1. Upgrade your plan", "    2. Stop and wait for limit to reset", "", "  Enter to confirm · Esc to cancel"))
	for _, at := range []time.Duration{time.Second, 31 * time.Minute, 35 * time.Minute, time.Hour} {
		r.at(at)
	}
	r.wantKeys(p)
	if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, "armed auto-continue") {
		t.Errorf("row = %+v, want held over the armed auto-continue", row)
	}
}
