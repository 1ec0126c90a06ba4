// Package simcodex is a simulated OpenAI Codex CLI 0.171.0: it draws on the alternate screen
// what the real one draws at a usage limit (measured against ../shared/tools/codex's mock,
// SPEC §11), with the same SGR attributes, reads its terminal in raw mode and changes screen on
// input the way Codex does, paste-burst detection included. `cac-tmux demo` runs it in a pane of
// its private tmux server (through a link named "codex"), and the tests run it as
// internal/fakecodex. It never reaches a network and never writes outside $CODEX_HOME.
//
// Protocol. The log is demo/simclaude's (its ParseLine reads it): with --log FILE one line per
// read(2) of the terminal, an RFC3339Nano timestamp, a tab and the bytes quoted with
// strconv.Quote, and a line "# state NAME" whenever the state changes, the first one naming
// the scenario. With --pidfile FILE it writes its pid there. It redraws the whole screen on
// every input, state change, second of a running turn and SIGWINCH.
//
// The screen, top to bottom: the header ("  >_ OpenAI Codex (v0.171.0)", the working
// directory), the history cells (each prompt on a grey background after "› ", each reply after
// "• ", each stop in red, `\e[38;5;1m`: "■ You’ve hit your usage limit. … try again at 1:43
// PM." wrapped at the pane's width at spaces and after "/"), and the bottom pane: "• Working
// (Ns • esc to interrupt)" while a turn runs, the TUI's status line while limited ("⚠ 5h
// limit: only <1% left · resets at 13:43 · /status", its time in the TUI's own zone, 24-hour,
// without it below 100 columns), the composer ("›" in bold, then the dim placeholder "Ask
// Codex to do anything" or the draft, not dim), the model line and the shortcuts line (empty
// while the composer holds a draft). The "Approaching rate limits" menu replaces the composer
// at the first stop of a session (not at a later one), row 1 highlighted:
//
//	› 1. Switch to gpt-6-luna                   Fast and affordable model for easier tasks.
//	  2. Keep current model
//	  3. Keep current model (never show again)  Hide future rate limit reminders about switching models
//
// Esc closes it (menu-escaped); 1, or Enter on row 1, switches the user's model (states
// model-switched, then harm); 2 or Enter on row 2 keeps it (menu-kept); 3 or Enter on row 3
// hides the reminders for good in the user's configuration (menu-never-show, then harm); the
// arrows move the highlight; other bytes are lost.
//
// Input at the composer: printable bytes edit the draft, Backspace deletes, C-u and C-c clear
// it; Enter submits it (an empty one does nothing), unless it is part of a paste burst: three
// or more characters each within 8 ms of the last are a burst, and an Enter within 120 ms of a
// burst's last character is a newline in the composer (pasted-enter), as in Codex's
// paste_burst.rs (so `send-keys -l continue \; send-keys Enter` in one tmux command does not
// submit, and the text, a pause, then Enter does). A bracketed paste (`paste-buffer -p`) is
// text and never a burst. Esc while a turn runs interrupts it (interrupted); Enter while a
// turn runs keeps the draft (not modelled further).
//
// A prompt submitted while the limit holds (before --limit-until, which is --reset unless
// given; in the idle scenario only from --limit-at on) is echoed and refused by a new stop
// with the same wording: limited the first time in an idle session, limited-again after
// that. At --limit-at an idle session submits its own next prompt, "keep going", as a
// running agent's next turn would (unless a turn runs then): so the stop and the menu appear
// at that instant, as simclaude's limit-hit does. After it, the prompt starts a turn (resumed after a stop, replied otherwise) that runs
// --turn, then draws the reply "• ok" and "Worked for …" (turn-done).
//
// Scenarios (--scenario): stop, the session's prompt "hello" refused at the limit, the stop
// drawn and (with --menu, the default) the menu open; idle, a finished turn ("hello", "ok")
// and an empty composer. --draft TEXT leaves TEXT in the composer (under the menu while it is
// open). --plan picks the wording (SPEC §11): plus, pro, prolite, team, business, free, go,
// enterprise, edu. --reset none prints "try again later." and records no rate limits. --zone
// is the app-server daemon's zone, the one the reset is printed in (default: the process's
// own, $TZ); --tui-zone the TUI's, for the status line and "Worked for … • 13:40".
//
// --records keeps Codex's records under $CODEX_HOME (required; never ~/.codex): the rollout
// sessions/YYYY/MM/DD/rollout-<daemon-local time>-<thread id>.jsonl (session_meta, each turn's
// task_started, its user message, then at a stop token_count with rate_limits.primary at 100 %
// and resets_at, and task_complete with error.codex_error_info "usage_limit_exceeded"; after a
// resumed turn the reply, token_count and task_complete without error), history.jsonl, and
// app-server-daemon/daemon.pid naming a stand-in daemon: this program again as `codex
// app-server --listen unix:// --managed-daemon` in a session of its own, TZ set to --zone, which
// ends when the simulator ends (the real daemon outlives its TUI).
package simcodex

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // --zone loads any IANA name

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/demo/simterm"
)

