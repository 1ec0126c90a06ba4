package watcher_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Unit tests of a prompt typed into an idle session (a phone's reply), on the fake
// server and a manual clock.

func (r *rig) prompt(id, text string) watcher.Outcome {
	r.t.Helper()
	out, err := r.w.DoPrompt(context.Background(), id, text)
	if err != nil {
		r.t.Fatalf("DoPrompt(%s): %v", id, err)
	}
	return out
}

// An idle session at an empty input box gets the text, literally, then Enter once the box
// shows it; a long prompt that the box wraps over lines is seen whole.
func TestUnitPrompt(t *testing.T) {
	for _, text := range []string{"fix the failing test", strings.Repeat("word ", 60) + "end"} {
		r := newRig(t, nil)
		p := r.tmux.add("%1", 100, idle())
		r.at(0)
		out := r.prompt("%1", text)
		if !out.Done || !strings.Contains(out.Message, "typed the prompt into s:0.0") {
			t.Fatalf("DoPrompt = %+v, want done", out)
		}
		r.wantKeys(p, text, "Enter")
	}
}

// Every gate refuses a prompt, says which, and types nothing.
func TestUnitPromptRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, text, why string
		pane            func(*fakePane)
	}{
		{"stopped", "go on", "resume a stopped one", func(p *fakePane) { p.draw(stopped("7:30pm", "")) }},
		{"draft", "go on", "holds a draft", func(p *fakePane) { p.draw(screen(append([]string{"❯ hello"}, prompt("my idea")...)...)) }},
		{"busy", "go on", "a turn runs", func(p *fakePane) {
			p.draw(screen(append([]string{"❯ hello", "", "✻ Working… (esc to interrupt)"}, prompt("")...)...))
		}},
		{"menu", "go on", "", func(p *fakePane) { p.draw(menuStopSecond()) }},
		{"copy mode", "go on", "copy mode", func(p *fakePane) { p.info.InMode = true }},
		{"another process", "go on", "no longer in the foreground", func(p *fakePane) { p.claude = proc.Identity{PID: 7, Start: "ticks:7"} }},
		{"newline", "first\nsecond", "one line", func(*fakePane) {}},
		{"escape", "a\x1b[31mred", "control characters", func(*fakePane) {}},
		{"blank", "   ", "blank", func(*fakePane) {}},
		{"too long", strings.Repeat("x", config.MaxPrompt+1), "at most 4000", func(*fakePane) {}},
		{"vim normal", "go on", "vim mode", func(p *fakePane) { p.vim = "normal" }},
		// Claude Code's other input modes: a shell command, a slash command; blanks before them
		// (a space, U+00A0, U+3000) change nothing.
		{"bash mode", "!touch /tmp/owned", "shell command", func(*fakePane) {}},
		{"bash mode after blanks", "  \u00a0\u3000!touch /tmp/owned", "shell command", func(*fakePane) {}},
		{"slash command", "/login", "slash command", func(*fakePane) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			p := r.tmux.add("%1", 100, idle())
			r.at(0)
			tc.pane(p)
			r.at(time.Second)
			out := r.prompt("%1", tc.text)
			if out.Done || out.Sent || !strings.Contains(out.Message, tc.why) || !strings.Contains(out.Message, "nothing was typed") {
				t.Errorf("DoPrompt = %+v, want refused naming %q", out, tc.why)
			}
			r.wantKeys(p)
		})
	}
}

// A box that shows something else than the prompt typed gets no Enter: the text stays, the
// outcome says so.
func TestUnitPromptNotShown(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, idle())
	r.at(0)
	r.tmux.onKey = func(id, key string) {
		if key == "go on" {
			p.edit(func(string) string { return "someone else" })
		}
	}
	out := r.prompt("%1", "go on")
	if out.Done || !out.Sent || !strings.Contains(out.Message, "did not show the prompt") {
		t.Errorf("DoPrompt = %+v, want sent, no Enter", out)
	}
	r.wantKeys(p, "go on")
}

// Through the pane option, as a phone's action reaches the running watcher: "prompt NONCE
// TEXT", the text whole (blanks included), answered once.
func TestUnitPromptRequest(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, idle())
	r.at(0)
	p.info.Request = "prompt n7 run the tests  again"
	r.at(time.Second)
	r.wantKeys(p, "run the tests  again", "Enter")
	if !strings.HasPrefix(p.reply, "n7 ok typed the prompt") || p.info.Request != "" {
		t.Errorf("reply %q, request %q; want answered ok and withdrawn", p.reply, p.info.Request)
	}
	r.at(2 * time.Second)
	r.wantKeys(p, "run the tests  again", "Enter") // once
}
