package watcher_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/watcher"
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
// answered in @cac_reply with its nonce: "sent" once the keys went out (the request becomes
// "await NONCE PID"), then the outcome.
func TestUnitRequestThroughPaneOption(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	p.info.Request = "resume n42"
	r.at(time.Second)
	r.wantKeys(p, "continue", "Enter")
	if p.info.Request != "await n42 100" || !strings.HasPrefix(p.reply, "n42 sent ") {
		t.Errorf("request %q reply %q, want awaiting the outcome, answered sent", p.info.Request, p.reply)
	}
	r.at(2 * time.Second)
	r.wantKeys(p, "continue", "Enter") // once
	p.info.Request = "reboot n43"
	r.at(3 * time.Second)
	if !strings.HasPrefix(p.reply, "n43 refused unknown request") {
		t.Errorf("reply to an unknown request = %q", p.reply)
	}
}

// The answer to a resume carries the outcome the watcher saw: it was
// "ok" as soon as the keys went out, though the limit still held or the pane was then held.
// The outcome is answered in the tick that sees it, and only then is the request withdrawn.
func TestUnitRequestAnswersTheOutcome(t *testing.T) {
	stop := "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)"
	menu := screen("❯ hello", stop, "", rule, "  What do you want to do?", "", "  ❯ 1. Upgrade your plan",
		"    2. Stop and wait for limit to reset", "", "  Enter to confirm · Esc to cancel")
	for _, tc := range []struct {
		name, screen string
		after        string // the screen after the keys; "" leaves it
		keys         []string
		want         string // the start of the final answer
		settled      bool
	}{
		{"resumed", stopped("7:30pm", ""), resumed("7:30pm"), []string{"continue", "Enter"}, "n1 ok resumed: a turn runs in s:0.0", true},
		{"limit still holds", stopped("7:30pm", ""), screen(append([]string{"❯ hello", stop, "", "❯ continue", stop}, prompt("")...)...),
			[]string{"continue", "Enter"}, "n1 failed s:0.0 is waiting: the limit still holds after 1 attempt; next attempt ", false},
		{"menu stays open", menu, "", []string{"2"}, "n1 held s:0.0 is held: the options menu did not close", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			p := r.tmux.add("%1", 100, tc.screen)
			r.at(0)
			p.info.Request = "resume n1"
			r.at(time.Second)
			r.wantKeys(p, tc.keys...)
			if !strings.HasPrefix(p.reply, "n1 sent ") || p.info.Request != "await n1 100" {
				t.Fatalf("after the keys: reply %q, request %q; want sent, awaiting the outcome", p.reply, p.info.Request)
			}
			if tc.after != "" {
				p.draw(tc.after)
			}
			r.at(1500 * time.Millisecond) // before the check of the keys: no answer yet
			if !strings.HasPrefix(p.reply, "n1 sent ") {
				t.Errorf("before the check: reply %q, want still sent", p.reply)
			}
			r.at(5 * time.Second) // the check (Settle after the keys; a third of it after a menu's digit)
			if !strings.HasPrefix(p.reply, tc.want) || p.info.Request != "" {
				t.Errorf("after the check: reply %q, request %q; want %q…, withdrawn", p.reply, p.info.Request, tc.want)
			}
			r.wantKeys(p, tc.keys...)
		})
	}
}

// A resume by hand whose keys went out and were then held is the outcome, not a refusal: it
// was reported as refused and the pane put back as it was, which dropped the hold (and the
// attempt) that must stick until the stop changes.
func TestUnitResumeNowHeldAfterKeys(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	p.vim = "stuck" // vim mode that eats every key: INSERT mode never shows
	r.at(0)
	out := r.do("%1", watcher.ResumeNow)
	if out.Done || !out.Sent || !out.Held || !strings.Contains(out.Message, "s:0.0 is held: the input box did not show what was typed") {
		t.Errorf("Do(resume) = %+v, want sent and held, saying why", out)
	}
	r.wantKeys(p, "i")
	r.at(31 * time.Minute) // past the reset: the hold sticks
	r.wantKeys(p, "i")
	if row := r.row("%1"); row.State != watcher.Held {
		t.Errorf("row after the reset = %+v, want held", row)
	}
}

// An outcome awaited for a claude session that is no longer in the pane is answered as not
// resumed, and one for a pane with nothing supervised too (a request set by hand).
func TestUnitAwaitedSessionGone(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	p.info.Request = "resume n1"
	r.at(time.Second)
	p.claude, p.info.PID = proc.Identity{PID: 200, Start: "ticks:200"}, 1200 // respawn-pane: another process
	p.draw(idle())
	r.at(5 * time.Second)
	if !strings.HasPrefix(p.reply, "n1 failed the claude session that was sent the keys no longer runs in pane %1") || p.info.Request != "" {
		t.Errorf("reply %q, request %q; want not resumed: the session is gone", p.reply, p.info.Request)
	}
}