// scenarios are the values of --scenario.
var scenarios = []string{"stop", "idle"}

// Version is the Codex CLI release the simulator draws.
const Version = "0.171.0"

// flags are the command line's values that configure turns into the session.
type flags struct {
	logPath, pidPath, reset, until, hitAt, plan, zone, tuiZone, draft string
	records                                                           bool
	launcher                                                          []string // the arguments before Run's: the daemon's too
}

// Run runs the simulated Codex with a command line (without the program name) on the
// process's terminal (stdin, stdout) until its input ends, SIGTERM or SIGHUP, or --exit-after.
// A bad command line or a failed setup is an error. `app-server …` runs the stand-in daemon
// of --records instead.
func Run(args []string) error {
	if len(args) > 0 && args[0] == "app-server" {
		return daemon()
	}
	s := &sim{log: io.Discard, width: 120, height: 36, out: os.Stdout, model: "GPT-6.2-Sol default"}
	fl := flags{launcher: launcher(args)}
	fs := flag.NewFlagSet("simcodex", flag.ContinueOnError)
	fs.StringVar(&fl.logPath, "log", "", "append every read and state change to this file")
	fs.StringVar(&fl.pidPath, "pidfile", "", "write the pid to this file")
	fs.StringVar(&s.scenario, "scenario", "stop", strings.Join(scenarios, ", "))
	fs.StringVar(&fl.reset, "reset", "", `the reset instant, RFC3339, or "none" (default: in one hour, on the minute)`)
	fs.StringVar(&fl.until, "limit-until", "", "prompts submitted before this RFC3339 instant hit the limit (default: --reset)")
	fs.StringVar(&fl.hitAt, "limit-at", "", "idle: at this RFC3339 instant the session submits \"keep going\", and prompts from then on hit the limit (default: never)")
	fs.StringVar(&fl.plan, "plan", "plus", "the plan whose wording the stop uses: "+strings.Join(plans, ", "))
	fs.StringVar(&fl.zone, "zone", "", "the app-server daemon's IANA zone, the reset's (default: $TZ, the local zone)")
	fs.StringVar(&fl.tuiZone, "tui-zone", "", "the TUI's IANA zone, the status line's (default: $TZ, the local zone)")
	fs.BoolVar(&s.menuOnStop, "menu", true, `open the "Approaching rate limits" menu at the session's first stop`)
	fs.StringVar(&fl.draft, "draft", "", "text left in the composer at the start")
	fs.DurationVar(&s.turn, "turn", time.Second, "how long a turn runs before its reply")
	fs.DurationVar(&s.exitAfter, "exit-after", 0, "exit after this long (0: never)")
	fs.BoolVar(&fl.records, "records", false, "keep Codex's records (rollout, history, daemon.pid) under $CODEX_HOME")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("simcodex: command line: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("simcodex: command line: unexpected argument %q", fs.Arg(0))
	}
	if err := s.configure(fl); err != nil {
		return err
	}
	return s.session()
}

// launcher is what comes between the program and Run's arguments on the command line (the
// hidden command of cac-tmux that runs the simulator), which the stand-in daemon needs too.
func launcher(args []string) []string {
	if n := len(os.Args) - len(args); n >= 1 && slices.Equal(os.Args[n:], args) {
		return os.Args[1:n]
	}
	return nil
}

