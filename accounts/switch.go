package accounts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// Tmux is what a switch asks of the tmux server (a *tmuxctl.Client): an interface so that the
// switch's rules are tested without a server.
type Tmux interface {
	PaneInfo(ctx context.Context, pane string) (tmuxctl.Pane, error)
	Capture(ctx context.Context, pane string) (string, error)
	RespawnPane(ctx context.Context, pane string, r tmuxctl.Respawn) error
	SocketFileHere() (string, error)
}

// Finder finds the Claude Code process in a pane and its records (a *proc.Finder): an
// interface for the same reason as Tmux.
type Finder interface {
	Find(ctx context.Context, panePID int) (found proc.Found, ok bool, err error)
	Env(ctx context.Context, id proc.Identity) (records.Env, error)
}

// Answer is what a watcher answered a skip or an unskip: whether it was done, and its words
// (watcher.Outcome's Done and Message).
type Answer struct {
	Done    bool
	Message string
}

// Config is what a switch needs of the world: every dependency is the caller's, so that the
// command only wires them and the tests replace them.
type Config struct {
	Tmux   Tmux
	Finder Finder
	// Ask hands the pane a skip (skip true) or takes it back (false) through the watcher's
	// request protocol (watcher.Ask): to the running watcher, else with the watcher's own code
	// under its lock. notices receives what it waits for. It is a function, not an import of
	// package watcher, so that accounts stays below the watcher, beside it in the command.
	Ask func(ctx context.Context, pane string, skip bool, notices io.Writer) (Answer, error)
	// Clock is the one clock: the bound's day, the headroom, the wait for the new process.
	Clock clock.Clock
	// Getenv reads the environment: HOME (for --to), the state and lock directories.
	Getenv func(string) string
	// Notices receives what a switch tells people besides its outcome: a skip being handed
	// over, a skip that could not be taken back.
	Notices io.Writer
	// Accounts are the accounts configured ([accounts] dirs, Expand); MaxPerDay is
	// accounts.max_per_day, the bound of switches of one session within 24 hours.
	Accounts  []Account
	MaxPerDay int
	// Message is the first prompt the session is started with on the other account
	// (watch.message; a pane's own @cac_message goes first): it goes on where it stopped. ""
	// starts it at its prompt.
	Message string
	// Started, when set, is told the outcome the moment the new Claude Code runs, before the
	// pane's published state is renewed (which may wait on a running watcher): the command
	// says so at once.
	Started func(Switched)
}

// Request is one switch: the pane and the account it goes to.
type Request struct {
	// Pane is the pane's id (%12); Target is the pane as the user gave it, for the messages.
	Pane, Target string
	// To names the account to switch to (resolve); "" picks the free one.
	To string
}

// Switched is a switch done: the new Claude Code runs in the pane.
type Switched struct {
	Pane    tmuxctl.Pane // the pane as it was looked at before the switch
	Account Account      // the account the session runs in now
	Session string       // Claude Code's session id
	PID     int          // the new Claude Code process
}

// String says the switch done to the person who asked for it.
func (s Switched) String() string {
	return fmt.Sprintf("switched %s (%s) to %s: claude --resume %s runs (pid %d)", s.Pane.ID, s.Pane.Target(), s.Account.Name, s.Session, s.PID)
}

// refusedError is a switch a gate refused: nothing was stopped (nor copied, unless the
// reason says the copy stays), and the skip handed to the pane was taken back. The command
// exits 1 and names the gate.
type refusedError struct {
	Target string // the pane as given
	Reason string
	// Err is errBusy when another process's switch runs; nil for the other gates.
	Err error
}

func (e *refusedError) Error() string {
	return "accounts: switch " + e.Target + ": refused: " + e.Reason
}

func (e *refusedError) Unwrap() error { return e.Err }

// errBusy is a switch refused because another process's switch runs (store.LockSwitches):
// nothing was looked at, and the same switch may be tried again once that one ends.
var errBusy = errors.New("accounts: another cac-tmux switch runs")

