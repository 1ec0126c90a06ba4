package watcher_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Unit tests of the watcher against a hand-written fake tmux server and process table, on a
// manual clock: no real tmux, no waiting.

// fakePane is one pane of the fake server.
type fakePane struct {
	srv    *fakeTmux
	info   tmuxctl.Pane
	screen string
	claude proc.Identity // zero: no claude in the pane
	keys   []string      // every SendLiteral/SendKey, in order
	reply  string        // @cac_reply
	// lag is how many captures after a text the screen still shows the box without it
	// (Claude Code takes a moment to draw); unrendered holds the text meanwhile.
	lag, lagLeft int
	unrendered   string
	// partial: the last capture before the text shows it drawn in part (its first half).
	partial bool
	// vim is "" (vim mode off), "normal" (typed text is eaten, i enters INSERT mode),
	// "insert" (the footer says -- INSERT --) or "stuck" (vim mode on, every key eaten).
	vim string
	// account names the claude's config directory (fakeTmux.Env); sessionID is its
	// registry's session id, "" until session writes it.
	account, sessionID string
	// started is the registry's startedAt (the process's start); zero leaves it out.
	started time.Time
	// vimIn is where Claude Code's editorMode is set: "" the global config (.claude.json),
	// "user" the account's settings.json, "project" the project's .claude/settings.json.
	vimIn string
	// forked: the process table shows tmux's fork, which has not yet run claude
	// (proc.Found.Starting).
	forked bool
	// agent is the agent in the pane, Claude Code when zero; a Codex pane's screens and keys
	// are codex_test.go's (codexPane).
	agent agent.Name
	codex *codexPane
}

// fakeTmux is a tmux server whose panes a test edits between ticks.
type fakeTmux struct {
	clock    time.Time // the server's clock of window activity
	panes    map[string]*fakePane
	captures map[string]int
	noProc   bool // the process table is unreadable
	// dir holds the claude processes' config directories; "" when no process has records.
	dir string
	// editorUnknown: Claude Code's settings cannot be read.
	editorUnknown bool
	down          bool // no server on the socket: every call fails
	searches      []tmuxctl.Search
	notify        notifier // the changes its control connection notifies (listing_test.go)
	globals       map[string]string
	// onKey, when set, runs before a key reaches a pane.
	onKey func(id, key string)
	// onList, when set, runs first in ListPanes; an error it returns is the listing's.
	onList func() error
}

func newFakeTmux() *fakeTmux {
	return &fakeTmux{clock: time.Unix(1, 0), panes: map[string]*fakePane{}, captures: map[string]int{}, globals: map[string]string{}}
}

var errNoServer = &tmuxctl.Error{Stderr: "no server running on /tmp/fake", Err: tmuxctl.ErrNoServer}

func (f *fakeTmux) ClaimGlobal(_ context.Context, name, old, value string) (string, error) {
	if f.down {
		return "", errNoServer
	}
	if f.globals[name] == old {
		f.globals[name] = value
	}
	return f.globals[name], nil
}

// add opens a pane running a claude process pid with screen.
func (f *fakeTmux) add(id string, pid int, screen string) *fakePane {
	p := &fakePane{
		info:   tmuxctl.Pane{ID: id, PID: pid + 1000, Session: "s", WindowIndex: len(f.panes), Width: 120, Height: 40, Command: "claude", Match: -1, WindowActivity: f.clock},
		srv:    f,
		screen: screen, claude: proc.Identity{PID: pid, Start: fmt.Sprint("ticks:", pid)},
	}
	f.panes[id] = p
	return p
}

// draw changes a pane's screen and marks its window active.
func (p *fakePane) draw(screen string) {
	p.screen = screen
	p.srv.clock = p.srv.clock.Add(time.Second)
	p.info.WindowActivity = p.srv.clock
}

func (f *fakeTmux) ListPanes(_ context.Context, s tmuxctl.Search) ([]tmuxctl.Pane, error) {
	f.searches = append(f.searches, s)
	if f.onList != nil {
		if err := f.onList(); err != nil {
			return nil, err
		}
	}
	if f.down {
		return nil, errNoServer
	}
	var ps []tmuxctl.Pane
	for _, p := range f.panes {
		info := p.info
		if !s.Since.IsZero() && info.WindowActivity.Before(s.Since) {
			info.Match = tmuxctl.Quiet // as the server-side search (tmuxctl.PaneFormat)
		}
		ps = append(ps, info)
	}
	slices.SortFunc(ps, func(a, b tmuxctl.Pane) int { return strings.Compare(a.ID, b.ID) })
	return ps, nil
}

