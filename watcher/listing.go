package watcher

import (
	"context"
	"regexp"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// A tick lists only what changed since the last listing (tmuxctl.Client.ListChanges): panes of
// windows active since, and panes carrying a request; tmux's notices of a pane, window or
// session made, closed, moved, renamed or changed mode make the next listing full. A full
// listing is also made at the first tick, after the connection drops or is remade, by exec,
// and every Config.Resync, for what tmux 3.3a notifies nobody of (tmuxctl/changes.go). No key
// can go astray by it: the gate re-reads the pane (SAFETY.md); until the next full listing a
// row may show an old target, or a closed pane.

// listing is what the watcher keeps between two listings of the server.
type listing struct {
	mark   tmuxctl.Mark // of the last listing
	at     time.Time    // when the last listing began (wall clock, as tmux stamps activity)
	fullAt time.Time    // when every pane was last listed (watcher clock); zero: never
	// spent is how long the last ticks took from the start of their listing to the end of
	// their looks, newest at spent[n%len(spent)].
	spent [16]time.Duration
	n     int
	told  bool // the first look at every pane is logged
	// listedAt is when a listing was last made, not skipped (watcher clock); piped is whether
	// every supervised pane was piped to the watcher then (pipes.go).
	listedAt time.Time
	piped    bool
}

// screen is a capture taken for a look of this tick (prefetch), and the wall-clock instant
// just before it was taken.
type screen struct {
	text   string
	err    error
	taken  time.Time
	styled bool // captured with the text's SGR escapes
}

// list lists the server's panes for this tick: every pane (full) at the first listing, after
// a failed one and every Resync, else what tmux says may have changed since the last listing.
func (w *Watcher) list(ctx context.Context, now time.Time) ([]tmuxctl.Pane, bool, error) {
	since := w.listed.mark
	if d := now.Sub(w.listed.fullAt); w.listed.fullAt.IsZero() || d < 0 || d >= w.cfg.Resync {
		since = tmuxctl.Mark{}
	}
	search, at := w.search(), w.cfg.Wall.Now()
	piped := w.piped()
	// The pipes cover what printed since the last listing only if they were all in place
	// before it.
	d := now.Sub(w.listed.listedAt)
	search.Piped = piped && w.listed.piped && d >= 0 && d+w.cfg.Interval <= pipedFor
	list, full, mark, err := w.tmux.ListChanges(ctx, search, since)
	w.listed.mark, w.listed.at = mark, at
	if err != nil {
		w.listed.mark = tmuxctl.Mark{}
		return nil, false, err
	}
	if !mark.Skipped {
		w.listed.listedAt, w.listed.piped = now, piped
	}
	if full {
		w.listed.fullAt = now
	}
	return list, full, nil
}

// prefetch captures the panes this tick's visits will look at, several to a tmux round trip
// (tmuxctl.Client.Captures): a watcher starting on a server of a thousand Claude panes looks
// at every one of them in its first tick. It starts with the new panes whose program may be
// Claude Code (prefilter.Commands) while the process table tells which ones are (identify, which
// runs meanwhile and returns maybeClaude's answers for list), then captures the rest it will
// look at; a pane the watcher keeps its hands off (outOfScope) is not captured at all. A pane
// it did not capture, or whose capture failed, is captured by its look.
func (w *Watcher) prefetch(ctx context.Context, list []tmuxctl.Pane, now time.Time, identify func() ([]identity, []bool)) ([]identity, []bool) {
	var early []tmuxctl.Shot
	for _, info := range list {
		if w.panes[info.ID] == nil && agentCommand.MatchString(info.Command) && w.outOfScope(info) == "" {
			early = append(early, tmuxctl.Shot{Pane: info.ID})
		}
	}
	if len(early) < 2 {
		early = nil // a single look captures for itself
	}
	taken := w.cfg.Wall.Now()
	done := make(chan []tmuxctl.Screen, 1)
	go func() {
		var screens []tmuxctl.Screen
		if len(early) > 0 {
			var err error
			if screens, err = w.tmux.Captures(ctx, early); err != nil {
				w.cfg.Log.Debug().Err(err).Int("panes", len(early)).Msg("captures cut short; the rest are captured one by one")
			}
		}
		done <- screens
	}()
	ids, fresh := identify()
	w.keep(<-done, early, taken)

	var rest []tmuxctl.Shot
	for i, info := range list {
		styled := agent.For(ids[i].agent).Styled
		if s, ok := w.screens[info.ID]; (ok && s.styled == styled) || !ids[i].ok || w.outOfScope(info) != "" {
			continue // a pane left alone is not even captured
		}
		if p := w.panes[info.ID]; p != nil {
			renewed := fresh[i] && (p.Identity != ids[i].Identity || p.unknown != ids[i].unknown)
			kept := p.info
			p.info = info // as visit will see it
			look := renewed || p.needsLook(now)
			p.info = kept
			if !look {
				continue
			}
		}
		rest = append(rest, tmuxctl.Shot{Pane: info.ID, Styled: styled})
	}
	if len(rest) >= 2 {
		taken = w.cfg.Wall.Now()
		screens, err := w.tmux.Captures(ctx, rest)
		if err != nil {
			w.cfg.Log.Debug().Err(err).Int("panes", len(rest)).Msg("captures cut short; the rest are captured one by one")
		}
		w.keep(screens, rest, taken)
	}
	return ids, fresh
}

// agentCommand is prefilter.Commands, compiled.
var agentCommand = regexp.MustCompile(prefilter.Commands)

// keep keeps captures of the shots, taken at taken, for this tick's looks.
func (w *Watcher) keep(screens []tmuxctl.Screen, shots []tmuxctl.Shot, taken time.Time) {
	if w.screens == nil {
		w.screens = make(map[string]screen, len(screens))
	}
	for i, s := range screens {
		w.screens[s.Pane] = screen{text: s.Text, err: s.Err, taken: taken, styled: shots[i].Styled}
	}
}

// looked records how long a tick that listed what changed took from the start of its listing
// to the end of its looks: the time a stop drawn just before the listing takes to be seen.
// (A full listing takes longer, but comes once per Resync.) Times beyond the interval (a
// suspend, a clock set) are not a tick's work and are left out.
func (l *listing) looked(d, interval time.Duration) {
	if d <= 0 || d > interval {
		return // a manual clock, or not a tick's work
	}
	l.n++
	l.spent[l.n%len(l.spent)] = d
}

// lead is how much earlier than one interval after this tick's start the next tick starts,
// so that a screen drawn just after this tick's listing is seen (looked at, and its state
// logged) within one interval: twice the longest of the last ticks' listings and
// looks, and leadSlack for a timer that fires late, at most a quarter of the interval. On a
// manual clock, before any tick was timed, it is 0.
func (l *listing) lead(interval time.Duration) time.Duration {
	if l.n == 0 {
		return 0
	}
	var longest time.Duration
	for _, d := range l.spent {
		longest = max(longest, d)
	}
	return min(2*longest+leadSlack, interval/4)
}

// leadSlack is what lead adds for the wake-up of the next tick, which comes a little after
// its timer on a busy machine.
const leadSlack = 20 * time.Millisecond

// startOver forgets a pane and what it runs, to be taken on again from the next listing, which
// lists every pane: a listing of changes would show the pane only after new output.
func (w *Watcher) startOver(id string) {
	delete(w.panes, id)
	delete(w.idents, id)
	w.listed.fullAt = time.Time{}
}

// firstLook logs, once, that the watcher has looked at every pane of the server, and how
// long the tick that did it took.
func (w *Watcher) firstLook(took time.Duration) {
	if w.listed.told {
		return
	}
	w.listed.told = true
	w.cfg.Log.Info().Int("claude_panes", len(w.panes)).Dur("took_ms", took).Msg("looked at every pane")
}

// prefilter is the server-side pre-filter of each listing: rows that any limit message, Claude
// Code's auto-continue lines or the options menus put on screen, searched only in panes whose
// command may be Claude Code or Codex (docs/claude-code.md: Messages, The options menu, Claude Code's own
// auto-continue, Which panes run Claude Code). A pane the search skips (a wrapper script) is
// looked at whenever its window shows activity.
var prefilter = tmuxctl.Search{
	Pattern:  `limit|usage|spending cap|automatic|what do you want to do`,
	Commands: proc.CommandPattern() + "|" + proc.CodexCommandPattern(),
}

// narrow is the width below which a wrapped message may slip past the pre-filter (a single
// word split over two rows), so a narrow Claude pane is looked at on any activity.
const narrow = 40

// search is the pre-filter of the next listing, and what a listing of changes lists: the
// windows with activity since the last listing. tmux stamps window_activity in whole seconds
// of the system clock, so any activity after the last listing began is stamped at or after
// that second; activity stamped before the latest stamp the listings showed was seen by them,
// and so was all of the latest stamp's second once a listing began after it. Never after the
// wall clock less a second, should tmux's clock go back. The first listing searches nothing:
// every Claude pane it shows is looked at anyway.
func (w *Watcher) search() tmuxctl.Search {
	if w.latest.IsZero() {
		return tmuxctl.Search{}
	}
	search := prefilter
	search.Since = w.latest.Add(time.Second)
	if last := w.listed.at.Truncate(time.Second); last.Before(search.Since) {
		search.Since = last
	}
	if ceiling := w.cfg.Wall.Now().Truncate(time.Second).Add(-time.Second); ceiling.Before(search.Since) {
		search.Since = ceiling
	}
	return search
}
