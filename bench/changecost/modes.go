//go:build linux

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// mode is one way of learning which panes changed.
type mode struct {
	name, about string
	client      bool              // a control client is attached
	unable      func(caps) string // why the server cannot do it; "" when it can
	start       func(c *control) (*watch, error)
}

var modes = []mode{
	{name: "baseline", about: "nothing attached", unable: can},
	{name: "attached", about: "a control client attached, sending nothing", client: true, unable: can,
		start: func(*control) (*watch, error) { return newWatch(), nil }},
	{name: "list-activity", about: "`list-panes -a -f '#{>=:#{window_activity},T}' -F '#{pane_id}'` once a second",
		client: true, unable: can, start: func(c *control) (*watch, error) { return lister(c, "window_activity"), nil }},
	{name: "subscribe", about: "`refresh-client -B 'act::#{S:#{W:#{window_id}=#{window_activity} }}'`, reading what is pushed",
		client: true, unable: can, start: subscribe},
	{name: "list-output", about: "`list-panes -a -f '#{>=:#{pane_last_output_time},T}' -F '#{pane_id}'` once a second",
		client: true, start: func(c *control) (*watch, error) { return lister(c, "pane_last_output_time"), nil },
		unable: func(c caps) string {
			if !c.lastOutput {
				return "no #{pane_last_output_time} (display-message -a does not list it)"
			}
			return ""
		}},
	{name: "wait-event", about: "`wait-for -E pane-activity` pending on the control client (a `display-message` queued behind it answers when a pane prints)",
		client: true, start: waitEvent,
		unable: func(c caps) string {
			if !c.waitEvent {
				return "no wait-for -E (`wait-for -E -l pane-activity` fails)"
			}
			return ""
		}},
}

func can(caps) string { return "" }

func modeNames() []string {
	var n []string
	for _, m := range modes {
		n = append(n, m.name)
	}
	return n
}

func modeByName(name string) (mode, bool) {
	for _, m := range modes {
		if m.name == name {
			return m, true
		}
	}
	return mode{}, false
}

// watch is a mode at work on a control client: what it received, and the signals it gave.
type watch struct {
	ticks, rows atomic.Int64  // listings made and rows they returned
	events      atomic.Int64  // wait-for -E replies
	hits        chan string   // a pane id listed, "push" or "event"
	errs        chan error    // the first error of its goroutine
	stop        chan struct{} // closed to stop it
	wg          sync.WaitGroup
}

func newWatch() *watch {
	return &watch{hits: make(chan string, 64), errs: make(chan error, 1), stop: make(chan struct{})}
}

func (w *watch) hit(s string) {
	select {
	case w.hits <- s:
	default:
	}
}

func (w *watch) fail(err error) {
	select {
	case w.errs <- err:
	default:
	}
}

// end stops the mode's goroutine and returns its first error.
func (w *watch) end() error {
	close(w.stop)
	w.wg.Wait()
	select {
	case err := <-w.errs:
		return err
	default:
		return nil
	}
}

// lister lists, once a second, the panes whose field is at least the unix second of the
// last tick, as cac-tmux watch does with window_activity.
func lister(c *control, field string) *watch {
	w := newWatch()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		last := time.Now()
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		for {
			select {
			case <-w.stop:
				return
			case now := <-tk.C:
				line := fmt.Sprintf("list-panes -a -f '#{>=:#{%s},%d}' -F '#{pane_id}'", field, last.Unix())
				last = now
				b, err := c.request(line)
				if err != nil {
					w.fail(err)
					return
				}
				w.ticks.Add(1)
				w.rows.Add(int64(len(b.rows)))
				for _, r := range b.rows {
					w.hit(r)
				}
			}
		}
	}()
	return w
}

// subscribe makes the subscription and forwards what tmux pushes.
func subscribe(c *control) (*watch, error) {
	if _, err := c.request("refresh-client -B 'act::#{S:#{W:#{window_id}=#{window_activity} }}'"); err != nil {
		return nil, err
	}
	w := newWatch()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			select {
			case <-w.stop:
				return
			case <-c.pushes:
				w.hit("push")
			}
		}
	}()
	return w, nil
}

