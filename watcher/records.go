package watcher

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/records"
)

// ResetSource says where a stopped pane's reset instant comes from.
type ResetSource string

// The sources of a reset instant.
const (
	// SourceScreen: the printed reset, to the minute (the detector's reading).
	SourceScreen ResetSource = "screen"
	// SourceTranscript: Claude Code's transcript row of the stop (quotaLimits.resetsAt), to
	// the second.
	SourceTranscript ResetSource = "transcript"
)

// parseResetSource reads a source as published; "" is SourceScreen.
func parseResetSource(s string) (ResetSource, error) {
	switch ResetSource(s) {
	case "", SourceScreen:
		return SourceScreen, nil
	case SourceTranscript:
		return SourceTranscript, nil
	}
	return "", fmt.Errorf("watcher: parse reset source %q: not screen or transcript", s)
}

// exactReset refines the reset and kind read from the screen with the usage-limit row of the
// session's transcript (records.LatestLimit). The row belongs to the stop on screen when its
// resetsAt, read in the zone the screen's reset is in (the printed zone, else the host's),
// shows the printed time: the same hour and minute, and the same date when the screen printed
// one. Then the reset is resetsAt, to the second (for a time-only reset this also settles
// which day was meant), and the kind is the row's rateLimitType when it names one.
// agree is false when the row does not belong to the stop: the screen's reading stands.
func exactReset(r detector.Reset, kind detector.Kind, row records.Row) (exact detector.Reset, k detector.Kind, agree bool) {
	if !r.Known || row.Kind != records.RowLimit {
		return r, kind, false
	}
	at := row.ResetsAt.In(r.At.Location())
	switch r.Source {
	case detector.SourceEpoch:
		agree = at.Equal(r.At)
	case detector.SourceDate:
		agree = at.Truncate(time.Minute).Equal(r.At.Truncate(time.Minute))
	case detector.SourceClock:
		agree = at.Hour() == r.At.Hour() && at.Minute() == r.At.Minute()
	}
	if !agree {
		return r, kind, false
	}
	exact = r
	exact.At, exact.Ambiguous = at, false
	exact.How = fmt.Sprintf("%s; Claude Code's transcript records the reset to the second: %s (resetsAt %d)",
		strings.TrimSuffix(r.How, "."), at.Format("2006-01-02 15:04:05 MST"), row.ResetsAt.Unix())
	return exact, kindOf(row.RateLimitType, kind), true
}

// kindOf is the kind of limit a transcript's rateLimitType names; the screen's kind when it
// names none this version knows. five_hour is the limit Claude Code prints as the session
// limit or the 5-hour limit, depending on the version: the screen's name is kept.
func kindOf(rateLimitType string, screen detector.Kind) detector.Kind {
	switch rateLimitType {
	case "five_hour":
		if screen == detector.KindSession {
			return screen
		}
		return detector.KindFiveHour
	case "seven_day":
		return detector.KindWeekly
	case "seven_day_opus":
		return detector.KindOpus
	case "seven_day_sonnet":
		return detector.KindSonnet
	case "overage":
		return detector.KindExtraUsage
	}
	return screen
}

// session is what Claude Code's records say about a pane's claude process: its config
// directory (the account) and its registry entry. Read once per process, the entry again
// whenever it is needed.
type session struct {
	asked  bool
	env    records.Env
	id     string    // the registry's session id when the stop was taken on, "" when unknown
	judged time.Time // the usage-limit row last compared with the screen
}

// records returns where the pane's claude process keeps its records; ok is false when its
// environment cannot be read (ambiguous ps output without /proc, another user's process, a
// process gone).
func (w *Watcher) recordsOf(ctx context.Context, p *pane) (records.Env, bool) {
	if !p.recs.asked && !p.unknown {
		p.recs.asked = true
		env, err := w.finder.Env(ctx, p.Identity)
		if err != nil {
			p.event(w.cfg.Log.Debug()).Err(err).Msg("no records: the process's environment is unreadable")
		}
		p.recs.env = env
	}
	return p.recs.env, p.recs.env.Dir() != ""
}

// entry reads the pane's registry entry; ok is false when there is none for this process.
func (w *Watcher) entry(ctx context.Context, p *pane) (records.Entry, bool) {
	env, ok := w.recordsOf(ctx, p)
	start, isTicks := p.Identity.ProcStart()
	if !ok || !isTicks {
		return records.Entry{}, false
	}
	en, err := env.Session(p.PID, start)
	if err != nil {
		p.event(w.cfg.Log.Debug()).Err(err).Msg("no registry entry")
		return records.Entry{}, false
	}
	if p.recs.id == "" {
		p.recs.id = en.SessionID // the session of the stop being handled
	}
	return en, true
}

// errNoEntry: the pane's claude process has no readable registry entry (rows).
var errNoEntry = errors.New("no registry entry")

// rows reads the end of the pane's transcript: errNoEntry without a registry entry, an error
// wrapping records.ErrNoRecord when its session has no transcript.
func (w *Watcher) rows(ctx context.Context, p *pane) ([]records.Row, records.Entry, error) {
	en, ok := w.entry(ctx, p)
	if !ok {
		return nil, en, errNoEntry
	}
	rows, err := transcript(p.recs.env, en)
	if err != nil {
		p.event(w.cfg.Log.Debug()).Err(err).Msg("no transcript")
	}
	return rows, en, err
}

func transcript(env records.Env, en records.Entry) ([]records.Row, error) {
	path, err := env.Transcript(en)
	if err != nil {
		return nil, err
	}
	return records.ReadTail(path, en.SessionID)
}

