// Package simclaude is a simulated Claude Code: it draws Claude Code 2.1.x screens like the
// captures in ../shared/fixtures/claude-screens, reads its terminal in raw mode and changes
// screen on input the way Claude Code does at a usage limit. `cac-tmux demo` runs it in the
// panes of its private tmux server (through a link named "claude", the name the watcher
// identifies Claude Code's executable by), and the tests run it as internal/fakeclaude.
//
// Protocol. With --log FILE it appends one line per read(2) of its terminal:
//
//	2026-11-20T22:00:01.123456789+01:00<TAB>"continue"
//
// (an RFC3339Nano timestamp, a tab, the bytes quoted with strconv.Quote), and a line
// "# state NAME" whenever its state changes, the first one naming the scenario (ParseLine
// reads both). With --pidfile FILE it writes its pid there. It redraws the whole screen on
// every input, state change and SIGWINCH (home, each row erased and rewritten, rest of the
// screen erased).
//
// Scenarios (--scenario) and the states they log:
//
//	plain    "❯ hello", then the gutter stop "You've hit your session limit · resets <T> (<ZONE>)"
//	         and an empty prompt. Printable bytes edit a draft in the input box (Backspace
//	         deletes, C-u and C-c clear it). Enter on a non-empty draft submits it: before
//	         --limit-until (or for the first --again N prompts) it echoes the prompt and a new
//	         stop that prints --next-reset (limited-again); after it,
//	         "● Resuming the task…" and a working spinner (resumed). A bare Enter does nothing.
//	         A "\r" that arrives in the same read after text is a pasted newline, not a
//	         submit, as in Claude Code (pasted-enter).
//	draft    plain with the box holding --draft.
//	menu     plain with the options menu open, rows from --rows. The Stop row's digit
//	         (menu-stopped) or Esc (menu-escaped) closes it; any other digit, or Enter on a row
//	         that is not Stop, starts an "UPGRADE FLOW STARTED" screen (harm); other bytes are lost.
//	armed    Claude Code's own auto-continue is armed: any read cancels it (native-cancelled;
//	         then it behaves like plain), else it fires at --fire-at: "● Usage limit reset ·
//	         Continuing automatically" and a working spinner (native-fired).
//	stopped  auto-continue already gave up ("Automatic continue stopped after repeated
//	         usage-limit hits"); behaves like plain.
//	pressenter  Claude Code asks for a bare Enter ("Your usage limit has reset · press enter to
//	         continue", after the machine slept), with --draft in the box: Enter on an empty
//	         box resumes (resumed); Enter on a draft submits it (draft-submitted: harm).
//	idle     a finished turn and an empty prompt, no stop; Enter on text echoes it and replies
//	         (replied). At --limit-at a prompt hits the limit: the plain stop (limit-hit).
//
// --vim normal|insert draws Claude Code's vim mode (2.1.330): "-- INSERT --" in the footer in
// INSERT mode, no label in NORMAL mode, where a read of i alone enters INSERT mode
// (vim-insert) and any other read is vim commands that change nothing; Esc goes back to
// NORMAL mode (vim-normal). --vim stuck is vim mode that eats every key.
//
// A menu row is a Stop row only when its label is exactly "Stop and wait for limit to
// reset" or "Stop"; any other row chosen is harm.
//
// --draw-delay DURATION draws what an input changed that much later, as a busy Claude Code
// does.
//
// --records keeps Claude Code's records as 2.1.330 does, under $CLAUDE_CONFIG_DIR (required):
// the registry entry sessions/<pid>.json while it runs, and the transcript's rows: each prompt,
// each reply, and a usage-limit row whose quotaLimits.resetsAt is --reset (--next-reset for a
// stop again) to the second, rateLimitType --limit-type.
//
// --resume ID reopens the conversation of session ID as `claude --resume ID` does: the
// header, then its prompts, replies and stops from the transcript (with records), then an
// empty prompt; it behaves as idle from there (state reopened first), whatever --scenario
// says. With records, its transcript must be in the project directory of the working
// directory under $CLAUDE_CONFIG_DIR ("No conversation found with session ID: ID" and exit
// otherwise), and the new rows are appended to it; an id the simulator made (5e551011-…)
// keeps records without --records, since `claude --resume ID` is all a switch of accounts
// starts.
//
// A prompt argument (`claude "query"`, `claude --resume ID "query"`) is submitted at the start,
// as if typed and entered (its state logged), without a read of the terminal.
//
// --add "row\nrow" adds rows after the scenario's own (a quoted message, tool output).
// --exit-after DURATION exits (state exit) leaving the last screen in the pane. --turn
// DURATION ends a turn that a prompt started that long after, idle again (turn-done). --spinner
// makes idle sessions run a turn and animates the working spinner every 100 ms. --name
// replaces "fakeclaude" in the banner.
package simclaude

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // --zone loads any IANA name

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/demo/simterm"
)

