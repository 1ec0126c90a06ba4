package watcher_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Claude Code's records on the fake server: the transcript's usage-limit row gives
// the reset to the second when it belongs to the stop on screen; otherwise, or without
// records, the screen's reading stands.

const sess = "264f8e32-63d3-431e-876a-e8f6653fa2c3"

// limited is a pane stopped at "resets 7:30pm (UTC)" whose claude has a registry entry and
// a transcript ending in the prompt and the usage-limit row with resetsAt reset.
func limited(r *rig, id string, pid int, reset time.Time) *fakePane {
	p := r.tmux.add(id, pid, stopped("7:30pm", ""))
	p.session(r.t, sess, "idle")
	p.row(r.t, userLine(t0.Add(-2*time.Second), "hello"))
	p.row(r.t, limitLine(t0.Add(-time.Second), reset, "five_hour"))
	return p
}

func TestUnitExactResetFromTheTranscript(t *testing.T) {
	r := newRig(t, nil)
	exact := time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC)
	p := limited(r, "%1", 100, exact)
	r.at(0)
	row := r.row("%1")
	due := exact.Add(scheduler.Default.ExactMargin) // 19:30:22
	if row.State != watcher.Waiting || !row.Reset.Equal(exact) || row.Source != watcher.SourceTranscript || !row.Due.Equal(due) {
		t.Fatalf("row = %+v, want waiting, reset %s from the transcript, due %s", row, exact, due)
	}
	if got := p.info.Options; got.Source != "transcript" || got.Reset != "2026-11-20T19:30:17Z" || got.Account != p.env().Dir() {
		t.Errorf("published options = %+v, want the exact reset, its source and the account", got)
	}
	r.at(due.Sub(t0) - time.Second)
	r.wantKeys(p)
	r.at(due.Sub(t0))
	r.wantKeys(p, "continue", "Enter")
}

func TestUnitTranscriptThatDisagreesIsNotUsed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(r *rig) *fakePane
	}{
		{"another minute", func(r *rig) *fakePane {
			return limited(r, "%1", 100, time.Date(2026, 11, 20, 19, 45, 0, 0, time.UTC))
		}},
		{"no registry entry", func(r *rig) *fakePane { return r.tmux.add("%1", 100, stopped("7:30pm", "")) }},
		{"the registry of another process", func(r *rig) *fakePane {
			p := limited(r, "%1", 100, time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC))
			p.claude.Start = "ticks:99" // the same pid, started at another time
			return p
		}},
		{"a transient 429 only", func(r *rig) *fakePane {
			p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
			p.session(r.t, sess, "idle")
			p.row(r.t, `{"type":"assistant","isApiErrorMessage":true,"apiErrorIsTransient":true,"quotaLimits":{"status":"rejected","resetsAt":1795289417},"timestamp":"2026-11-20T18:59:59Z"}`)
			return p
		}},
		{"a broken transcript", func(r *rig) *fakePane {
			p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
			p.session(r.t, sess, "idle")
			p.row(r.t, "\x00{\"type\":\"assistant\",")
			return p
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			r := newRig(t, func(c *watcher.Config) { c.Log = zerolog.New(&logs) })
			p := tc.setup(r)
			r.at(0)
			screen := time.Date(2026, 11, 20, 19, 30, 0, 0, time.UTC)
			row := r.row("%1")
			if row.State != watcher.Waiting || !row.Reset.Equal(screen) || row.Source != watcher.SourceScreen {
				t.Fatalf("row = %+v, want waiting at the screen's reset %s", row, screen)
			}
			r.at(30*time.Minute + 59*time.Second)
			r.wantKeys(p)
			r.at(31 * time.Minute)
			r.wantKeys(p, "continue", "Enter")
			if tc.name == "another minute" && !strings.Contains(logs.String(), `"transcript_reset":"2026-11-20T19:45:00Z"`) {
				t.Errorf("the disagreement is not logged with both values:\n%s", logs.String())
			}
			if strings.Contains(logs.String(), "You've hit") && strings.Contains(logs.String(), `"level":"info","pane":"%1","message":"You`) {
				t.Errorf("text logged at info:\n%s", logs.String())
			}
		})
	}
}

