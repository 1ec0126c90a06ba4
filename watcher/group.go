package watcher

import (
	"strconv"
	"strings"
	"sync"

	"github.com/cac-tmux/cac-tmux/scheduler"
)

// Group holds the stagger and the cap of wakes per reset (scheduler.Config.Schedule) for the
// watchers that share it: the panes of one account, on whichever server, wake Stagger apart
// in one order, and at most MaxPerReset of them per reset. `watch --all-servers` builds one
// and gives it to the watcher of each server (Config.Group); a watcher given none has one of
// its own. A Group reads no clock: each watcher schedules at its own instants. Safe for
// concurrent use.
type Group struct {
	mu      sync.Mutex
	members map[*Watcher]*grouped
	joined  int // members ever joined: each one's pane ids are prefixed with its number
}

// grouped is one watcher's part of a Group.
type grouped struct {
	prefix string           // "3 ": its pane ids are unique in the group with it
	waits  []scheduler.Wait // as it last scheduled them, prefixed, Kept the slot each got
}

// NewGroup returns an empty Group.
func NewGroup() *Group { return &Group{members: map[*Watcher]*grouped{}} }

// schedule returns the slots of w's waits among the waits of every watcher of the group (as
// each last scheduled them), worked out by w's schedule, and keeps w's waits, with their
// slots, for the others. A pane of another watcher keeps the slot it got there.
func (g *Group) schedule(w *Watcher, cfg scheduler.Config, waits []scheduler.Wait) []scheduler.Slot {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := g.members[w]
	if m == nil {
		g.joined++
		m = &grouped{prefix: strconv.Itoa(g.joined) + " "}
		g.members[w] = m
	}
	var all []scheduler.Wait
	for other, om := range g.members {
		if other != w {
			all = append(all, om.waits...)
		}
	}
	mine := make(map[string]scheduler.Wait, len(waits))
	for _, wt := range waits {
		wt.Pane = m.prefix + wt.Pane
		mine[wt.Pane] = wt
		all = append(all, wt)
	}
	var slots []scheduler.Slot
	m.waits = m.waits[:0]
	for _, s := range cfg.Schedule(all) {
		wt, ok := mine[s.Pane]
		if !ok {
			continue
		}
		wt.Kept = s.Slot
		m.waits = append(m.waits, wt)
		s.Pane = strings.TrimPrefix(s.Pane, m.prefix)
		slots = append(slots, s)
	}
	return slots
}

// leave takes w's waits out of the group: its server is gone, or it stopped.
func (g *Group) leave(w *Watcher) {
	g.mu.Lock()
	delete(g.members, w)
	g.mu.Unlock()
}