// scenarios are the values of --scenario.
var scenarios = []string{"plain", "draft", "menu", "armed", "stopped", "pressenter", "idle"}

// fake is the session on screen; only the main loop touches it.
type fake struct {
	scenario, resetAt, stopRow string
	nextRow                    string // the stop row after a prompt hits the limit again
	again                      int    // prompts that still hit the limit; -1: until limitUntil
	limitUntil, fireAt, hitAt  time.Time
	exitAfter                  time.Duration
	turn                       time.Duration // how long a turn runs (--turn), 0 for ever
	first                      string        // the prompt argument: submitted at the start
	spinner                    bool
	log                        io.Writer
	width, height, frame       int
	header                     []string
	transcript                 []string
	draft                      []byte
	menu                       []string // the open options menu's rows, nil when closed
	armed                      bool     // native auto-continue armed: the footer shows it
	limited                    bool     // a prompt submitted before limitUntil hits the limit
	busy                       bool     // a turn runs: a spinner row ends the transcript
	harm                       bool     // a paid option was chosen
	vim                        string   // "" (off), "normal", "insert" or "stuck"
	drawDelay                  time.Duration
	out                        io.Writer // the terminal
	// reset and next are the exact instants of the stop and of a stop again; rec writes
	// them to Claude Code's records (--records), nil without.
	reset, next time.Time
	rec         *recorder
}

const (
	nbsp   = "\u00a0"
	hint   = "     /upgrade or /usage-credits to finish what you’re working on."
	frames = "·✢✳✶✻✽"
)

// banner is Claude Code's header, with the simulator's name in it.
func banner(name string) []string {
	return []string{
		" ▐▛███▜▌   Claude Code v2.1.329 (" + name + ")",
		"▝▜█████▛▘  Opus 5.5 · Claude Pro",
		"  ▘▘ ▝▝    ~/src/fake",
	}
}

// flags are the command line's values that setup turns into the session.
type flags struct {
	logPath, pidPath, reset, until, fire, hit, zone, rows, stop, draft, next, add, name string
	records                                                                             bool
	limitType, resume                                                                   string
}