// Whose stop is it: a stop on screen is the process's own only
// when its transcript ends in a usage-limit row written after the process started. A reply
// that quotes the limit line, and a conversation reopened after its stop, get no key; a
// transcript that lags the screen holds the pane only until the row is written.
func TestUnitStopTheTranscriptDoesNotHaveGetsNoKey(t *testing.T) {
	start := t0.Add(-time.Hour)
	for _, tc := range []struct {
		name  string
		setup func(p *fakePane)
		note  string
	}{
		{"a reply quotes the limit line", func(p *fakePane) {
			p.row(t, userLine(t0.Add(-2*time.Minute), "what does the limit line look like?"))
			p.row(t, replyLine(t0.Add(-time.Minute)))
		}, "only text"},
		{"a reply after an earlier stop", func(p *fakePane) {
			p.row(t, userLine(start.Add(time.Minute), "hello"))
			p.row(t, limitLine(start.Add(2*time.Minute), t0.Add(-10*time.Minute), "five_hour"))
			p.row(t, userLine(t0.Add(-2*time.Minute), "continue"))
			p.row(t, replyLine(t0.Add(-time.Minute)))
		}, "only text"},
		{"a registry session without a transcript (claude -c, the moment before it names the old session)", func(p *fakePane) {
			p.session(t, "a-fresh-session", "idle")
		}, "without a transcript"},
		{"reopened after its stop", func(p *fakePane) {
			p.started = t0.Add(-time.Minute) // claude -c, after the stop of an earlier process
			p.session(t, sess, "idle")
			p.row(t, userLine(t0.Add(-3*time.Hour), "hello"))
			p.row(t, limitLine(t0.Add(-3*time.Hour), t0.Add(30*time.Minute), "five_hour"))
		}, "older than this claude process"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
			p.started = start
			p.session(t, sess, "idle")
			tc.setup(p)
			r.at(0)
			if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, tc.note) || !row.Due.IsZero() {
				t.Fatalf("row = %+v, want held, no due instant, the note saying %q", row, tc.note)
			}
			for _, d := range []time.Duration{31 * time.Minute, 32 * time.Minute, 2 * time.Hour} {
				r.at(d)
			}
			r.wantKeys(p)
			if out, err := r.w.Do(context.Background(), "%1", watcher.ResumeNow); err != nil || out.Done || !strings.Contains(out.Message, tc.note) {
				t.Errorf("resume by hand = %+v, %v; want refused with the note", out, err)
			}
			r.wantKeys(p) // not even a resume asked for by hand
		})
	}
}

// Claude Code draws the stop before its transcript has the row: the pane is held while the
// transcript ends in the prompt, and waits for the reset once the row is written.
func TestUnitTranscriptLaggingTheScreen(t *testing.T) {
	r := newRig(t, nil)
	exact := time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	p.started = t0.Add(-time.Hour)
	p.session(t, sess, "idle")
	p.row(t, userLine(t0.Add(-time.Second), "hello"))
	r.at(0)
	if row := r.row("%1"); row.State != watcher.Held {
		t.Fatalf("row = %+v, want held while the transcript has no usage-limit row", row)
	}
	p.row(t, limitLine(t0.Add(time.Second), exact, "five_hour"))
	r.at(time.Minute) // a stopped pane is looked at again at least every 30 s
	row := r.row("%1")
	if row.State != watcher.Waiting || row.Source != watcher.SourceTranscript || !row.Reset.Equal(exact) {
		t.Fatalf("row = %+v, want waiting for the transcript's reset %s", row, exact)
	}
	r.at(exact.Sub(t0) + scheduler.Default.ExactMargin)
	r.wantKeys(p, "continue", "Enter")
}