// Reply and ParseReply carry every outcome through @cac_reply; another nonce's reply is not
// this one's, and the answer of an older watcher ("ok" once the keys went out) reads as done.
func TestReplyRoundTrip(t *testing.T) {
	for _, o := range []watcher.Outcome{
		{Done: true, Message: "resumed: a turn runs in w:1.0"},
		{Done: true, Pending: true, Message: "keys sent to w:1.0; looking for a resumed turn"},
		{Sent: true, Held: true, Message: "w:1.0 is held: someone typed"},
		{Sent: true, Message: "w:1.0 is waiting: the limit still holds"},
		{Message: "a draft is in the input box"},
	} {
		got, ok := watcher.ParseReply(o.Reply("n 7"), "n 7")
		if !ok || got != o {
			t.Errorf("ParseReply(Reply(%+v)) = %+v, %v", o, got, ok)
		}
		if _, ok := watcher.ParseReply(o.Reply("n8"), "n"); ok {
			t.Errorf("ParseReply of another nonce's reply %q: ok", o.Reply("n8"))
		}
	}
	if got, ok := watcher.ParseReply("n ok resumed by hand: w:1.0: sent", "n"); !ok || !got.Done || got.Pending {
		t.Errorf("an older watcher's answer = %+v, %v; want done", got, ok)
	}
}

// Claude Code's own auto-continue armed, then the user opens /rate-limit-options, which hides
// the armed line: the menu is the user's, the auto-continue still fires, and Stop is never
// pressed.
func TestUnitMenuOverArmedAutoContinue(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)",
		"● Usage limit reached · continuing automatically at 7:30pm · esc to cancel"}, prompt("")...)...))
	r.at(0)
	if got := r.state("%1"); got != watcher.Native {
		t.Fatalf("state = %s, want native", got)
	}
	p.draw(menuStopSecond())
	for _, at := range []time.Duration{time.Second, 31 * time.Minute, 35 * time.Minute, time.Hour} {
		r.at(at)
	}
	r.wantKeys(p)
	if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, "armed auto-continue") {
		t.Errorf("row = %+v, want held over the armed auto-continue", row)
	}
}

// Unskip takes a skip back: the session waits for its reset again and is resumed at its due
// instant, as without the skip. A session that is not skipped is refused and left as it is,
// and so is a second unskip.
func TestUnitUnskip(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	if out := r.do("%1", watcher.Unskip); out.Done || out.Message != "pane %1 is not skipped (it is waiting); there is nothing to unskip" {
		t.Errorf("Do(unskip) of a waiting session = %+v, want refused: not skipped", out)
	}
	if out := r.do("%1", watcher.Skip); !out.Done {
		t.Fatalf("Do(skip) = %+v", out)
	}
	r.at(time.Minute)
	out := r.do("%1", watcher.Unskip)
	if !out.Done || out.Pending || out.Message != "unskipped: s:0.0 is waiting; due 19:31:00" {
		t.Errorf("Do(unskip) = %+v, want done: waiting, due at the reset + margin", out)
	}
	if got := r.state("%1"); got != watcher.Waiting || p.info.Options.State != "waiting" || p.info.Options.Due != "2026-11-20T19:31:00Z" {
		t.Errorf("after unskip: state %s, published %+v; want waiting, due 19:31:00", got, p.info.Options)
	}
	if out := r.do("%1", watcher.Unskip); out.Done || !strings.Contains(out.Message, "is not skipped (it is waiting)") {
		t.Errorf("a second Do(unskip) = %+v, want refused", out)
	}
	r.at(30*time.Minute + 59*time.Second)
	r.wantKeys(p)
	r.at(31 * time.Minute)
	r.wantKeys(p, "continue", "Enter")

	r2 := newRig(t, nil)
	r2.tmux.add("%1", 100, idle())
	r2.at(0)
	if out := r2.do("%1", watcher.Unskip); out.Done || !strings.Contains(out.Message, "is not skipped (it is running)") {
		t.Errorf("Do(unskip) of a running session = %+v, want refused", out)
	}
	if out := r2.do("%7", watcher.Unskip); out.Done || !strings.Contains(out.Message, "no pane %7") {
		t.Errorf("Do(unskip) of a missing pane = %+v, want refused", out)
	}
}

// A skip of the stop before is no skip of the next one: a session that stopped again since
// the skip is not skipped, and unskip refuses it.
func TestUnitUnskipAfterTheNextStop(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.do("%1", watcher.Skip)
	p.draw(screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)", "", "❯ more",
		"  ⎿ \u00a0You've hit your session limit · resets 11pm (UTC)"}, prompt("")...)...))
	if out := r.do("%1", watcher.Unskip); out.Done || !strings.Contains(out.Message, "is not skipped (it is waiting)") {
		t.Errorf("Do(unskip) after the next stop = %+v, want refused: it waits already", out)
	}
}