// Run runs the simulated Claude Code with a command line (without the program name) on the
// process's terminal (stdin, stdout) until its input ends, SIGTERM or SIGHUP, or
// --exit-after. A bad command line or a failed setup is an error.
func Run(args []string) error {
	f := &fake{log: io.Discard, width: 120, height: 40, out: os.Stdout}
	var fl flags
	fs := flag.NewFlagSet("simclaude", flag.ContinueOnError)
	fs.StringVar(&fl.logPath, "log", "", "append every read and state change to this file")
	fs.StringVar(&fl.pidPath, "pidfile", "", "write the pid to this file")
	fs.StringVar(&fl.reset, "reset", "", "the reset instant, RFC3339 (default: in one hour)")
	fs.StringVar(&fl.until, "limit-until", "", "prompts submitted before this RFC3339 instant hit the limit again (default: --reset)")
	fs.StringVar(&fl.fire, "fire-at", "", "armed: the RFC3339 instant auto-continue fires")
	fs.StringVar(&fl.hit, "limit-at", "", "idle: at this RFC3339 instant a prompt hits the limit (limit-hit)")
	fs.StringVar(&fl.zone, "zone", "", "print the reset in this IANA zone (default: the zone of --reset's offset)")
	fs.StringVar(&fl.rows, "rows", "Stop and wait for limit to reset,Switch to usage credits,Upgrade your plan", "menu: the row labels, comma separated")
	fs.StringVar(&fl.stop, "stop", "You've hit your session limit", "the stop message before \" · resets …\"")
	fs.StringVar(&fl.draft, "draft", "", "draft: the text in the input box")
	fs.StringVar(&fl.next, "next-reset", "", "the reset a prompt that hits the limit again prints, RFC3339 (default: --reset)")
	fs.StringVar(&fl.add, "add", "", `rows to add to the transcript before the scenario's own, separated by "\n"`)
	fs.StringVar(&fl.name, "name", "fakeclaude", "the name in the banner")
	fs.IntVar(&f.again, "again", -1, "the first N prompts hit the limit again, whatever the time (-1: use --limit-until)")
	fs.StringVar(&f.scenario, "scenario", "plain", strings.Join(scenarios, ", "))
	fs.StringVar(&f.vim, "vim", "", "vim mode: normal, insert or stuck (default off)")
	fs.DurationVar(&f.exitAfter, "exit-after", 0, "exit after this long (0: never)")
	fs.DurationVar(&f.turn, "turn", 0, "a turn that a prompt starts ends this long after (0: it runs for ever)")
	fs.DurationVar(&f.drawDelay, "draw-delay", 0, "draw the screen this long after an input changed it (0: at once)")
	fs.BoolVar(&f.spinner, "spinner", false, "animate the working spinner every 100ms; idle runs a turn")
	fs.BoolVar(&fl.records, "records", false, "keep Claude Code's records (registry entry, transcript rows) under $CLAUDE_CONFIG_DIR")
	fs.StringVar(&fl.limitType, "limit-type", "five_hour", "--records: the usage-limit rows' rateLimitType")
	fs.StringVar(&fl.resume, "resume", "", "reopen the conversation of this session id, as claude --resume: its rows drawn, then idle")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("simclaude: command line: %w", err)
	}
	if fs.NArg() > 1 {
		return fmt.Errorf("simclaude: command line: unexpected argument %q", fs.Arg(1))
	}
	f.first = fs.Arg(0)
	if err := f.configure(fl); err != nil {
		return err
	}
	return f.session()
}

// configure sets the session up from the command line's values.
func (f *fake) configure(fl flags) error {
	now := clock.Real.Now()
	resetAt, err := instant("--reset", fl.reset, now.Add(time.Hour).Truncate(time.Minute))
	if err != nil {
		return err
	}
	for _, v := range []struct {
		flag, s string
		to      *time.Time
		def     time.Time
	}{{"--limit-until", fl.until, &f.limitUntil, resetAt}, {"--fire-at", fl.fire, &f.fireAt, time.Time{}}, {"--limit-at", fl.hit, &f.hitAt, time.Time{}}} {
		if *v.to, err = instant(v.flag, v.s, v.def); err != nil {
			return err
		}
	}
	at, name, err := zoned(resetAt, fl.zone)
	if err != nil {
		return fmt.Errorf("simclaude: zone %q: %w", fl.zone, err)
	}
	f.resetAt, f.reset, f.next = clockText(at), resetAt, resetAt
	f.stopRow = "  ⎿ " + nbsp + fl.stop + " · resets " + resetText(at, now) + " (" + name + ")"
	f.nextRow = f.stopRow
	if fl.next != "" {
		next, err := instant("--next-reset", fl.next, resetAt)
		if err != nil {
			return err
		}
		f.next = next
		at, name, _ := zoned(next, fl.zone) // the zone loaded above
		f.nextRow = "  ⎿ " + nbsp + fl.stop + " · resets " + resetText(at, now) + " (" + name + ")"
	}
	if fl.logPath != "" {
		lf, err := os.OpenFile(fl.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("simclaude: open log: %w", err)
		}
		f.log = lf
	}
	if fl.pidPath != "" {
		if err := os.WriteFile(fl.pidPath, []byte(fmt.Sprintln(os.Getpid())), 0o644); err != nil {
			return fmt.Errorf("simclaude: write pid file: %w", err)
		}
	}
	if f.rec, err = newRecorder(fl.records, fl.limitType, fl.resume); err != nil {
		return err
	}
	f.header = banner(fl.name)
	if fl.resume != "" {
		f.scenario = "reopened"
	}
	if err := f.setup(strings.Split(fl.rows, ","), fl.draft); err != nil {
		return err
	}
	if fl.add != "" {
		f.add(strings.Split(fl.add, `\n`)...)
	}
	return nil
}