// The exact reset read only at a later look (the registry entry unreadable at the first, as
// when Claude Code rewrites it in place) moves the due instant to the exact reset plus its
// margin; the slot the printed reset gave is not kept.
func TestUnitLaterExactResetMovesTheDue(t *testing.T) {
	r := newRig(t, nil)
	exact := time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC)
	p := limited(r, "%1", 100, exact)
	entry := filepath.Join(p.env().Dir(), "sessions", "100.json")
	if err := os.Rename(entry, entry+".away"); err != nil {
		t.Fatal(err)
	}
	r.at(0)
	if row := r.row("%1"); row.Source != watcher.SourceScreen || !row.Due.Equal(t0.Add(31*time.Minute)) {
		t.Fatalf("row = %+v, want due at the printed reset plus the margin", row)
	}
	if err := os.Rename(entry+".away", entry); err != nil {
		t.Fatal(err)
	}
	r.at(time.Minute) // looked at again: the transcript is read
	due := exact.Add(scheduler.Default.ExactMargin)
	if row := r.row("%1"); row.Source != watcher.SourceTranscript || !row.Due.Equal(due) {
		t.Fatalf("row = %+v, want due %s from the exact reset", row, due)
	}
	r.at(due.Sub(t0))
	r.wantKeys(p, "continue", "Enter")
}

// A time-only reset on screen at the first look (its appearance unknown): the transcript
// settles the day. 6:50pm at 19:00 is a reset that passed ten minutes ago, to the second.
func TestUnitTranscriptSettlesTheDay(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("6:50pm", ""))
	p.session(t, sess, "idle")
	exact := time.Date(2026, 11, 20, 18, 50, 41, 0, time.UTC)
	p.row(t, userLine(exact.Add(-5*time.Hour), "hello"))
	p.row(t, limitLine(exact.Add(-5*time.Hour), exact, "five_hour"))
	r.at(0)
	if row := r.row("%1"); !row.Reset.Equal(exact) || row.Source != watcher.SourceTranscript {
		t.Errorf("row = %+v, want the transcript's reset %s", row, exact)
	}
	r.at(time.Second)
	r.wantKeys(p, "continue", "Enter")
}

// Accounts wake apart: the stagger and the cap count within one config directory, and one
// account's waits never delay another's.
func TestUnitAccountsAreStaggeredApart(t *testing.T) {
	var logs bytes.Buffer
	r := newRig(t, func(c *watcher.Config) { c.Schedule.MaxPerReset = 2; c.Log = zerolog.New(&logs) })
	exact := time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC)
	panes := map[string]*fakePane{}
	for i, id := range []string{"%1", "%2", "%3", "%4", "%5"} {
		account := "a"
		if i >= 3 {
			account = "b"
		}
		p := r.tmux.add(id, 100+i, stopped("7:30pm", ""))
		p.account = account
		p.session(t, sess, "idle")
		p.row(t, limitLine(t0.Add(-time.Duration(5-i)*time.Second), exact, "five_hour"))
		panes[id] = p
	}
	r.at(0)
	first := exact.Add(scheduler.Default.ExactMargin)
	r.at(first.Sub(t0))
	r.wantKeys(panes["%1"], "continue", "Enter")
	r.wantKeys(panes["%4"], "continue", "Enter") // account b's first, at the same instant
	r.wantKeys(panes["%2"])
	r.at(first.Sub(t0) + scheduler.Default.Stagger)
	r.wantKeys(panes["%2"], "continue", "Enter")
	r.wantKeys(panes["%5"], "continue", "Enter")
	r.at(first.Sub(t0) + time.Hour)
	r.wantKeys(panes["%3"]) // account a's third: beyond the cap of 2
	row := r.row("%3")
	if row.Account != panes["%3"].env().Dir() {
		t.Errorf("row account = %q, want %q", row.Account, panes["%3"].env().Dir())
	}
	// It says so, on the pane and once in the log.
	if !strings.Contains(row.Note, "max_per_reset") || !strings.Contains(row.Note, "cac-tmux resume %3") ||
		!strings.Contains(panes["%3"].info.Options.Note, "max_per_reset") {
		t.Errorf("capped pane: note %q, published %+v; want why it does not wake and how to wake it", row.Note, panes["%3"].info.Options)
	}
	if n := strings.Count(logs.String(), `"capped: `); n != 1 || !strings.Contains(logs.String(), `"pane":"%3"`) {
		t.Errorf("log has %d capped lines, want 1 for %%3:\n%s", n, logs.String())
	}
}

