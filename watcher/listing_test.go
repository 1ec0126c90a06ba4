package watcher_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// notifier is what the fake server's control connection tells of changes.
type notifier struct {
	silent  bool   // changes are not notified
	changes uint64 // changes notified so far
	shape   string // the rows of the last listing, without activity and match
	fulls   int    // full listings made
}

// ListChanges makes the fake server one whose control connection notifies every change
// (tmuxctl.Client.ListChanges): a listing lists every pane when anything in a row but the
// window's activity, the pre-filter's match and the user options (set-option is not
// notified) changed since the last listing, or when the Mark is not the last one; else only
// the panes active since s.Since and those with a request. With silent set, changes are not notified (as tmux 3.3a does not notify some):
// only the zero Mark lists every pane then.
func (f *fakeTmux) ListChanges(ctx context.Context, s tmuxctl.Search, since tmuxctl.Mark) ([]tmuxctl.Pane, bool, tmuxctl.Mark, error) {
	all, err := f.ListPanes(ctx, s)
	if err != nil {
		return nil, false, tmuxctl.Mark{}, err
	}
	if f.notify.silent && since == (tmuxctl.Mark{Conn: 1, Changes: f.notify.changes}) && !s.Since.IsZero() {
		return f.changed(all, s.Since), false, since, nil // BenchmarkTick: no shape to compare
	}
	var shape strings.Builder
	for _, p := range all {
		p.WindowActivity, p.Match, p.Options, p.Request = time.Time{}, 0, tmuxctl.Options{}, ""
		p.Pipe, p.PipeMark = false, "" // pipe-pane is not notified
		fmt.Fprintf(&shape, "%+v\n", p)
	}
	if shape.String() != f.notify.shape && !f.notify.silent {
		f.notify.changes++
	}
	f.notify.shape = shape.String()
	mark := tmuxctl.Mark{Conn: 1, Changes: f.notify.changes}
	if since != mark || s.Since.IsZero() {
		f.notify.fulls++
		return all, true, mark, nil
	}
	return f.changed(all, s.Since), false, mark, nil
}

// changed are the panes of a listing of changes: active since since, or with a request.
func (f *fakeTmux) changed(all []tmuxctl.Pane, since time.Time) []tmuxctl.Pane {
	var changed []tmuxctl.Pane
	for _, p := range all {
		if !p.WindowActivity.Before(since) || p.Request != "" {
			changed = append(changed, p)
		}
	}
	return changed
}

// Captures captures each pane in turn.
func (f *fakeTmux) Captures(ctx context.Context, shots []tmuxctl.Shot) ([]tmuxctl.Screen, error) {
	var out []tmuxctl.Screen
	for _, s := range shots {
		capture := f.Capture
		if s.Styled {
			capture = f.CaptureStyled
		}
		text, err := capture(ctx, s.Pane)
		out = append(out, tmuxctl.Screen{Pane: s.Pane, Text: text, Err: err})
	}
	return out, nil
}

// Between two full listings, ticks list only what changed: a quiet server of idle sessions
// is listed in full once, then every Resync.
func TestUnitListingOfChanges(t *testing.T) {
	r := newRig(t, nil)
	for i := range 20 {
		p := r.tmux.add(fmt.Sprintf("%%%d", i), 100+i, idle())
		p.info.Match = 0
	}
	resync := int(watcher.Defaults.Resync / time.Second)
	for i := range resync + 1 {
		r.at(time.Duration(i) * time.Second)
	}
	if got := r.tmux.notify.fulls; got != 2 {
		t.Errorf("full listings over %d ticks = %d, want 2 (the first, and a Resync later)", resync+1, got)
	}
	for i := range 20 {
		if id := fmt.Sprintf("%%%d", i); r.tmux.captures[id] != 1 || r.state(id) != watcher.Running {
			t.Errorf("pane %s: %d captures, state %s; want 1, running", id, r.tmux.captures[id], r.state(id))
		}
	}
	// A notified change lists every pane again, at the next tick.
	r.tmux.panes["%3"].info.Session = "renamed"
	r.at(time.Duration(resync+1) * time.Second)
	if got := r.tmux.notify.fulls; got != 3 {
		t.Errorf("full listings after a renamed session = %d, want 3", got)
	}
	if rows := r.w.Rows(); !slices.ContainsFunc(rows, func(row watcher.Row) bool { return row.Target == "renamed:3.0" }) {
		t.Errorf("rows after the rename: %+v, want %%3 at renamed:3.0", rows)
	}
}

