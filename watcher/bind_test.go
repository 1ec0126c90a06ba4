package watcher_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// idleInConversation is a rig whose pane %1 runs claude 100, idle in conversation conv-a,
// looked at once; its events are told to the events returned.
func idleInConversation(t *testing.T) (*rig, *fakePane, *events) {
	told := &events{}
	r := newRig(t, func(c *watcher.Config) { c.Notify = told })
	p := r.tmux.add("%1", 100, idle())
	p.session(t, "conv-a", "idle")
	r.at(0)
	return r, p, told
}

// A request bound to a session (a phone's button) is carried out only while the pane runs
// that session: the same claude process and the same conversation. Another process under the
// same pane id (respawn-pane -k, a tmux server started again on the socket) or another
// conversation in the same process is refused, and nothing is typed.
func TestUnitBoundRequest(t *testing.T) {
	r, p, _ := idleInConversation(t)
	first := watcher.BindingOf(p.claude, "conv-a")

	ask := func(d time.Duration, request string) string {
		t.Helper()
		p.info.Request = request
		r.at(d)
		return p.reply
	}
	if got := ask(time.Second, "prompt~"+first+" n1 run the tests"); !strings.HasPrefix(got, "n1 ok") {
		t.Fatalf("bound to the session it runs: reply %q, want ok", got)
	}
	r.wantKeys(p, "run the tests", "Enter")

	p.session(t, "conv-b", "idle") // /clear: another conversation in the same process
	if got := ask(2*time.Second, "prompt~"+first+" n2 go on"); !strings.HasPrefix(got, "n2 refused") || !strings.Contains(got, "another Claude Code session") {
		t.Errorf("another conversation: reply %q, want refused", got)
	}
	processOnly := watcher.BindingOf(p.claude, "") // sent while the conversation was not known
	if got := ask(3*time.Second, "skip~"+processOnly+" n3"); strings.HasPrefix(got, "n3 refused another") {
		t.Errorf("bound to the process alone: reply %q, want the skip's own answer", got)
	}

	p.claude = proc.Identity{PID: 200, Start: "ticks:200"} // respawn-pane -k: another claude under %1
	p.session(t, "conv-a", "idle")                         // even one that reopened the same conversation
	for i, request := range []string{"prompt~" + first + " n4 hello", "resume~" + first + " n5", "skip~" + processOnly + " n6", "prompt~ n7 hello"} {
		got := ask(time.Duration(4+i)*time.Second, request)
		if !strings.Contains(got, " refused ") {
			t.Errorf("%q into another process: reply %q, want refused", request, got)
		}
	}
	r.wantKeys(p, "run the tests", "Enter") // nothing more
}

// The watcher's events carry the binding of the session they are about, which the phone's
// buttons carry: the process and, once its records are read, the conversation.
func TestUnitEventsCarryTheBinding(t *testing.T) {
	r, p, told := idleInConversation(t)
	p.draw(stopped("7:30pm", ""))
	r.at(time.Minute)
	if len(*told) != 1 {
		t.Fatalf("events = %q, want one", told.kinds())
	}
	if got, want := (*told)[0].Binding, watcher.BindingOf(p.claude, "conv-a"); got != want {
		t.Errorf("the %s event's binding = %q, want %q (process 100, conversation conv-a)", (*told)[0].Kind, got, want)
	}
}

// Bound names where the session runs (for the phone's reply form), and refuses another.
func TestBoundPlace(t *testing.T) {
	r, p, _ := idleInConversation(t)
	ctx := context.Background()
	place, why, err := watcher.Bound(ctx, r.tmux, r.tmux, "%1", watcher.BindingOf(p.claude, "conv-a"))
	if err != nil || why != "" || place.Target != "s:0.0" || place.Dir != p.cwd() || place.Agent != agent.Claude {
		t.Errorf("Bound = %+v, %q, %v; want s:0.0 in %s", place, why, err, p.cwd())
	}
	for _, binding := range []string{"", watcher.BindingOf(p.claude, "conv-b"), watcher.BindingOf(proc.Identity{PID: 7, Start: "ticks:7"}, "")} {
		if place, why, err := watcher.Bound(ctx, r.tmux, r.tmux, "%1", binding); err != nil || why == "" || place != (watcher.Place{}) {
			t.Errorf("Bound(%q) = %+v, %q, %v; want a refusal", binding, place, why, err)
		}
	}
	if _, why, err := watcher.Bound(ctx, r.tmux, r.tmux, "%9", watcher.BindingOf(p.claude, "")); err != nil || !strings.Contains(why, "no pane %9") {
		t.Errorf("Bound of a pane that is not there = %q, %v", why, err)
	}
}