// The registry: "busy" holds the keys back; another session id in the process is a new
// session, whose stop is taken on afresh.
func TestUnitRegistryGatesTheKeys(t *testing.T) {
	r := newRig(t, nil)
	exact := time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC)
	p := limited(r, "%1", 100, exact)
	r.at(0)
	p.session(t, sess, "busy")
	r.at(31 * time.Minute)
	r.wantKeys(p)
	if row := r.row("%1"); !strings.Contains(row.Note, "registry says a turn is running") {
		t.Errorf("note = %q, want the registry's busy status", row.Note)
	}
	p.session(t, "another-session", "idle")
	r.at(32 * time.Minute)
	r.wantKeys(p)
	r.at(33 * time.Minute) // looked at afresh: the new session has no transcript, so the stop is not its own
	r.wantKeys(p)
	if row := r.row("%1"); row.State != watcher.Held || !strings.Contains(row.Note, "without a transcript") {
		t.Errorf("row = %+v, want held: the old session's stop is not the new session's", row)
	}
	// The new session stops at the limit in its turn: its own row, its own reset.
	other := time.Date(2026, 11, 20, 19, 30, 41, 0, time.UTC)
	p.row(t, userLine(t0.Add(33*time.Minute), "hello again"))
	p.row(t, limitLine(t0.Add(33*time.Minute+time.Second), other, "five_hour"))
	r.at(34 * time.Minute)
	r.at(35 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
	if row := r.row("%1"); row.Source == watcher.SourceTranscript && row.Reset.Equal(exact) {
		t.Errorf("row = %+v: the old session's transcript used for the new one", row)
	}
}

// Proof of a resume: the transcript's rows after the keys. A new usage-limit row means the
// limit still holds, whatever the screen has drawn yet; a reply confirms the resume.
func TestUnitTranscriptProvesTheResume(t *testing.T) {
	for _, limitAgain := range []bool{false, true} {
		var logs bytes.Buffer
		r := newRig(t, func(c *watcher.Config) { c.Log = zerolog.New(&logs) })
		exact := time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC)
		p := limited(r, "%1", 100, exact)
		r.tmux.onKey = func(_, key string) {
			if key != "Enter" {
				return
			}
			at := r.clk.Now()
			p.row(t, userLine(at, "continue"))
			if limitAgain {
				p.row(t, limitLine(at.Add(100*time.Millisecond), exact, "five_hour"))
				p.draw(screen("❯ continue", "", "● …")) // drawn in part: no stop on screen yet
				return
			}
			p.row(t, replyLine(at.Add(100*time.Millisecond)))
			p.draw(resumed("7:30pm"))
		}
		r.at(0)
		r.at(31 * time.Minute)
		r.at(31*time.Minute + 3*time.Second)
		row := r.row("%1")
		switch {
		case limitAgain && (row.State != watcher.Waiting || !strings.Contains(row.Note, "new usage-limit row")):
			t.Errorf("after a new usage-limit row: %+v, want waiting for a retry", row)
		case !limitAgain && (row.State != watcher.Running || !strings.Contains(logs.String(), `"transcript":true`)):
			t.Errorf("after a reply: %+v, want running with the transcript's proof logged:\n%s", row, logs.String())
		}
	}
}