// A stop drawn between two full listings is seen at the next tick; a stopped pane that is
// quiet is still looked at every revisit.
func TestUnitStopBetweenFullListings(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, idle())
	q := r.tmux.add("%2", 101, stopped("9pm", ""))
	p.info.Match, q.info.Match = 0, 3
	r.at(0)
	r.at(time.Second)
	p.draw(stopped("9pm", ""))
	p.info.Match = 3
	r.at(2 * time.Second)
	if got := r.state("%1"); got != watcher.Waiting || r.tmux.notify.fulls != 1 {
		t.Errorf("after a stop between full listings: state %s, %d full listings; want waiting, 1", got, r.tmux.notify.fulls)
	}
	for i := 3; i <= 29; i++ {
		r.at(time.Duration(i) * time.Second)
	}
	before := r.tmux.captures["%2"]
	r.at(31 * time.Second) // a revisit, between two full listings
	if got := r.tmux.captures["%2"]; got != before+1 {
		t.Errorf("captures of a quiet stopped pane at its revisit: %d, want %d", got, before+1)
	}
}

// A pane listed while tmux's fork has not yet run its program (proc.Found.Starting) is
// asked about again when a listing shows it next, though its row is the same: tmux 3.3a names
// the program in the row before it runs, and a listing of changes shows the pane again only
// for its output. (Kept as "no Claude Code here", the answer hid the pane until it closed.)
func TestUnitPaneListedBeforeItsProgramRuns(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, "")
	p.forked, p.info.Match = true, 0
	r.at(0)
	if got := r.state("%1"); got != "" {
		t.Fatalf("a pane whose program has not started: state %q, want unsupervised", got)
	}
	p.forked = false
	p.draw(stopped("9pm", ""))
	p.info.Match = 3
	r.at(time.Second)
	if got := r.state("%1"); got != watcher.Waiting || r.tmux.notify.fulls != 1 {
		t.Errorf("once its program drew a stop: state %q after %d full listings; want waiting after 1", got, r.tmux.notify.fulls)
	}
}

// What tmux does not notify (a pane closed in another session, here: the notifier is
// silent) is found at the next full listing, a Resync later; until then the pane is kept.
func TestUnitSilentChangeFoundAtResync(t *testing.T) {
	r := newRig(t, func(c *watcher.Config) { c.Resync = 10 * time.Second })
	r.tmux.add("%1", 100, idle()).info.Match = 0
	r.tmux.add("%2", 101, idle()).info.Match = 0
	r.at(0)
	r.tmux.notify.silent = true
	delete(r.tmux.panes, "%2")
	r.at(time.Second)
	if got := r.state("%2"); got != watcher.Running {
		t.Errorf("a pane closed without notice, before the resync: state %q, want still running", got)
	}
	r.at(10 * time.Second)
	if got := r.state("%2"); got != "" {
		t.Errorf("a pane closed without notice, at the resync: state %q, want forgotten", got)
	}
	if got := r.state("%1"); got != watcher.Running {
		t.Errorf("the other pane at the resync: state %q, want running", got)
	}
}

// On a manual clock a tick takes no time, so the next tick is one interval later, exactly.
func TestUnitTickAfterOneInterval(t *testing.T) {
	r := newRig(t, func(c *watcher.Config) { c.Interval = time.Second })
	r.tmux.add("%1", 100, idle()).info.Match = 0
	r.clk.Set(t0)
	for range 3 {
		next, err := r.w.Tick(context.Background())
		if err != nil || !next.Equal(r.clk.Now().Add(time.Second)) {
			t.Fatalf("Tick at %s = %s, %v; want one interval later", r.clk.Now(), next, err)
		}
		r.clk.Set(next)
	}
}