// configure sets the session up from the command line's values.
func (s *sim) configure(fl flags) error {
	if !slices.Contains(scenarios, s.scenario) {
		return fmt.Errorf("simcodex: --scenario: unknown scenario %q (one of %s)", s.scenario, strings.Join(scenarios, ", "))
	}
	if !slices.Contains(plans, fl.plan) {
		return fmt.Errorf("simcodex: --plan: unknown plan %q (one of %s)", fl.plan, strings.Join(plans, ", "))
	}
	now := clock.Real.Now()
	var err error
	if s.daemonZone, err = zone("--zone", fl.zone); err != nil {
		return err
	}
	if s.tuiZone, err = zone("--tui-zone", fl.tuiZone); err != nil {
		return err
	}
	if err := s.instants(fl, now); err != nil {
		return fmt.Errorf("simcodex: %w", err)
	}
	s.stopText = stopMessage(fl.plan, s.reset, s.daemonZone, now)
	s.plan = fl.plan
	if err := s.openFiles(fl); err != nil {
		return err
	}
	if s.cwd, err = os.Getwd(); err != nil {
		return fmt.Errorf("simcodex: working directory: %w", err)
	}
	if fl.records {
		if s.rec, err = newRecorder(s.cwd, s.daemonZone, now, fl.launcher); err != nil {
			return err
		}
	}
	s.setup(now, fl.draft)
	return nil
}

// instants sets the reset (none with --reset none), when the limit lifts (the reset, or never
// without one) and when it starts (at once in the stop scenario, never in the idle one unless
// --limit-at).
func (s *sim) instants(fl flags, now time.Time) error {
	never := now.Add(100 * 365 * 24 * time.Hour)
	var err error
	if fl.reset != "none" {
		if s.reset, err = simterm.Instant("--reset", fl.reset, now.Add(time.Hour).Truncate(time.Minute)); err != nil {
			return err
		}
	}
	until := s.reset
	if s.reset.IsZero() {
		until = never
	}
	if s.until, err = simterm.Instant("--limit-until", fl.until, until); err != nil {
		return err
	}
	if s.scenario == "idle" {
		s.hitAt, err = simterm.Instant("--limit-at", fl.hitAt, never)
		s.selfPrompt = fl.hitAt != ""
	}
	return err
}

// openFiles opens the log and writes the pid file.
func (s *sim) openFiles(fl flags) error {
	if fl.logPath != "" {
		lf, err := os.OpenFile(fl.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("simcodex: open log: %w", err)
		}
		s.log = lf
	}
	if fl.pidPath != "" {
		if err := os.WriteFile(fl.pidPath, []byte(fmt.Sprintln(os.Getpid())), 0o644); err != nil {
			return fmt.Errorf("simcodex: write pid file: %w", err)
		}
	}
	return nil
}

// zone loads the IANA zone of a flag, the local one (from $TZ) when it is empty.
func zone(flag, name string) (*time.Location, error) {
	if name == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("simcodex: %s: %w", flag, err)
	}
	return loc, nil
}

// plans are the values of --plan, each worded as SPEC §11 records.
var plans = []string{"plus", "pro", "prolite", "team", "business", "free", "go", "enterprise", "edu"}

// stopMessage is the text of a stop's error cell (and of the rollout's error.message) for a
// plan, the reset printed in the daemon's zone: "1:43 PM", "Nov 30th, 2026 4:56 AM" more than
// a day ahead, "later" when no reset is known (reset zero).
func stopMessage(plan string, reset time.Time, daemon *time.Location, now time.Time) string {
	when := "later."
	if !reset.IsZero() {
		when = "at " + resetText(reset.In(daemon), now) + "."
	}
	const hit = "You’ve hit your usage limit. "
	switch plan {
	case "pro", "prolite":
		return hit + "Visit https://chatgpt.com/settings/usage to purchase more credits or try again " + when
	case "team", "business":
		return hit + "To get more access now, send a request to your admin or try again " + when
	case "free", "go":
		return hit + "Upgrade to Plus to continue using Codex (https://chatgpt.com/explore/plus), or try again " + when
	case "enterprise", "edu":
		return hit + "Try again " + when
	}
	return hit + "Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again " + when
}

// resetText prints a reset as Codex does, without a zone: "1:43 PM", or with the date when it
// is more than a day ahead: "Nov 30th, 2026 4:56 AM".
func resetText(at, now time.Time) string {
	if at.Sub(now) <= 24*time.Hour {
		return at.Format("3:04 PM")
	}
	return at.Format("Jan ") + ordinal(at.Day()) + at.Format(", 2006 3:04 PM")
}

// ordinal is a day of the month in English: 1st, 2nd, 3rd, 4th, 11th, 22nd.
func ordinal(d int) string {
	suffix := "th"
	switch {
	case d%100 >= 11 && d%100 <= 13:
	case d%10 == 1:
		suffix = "st"
	case d%10 == 2:
		suffix = "nd"
	case d%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", d, suffix)
}