// waitEvent leaves a wait-for -E pane-activity pending, then a display-message behind it.
// Over control mode the wait-for's own reply comes at once (%begin and %end); it is the
// command queue of the client that waits, so the display-message's reply comes when a pane
// prints.
func waitEvent(c *control) (*watch, error) {
	if _, err := c.request("wait-for -E pane-activity"); err != nil {
		return nil, err
	}
	if err := c.send("display-message -p event"); err != nil {
		return nil, err
	}
	w := newWatch()
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		select {
		case <-w.stop:
		case b := <-c.blocks:
			if b.err {
				w.fail(fmt.Errorf("display-message after wait-for -E pane-activity: %v", b.rows))
				return
			}
			w.events.Add(1)
			w.hit("event")
		}
	}()
	return w, nil
}

// sample is one measurement of one mode.
type sample struct {
	wall                time.Duration
	server, client      cpu
	ticks, rows, pushes int64 // received in the window
	events              int64
	check               string // the signal check after the window
	seen                bool
	latency             time.Duration
}

func (s sample) serverPct() float64   { return s.server.ticksPct(s.wall) }
func (s sample) serverNsPct() float64 { return s.server.nsPct(s.wall) }
func (s sample) clientPct() float64   { return s.client.ticksPct(s.wall) }

// measure runs mode m once on s: start it, settle, read the CPU over the window, then check
// that the signal tells of a pane that prints.
func measure(ctx context.Context, s *server, m mode, run int) (sample, error) {
	var c *control
	var w *watch
	if m.client {
		var err error
		if c, err = attach(s); err != nil {
			return sample{}, err
		}
		defer c.close()
		if w, err = m.start(c); err != nil {
			return sample{}, err
		}
	}
	sm, err := window(ctx, s, c, w)
	if err != nil || w == nil {
		return sm, err
	}
	sm.check, sm.seen, sm.latency = check(s, w, m)
	if err := w.end(); err != nil {
		return sm, err
	}
	time.Sleep(time.Second)
	return sm, nil
}

// window settles, then reads the server's and the client's CPU over opt.window.
func window(ctx context.Context, s *server, c *control, w *watch) (sample, error) {
	select {
	case <-ctx.Done():
		return sample{}, ctx.Err()
	case <-time.After(opt.settle):
	}
	var sm sample
	read := func() (srv, cli cpu, t time.Time, err error) {
		t = time.Now()
		if srv, err = readCPU(s.pid); err != nil || c == nil {
			return
		}
		cli, err = readCPU(c.pid())
		return
	}
	s0, c0, t0, err := read()
	if err != nil {
		return sm, err
	}
	var k0, r0, p0, e0 int64
	if w != nil {
		k0, r0, p0, e0 = w.ticks.Load(), w.rows.Load(), c.nPush.Load(), w.events.Load()
	}
	select {
	case <-ctx.Done():
		return sm, ctx.Err()
	case <-time.After(opt.window):
	}
	s1, c1, t1, err := read()
	if err != nil {
		return sm, err
	}
	sm.wall, sm.server, sm.client = t1.Sub(t0), s1.minus(s0), c1.minus(c0)
	if w != nil {
		sm.ticks, sm.rows = w.ticks.Load()-k0, w.rows.Load()-r0
		sm.pushes, sm.events = c.nPush.Load()-p0, w.events.Load()-e0
		select {
		case err := <-w.errs:
			return sm, err
		default:
		}
	}
	return sm, nil
}

// check makes a random pane print and waits up to 4s for the mode's signal of it.
func check(s *server, w *watch, m mode) (string, bool, time.Duration) {
	if m.name == "attached" {
		return "—", false, 0
	}
	for len(w.hits) > 0 {
		<-w.hits
	}
	pane := s.panes[rand.IntN(len(s.panes))]
	t0 := time.Now()
	if err := s.poke(pane); err != nil {
		return "poke failed: " + err.Error(), false, 0
	}
	deadline := time.After(4 * time.Second)
	for {
		select {
		case h := <-w.hits:
			if h == pane || h == "push" || h == "event" {
				d := time.Since(t0)
				return "seen after " + strconv.FormatInt(d.Milliseconds(), 10) + " ms", true, d
			}
		case <-deadline:
			return "not seen in 4 s", false, 0
		}
	}
}