func (f *fakeTmux) pane(id string) (*fakePane, error) {
	if f.down {
		return nil, errNoServer
	}
	p, ok := f.panes[id]
	if !ok {
		return nil, &tmuxctl.Error{Args: []string{"-t", id}, Stderr: "can't find pane: " + id, Err: tmuxctl.ErrNoTarget}
	}
	return p, nil
}

func (f *fakeTmux) PaneInfo(_ context.Context, id string) (tmuxctl.Pane, error) {
	p, err := f.pane(id)
	if err != nil {
		return tmuxctl.Pane{}, err
	}
	return p.info, nil
}

// CaptureStyled is Capture: a fake screen is what it is, escapes and all.
func (f *fakeTmux) CaptureStyled(ctx context.Context, id string) (string, error) {
	return f.Capture(ctx, id)
}

func (f *fakeTmux) Capture(_ context.Context, id string) (string, error) {
	p, err := f.pane(id)
	if err != nil {
		return "", err
	}
	f.captures[id]++
	if p.unrendered != "" && p.partial && p.lagLeft == 1 {
		p.lagLeft--
		half := p.unrendered[:len(p.unrendered)/2]
		return strings.Replace(p.screen, "❯\u00a0", "❯\u00a0"+half, 1), nil
	}
	if p.unrendered != "" {
		if p.lagLeft--; p.lagLeft < 0 {
			text := p.unrendered
			p.unrendered = ""
			p.edit(func(draft string) string { return draft + text })
		}
	}
	if p.vim == "insert" {
		return strings.Replace(p.screen, "  ? for shortcuts", "  -- INSERT -- ? for shortcuts", 1), nil
	}
	return p.screen, nil
}

func (f *fakeTmux) SendLiteral(_ context.Context, id, text string) error {
	p, err := f.pane(id)
	if err == nil {
		if f.onKey != nil {
			f.onKey(id, text)
		}
		p.keys = append(p.keys, text)
		switch {
		case p.codex != nil:
			p.codex.typed(p, text)
		case p.vim == "normal" && text == "i":
			p.vim = "insert"
		case p.lag > 0:
			p.unrendered, p.lagLeft = p.unrendered+text, p.lag
		case p.vim == "" || p.vim == "insert":
			p.edit(func(draft string) string { return draft + text })
		}
	}
	return err
}

// edit changes the draft in the screen's input box, as Claude Code does when keys arrive:
// "❯ " (2.1.x) or "> " (2.0.x, with NO-BREAK SPACE), or "│ > " in 1.0.x's rounded box.
func (p *fakePane) edit(change func(draft string) string) {
	rows := strings.Split(p.screen, "\n")
	for i := len(rows) - 1; i >= 0; i-- {
		for _, prompt := range []string{"❯\u00a0", ">\u00a0", "│ > ", "│\u00a0>\u00a0"} {
			if draft, ok := strings.CutPrefix(rows[i], prompt); ok {
				boxed := strings.HasPrefix(prompt, "│")
				if boxed {
					draft = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(draft, " "), "│"), " ")
				}
				rows[i] = prompt + change(draft)
				if boxed {
					rows[i] += "  │"
				}
				p.screen = strings.Join(rows, "\n")
				return
			}
		}
	}
}

func (f *fakeTmux) SendKey(_ context.Context, id, key string) error {
	p, err := f.pane(id)
	if err == nil {
		if f.onKey != nil {
			f.onKey(id, key)
		}
		p.keys = append(p.keys, key)
		switch {
		case p.codex != nil:
			p.codex.pressed(p, key)
		case key == "Enter":
			p.edit(func(string) string { return "" }) // submitted
		}
	}
	return err
}

func (f *fakeTmux) SetPaneOptions(_ context.Context, id string, names, values []string) error {
	p, err := f.pane(id)
	if err != nil {
		return err
	}
	o := &p.info.Options
	at := map[string]*string{"@cac_state": &o.State, "@cac_reset": &o.Reset, "@cac_due": &o.Due, "@cac_kind": &o.Kind,
		"@cac_zone": &o.Zone, "@cac_note": &o.Note, "@cac_source": &o.Source, "@cac_account": &o.Account, "@cac_agent": &o.Agent, tmuxctl.RequestOption: &p.info.Request, tmuxctl.ReplyOption: &p.reply}
	for i, n := range names {
		*at[n] = values[i]
	}
	return nil
}