func TestExact(t *testing.T) {
	nicosia, err := time.LoadLocation("Asia/Nicosia")
	if err != nil {
		t.Fatal(err)
	}
	at := func(loc *time.Location, d, h, m, s int) time.Time { return time.Date(2026, 11, d, h, m, s, 0, loc) }
	clock := detector.Reset{Known: true, At: at(nicosia, 20, 19, 30, 0), Source: detector.SourceClock, Zone: "Asia/Nicosia", How: "the next 19:30."}
	date := detector.Reset{Known: true, At: at(nicosia, 23, 23, 0, 0), Source: detector.SourceDate, Zone: "Asia/Nicosia"}
	limit := func(t time.Time, kind detector.Kind) agent.Limit {
		return agent.Limit{ResetsAt: t, Kind: kind, Records: "Claude Code's transcript", Field: "resetsAt", Source: "transcript"}
	}
	for _, tc := range []struct {
		name   string
		screen detector.Reset
		kind   detector.Kind
		row    agent.Limit
		want   time.Time // zero: no agreement
		kind2  detector.Kind
	}{
		{"to the second", clock, detector.KindSession, limit(at(nicosia, 20, 19, 30, 41), detector.KindNone), at(nicosia, 20, 19, 30, 41), detector.KindSession},
		{"in UTC, the same instant", clock, detector.KindFiveHour, limit(at(time.UTC, 20, 17, 30, 41), detector.KindNone), at(nicosia, 20, 19, 30, 41), detector.KindFiveHour},
		{"the next day settles the guess", clock, detector.KindWeekly, limit(at(nicosia, 21, 19, 30, 5), detector.KindWeekly), at(nicosia, 21, 19, 30, 5), detector.KindWeekly},
		{"another minute", clock, detector.KindSession, limit(at(nicosia, 20, 19, 31, 0), detector.KindNone), time.Time{}, detector.KindSession},
		{"another hour", clock, detector.KindSession, limit(at(nicosia, 20, 7, 30, 0), detector.KindNone), time.Time{}, detector.KindSession},
		{"a date to the minute", date, detector.KindOpus, limit(at(nicosia, 23, 23, 0, 59), detector.KindOpus), at(nicosia, 23, 23, 0, 59), detector.KindOpus},
		{"a date, another day", date, detector.KindOpus, limit(at(nicosia, 24, 23, 0, 0), detector.KindOpus), time.Time{}, detector.KindOpus},
		{"the kind from the record", date, detector.KindUsage, limit(at(nicosia, 23, 23, 0, 0), detector.KindSonnet), at(nicosia, 23, 23, 0, 0), detector.KindSonnet},
		{"a record that names no kind", date, detector.KindUsage, limit(at(nicosia, 23, 23, 0, 0), detector.KindNone), at(nicosia, 23, 23, 0, 0), detector.KindUsage},
		{"no reset recorded", clock, detector.KindSession, agent.Limit{}, time.Time{}, detector.KindSession},
		{"no reset on screen", detector.Reset{}, detector.KindSession, limit(at(nicosia, 20, 19, 30, 0), detector.KindNone), time.Time{}, detector.KindSession},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, kind, ok := watcher.Exact(tc.screen, tc.kind, tc.row)
			if ok != !tc.want.IsZero() || kind != tc.kind2 {
				t.Fatalf("Exact = %v, %s, %v; want agreement %v, kind %s", got.At, kind, ok, !tc.want.IsZero(), tc.kind2)
			}
			if !ok {
				if got != tc.screen {
					t.Errorf("Exact without agreement changed the reset: %+v", got)
				}
				return
			}
			if !got.At.Equal(tc.want) || got.At.Location() != tc.screen.At.Location() || !strings.Contains(got.How, "transcript") {
				t.Errorf("Exact = %v (%s), want %v in the screen's zone", got.At, got.How, tc.want)
			}
		})
	}
}

// `list` reads the source and the account back from the pane options; an unknown source is
// refused, naming the option.
func TestRowOfSourceAndAccount(t *testing.T) {
	r := newRig(t, nil)
	p := limited(r, "%1", 100, time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC))
	r.at(0)
	row, err := watcher.RowOf(p.info)
	if err != nil || row.Source != watcher.SourceTranscript || row.Account != p.env().Dir() || row.Reset.Second() != 17 {
		t.Errorf("RowOf = %+v, %v; want the transcript's reset and the account", row, err)
	}
	p.info.Options.Source = "guess"
	if _, err := watcher.RowOf(p.info); err == nil || !strings.Contains(err.Error(), "@cac_source") {
		t.Errorf("RowOf with @cac_source guess = %v, want an error naming the option", err)
	}
}
