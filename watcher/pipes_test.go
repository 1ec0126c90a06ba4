package watcher_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// pipingTmux is the fake server of a tmux without an output signal of its own, whose client
// pipes panes' output (tmuxctl.Client.PipeOutput): a listing of changes with Search.Piped and
// no output from a piped pane since the last listing lists nothing, as the FIFO would say.
type pipingTmux struct {
	*fakeTmux
	mark     string
	piped    []string  // every pane PipeOutput was asked to pipe, in order
	listings int       // listings made (not skipped)
	listed   time.Time // the fake's clock at the last listing
}

func (f *pipingTmux) PipeMark() string { return f.mark }

func (f *pipingTmux) PipeOutput(_ context.Context, panes []string) ([]tmuxctl.Pane, error) {
	slices.Sort(panes)
	var rows []tmuxctl.Pane
	for _, id := range panes {
		f.piped = append(f.piped, id)
		p := f.panes[id]
		if !p.info.Pipe { // a pipe of the user's is left alone
			p.info.Pipe, p.info.PipeMark, p.info.PipePID = true, f.mark, p.info.PID
		}
		rows = append(rows, tmuxctl.Pane{ID: id, Pipe: p.info.Pipe, PipeMark: p.info.PipeMark, PipePID: p.info.PipePID})
	}
	return rows, nil
}

func (f *pipingTmux) ListChanges(ctx context.Context, s tmuxctl.Search, since tmuxctl.Mark) ([]tmuxctl.Pane, bool, tmuxctl.Mark, error) {
	f.searches = append(f.searches, s)
	printed := false
	for _, p := range f.panes {
		printed = printed || (p.info.Pipe && p.info.PipeMark == f.mark && p.info.WindowActivity.After(f.listed))
	}
	if s.Piped && since != (tmuxctl.Mark{}) && !printed {
		since.Skipped = true
		return nil, false, since, nil
	}
	f.listings, f.listed = f.listings+1, f.clock
	return f.fakeTmux.ListChanges(ctx, s, since)
}

// piped reports whether the last listing asked could be skipped.
func (f *pipingTmux) lastPiped() bool { return f.searches[len(f.searches)-1].Piped }

// Where the server signals no output itself, the watcher pipes each Claude pane's output once
// per process; ticks list nothing only once every pane was piped before the last listing, and
// a listing is made at least every five seconds; a pipe closed under the watcher is not opened
// again for the same process, and is for a new one.
func TestUnitPipes(t *testing.T) {
	r := newRig(t, nil)
	f := &pipingTmux{fakeTmux: r.tmux, mark: "/run/w.pipe"}
	r.w = watcher.New(f, r.tmux, r.cfg)
	a, b := r.tmux.add("%1", 100, idle()), r.tmux.add("%2", 101, idle())
	a.info.Match, b.info.Match = 0, 0
	r.at(0)
	if !slices.Equal(f.piped, []string{"%1", "%2"}) || f.lastPiped() {
		t.Fatalf("first tick: piped %v, listing piped %v; want both piped after a listing that is not", f.piped, f.lastPiped())
	}
	r.at(time.Second) // the pipes were not in place before the first listing
	if f.lastPiped() || f.listings != 2 {
		t.Fatalf("second tick: piped %v, %d listings; want a listing that is not piped", f.lastPiped(), f.listings)
	}
	for i := 2; i <= 6; i++ {
		r.at(time.Duration(i) * time.Second)
	}
	if f.listings != 3 {
		t.Errorf("ticks 2 to 6 with nothing printed: %d listings in all, want 3 (one after five seconds)", f.listings)
	}

	// Output in a piped pane is listed at the next tick.
	a.draw(stopped("9pm", ""))
	a.info.Match = 3
	r.at(7 * time.Second)
	if got := r.state("%1"); got != watcher.Waiting || f.listings != 4 {
		t.Errorf("after a stop in %%1: state %s, %d listings; want waiting, 4", got, f.listings)
	}

	// %2's pipe closed by the user: its output comes to no pipe, and is seen by the listing
	// made five seconds after the last one; its pipe is not opened again for the same
	// process, and every tick lists from then on.
	b.info.Pipe = false
	b.draw(idle())
	for i := 8; i <= 11; i++ {
		r.at(time.Duration(i) * time.Second)
	}
	if f.listings != 4 {
		t.Errorf("output with %%2's pipe closed, before five seconds: %d listings, want 4", f.listings)
	}
	for i := 12; i <= 14; i++ {
		r.at(time.Duration(i) * time.Second)
	}
	if len(f.piped) != 2 || f.lastPiped() || f.listings != 7 {
		t.Errorf("after %%2's pipe closed: piped %v, last listing piped %v, %d listings; want no new pipe, every tick listed (7)", f.piped, f.lastPiped(), f.listings)
	}

	// A new process in %2 (respawn-pane) is piped.
	b.info.PID++
	b.draw(idle())
	r.at(15 * time.Second)
	if !slices.Equal(f.piped, []string{"%1", "%2", "%2"}) {
		t.Errorf("after a respawn in %%2: piped %v, want %%2 piped again", f.piped)
	}
}

// A dry run pipes nothing.
func TestUnitPipesDryRun(t *testing.T) {
	r := newRig(t, func(c *watcher.Config) { c.DryRun = true })
	f := &pipingTmux{fakeTmux: r.tmux, mark: "/run/w.pipe"}
	r.w = watcher.New(f, r.tmux, r.cfg)
	r.tmux.add("%1", 100, idle())
	r.at(0)
	r.at(time.Second)
	if len(f.piped) != 0 || f.lastPiped() {
		t.Errorf("dry run: piped %v, listing piped %v; want nothing", f.piped, f.lastPiped())
	}
}

// A tick pipes 32 panes at most (each pipe forks the tmux server); the next tick the rest.
func TestUnitPipesPerTick(t *testing.T) {
	r := newRig(t, nil)
	f := &pipingTmux{fakeTmux: r.tmux, mark: "/run/w.pipe"}
	r.w = watcher.New(f, r.tmux, r.cfg)
	for i := range 40 {
		r.tmux.add(fmt.Sprintf("%%%d", i), 100+i, idle()).info.Match = 0
	}
	r.at(0)
	if len(f.piped) != 32 {
		t.Errorf("first tick of 40 panes: %d piped, want 32", len(f.piped))
	}
	r.at(time.Second)
	if len(f.piped) != 40 {
		t.Errorf("second tick: %d piped in all, want 40", len(f.piped))
	}
}