// Refine refines the verdict v of the screen of pane id with Claude Code's records of the
// claude process there, for `inspect --pane`, by the watcher's own steps, so the two read a
// live pane alike: the process found (Finder.Find), its records located (recordsOf) and the
// reset taken from its transcript when its usage-limit row belongs to the stop (refine,
// exactReset). It returns the verdict, where its reset comes from and the process's config
// directory ("" when unknown). Without a claude process in the pane, or without its records,
// the screen's reading stands (SourceScreen).
func Refine(ctx context.Context, t Tmux, f Finder, id string, v detector.Verdict) (detector.Verdict, ResetSource, string) {
	info, err := t.PaneInfo(ctx, id)
	if err != nil {
		return v, SourceScreen, ""
	}
	found, ok, err := f.Find(ctx, info.PID)
	if err != nil || !ok {
		return v, SourceScreen, ""
	}
	w := New(t, f, Config{Log: zerolog.Nop()})
	p := &pane{info: info, Identity: found.Identity, reset: v.Reset, kind: v.Kind, source: SourceScreen}
	if _, ok := w.recordsOf(ctx, p); !ok || !v.Limited {
		return v, SourceScreen, p.account()
	}
	if rows, _, err := w.rows(ctx, p); err == nil {
		w.refine(p, rows)
	}
	v.Reset, v.Kind = p.reset, p.kind
	return v, p.source, p.account()
}

// consult reads the pane's transcript about the stop on screen: whose stop it is (judge),
// and, when it is the process's own, its exact reset (refine).
func (w *Watcher) consult(ctx context.Context, p *pane) {
	if rows, ok := w.judge(ctx, p); ok && p.foreign == "" {
		w.refine(p, rows)
	}
}

// judge sets p.foreign from the transcript (records.StopOf): a stop on screen is the process's
// own only when its transcript ends in a usage-limit row written after the process started
// (not a reply quoting the limit, nor an old stop redrawn by a reopened conversation); without
// records p.foreign is "" and the screen decides. A registry entry whose session has no
// transcript is no stop of its own either: claude -c first names a fresh session, and the old
// one only later (over a second on a loaded machine), the old stop already on screen (Claude
// Code 2.1.332). It returns the rows it read; ok is false without records.
func (w *Watcher) judge(ctx context.Context, p *pane) (rows []records.Row, ok bool) {
	p.foreign = ""
	rows, en, err := w.rows(ctx, p)
	switch {
	case errors.Is(err, errNoEntry):
		return nil, false
	case errors.Is(err, records.ErrNoRecord):
		p.foreign = "Claude Code's registry names a session without a transcript, so the stop on screen is not its own (a conversation being reopened?); nothing will be typed"
		return nil, false
	case err != nil:
		return nil, false
	}
	p.foreign = foreign(records.StopOf(rows, en.Started()))
	return rows, true
}

// foreign is the note of a stop that Claude Code's records say is not the process's own.
func foreign(s records.Stop) string {
	switch s {
	case records.StopEarlier:
		return "the stop on screen is older than this claude process (a conversation reopened: its transcript's usage-limit row was written before the process started); nothing will be typed"
	case records.StopNone:
		return "Claude Code's transcript has a prompt or a reply after its last usage-limit row (or none), so the stop on screen is only text, such as a quoted line; nothing will be typed"
	}
	return ""
}

// refine takes the reset of the pane's stop from its transcript's rows when its usage-limit
// row belongs to it (exactReset). A disagreement is logged at info with both values, and the
// screen wins.
func (w *Watcher) refine(p *pane, rows []records.Row) {
	if p.source == SourceTranscript || !p.reset.Known {
		return
	}
	row, found := records.LatestLimit(rows)
	if !found || row.At.Equal(p.recs.judged) {
		return
	}
	p.recs.judged = row.At
	exact, kind, agree := exactReset(p.reset, p.kind, row)
	if !agree {
		p.event(w.cfg.Log.Info()).Time("transcript_reset", row.ResetsAt).Str("rate_limit_type", row.RateLimitType).
			Msg("the transcript's reset does not match the screen; the screen's is used")
		return
	}
	// A slot held was given from the printed reset plus the full margin: cleared, schedule
	// gives one from the exact reset.
	p.reset, p.kind, p.source, p.slot = exact, kind, SourceTranscript, time.Time{}
	p.event(w.cfg.Log.Info()).Time("reset", exact.At).Msg("exact reset from the transcript")
	p.event(w.cfg.Log.Debug()).Str("reset_how", exact.How).Msg("how the reset was read")
}

// registryAllows checks Claude Code's session registry before a key: another session id in
// the process than the one that stopped is a new session (the stop is forgotten and the pane
// looked at afresh), and a "busy" status is one more reason not to type. No entry allows:
// the screen decides, as without records.
func (w *Watcher) registryAllows(ctx context.Context, p *pane) bool {
	en, ok := w.entry(ctx, p)
	switch {
	case !ok:
		return true
	case p.recs.id != "" && en.SessionID != p.recs.id:
		p.event(w.cfg.Log.Info()).Msg("another Claude Code session in the process (its registry names a new session id); nothing typed, the pane is looked at afresh")
		w.startOver(p.info.ID)
		return false
	case en.Busy():
		p.note = "Claude Code's registry says a turn is running; nothing is sent until it is idle"
		return false
	}
	return true
}

// proof is what the transcript says of the keys sent at p.sent (records.Proof); Unproven
// without records. Rows are stamped by the host's clock, which the watcher's clock reads too;
// a second of slack covers the rounding of both.
func (w *Watcher) proof(ctx context.Context, p *pane) records.Outcome {
	rows, _, err := w.rows(ctx, p)
	if err != nil {
		return records.Unproven
	}
	msg := ""
	if p.typed {
		msg = w.message(p)
	}
	return records.Proof(rows, p.sent.Add(-time.Second), msg)
}