// oneSwitch lets one switch of this process run at a time, the others waiting their turn:
// the flock of store.LockSwitches belongs to one open file, so a second switch of the same
// process (a watcher's [accounts] auto, one per server with --all-servers) would find it held,
// by its own pid.
var oneSwitch = make(chan struct{}, 1)

// BadInputError is a switch asked for something it cannot do as asked (an account --to does
// not name, or the session's own): nothing was looked at or done, and the command exits 2.
type BadInputError struct {
	Reason string
}

func (e *BadInputError) Error() string { return "accounts: switch: " + e.Reason }

// switching is one switch: its configuration, its request and what it found on the way.
type switching struct {
	Config
	Request

	pane     tmuxctl.Pane
	found    proc.Found
	env      records.Env
	entry    records.Entry
	script   string // the transcript
	from     string // the session's config directory
	switches *store.Switches
	history  []store.Switch
}

// Switch moves the session stopped in the pane to another account and starts it there: it
// chooses the account (r.To, else the free one whose last limit is oldest), hands the pane a
// skip, checks every gate on a fresh look, copies the transcript, records the switch, respawns
// the pane and waits until Claude Code runs. One switch runs at a time per user (oneSwitch in
// this process, store.LockSwitches across processes: a *refusedError wrapping errBusy). A gate
// that refuses is a *refusedError, a bad r.To a *BadInputError; any other error is a failure.
func Switch(ctx context.Context, cfg Config, r Request) (Switched, error) {
	sw := &switching{Config: cfg, Request: r}
	var want *Account
	if r.To != "" {
		a, err := resolve(sw.Accounts, r.To, sw.Getenv("HOME"))
		if err != nil {
			return Switched{}, &BadInputError{fmt.Sprintf("--to %s: %s; the accounts are %s", r.To, strings.TrimPrefix(err.Error(), "accounts: "), names(sw.Accounts))}
		}
		want = &a
	}
	select {
	case oneSwitch <- struct{}{}:
		defer func() { <-oneSwitch }()
	case <-ctx.Done():
		return Switched{}, sw.failed(ctx.Err())
	}
	lock, err := store.LockSwitches(sw.Getenv)
	var locked *store.LockedError
	if errors.As(err, &locked) {
		return Switched{}, &refusedError{Target: sw.Target, Err: errBusy,
			Reason: fmt.Sprintf("another cac-tmux switch (pid %d) runs; try again when it ends", locked.PID)}
	}
	if err != nil {
		return Switched{}, sw.failed(err)
	}
	defer lock.Release()
	if err := sw.session(ctx); err != nil {
		return Switched{}, err
	}
	dst, err := sw.account(want)
	if err != nil {
		return Switched{}, err
	}
	return sw.move(ctx, dst)
}

// refusal is a gate that refused.
func (sw *switching) refusal(format string, a ...any) error {
	return &refusedError{Target: sw.Target, Reason: fmt.Sprintf(format, a...)}
}

// failed is err, a failure of the switch, named for it.
func (sw *switching) failed(err error) error {
	return fmt.Errorf("accounts: switch %s: %w", sw.Target, err)
}

// names lists the accounts for people: "1 ~/.claude, 2 ~/.claude-work".
func names(accts []Account) string {
	var s []string
	for i, a := range accts {
		s = append(s, fmt.Sprintf("%d %s", i+1, a.Name))
	}
	return strings.Join(s, ", ")
}

