package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// inspectOptions are the flags and the argument of `cac-tmux inspect`.
type inspectOptions struct {
	nowText, tzText string
	now             time.Time // capture instant; zero: the current time
	zone            *time.Location
	json            bool
	file            string // "-" for stdin
	pane            string // a live pane instead of a file
	agentText       string
	agent           agent.Name // whose screen it is: --agent, or the agent in --pane
	tmux            *tmuxctl.Client
}

func newInspect(std *deps) *cobra.Command {
	o := &inspectOptions{}
	c := &cobra.Command{
		Use:     "inspect [FILE|-]",
		Example: "       cac-tmux inspect --pane %N [-L NAME|-S PATH] [flags]",
		Short:   "classify one screen capture and explain the decision",
		Long: `Classify one Claude Code or Codex CLI screen (plain text or a capture with escapes) and explain the decision.
A Codex screen needs its escapes (tmux capture-pane -p -J -e): its composer's placeholder is told from a draft by them.
Exit 0 limited, 1 not limited, 2 error.`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.finish(args, std.inTTY); err != nil {
				return err
			}
			return runInspect(c.Context(), o, std)
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.nowText, "now", "", "capture instant, RFC3339 (e.g. 2026-11-20T23:00:00+01:00); the message is taken to have appeared then. Default: now, appearance unknown")
	fs.StringVar(&o.tzText, "tz", "", "IANA zone of the host that ran claude (of Codex's app-server daemon), for messages that print none (default: this machine's zone)")
	fs.StringVar(&o.agentText, "agent", "claude", "whose screen a FILE is: claude or codex (--pane: the agent running there)")
	fs.BoolVar(&o.json, "json", false, "print one JSON object")
	fs.StringVar(&o.pane, "pane", "", "inspect a live pane (%N or session:window.pane) instead of a file")
	o.tmux = socketFlags(fs)
	_ = c.RegisterFlagCompletionFunc("pane", completePaneFlag(&o.tmux)) // the flag exists
	return c
}

// finish checks the argument and the flags' values.
func (o *inspectOptions) finish(args []string, inTTY bool) error {
	switch {
	case o.pane != "" && len(args) > 0:
		return usageErrorf("inspect: --pane and a FILE: give one of them")
	case o.pane != "":
	case len(args) == 0 && inTTY:
		return usageErrorf("inspect: no input: give a FILE, or - and pipe a capture (tmux capture-pane -p -J -t %%N | cac-tmux inspect -)")
	case len(args) == 0:
		o.file = "-"
	case len(args) == 1:
		o.file = args[0]
	default:
		return usageErrorf("inspect: one FILE at most, got %d: %s", len(args), strings.Join(args, " "))
	}
	if o.nowText != "" {
		t, err := time.Parse(time.RFC3339, o.nowText)
		if err != nil {
			return usageErrorf("inspect: --now: must be an RFC3339 instant like 2026-11-20T23:00:00+01:00 (got %q)", o.nowText)
		}
		o.now = t
	}
	a, err := agent.Parse(o.agentText)
	if err != nil || o.agentText == "" {
		return usageErrorf("inspect: --agent: must be claude or codex (got %q)", o.agentText)
	}
	o.agent = a
	o.zone = time.Local
	if o.tzText != "" {
		l, err := time.LoadLocation(o.tzText)
		if err != nil {
			return usageErrorf("inspect: --tz: must be an IANA time zone like Europe/Berlin (got %q)", o.tzText)
		}
		o.zone = l
	}
	return nil
}

// runInspect implements `cac-tmux inspect`: nil when the screen is stopped at a limit,
// notLimited when it is not, and an *exitError with code 2 for anything that went wrong (1
// would read as "not limited").
func runInspect(ctx context.Context, o *inspectOptions, std *deps) error {
	raw, err := inspectInput(ctx, o, std.in, std.finder)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("inspect: %w", err)}
	}
	facts := detector.Facts{Now: o.now, Appeared: o.now, Zone: o.zone}
	if o.now.IsZero() {
		facts.Now = std.clock.Now()
	}
	a := agent.For(o.agent)
	if !a.Styled {
		raw = detector.CleanScreen(raw)
	}
	v := a.Detect(raw, facts)
	source, account := watcher.SourceScreen, ""
	if o.pane != "" { // refined with the claude process's records, as the watcher does
		v, source, account = watcher.Refine(ctx, o.tmux, std.finder, o.pane, v, facts.Now)
	}
	if !o.json {
		detector.Explain(std.out, v, facts.Now)
	} else if err := detector.WriteReport(std.out, v, facts.Now, string(source), account); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("inspect: write: %w", err)}
	}
	if !v.Limited {
		return notLimited{}
	}
	return nil
}

// inspectInput reads the screen: the live pane (captured as its agent's screen reads), the
// file or stdin.
func inspectInput(ctx context.Context, o *inspectOptions, stdin io.Reader, finder watcher.Finder) (string, error) {
	if o.pane == "" {
		return readScreen(o.file, stdin)
	}
	id, err := paneID(ctx, o.tmux, o.pane) // exactly that pane, or a usage error
	if err != nil {
		return "", err
	}
	o.pane, o.agent = id, watcher.PaneAgent(ctx, o.tmux, finder, id)
	raw, err := o.tmux.CaptureShot(ctx, tmuxctl.Shot{Pane: o.pane, Styled: agent.For(o.agent).Styled})
	switch {
	case errors.Is(err, tmuxctl.ErrNoServer):
		err = fmt.Errorf("%w; is tmux running there? select the server with -L NAME or -S PATH", err)
	case errors.Is(err, tmuxctl.ErrNoTarget):
		err = fmt.Errorf("%w; list the panes with: tmux list-panes -a -F '#{pane_id} #{session_name}:#{window_index}.#{pane_index}'", err)
	}
	return raw, err
}

func readScreen(file string, stdin io.Reader) (string, error) {
	r := stdin
	name := "stdin"
	if file != "-" {
		f, err := os.Open(file)
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is already in the message
		}
		if err != nil {
			return "", fmt.Errorf("read %s: %w", file, err)
		}
		defer f.Close()
		r, name = f, file
	}
	raw, err := detector.ReadScreen(r)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", name, err)
	}
	return raw, nil
}
