package watcher

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/proc"
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
	// SourceRollout: Codex's rollout row of the stop (rate_limits resets_at), to the second.
	SourceRollout ResetSource = "rollout"
)

// parseResetSource reads a source as published; "" is SourceScreen.
func parseResetSource(s string) (ResetSource, error) {
	switch ResetSource(s) {
	case "", SourceScreen:
		return SourceScreen, nil
	case SourceTranscript, SourceRollout:
		return ResetSource(s), nil
	}
	return "", fmt.Errorf("watcher: parse reset source %q: not screen, transcript or rollout", s)
}

// exactReset refines the reset and kind read from the screen with the agent's record of the
// limit (agent.Judgement.Limit). The record belongs to the stop on screen when its reset,
// read in the zone the screen's reset is in (the printed zone, else the agent's), shows the
// printed time: the same hour and minute, and the same date when the screen printed one.
// Then the reset is the record's, to the second (for a time-only reset this also settles
// which day was meant), and the kind is the record's. agree is false when the record does not
// belong to the stop: the screen's reading stands.
func exactReset(r detector.Reset, kind detector.Kind, l agent.Limit) (exact detector.Reset, k detector.Kind, agree bool) {
	if !r.Known || l.ResetsAt.IsZero() {
		return r, kind, false
	}
	at := l.ResetsAt.In(r.At.Location())
	switch r.Source {
	case detector.SourceEpoch:
		agree = at.Equal(r.At)
	case detector.SourceDate:
		agree = at.Truncate(time.Minute).Equal(r.At.Truncate(time.Minute))
	case detector.SourceClock:
		agree = at.Hour() == r.At.Hour() && at.Minute() == r.At.Minute()
	}
	how := "%s; %s records the reset to the second: %s (%s %d)"
	if !agree && l.Sure {
		// The screen's printed time was read in a zone that may not be the one it was printed
		// in (agent.Limit.Sure): the record's instant is the only reading.
		agree, how = true, "%s, in a zone that cannot be told; %s records the reset to the second: %s (%s %d)"
	}
	if !agree {
		return r, kind, false
	}
	exact = r
	exact.At, exact.Ambiguous = at, false
	exact.How = fmt.Sprintf(how, strings.TrimSuffix(r.How, "."), l.Records, at.Format("2006-01-02 15:04:05 MST"), l.Field, l.ResetsAt.Unix())
	if l.Kind != detector.KindNone {
		kind = l.Kind
	}
	return exact, kind, true
}

// session is the agent's records of a pane's process: located once per process (the
// environment read once), read again whenever they are needed.
type session struct {
	asked  bool
	s      agent.Session // nil until asked, or when the records cannot be located
	judged time.Time     // the limit record last compared with the screen
}

// forget starts a new stop: the records are read again for it.
func (s *session) forget() {
	s.judged = time.Time{}
	if s.s != nil {
		s.s.Forget()
	}
}

// recordsOf returns the records of the pane's process; nil when its environment cannot be
// read (ambiguous ps output without /proc, another user's process, a process gone).
func (w *Watcher) recordsOf(ctx context.Context, p *pane) agent.Session {
	if !p.recs.asked && !p.unknown {
		p.recs.asked = true
		env, err := w.finder.Env(ctx, p.Identity)
		if err != nil {
			p.event(w.cfg.Log.Debug()).Err(err).Msg("no records: the process's environment is unreadable")
			return nil
		}
		pr := agent.Process{PID: p.PID}
		if start, ok := p.Identity.ProcStart(); ok {
			pr.ProcStart = start
		}
		if f, ok := w.finder.(codexFinder); ok {
			pr.Host = host{ctx: ctx, f: f, id: p.Identity}
		}
		p.recs.s = p.program().Open(env, pr)
	}
	return p.recs.s
}

// Refine refines the verdict v of the screen of pane id, captured at now, with the records of the agent's
// process there, for `inspect --pane`, by the watcher's own steps, so the two read a live
// pane alike: the process found (Finder.Find), its records located (recordsOf), the screen
// read again in the zone they tell for an agent whose resets print none (Codex's daemon's),
// and the reset taken from them when their limit belongs to the stop (refine, exactReset). It returns the
// verdict, where its reset comes from and the process's account directory ("" when unknown).
// Without an agent's process in the pane, or without its records, the screen's reading
// stands (SourceScreen).
func Refine(ctx context.Context, t Tmux, f Finder, id string, v detector.Verdict, now time.Time) (detector.Verdict, ResetSource, string) {
	info, err := t.PaneInfo(ctx, id)
	if err != nil {
		return v, SourceScreen, ""
	}
	found, ok, err := f.Find(ctx, info.PID)
	if err != nil || !ok {
		return v, SourceScreen, ""
	}
	w := New(t, f, Config{Log: zerolog.Nop()})
	p := &pane{info: info, Identity: found.Identity, agent: found.Agent, reset: v.Reset, kind: v.Kind, source: SourceScreen}
	s := w.recordsOf(ctx, p)
	if s == nil || !v.Limited {
		return v, SourceScreen, p.account()
	}
	if a, z := p.program(), s.Zone(); a.Unzoned && z != nil {
		// The agent's reset has no zone of its own: read again in the one its records tell.
		if screen, err := w.capture(ctx, id, a); err == nil {
			if again := a.Detect(screen, detector.Facts{Now: now, Zone: z}); again.Limited {
				v, p.reset, p.kind = again, again.Reset, again.Kind
			}
		}
	}
	w.refine(p, w.judge(ctx, p))
	v.Reset, v.Kind = p.reset, p.kind
	return v, p.source, p.account()
}