// instant parses the RFC3339 value of a flag, def when it is empty.
func instant(flag, s string, def time.Time) (time.Time, error) {
	t, err := simterm.Instant(flag, s, def)
	if err != nil {
		err = fmt.Errorf("simclaude: %w", err)
	}
	return t, err
}

// zoned returns t in the zone it is printed in and that zone's name: --zone, else the zone
// of t's offset as an IANA name ("UTC", "Etc/GMT-2" for +02:00), else UTC.
func zoned(t time.Time, name string) (time.Time, string, error) {
	if name != "" {
		loc, err := time.LoadLocation(name)
		return t.In(loc), name, err
	}
	switch _, off := t.Zone(); {
	case off == 0:
		return t.UTC(), "UTC", nil
	case off%3600 == 0:
		name = fmt.Sprintf("Etc/GMT%+d", -off/3600) // the sign of Etc/GMT zones is inverted
		return t.In(time.FixedZone(name, off)), name, nil
	}
	return t.UTC(), "UTC", nil
}

// clockText prints a wall-clock time like Claude Code: "4pm", "4:30pm", "12am".
func clockText(t time.Time) string {
	return strings.Replace(strings.ToLower(t.Format("3:04PM")), ":00", "", 1)
}

// resetText is the reset as printed: the clock, after a date when the reset is over 24 h away
// ("Nov 23, 11pm", "Jan 2, 2027, 5pm").
func resetText(at, now time.Time) string {
	switch {
	case at.Sub(now) <= 24*time.Hour:
		return clockText(at)
	case at.Year() != now.In(at.Location()).Year():
		return at.Format("Jan 2, 2006, ") + clockText(at)
	}
	return at.Format("Jan 2, ") + clockText(at)
}

func (f *fake) setup(rows []string, draft string) error {
	f.transcript, f.limited = append([]string{}, f.header...), f.scenario != "idle"
	stop := []string{"❯ hello", f.stopRow}
	armed := "● Usage limit reached · continuing automatically at " + f.resetAt + " · esc to cancel"
	switch f.scenario {
	case "reopened": // --resume: the conversation as it was, and an empty prompt
		f.limited = false
		if f.rec != nil {
			f.transcript = append(f.transcript, f.rec.history()...)
		}
		return nil
	case "plain":
	case "draft":
		f.draft = []byte(draft)
	case "menu":
		f.menu = rows
	case "armed":
		stop, f.armed = append(stop, armed), true
	case "stopped":
		stop = append(stop, armed, "● Automatic continue stopped after repeated usage-limit hits · send a message to continue")
	case "pressenter":
		f.draft = []byte(draft)
		stop = append(stop, armed, "", "● Your usage limit has reset · press enter to continue")
	case "idle":
		f.add("❯ hello")
		f.add("● Hello! What should we work on?")
		stop, f.busy = []string{"✻ Worked for 3s"}, f.spinner
	default:
		return fmt.Errorf("simclaude: --scenario: unknown scenario %q (one of %s)", f.scenario, strings.Join(scenarios, ", "))
	}
	f.add(stop...)
	if f.limited {
		f.rec.prompt("hello")
		f.rec.limit(f.reset)
	}
	return nil
}

// add appends a block of rows to the transcript after a blank row.
func (f *fake) add(rows ...string) { f.transcript = append(append(f.transcript, ""), rows...) }

func (f *fake) setState(name string) { fmt.Fprintf(f.log, "# state %s\n", name) }

// Entry is one line of the log: a read (Read, at At) or a state change (State).
type Entry struct {
	At    time.Time
	Read  string
	State string
}

// ParseLine reads one line of the log (without its newline); false for anything else.
func ParseLine(l string) (Entry, bool) {
	if name, ok := strings.CutPrefix(l, "# state "); ok {
		return Entry{State: name}, true
	}
	stamp, quoted, ok := strings.Cut(l, "\t")
	if !ok {
		return Entry{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return Entry{}, false
	}
	b, err := strconv.Unquote(quoted)
	if err != nil {
		return Entry{}, false
	}
	return Entry{At: at, Read: b}, true
}
