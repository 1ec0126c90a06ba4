package phone

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

// The bound of the refusals' log: in each window of refusalWindow, the first refusalBurst
// refused requests are logged one line each, the rest are counted by reason and logged as one
// line when the window ends. Anyone who reaches the port can send requests (another local
// user, whatever the tunnel lets through), so a flood of forged tokens writes no more than
// refusalBurst lines and a count per window, whatever its rate.
const (
	refusalWindow = 10 * time.Second
	refusalBurst  = 5
)

// refusals counts the refused requests of a window (see refusalWindow). Safe for concurrent
// use.
type refusals struct {
	mu     sync.Mutex
	start  time.Time      // the window's start; zero before the first refusal
	logged int            // refusals logged one line each in the window
	held   map[string]int // the others, by reason (reasonOf)
}

// admit counts a refusal for reason at now. full says whether it may be logged on a line of
// its own; summary is the summary of the window that ended before now, "" when none or when
// nothing was held back in it.
func (r *refusals) admit(now time.Time, reason string) (full bool, summary string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	summary = r.roll(now)
	if r.start.IsZero() {
		r.start = now
	}
	if r.logged < refusalBurst {
		r.logged++
		return true, summary
	}
	if r.held == nil {
		r.held = map[string]int{}
	}
	r.held[reason]++
	return false, summary
}

// flush is the summary of the window if it has ended by now ("" when not, or when nothing
// was held back), and starts the next one; or of the window so far when final (the endpoint
// stops).
func (r *refusals) flush(now time.Time, final bool) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if final {
		r.start = now.Add(-refusalWindow)
	}
	return r.roll(now)
}

// roll ends the window when now is past it, and returns the summary of what it held back.
// The caller holds mu.
func (r *refusals) roll(now time.Time) string {
	if r.start.IsZero() || now.Sub(r.start) < refusalWindow && !now.Before(r.start) {
		return ""
	}
	summary := summarise(r.held, now.Sub(r.start))
	r.start, r.logged, r.held = time.Time{}, 0, nil
	return summary
}

// summarise is the line of the refusals held back in a window of length d: "refused 3412
// more requests in the last 10s (forged token 3400, malformed 12)", "" for none.
func summarise(held map[string]int, d time.Duration) string {
	n, parts := 0, []string{}
	for _, reason := range slices.Sorted(maps.Keys(held)) {
		n += held[reason]
		parts = append(parts, fmt.Sprintf("%s %d", reason, held[reason]))
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("phone: refused %d more requests in the last %s (%s); each is not logged on its own beyond %d in %s",
		n, d.Round(time.Second), strings.Join(parts, ", "), refusalBurst, refusalWindow)
}

// reasonOf is the short reason of a refusal, for its summary.
func reasonOf(err error) string {
	for _, r := range []struct {
		err  error
		name string
	}{{errMalformed, "malformed"}, {errForged, "forged token"}, {errExpired, "expired"}, {errUsed, "used"},
		{errOtherTarget, "another target"}, {errFull, "too many used"}, {errPrompt, "reply refused"},
		{errGone, "session gone"}, {errUnreadable, "pane unreadable"}, {errStopping, "stopping"},
		{errScreenOff, "screen off"}, {errPromptsOff, "replies off"}} {
		if errors.Is(err, r.err) {
			return r.name
		}
	}
	return "other"
}

// summariseEvery logs the summary of each window that held refusals back, once it ends, until
// ctx ends (then the last one): a flood that stops is still told.
func (h *Handler) summariseEvery(ctx context.Context, clk clock.Clock) {
	for {
		err := clk.Sleep(ctx, refusalWindow)
		if s := h.refused.flush(clk.Now(), err != nil); s != "" {
			h.c.Log.Warn().Msg(s)
		}
		if err != nil {
			return
		}
	}
}