// Unskip keeps what the skip did not clear: the attempts made for this stop (the next one
// after the backoff; failed when they are used up) and a hold that sticks (no key is typed
// into a pane that did not take the last ones).
func TestUnitUnskipKeepsAttemptsAndHolds(t *testing.T) {
	stop := "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)"
	again := screen(append([]string{"❯ hello", stop, "", "❯ continue", stop}, prompt("")...)...)

	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.at(31 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
	p.draw(again) // the limit still holds
	r.at(31*time.Minute + 3*time.Second)
	if got := r.state("%1"); got != watcher.Waiting {
		t.Fatalf("state after the limit held again = %s, want waiting", got)
	}
	r.do("%1", watcher.Skip)
	r.at(32 * time.Minute)
	out := r.do("%1", watcher.Unskip)
	if !out.Done || out.Message != "unskipped: s:0.0 is waiting: the limit still holds after 1 attempt; next attempt 19:32:30" {
		t.Errorf("Do(unskip) after an attempt = %+v, want waiting for the next attempt after the backoff", out)
	}
	r.at(32*time.Minute + 29*time.Second)
	r.wantKeys(p, "continue", "Enter")
	r.at(32*time.Minute + 30*time.Second)
	r.wantKeys(p, "continue", "Enter", "continue", "Enter")

	r = newRig(t, nil)
	p = r.tmux.add("%1", 100, stopped("7:30pm", ""))
	p.vim = "stuck" // every key eaten: the pane is held after the first, and the hold sticks
	r.at(0)
	if out := r.do("%1", watcher.ResumeNow); !out.Held {
		t.Fatalf("Do(resume) = %+v, want held", out)
	}
	r.do("%1", watcher.Skip)
	out = r.do("%1", watcher.Unskip)
	if !out.Done || !strings.HasPrefix(out.Message, "unskipped: s:0.0 is held: the keys sent for this stop were not taken") {
		t.Errorf("Do(unskip) of a session held before the skip = %+v, want held again", out)
	}
	r.at(31 * time.Minute)
	r.at(2 * time.Hour)
	r.wantKeys(p, "i")
	if got := r.state("%1"); got != watcher.Held {
		t.Errorf("state after the reset = %s, want held", got)
	}
}

// Unskip through the running watcher: the request in @cac_request, the answer in @cac_reply.
func TestUnitUnskipThroughPaneOption(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	p.info.Request = "skip n1"
	r.at(time.Second)
	if !strings.HasPrefix(p.reply, "n1 ok skipped: ") || p.info.Options.State != "skipped" {
		t.Fatalf("reply to skip %q, published %+v", p.reply, p.info.Options)
	}
	p.info.Request = "unskip n2"
	r.at(2 * time.Second)
	if p.reply != "n2 ok unskipped: s:0.0 is waiting; due 19:31:00" || p.info.Request != "" || p.info.Options.State != "waiting" {
		t.Errorf("reply to unskip %q, request %q, published %+v; want ok, withdrawn, waiting", p.reply, p.info.Request, p.info.Options)
	}
	p.info.Request = "unskip n3"
	r.at(3 * time.Second)
	if !strings.HasPrefix(p.reply, "n3 refused pane %1 is not skipped") {
		t.Errorf("reply to a second unskip = %q, want refused", p.reply)
	}
	r.at(31 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
}

func TestParseAction(t *testing.T) {
	for _, a := range []watcher.Action{watcher.ResumeNow, watcher.Skip, watcher.Unskip, watcher.Prompt, watcher.Handover} {
		if got, err := watcher.ParseAction(string(a)); got != a || err != nil {
			t.Errorf("ParseAction(%q) = %q, %v", a, got, err)
		}
	}
	if _, err := watcher.ParseAction("reboot"); err == nil || !strings.Contains(err.Error(), "not resume, skip, unskip, prompt or handover") {
		t.Errorf("ParseAction(reboot) = %v", err)
	}
}

// A due instant days away carries its date in what unskip prints, so a weekly wait is not
// read as today's.
func TestUnitUnskipDueDaysAway(t *testing.T) {
	weekly := screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your weekly limit · resets Nov 23, 7:30pm (UTC)"}, prompt("")...)...)
	r := newRig(t, nil)
	r.tmux.add("%1", 100, weekly)
	r.at(0)
	if out := r.do("%1", watcher.Skip); !out.Done {
		t.Fatalf("Do(skip) = %+v", out)
	}
	r.at(time.Minute)
	if out := r.do("%1", watcher.Unskip); !out.Done || out.Message != "unskipped: s:0.0 is waiting; due Nov 23 19:31:00" {
		t.Errorf("Do(unskip) = %+v, want due Nov 23 19:31:00", out)
	}
}

// A next attempt days away (a weekly limit that still holds after a resume: the next attempt
// waits for its reset) carries its date in the pane's note.
func TestUnitNextAttemptDaysAway(t *testing.T) {
	stop := "  ⎿ \u00a0You've hit your weekly limit · resets Nov 23, 7:30pm (UTC)"
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, screen(append([]string{"❯ hello", stop}, prompt("")...)...))
	r.at(0)
	r.do("%1", watcher.ResumeNow)
	r.wantKeys(p, "continue", "Enter")
	p.draw(screen(append([]string{"❯ hello", stop, "", "❯ continue", stop}, prompt("")...)...)) // the limit still holds
	r.at(3 * time.Second)
	if note := p.info.Options.Note; !strings.HasSuffix(note, "; next attempt Nov 23 19:31:00") {
		t.Errorf("note = %q, want the next attempt with its date", note)
	}
}