// Env implements watcher.Finder: each pane's claude keeps its records (its config directory)
// in its own directory under the rig's, the one of its account (p.account, "" for the
// default). The settings file says editorMode "vim" while the pane's vim mode is on.
func (f *fakeTmux) Env(_ context.Context, id proc.Identity) (records.Env, error) {
	if f.editorUnknown || f.dir == "" {
		return records.Env{}, errors.New("proc: environment: unreadable")
	}
	for _, p := range f.panes {
		if p.claude != id {
			continue
		}
		env := p.env()
		settings := `{"editorMode":"normal"}`
		if p.vim != "" {
			settings = `{"editorMode":"vim"}`
		}
		file := map[string]string{"": filepath.Join(env.Dir(), ".claude.json"), "user": filepath.Join(env.Dir(), "settings.json"),
			"project": filepath.Join(p.cwd(), ".claude", "settings.json")}[p.vimIn]
		if err := putFile(file, settings); err != nil {
			return records.Env{}, err
		}
		return env, nil
	}
	return records.Env{}, errors.New("proc: environment: the process is gone")
}

// cwd is the directory the pane's claude was started in (the registry's cwd).
func (p *fakePane) cwd() string {
	return filepath.Join(p.srv.dir, "work", fmt.Sprint("p", p.claude.PID))
}

// env is where the pane's claude keeps its records.
func (p *fakePane) env() records.Env {
	if p.codex != nil {
		return records.Env{CodexHome: p.codex.home}
	}
	return records.Env{ConfigDir: filepath.Join(p.srv.dir, "account"+p.account)}
}

func putFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o600)
}

// session writes the pane's registry entry, as Claude Code 2.1.330 does, with the given
// session id and status.
func (p *fakePane) session(t *testing.T, id, status string) {
	t.Helper()
	started := ""
	if !p.started.IsZero() {
		started = fmt.Sprintf(`"startedAt":%d,`, p.started.UnixMilli())
	}
	entry := fmt.Sprintf(`{"pid":%d,"sessionId":%q,"cwd":%q,%s"procStart":%q,"version":"2.1.330","kind":"interactive","status":%q}`,
		p.claude.PID, id, p.cwd(), started, strings.TrimPrefix(p.claude.Start, "ticks:"), status)
	if err := putFile(filepath.Join(p.env().Dir(), "sessions", fmt.Sprint(p.claude.PID)+".json"), entry); err != nil {
		t.Fatal(err)
	}
	p.sessionID = id
}