// session finds the Claude Code session in the pane: its process, its account, its registry
// entry and its transcript, and checks the per-day bound of its switches.
func (sw *switching) session(ctx context.Context) error {
	var err error
	if sw.pane, err = sw.Tmux.PaneInfo(ctx, sw.Pane); err != nil {
		return sw.failed(err)
	}
	found, ok, err := sw.Finder.Find(ctx, sw.pane.PID)
	switch {
	case err != nil:
		return sw.failed(err)
	case !ok:
		return sw.refusal("pane %s does not run Claude Code", sw.Pane)
	case found.Agent != agent.Claude:
		// Codex keeps an account per CODEX_HOME, its threads in that home's rollouts: moving
		// one is not built (docs/agents.md).
		return sw.refusal("pane %s runs %s: switch moves Claude Code sessions only", sw.Pane, found.Agent.Title())
	}
	sw.found = found
	start, ok := found.ProcStart()
	if !ok {
		return sw.refusal("switching needs /proc, to read Claude Code's session registry and how to start it again")
	}
	if sw.env, err = sw.Finder.Env(ctx, found.Identity); err != nil {
		return sw.failed(err)
	}
	if sw.from = sw.env.Dir(); sw.from == "" {
		return sw.refusal("the config directory of Claude Code (pid %d) is not known (neither CLAUDE_CONFIG_DIR nor HOME is set)", found.PID)
	}
	if sw.entry, err = sw.env.Session(found.PID, start); err != nil {
		return sw.refusal("Claude Code's session registry has no entry for pid %d in %s (%v): the session to move is not known", found.PID, sw.from, err)
	}
	sw.script, err = sw.env.Transcript(sw.entry)
	switch {
	case errors.Is(err, records.ErrNoRecord):
		return sw.refusal("Claude Code keeps no transcript of session %s in %s yet: there is nothing to move", sw.entry.SessionID, sw.from)
	case err != nil:
		return sw.failed(err)
	}
	return sw.bound()
}

// bound refuses a session switched MaxPerDay times within 24 hours already.
func (sw *switching) bound() error {
	var err error
	if sw.switches, err = store.OpenSwitches(sw.Getenv); err != nil {
		return sw.failed(err)
	}
	if sw.history, err = sw.switches.Load(); err != nil {
		return sw.failed(err)
	}
	if n := store.Count(sw.history, sw.entry.SessionID, sw.Clock.Now(), 24*time.Hour); n >= sw.MaxPerDay {
		return sw.refusal("session %s was switched %d times within 24 hours, and accounts.max_per_day is %d", sw.entry.SessionID, n, sw.MaxPerDay)
	}
	return nil
}

// account chooses the account to switch to: want when given (refused when limited), else
// the free one whose last limit is oldest.
func (sw *switching) account(want *Account) (Headroom, error) {
	now := sw.Clock.Now()
	var hs []Headroom
	for _, a := range sw.Accounts {
		if same(a.Dir, sw.from) || want != nil && a != *want {
			continue
		}
		h, err := Look(a, now, store.Into(sw.history, a.Dir, same))
		if err != nil {
			return Headroom{}, sw.refusal("the headroom of %s cannot be read: %v", a.Name, err)
		}
		hs = append(hs, h)
	}
	switch {
	case want != nil && len(hs) == 0:
		return Headroom{}, &BadInputError{fmt.Sprintf("--to %s: the session already runs in %s; name another account (%s)", want.Name, want.Name, names(sw.Accounts))}
	case len(hs) == 0:
		return Headroom{}, sw.refusal("the session runs in %s, and no other account is configured", sw.from)
	}
	if h, ok := pick(hs, now); ok {
		return h, nil
	}
	var why []string
	for _, h := range hs {
		why = append(why, h.Name+" is limited until "+until(h.Until, now))
	}
	return Headroom{}, sw.refusal("%s", strings.Join(why, "; "))
}

// until is a reset for people: "7:30pm" within a day, else "Nov 28, 7:30pm", in local time.
func until(t, now time.Time) string {
	t = t.Local()
	clk := strings.Replace(strings.ToLower(t.Format("3:04pm")), ":00", "", 1)
	if t.Sub(now) > 24*time.Hour {
		return t.Format("Jan 2, ") + clk
	}
	return clk
}
