// Package scheduler makes cac-tmux's decisions over time, purely: when a stopped pane is due
// (the reset plus a margin, later when Claude Code's own auto-continue should go first), how
// panes due at the same reset are staggered, and how failed attempts back off until they give
// up. It takes the current instant as an argument and never reads a clock or sleeps.
//
// Due instants are wall-clock instants compared on every tick, so a wake after the machine
// slept happens on the first tick after the due instant.
package scheduler

import (
	"cmp"
	"slices"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

// Config holds the scheduling parameters.
type Config struct {
	// Margin is the wait after the reset instant before acting. The printed reset is
	// truncated to the minute, so the true reset can be up to 59 s later (docs/claude-code.md,
	// Reset times).
	Margin time.Duration
	// ExactMargin replaces Margin for a reset known to the second (Claude Code's transcript
	// records it): it only covers the difference between this host's clock and the API's.
	ExactMargin time.Duration
	// NativeGrace is how long after reset+Margin Claude Code's own auto-continue gets to fire
	// before the watcher takes over. It fires 30–90 s after the reset (measured, 2.1.250–2.1.315).
	NativeGrace time.Duration
	// Stagger separates panes of one account that wake at the same reset.
	Stagger time.Duration
	// SameReset is how close two resets must be to count as the same limit.
	SameReset time.Duration
	// MaxPerReset caps how many panes of one account wake per reset; 0 means no cap.
	MaxPerReset int
	// RetryBase is the wait before the first retry; each further retry doubles it, up to
	// RetryMax.
	RetryBase, RetryMax time.Duration
	// MaxAttempts is how many resumes are tried before the pane is marked failed.
	MaxAttempts int
}

// Default is the default configuration (docs/configuration.md, Keys; SAFETY.md).
var Default = Config{
	Margin:      60 * time.Second,
	ExactMargin: 5 * time.Second,
	NativeGrace: 3 * time.Minute,
	Stagger:     5 * time.Second,
	SameReset:   time.Minute,
	RetryBase:   30 * time.Second,
	RetryMax:    10 * time.Minute,
	MaxAttempts: 3,
}

// Wait is one stopped pane waiting for its reset.
type Wait struct {
	Pane string
	// Account groups the panes that share limits (Claude Code's config directory): the
	// stagger and the cap apply within an account, and one account's waits never delay
	// another's. "" is an account too (panes whose config directory is unknown).
	Account string
	// Reset is the instant the limit lifts; Exact says it is known to the second.
	Reset time.Time
	Exact bool
	// Stopped is when the stop was first seen; panes due together wake in this order.
	Stopped time.Time
	// Native is true while Claude Code's own auto-continue is armed: it goes first.
	Native bool
	// Kept is the slot an earlier Schedule gave this wait (Slot.Slot), zero for a new one. A
	// kept slot stays: a group's stagger does not collapse when its first panes have woken
	// and left it.
	Kept time.Time
}

// Slot is when one pane is due.
type Slot struct {
	Pane string
	Due  time.Time
	// Slot is the pane's place in its group's stagger; Due is later when its own due instant
	// is (Claude Code's auto-continue armed).
	Slot time.Time
	// Capped is true when the pane is beyond MaxPerReset for its reset and is not woken.
	Capped bool
}

// Due is the instant a pane stopped until reset may be acted on: reset + Margin (ExactMargin
// for an exact reset), plus NativeGrace when Claude Code's own auto-continue is armed.
func (c Config) Due(reset time.Time, exact, native bool) time.Time {
	m := c.Margin
	if exact {
		m = c.ExactMargin
	}
	d := reset.Add(m)
	if native {
		d = d.Add(c.NativeGrace)
	}
	return d
}

// Schedule returns one slot per wait, in waking order. Waits of one account whose resets are
// within SameReset form a group (by reset, stop, pane): slots start at the group's first due
// instant, Stagger apart; a pane is due at its slot or its own due instant, the later; panes
// past MaxPerReset are capped into the last slots. A pane keeps an earlier slot (Wait.Kept); a
// new one comes Stagger after the latest slot before it and never within Stagger of a held
// slot, since a wait seen late (another server's watcher, the state file) may sort earlier.
func (c Config) Schedule(waits []Wait) []Slot {
	ws := slices.Clone(waits)
	slices.SortStableFunc(ws, func(a, b Wait) int {
		return cmp.Or(cmp.Compare(a.Account, b.Account), a.Reset.Compare(b.Reset), a.Stopped.Compare(b.Stopped), cmp.Compare(a.Pane, b.Pane))
	})
	slots := make([]Slot, 0, len(ws))
	for start := 0; start < len(ws); {
		end := start + 1
		for end < len(ws) && ws[end].Account == ws[start].Account && ws[end].Reset.Sub(ws[start].Reset) <= c.SameReset {
			end++
		}
		slots = append(slots, c.group(ws[start:end])...)
		start = end
	}
	slices.SortStableFunc(slots, func(a, b Slot) int { return a.Due.Compare(b.Due) })
	return slots
}

// group gives the slots of one group, its waits in order.
func (c Config) group(ws []Wait) []Slot {
	var taken []time.Time // the slots the group holds
	for _, w := range ws {
		if !w.Kept.IsZero() {
			taken = append(taken, w.Kept)
		}
	}
	slots := make([]Slot, 0, len(ws))
	var last time.Time
	for n, w := range ws {
		slot := w.Kept
		if slot.IsZero() {
			slot = c.Due(w.Reset, w.Exact, false)
			if n > 0 {
				slot = last.Add(c.Stagger)
			}
			slot = c.free(slot, taken)
			taken = append(taken, slot)
		}
		last = later(last, slot)
		due := later(slot, c.Due(w.Reset, w.Exact, w.Native))
		slots = append(slots, Slot{Pane: w.Pane, Due: due, Slot: slot})
	}
	if c.MaxPerReset > 0 { // the panes past the cap are the last to wake, by their slots
		slices.SortStableFunc(slots, func(a, b Slot) int { return a.Slot.Compare(b.Slot) })
		for i := c.MaxPerReset; i < len(slots); i++ {
			slots[i].Capped = true
		}
	}
	return slots
}

// free returns slot, or the first instant after it at least Stagger from every taken slot.
func (c Config) free(slot time.Time, taken []time.Time) time.Time {
	for _, t := range slices.SortedFunc(slices.Values(taken), time.Time.Compare) {
		if d := slot.Sub(t); d > -c.Stagger && d < c.Stagger {
			slot = t.Add(c.Stagger)
		}
	}
	return slot
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Retry returns when to try again after attempts failed resumes, the last at last, and false
// when the attempts are used up (the pane is then marked failed).
func (c Config) Retry(last time.Time, attempts int) (time.Time, bool) {
	if attempts >= c.MaxAttempts {
		return time.Time{}, false
	}
	return last.Add(clock.Backoff(c.RetryBase, c.RetryMax, attempts)), true
}

// IsDue reports whether due has come at now. A due instant in the past is due at once, so a
// watcher that starts, or wakes from sleep, after it acts on its first tick.
func IsDue(due, now time.Time) bool {
	return !due.IsZero() && !now.Before(due)
}