// PaneAgent is the agent running in pane id now, Claude Code when none can be told.
func PaneAgent(ctx context.Context, t Tmux, f Finder, id string) agent.Name {
	info, err := t.PaneInfo(ctx, id)
	if err != nil {
		return agent.Claude
	}
	if a, ok := agentIn(ctx, f, info); ok && a != "" {
		return a
	}
	return agent.Claude
}

// consult reads the pane's records about the stop on screen: whose stop it is (judge), and,
// when it is the process's own, its exact reset (refine).
func (w *Watcher) consult(ctx context.Context, p *pane) {
	if j := w.judge(ctx, p); j.Foreign == "" {
		w.refine(p, j)
	}
}

// judge sets p.foreign from the agent's records (agent.Session.Judge): "" without records,
// where the screen decides.
func (w *Watcher) judge(ctx context.Context, p *pane) agent.Judgement {
	p.foreign = ""
	s := w.recordsOf(ctx, p)
	if s == nil {
		if p.program().Unzoned {
			p.foreign = p.agent.Title() + "'s records cannot be read, and the reset it prints has no zone they would place; nothing will be typed"
		}
		return agent.Judgement{}
	}
	// When the stop appeared: p.appeared is only an anchor for reading a time-only reset after
	// keys (takeNewStop), and zero when the stop was on screen at the first look.
	seen := p.stopped
	if p.appeared.IsZero() {
		seen = time.Time{}
	}
	j := s.Judge(agent.Seen{Kind: p.kind, Appeared: seen, Prompt: p.prompt})
	if j.Err != nil {
		p.event(w.cfg.Log.Debug()).Err(j.Err).Msg("no records of the stop")
	}
	p.foreign = j.Foreign
	return j
}

// refine takes the reset of the pane's stop from its records when their limit belongs to it
// (exactReset). A disagreement is logged at info with both values, and the screen wins.
func (w *Watcher) refine(p *pane, j agent.Judgement) {
	if p.source != SourceScreen || !p.reset.Known || j.Limit == nil || j.Limit.At.Equal(p.recs.judged) {
		return
	}
	l := *j.Limit
	p.recs.judged = l.At
	exact, kind, agree := exactReset(p.reset, p.kind, l)
	if !agree {
		p.event(w.cfg.Log.Info()).Time(l.Source+"_reset", l.ResetsAt).Str("rate_limit_type", l.Type).
			Msg(l.Records + "'s reset does not match the screen; the screen's is used")
		return
	}
	// A slot held was given from the printed reset plus the full margin: cleared, schedule
	// gives one from the exact reset.
	p.reset, p.kind, p.source, p.slot = exact, kind, ResetSource(l.Source), time.Time{}
	p.event(w.cfg.Log.Info()).Time("reset", exact.At).Msg("exact reset from " + l.Records)
	p.event(w.cfg.Log.Debug()).Str("reset_how", exact.How).Msg("how the reset was read")
}

// recordsAllow checks the agent's records before a key (agent.Session.Before): another
// conversation in the process than the one that stopped is a new session (the stop is
// forgotten and the pane looked at afresh), and a turn the records say is running is one
// more reason not to type. No records allow: the screen decides.
func (w *Watcher) recordsAllow(ctx context.Context, p *pane) bool {
	s := w.recordsOf(ctx, p)
	if s == nil {
		return true
	}
	changed, note := s.Before()
	switch {
	case changed:
		p.event(w.cfg.Log.Info()).Msg("another session in the process (its records name a new conversation); nothing typed, the pane is looked at afresh")
		w.startOver(p.info.ID)
		return false
	case note != "":
		p.note = note
		return false
	}
	return true
}

// proof is what the records say of the keys sent at p.sent (agent.Session.Proof); Unproven
// without records. Rows are stamped by the host's clock, which the watcher's clock reads too;
// a second of slack covers the rounding of both.
func (w *Watcher) proof(ctx context.Context, p *pane) records.Outcome {
	s := w.recordsOf(ctx, p)
	if s == nil {
		return records.Unproven
	}
	msg := ""
	if p.typed {
		msg = w.message(p)
	}
	return s.Proof(p.sent.Add(-time.Second), msg)
}

// codexFinder is what a Finder tells of Codex processes beyond Find and Env (proc.Finder
// does); without it, Codex's rollouts are not matched to panes.
type codexFinder interface {
	Codex(ctx context.Context, id proc.Identity) (proc.CodexTUI, error)
	DaemonZone(ctx context.Context, home string) (*time.Location, string, error)
}

// host is agent.Host for one process, answered by the finder while its records are opened.
type host struct {
	ctx context.Context
	f   codexFinder
	id  proc.Identity
}

func (h host) Codex() (agent.CodexProcess, error) {
	tui, err := h.f.Codex(h.ctx, h.id)
	return agent.CodexProcess{Env: tui.Env, Query: tui.Query(), NoDaemon: tui.Args.NoDaemon}, err
}

func (h host) DaemonZone(home string) (*time.Location, error) {
	z, _, err := h.f.DaemonZone(h.ctx, home)
	return z, err
}