// row appends a row to the transcript of the pane's session.
func (p *fakePane) row(t *testing.T, line string) {
	t.Helper()
	path := filepath.Join(p.env().Dir(), "projects", encodeCwd(p.cwd()), p.sessionID+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// Rows as Claude Code 2.1.330 writes them (records/testdata/transcript-2.1.330.jsonl).
// encodeCwd names a project's transcript folder as Claude Code does: every character but
// letters and digits as "-".
func encodeCwd(cwd string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
}

func userLine(at time.Time, text string) string {
	return fmt.Sprintf(`{"type":"user","message":{"role":"user","content":%q},"timestamp":%q}`, text, at.UTC().Format(time.RFC3339Nano))
}

func limitLine(at, reset time.Time, typ string) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"content":[{"type":"text","text":"You've hit your limit"}]},"apiError":"usage_limit_reached","quotaLimits":{"status":"rejected","resetsAt":%d,"rateLimitType":%q},"error":"rate_limit","isApiErrorMessage":true,"apiErrorStatus":429,"timestamp":%q}`,
		reset.Unix(), typ, at.UTC().Format(time.RFC3339Nano))
}

func replyLine(at time.Time) string {
	return fmt.Sprintf(`{"type":"assistant","message":{"content":[{"type":"text","text":"ok"}]},"timestamp":%q}`, at.UTC().Format(time.RFC3339Nano))
}

// Find implements watcher.Finder from the panes' claude identities.
func (f *fakeTmux) Find(_ context.Context, panePID int) (proc.Found, bool, error) {
	if f.noProc {
		return proc.Found{}, false, errors.New("proc: no /proc and no ps")
	}
	for _, p := range f.panes {
		if p.info.PID == panePID && p.forked {
			return proc.Found{Starting: true}, false, nil
		}
		if p.info.PID == panePID && p.claude.PID != 0 {
			return proc.Found{Identity: p.claude, How: "fake", Agent: cmp.Or(p.agent, agent.Claude)}, true, nil
		}
	}
	return proc.Found{}, false, nil
}

var t0 = time.Date(2026, 11, 20, 19, 0, 0, 0, time.UTC)

// Screens in the layout of Claude Code 2.1.x (see ../shared/fixtures/claude-screens).
const rule = "────────────────────────────────────────────────────────────────────────────────"

func screen(body ...string) string {
	rows := append([]string{" ▐▛███▜▌   Claude Code v2.1.329", ""}, body...)
	return strings.Join(rows, "\n") + "\n"
}

func prompt(draft string) []string {
	return []string{"", rule, "❯\u00a0" + draft, rule, "  ? for shortcuts"}
}

func stopped(at string, draft string) string {
	return screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets " + at + " (UTC)"}, prompt(draft)...)...)
}

func resumed(at string) string {
	return screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets " + at + " (UTC)",
		"", "❯ continue", "", "● Resuming the task…", "", "✻ Working… (esc to interrupt)"}, prompt("")...)...)
}

// menuStopSecond is a stop with the options menu open, its Stop row second, after a paid one.
func menuStopSecond() string {
	return screen("❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)", "", rule,
		"  What do you want to do?", "", "  ❯ 1. Upgrade your plan", "    2. Stop and wait for limit to reset", "", "  Enter to confirm · Esc to cancel")
}

func idle() string {
	return screen(append([]string{"❯ hello", "", "● Hello! What should we work on?"}, prompt("")...)...)
}

// rig is a watcher on a fake server with a manual clock.
type rig struct {
	t    *testing.T
	tmux *fakeTmux
	clk  *clocktest.Manual
	cfg  watcher.Config
	w    *watcher.Watcher
}

func newRig(t *testing.T, mod func(*watcher.Config)) *rig {
	r := &rig{t: t, tmux: newFakeTmux(), clk: clocktest.New(t0)}
	r.tmux.dir = t.TempDir()
	r.clk.AutoSleep = true // the pause between keys passes on the rig's clock, in Tick
	cfg := watcher.Config{Schedule: scheduler.Default, Clock: r.clk, Log: zerolog.Nop()}
	if mod != nil {
		mod(&cfg)
	}
	r.cfg = cfg
	r.w = watcher.New(r.tmux, r.tmux, cfg)
	return r
}

// restart replaces the watcher by a new one with the same settings, as after kill -9: the
// old one saves nothing more.
func (r *rig) restart() { r.w = watcher.New(r.tmux, r.tmux, r.cfg) }

// at moves the clock to t0+d and ticks.
func (r *rig) at(d time.Duration) {
	r.t.Helper()
	r.clk.Set(t0.Add(d))
	if _, err := r.w.Tick(context.Background()); err != nil {
		r.t.Fatalf("Tick at t0+%s: %v", d, err)
	}
}

func (r *rig) state(id string) watcher.State {
	for _, row := range r.w.Rows() {
		if row.Pane == id {
			return row.State
		}
	}
	return ""
}

func (r *rig) wantKeys(p *fakePane, want ...string) {
	r.t.Helper()
	if !slices.Equal(p.keys, want) {
		r.t.Errorf("pane %s received %q, want %q", p.info.ID, p.keys, want)
	}
}

func TestUnitPlainResumeAndVerify(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	if got := r.state("%1"); got != watcher.Waiting {
		t.Fatalf("state = %s, want waiting", got)
	}
	r.at(30*time.Minute + 59*time.Second) // the reset + margin is 19:31:00
	r.wantKeys(p)
	r.at(31 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
	if got := r.state("%1"); got != watcher.Verifying {
		t.Errorf("state after the keys = %s, want verifying", got)
	}
	p.draw(resumed("7:30pm"))
	r.at(31*time.Minute + 3*time.Second)
	if got := r.state("%1"); got != watcher.Running {
		t.Errorf("state after a resumed turn = %s, want running", got)
	}
	if p.info.Options != (tmuxctl.Options{}) {
		t.Errorf("options when running = %+v, want none", p.info.Options)
	}
	r.at(2 * time.Hour)
	r.wantKeys(p, "continue", "Enter")
}

// A quiet Claude pane costs a listing and nothing else: after the first look, no capture
// until its window shows activity.
func TestUnitIdlePaneIsNotCapturedAgain(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, idle())
	p.info.Match = 0 // searched by the pre-filter: no limit text
	for i := range 10 {
		r.at(time.Duration(i) * 2 * time.Second)
	}
	if got := r.tmux.captures["%1"]; got != 1 {
		t.Errorf("captures of a quiet idle pane over 10 ticks = %d, want 1", got)
	}
	p.draw(stopped("9pm", ""))
	p.info.Match = 3
	r.at(21 * time.Second)
	if got := r.state("%1"); got != watcher.Waiting || r.tmux.captures["%1"] != 2 {
		t.Errorf("after the stop appeared: state %s, captures %d; want waiting after 2 captures", got, r.tmux.captures["%1"])
	}
}

// A pane id whose claude process changed is a new session: the old stop is never resumed
// into it, neither when the change is seen on a look nor when only the last gate sees it.
func TestUnitRecycledPaneIsNeverResumed(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.at(30*time.Minute + 50*time.Second) // a look 10 s before the due instant
	p.claude = proc.Identity{PID: 200, Start: "ticks:200"}
	r.at(31 * time.Minute) // due: no look on this tick, the gate finds another process
	r.wantKeys(p)
	p.draw(idle()) // the new claude's own screen
	r.at(32 * time.Minute)
	r.wantKeys(p)
	if got := r.state("%1"); got != watcher.Running {
		t.Errorf("state of the new session = %q, want running", got)
	}
	p.claude = proc.Identity{} // a shell now, the old stop back on screen
	p.info.Command = "bash"
	p.draw(stopped("7:30pm", ""))
	r.at(33 * time.Minute)
	r.at(2 * time.Hour)
	r.wantKeys(p)
	if got := r.state("%1"); got != "" {
		t.Errorf("state of a pane without claude = %q, want not supervised", got)
	}
}

func TestUnitNoKeys(t *testing.T) {
	for _, tc := range []struct {
		name   string
		screen string
		noProc bool
		want   watcher.State
	}{
		{"draft", stopped("7:30pm", "my idea"), false, watcher.Held},
		{"process unknown", stopped("7:30pm", ""), true, watcher.Held},
		{"org limit", screen(append([]string{"❯ hello", "  ⎿ \u00a0Your org is out of usage · contact your admin"}, prompt("")...)...), false, watcher.Unwaitable},
		{"no reset time", screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your limit"}, prompt("")...)...), false, watcher.Limited},
		{"menu whose Stop-like row switches to paid usage", screen("❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)", "", rule,
			"  What do you want to do?", "", "  ❯ 1. Upgrade your plan", "    2. Stop waiting and switch to usage credits ($)", "", "  Enter to confirm · Esc to cancel"), false, watcher.Held},
		{"press enter over a draft", screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 6:30pm (UTC)",
			"", "● Your usage limit has reset · press enter to continue"}, prompt("half-written idea")...)...), false, watcher.Held},
		{"menu without a Stop row", screen("❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)", "", rule,
			"  What do you want to do?", "", "  ❯ 1. Switch to usage credits", "    2. Upgrade your plan", "", "  Enter to confirm · Esc to cancel"), false, watcher.Held},
		{"quoted", screen(append([]string{"❯ what did it say?", "", "● It said: You've hit your session limit · resets 7:30pm (UTC)"}, prompt("")...)...), false, watcher.Running},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, nil)
			r.tmux.noProc = tc.noProc
			p := r.tmux.add("%1", 100, tc.screen)
			for _, d := range []time.Duration{0, 31 * time.Minute, 2 * time.Hour} {
				r.at(d)
			}
			r.wantKeys(p)
			if got := r.state("%1"); got != tc.want {
				t.Errorf("state = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestUnitPressEnterGetsABareEnter(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 6:30pm (UTC)",
		"", "● Your usage limit has reset · press enter to continue"}, prompt("")...)...))
	r.at(0)
	r.wantKeys(p, "Enter")
}

// Claude Code 2.1.330+ may put "continue" into the box itself under "Press ⏎ to continue
// after reset": that box is no draft, and after the reset Enter alone
// resumes; typing would give "continuecontinue". A box the user edited is a draft.
func TestUnitPrefilledContinueGetsEnterOnly(t *testing.T) {
	prefilled := func(box string) string {
		return screen(append([]string{"❯ hello", "  ⎿ \u00a0You've hit your 5-hour limit · resets 7:30pm (UTC)",
			"     Press ⏎ to continue after reset"}, prompt(box)...)...)
	}
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, prefilled("continue"))
	r.at(0)
	if row := r.row("%1"); row.State != watcher.Waiting {
		t.Fatalf("row = %+v, want waiting (the box is Claude Code's, not a draft)", row)
	}
	r.at(30*time.Minute + 59*time.Second)
	r.wantKeys(p)
	r.at(31 * time.Minute)
	r.wantKeys(p, "Enter")

	edited := r.tmux.add("%2", 200, prefilled("continue, then write the tests"))
	for _, d := range []time.Duration{32 * time.Minute, 2 * time.Hour} {
		r.at(d)
	}
	r.wantKeys(edited)
	if got := r.state("%2"); got != watcher.Held {
		t.Errorf("state with an edited box = %s, want held", got)
	}
}

// A menu that stays open after its Stop digit is held: the digit is never pressed twice.
func TestUnitMenuThatStaysOpenIsHeld(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, menuStopSecond())
	r.at(0)
	r.at(31 * time.Minute)
	r.wantKeys(p, "2")
	r.at(31*time.Minute + 2*time.Second)
	r.at(40 * time.Minute)
	r.wantKeys(p, "2")
	if got := r.state("%1"); got != watcher.Held {
		t.Errorf("state = %s, want held", got)
	}
}

// A menu slow to close after its Stop digit (Claude Code took 1.1 s on a loaded machine) is
// looked at again until Settle after the digit, then the resume goes on; the digit is pressed
// once (not held for good after one look at 1 s).
func TestUnitMenuSlowToCloseResumes(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, menuStopSecond())
	r.at(0)
	r.at(31 * time.Minute)
	r.wantKeys(p, "2")
	r.at(31*time.Minute + 1100*time.Millisecond) // still open: not held
	if got := r.state("%1"); got != watcher.Resuming {
		t.Fatalf("state with the menu still open 1.1 s after the digit = %s, want resuming", got)
	}
	p.draw(stopped("7:30pm", ""))
	r.at(31*time.Minute + 1500*time.Millisecond)
	r.wantKeys(p, "2", "continue", "Enter")
}

// Panes due at the same reset wake one after another, in the order they stopped.
func TestUnitStagger(t *testing.T) {
	r := newRig(t, nil)
	a := r.tmux.add("%2", 100, idle())
	b := r.tmux.add("%1", 101, idle())
	r.at(0)
	a.draw(stopped("7:30pm", ""))
	r.at(time.Second)
	b.draw(stopped("7:30pm", ""))
	r.at(2 * time.Second)
	r.at(31 * time.Minute)
	r.wantKeys(a, "continue", "Enter")
	r.wantKeys(b)
	r.at(31*time.Minute + scheduler.Default.Stagger)
	r.wantKeys(b, "continue", "Enter")
}

func TestUnitDryRun(t *testing.T) {
	r := newRig(t, func(c *watcher.Config) { c.DryRun = true })
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	r.at(31 * time.Minute)
	r.wantKeys(p)
	if p.info.Options != (tmuxctl.Options{}) {
		t.Errorf("options in a dry run = %+v, want none", p.info.Options)
	}
}

func TestUnitClosedPaneIsForgotten(t *testing.T) {
	r := newRig(t, nil)
	r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	delete(r.tmux.panes, "%1")
	r.at(31 * time.Minute)
	if rows := r.w.Rows(); len(rows) != 0 {
		t.Errorf("rows after the pane closed = %+v, want none", rows)
	}
}

// The server searches only windows active since the latest activity the previous listing
// showed (the fake reports the others quiet, as tmux does): since the second after it, as
// that listing began after that second; and a stop drawn later is seen.
func TestUnitSearchSinceLatestActivity(t *testing.T) {
	r := newRig(t, nil)
	a := r.tmux.add("%1", 100, idle())
	b := r.tmux.add("%2", 200, idle())
	r.at(0)
	a.draw(idle())
	r.at(2 * time.Second)
	b.draw(stopped("9pm", ""))
	b.info.Match = 3
	r.at(4 * time.Second)
	s := r.tmux.searches
	if len(s) != 3 || !s[0].Since.IsZero() || !s[1].Since.Equal(time.Unix(2, 0)) || !s[2].Since.Equal(a.info.WindowActivity.Add(time.Second)) {
		t.Errorf("searches since %v, %v, %v; want zero, %v, %v", s[0].Since, s[1].Since, s[2].Since, time.Unix(2, 0), a.info.WindowActivity.Add(time.Second))
	}
	if got := r.state("%2"); got != watcher.Waiting {
		t.Errorf("state of the pane that stopped = %s, want waiting", got)
	}
}

// The listings search from the wall clock the watcher is given (tmux stamps window_activity
// on the system clock in whole seconds): never from after the second before it.
func TestUnitSearchSinceWallClock(t *testing.T) {
	r := newRig(t, func(c *watcher.Config) { c.Wall = clocktest.New(time.Unix(1, 0)) })
	a := r.tmux.add("%1", 100, idle())
	r.at(0)
	a.draw(idle())
	r.at(2 * time.Second)
	s := r.tmux.searches
	if len(s) != 2 || !s[1].Since.Equal(time.Unix(0, 0)) {
		t.Fatalf("searches = %+v; want two, the second since %v", s, time.Unix(0, 0))
	}
}

// A tmux command cut short because the watcher is stopping (SIGTERM during a listing) is not
// logged as a failure; a listing that fails otherwise is.
func TestStopDuringTickIsNoFailure(t *testing.T) {
	for _, stopping := range []bool{true, false} {
		var logs bytes.Buffer
		r := newRig(t, func(c *watcher.Config) { c.Log, c.Interval, c.Clock = zerolog.New(&logs), time.Millisecond, clock.Real })
		ctx, cancel := context.WithCancel(context.Background())
		lists := 0
		r.tmux.onList = func() error {
			lists++
			if stopping || lists > 1 {
				cancel()
			}
			return &tmuxctl.Error{Args: []string{"list-panes"}, Err: fmt.Errorf("no reply: %w", context.Canceled)}
		}
		if err := r.w.Run(ctx, nil); err != nil {
			t.Fatalf("Run = %v", err)
		}
		if got := strings.Contains(logs.String(), "failed; retrying every tick"); got == stopping {
			t.Errorf("stopping %v: failure logged = %v, want %v:\n%s", stopping, got, !stopping, logs.String())
		}
	}
}

// A listing cut short because the control client went away (kill-server under it), or that
// found the server without a session (kill-server ends them before the server exits), is not
// a failure: the next tick lists again and finds the server gone, with one warning.
func TestUnitListingCutByServerEndIsNoFailure(t *testing.T) {
	for _, cut := range []error{fmt.Errorf("%w: %%exit", tmuxctl.ErrClosed), tmuxctl.ErrNoSession} {
		var logs bytes.Buffer
		r := newRig(t, func(c *watcher.Config) { c.Log = zerolog.New(&logs) })
		r.tmux.onList = func() error {
			r.tmux.onList = nil
			return &tmuxctl.Error{Args: []string{"list-panes"}, Err: cut}
		}
		next, err := r.w.Tick(context.Background())
		if err != nil || !next.Equal(t0.Add(watcher.Defaults.Interval)) {
			t.Errorf("%v: Tick = %v, %v; want no error and the next tick", cut, next, err)
		}
		r.tmux.down = true
		if _, err := r.w.Tick(context.Background()); !errors.Is(err, tmuxctl.ErrNoServer) {
			t.Errorf("%v: Tick with the server gone = %v, want ErrNoServer", cut, err)
		}
		if n := strings.Count(logs.String(), `"level":"warn"`); n != 1 || strings.Contains(logs.String(), `"level":"error"`) {
			t.Errorf("%v: logs = %s; want one warning and no error", cut, logs.String())
		}
	}
}

// Published states and kinds are parsed strictly: anything unknown is refused, in pane
// options (list without a watcher) and in the state file (a record not taken up).
func TestUnitUnknownStateOrKindIsRefused(t *testing.T) {
	for _, s := range []string{"running", "waiting", "held", "skipped"} {
		if got, err := watcher.ParseState(s); err != nil || string(got) != s {
			t.Errorf("ParseState(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Waiting", "paused", "waiting "} {
		if _, err := watcher.ParseState(s); err == nil {
			t.Errorf("ParseState(%q): no error", s)
		}
	}
	info := tmuxctl.Pane{ID: "%1", Session: "s", Options: tmuxctl.Options{State: "paused"}}
	if _, err := watcher.RowOf(info); err == nil || !strings.Contains(err.Error(), "@cac_state") {
		t.Errorf("RowOf with @cac_state paused = %v, want an error naming the option", err)
	}
	info.Options = tmuxctl.Options{State: "waiting", Kind: "monthly"}
	if _, err := watcher.RowOf(info); err == nil || !strings.Contains(err.Error(), "@cac_kind") {
		t.Errorf("RowOf with @cac_kind monthly = %v, want an error naming the option", err)
	}
	info.Options = tmuxctl.Options{}
	if r, err := watcher.RowOf(info); err != nil || r.State != watcher.Running {
		t.Errorf("RowOf without options = %+v, %v, want running", r, err)
	}
}

// Panes due at the same reset keep their place in the stagger: when the first has woken and
// resumed, the next still waits for its own slot (it was acting at once instead).
func TestUnitStaggerHoldsAfterTheFirstResumes(t *testing.T) {
	r := newRig(t, nil)
	a := r.tmux.add("%1", 100, idle())
	b := r.tmux.add("%2", 101, idle())
	r.at(0)
	a.draw(stopped("7:30pm", ""))
	r.at(time.Second)
	b.draw(stopped("7:30pm", ""))
	r.at(2 * time.Second)
	r.at(31 * time.Minute) // a's slot
	r.wantKeys(a, "continue", "Enter")
	a.draw(resumed("7:30pm"))
	r.at(31*time.Minute + time.Second) // a is running again and leaves the group
	r.at(31*time.Minute + 2*time.Second)
	r.wantKeys(b)
	r.at(31*time.Minute + scheduler.Default.Stagger)
	r.wantKeys(b, "continue", "Enter")
}

// A capture of part of a frame (tmux had not drawn the stop row and the input box yet) does
// not end a wait: the pane is looked at again and still waits.
func TestUnitPartOfAFrameEndsNoWait(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	whole := p.screen
	p.draw(screen("❯ hello"))
	r.at(time.Second)
	if got := r.state("%1"); got != watcher.Waiting {
		t.Errorf("state after a partial frame = %s, want waiting", got)
	}
	p.draw(whole)
	r.at(31 * time.Minute)
	r.wantKeys(p, "continue", "Enter")
	p.draw(screen("❯ hello", "  ⎿ \u00a0You've hit your session limit · resets 7:30pm (UTC)", "", "❯ continue")) // the verify look: part of a frame
	r.at(31*time.Minute + 3*time.Second)
	if got := r.state("%1"); got != watcher.Verifying {
		t.Errorf("state after a partial frame at the check = %s, want still verifying", got)
	}
	p.draw(resumed("7:30pm"))
	r.at(31*time.Minute + 4*time.Second)
	if got := r.state("%1"); got != watcher.Running {
		t.Errorf("state after the whole frame = %s, want running", got)
	}
}

// A supervised session that ends between two looks without output (its window shows no
// activity, so a listing of changes does not list it; on tmux 3.8 a tick with no output lists
// nothing) is forgotten at its next look with its options cleared: `list` and the popup never
// show the shell left in the pane as waiting.
func TestUnitSessionEndedQuietlyLeavesNoOptions(t *testing.T) {
	r := newRig(t, nil)
	p := r.tmux.add("%1", 100, stopped("7:30pm", ""))
	r.at(0)
	if p.info.Options.State != string(watcher.Waiting) {
		t.Fatalf("options after the first look = %+v, want waiting", p.info.Options)
	}
	p.claude = proc.Identity{} // the process ended; the screen stays as it was
	r.at(2 * time.Minute)      // a revisit of the stopped pane
	if got := r.state("%1"); got != "" {
		t.Errorf("row of the ended session = %s, want none", got)
	}
	if p.info.Options != (tmuxctl.Options{}) {
		t.Errorf("options of the ended session = %+v, want none", p.info.Options)
	}
	r.at(time.Hour)
	r.wantKeys(p)
}
