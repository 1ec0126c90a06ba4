package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// newAction is `cac-tmux resume PANE`, `cac-tmux skip PANE` or `cac-tmux unskip PANE`.
func newAction(std stdio, a watcher.Action) *cobra.Command {
	var tmux *tmuxctl.Client
	short, long := "resume a stopped session now (every safety gate but the reset)",
		`Resumes the Claude Code session in PANE now, through every gate the watcher keeps before
a key (SAFETY.md) but the reset: a draft in the input box, another process, a busy pane, copy
mode or synchronize-panes each refuse it (exit 1, saying which). It sends one resume: when a
watcher runs, the request is handed to it and the command waits (at most 75s for the watcher
to take it, then at most 1m for the outcome) and prints what the watcher saw; otherwise the
command acts itself, holding the watcher's lock, and reports what its keys came to: nothing
more is tried after it.

Exit status: 0 resumed (a turn runs); 1 refused, nothing sent (a gate, nothing to resume,
another resume, skip or unskip of PANE in progress) or another failure; 2 a bad PANE; 3 keys
went out, then the pane was held (why is printed: nothing more is typed until you act); 4
keys went out, but no resumed turn was seen (the limit still holds, no sign of a turn, or no
outcome in time: whether the watcher tries again is printed).`
	switch a {
	case watcher.Skip:
		short, long = "skip this wait: leave a stopped session alone until its next stop",
			`Marks the stopped Claude Code session in PANE skipped: nothing is typed into it until it
stops again. Through the running watcher when there is one. cac-tmux unskip PANE takes it
back.`
	case watcher.Unskip:
		short, long = "take a skip back: wait for the session's reset again",
			`Takes back the skip of the Claude Code session in PANE: the watcher waits for its reset
again and resumes it then, as it would have without the skip (the attempts already made
for this stop count; a pane held before the skip stays held). Through the running watcher
when there is one; without one, the wait is saved for the next watcher to take up.
(cac-tmux resume PANE resumes a skipped session now instead.)

Exit status: 0 waiting again (the state and the due instant are printed); 1 refused (PANE
is not skipped: it ran or stopped again since the skip) or another failure; 2 a bad PANE.`
	}
	c := &cobra.Command{
		Use:   string(a) + " [-L NAME|-S PATH] PANE",
		Short: short,
		Long:  long + "\n\nPANE is a pane id (%12) or any tmux target (work:2.1).",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErrorf("%sone PANE is needed, as %%12 or a tmux target such as work:2.1 (see %s --help)", prefix(c), c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return runAction(c.Context(), tmux, a, args[0], std)
		},
	}
	tmux = socketFlags(c.Flags())
	c.ValidArgsFunction = completePaneArg(&tmux)
	return c
}

// The exit codes of a resume whose keys went out but did not resume the session.
const (
	exitHeld       = 3 // the pane is held after the keys: nothing more is typed until the user acts
	exitNotResumed = 4 // no resumed turn seen: the limit still holds, no sign of a turn, or no outcome in time
)

// The bounds of the wait for the running watcher: it takes a request at its next tick (the
// interval is at most a minute), and once the keys went out it sees their effect within
// seconds (Settle, after a menu's digit the message first).
const (
	answerWithin  = 75 * time.Second
	outcomeWithin = time.Minute
)

func runAction(ctx context.Context, tmux *tmuxctl.Client, a watcher.Action, target string, std stdio) error {
	id, err := paneID(ctx, tmux, target)
	if err != nil {
		return err
	}
	out, err := doAction(ctx, tmux, id, a, std.err)
	if err != nil {
		return fmt.Errorf("%s %s: %w", a, target, err)
	}
	switch {
	case out.Done && !out.Pending:
		fmt.Fprintln(std.out, out.Message)
		return nil
	case out.Held:
		return &exitError{exitHeld, fmt.Errorf("%s %s: keys went out, but the session did not resume: %s", a, target, out.Message)}
	case out.Sent || out.Pending:
		return &exitError{exitNotResumed, fmt.Errorf("%s %s: keys went out, but the session did not resume: %s", a, target, out.Message)}
	}
	return fmt.Errorf("%s %s: refused: %s", a, target, out.Message)
}

// doAction carries out the action on pane id: through the running watcher when there is one,
// else here, holding its lock (notices go to logTo). One action on a pane at a time: while
// another command's resume, skip or unskip of the pane runs (it holds the pane's lock), the
// action is refused at once and nothing is sent; that command reports the outcome.
func doAction(ctx context.Context, tmux *tmuxctl.Client, id string, a watcher.Action, logTo io.Writer) (watcher.Outcome, error) {
	server, err := tmux.SocketFileHere()
	if err != nil {
		return watcher.Outcome{}, err
	}
	lockDir, err := store.LockDir(os.Getenv)
	if err != nil {
		return watcher.Outcome{}, err
	}
	var locked *store.LockedError
	busy, err := store.Acquire(lockDir, paneKey(server, id))
	switch {
	case errors.As(err, &locked):
		return watcher.Outcome{Message: inProgress(id, locked.PID)}, nil
	case err != nil:
		return watcher.Outcome{}, err
	}
	defer busy.Release()
	lock, err := store.Acquire(lockDir, server)
	switch {
	case errors.As(err, &locked): // a watcher runs: it does it
		return handOver(ctx, tmux, id, a, locked.PID, logTo)
	case err != nil:
		return watcher.Outcome{}, err
	}
	defer lock.Release()
	return actHere(ctx, tmux, server, id, a, logTo)
}

// paneKey names the lock of the actions on pane id of server: a lock file beside the
// watcher's (store.LockPath), one per pane acted on.
func paneKey(server, id string) string { return server + ".pane" + strings.TrimPrefix(id, "%") }

// inProgress says that another command acts on pane id (pid 0: not known yet).
func inProgress(id string, pid int) string {
	who := "another cac-tmux command"
	if pid > 0 {
		who += " (pid " + strconv.Itoa(pid) + ")"
	}
	return "a resume, skip or unskip of " + id + " is already in progress in " + who + ", which reports its outcome; nothing was sent"
}

// paneID resolves a pane id or session:window.pane to the pane's id, exactly
// (tmuxctl.FindPane). A pane that does not exist, or a name of another form, is a usage error.
func paneID(ctx context.Context, tmux *tmuxctl.Client, target string) (string, error) {
	p, err := tmux.FindPane(ctx, target)
	switch {
	case errors.Is(err, tmuxctl.ErrNoTarget):
		return "", usageErrorf("no pane %q on %s: give a pane id (%%12) or session:window.pane (work:2.1); cac-tmux list shows them", target, serverName(tmux))
	case errors.Is(err, tmuxctl.ErrBadTarget):
		return "", usageErrorf("%v: give a pane id (%%12) or session:window.pane (work:2.1); cac-tmux list shows them", strings.TrimPrefix(err.Error(), "tmuxctl: "))
	case err != nil:
		return "", fmt.Errorf("%s: %w", serverName(tmux), hint(err))
	}
	return p.ID, nil
}

// Why a wait for the running watcher's answer ended without it.
var (
	errNoAnswer    = errors.New("no answer in time")
	errWatcherGone = errors.New("the watcher stopped")
)

// handOver hands the action to the running watcher (pid, 0 when not known) through the pane
// option @cac_request and waits for its answer in @cac_reply: that it took the request, then,
// once a resume's keys went out, their outcome (awaitOutcome). A request the watcher does not
// take is withdrawn, and nothing was sent.
func handOver(ctx context.Context, tmux *tmuxctl.Client, id string, a watcher.Action, pid int, logTo io.Writer) (watcher.Outcome, error) {
	nonce := strconv.FormatInt(clock.Real.Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid())
	request := string(a) + " " + nonce
	if err := tmux.Request(ctx, id, request); err != nil {
		return watcher.Outcome{}, err
	}
	who := "the running watcher"
	if pid > 0 {
		who += " (pid " + strconv.Itoa(pid) + ")"
	}
	fmt.Fprintf(logTo, "cac-tmux: %s %s: handed to %s; waiting for it to take the request (at most %s)\n", a, id, who, answerWithin)
	out, err := awaitReply(ctx, tmux, id, nonce, answerWithin, false)
	if errors.Is(err, errNoAnswer) || errors.Is(err, errWatcherGone) {
		bg := context.WithoutCancel(ctx)
		if v, err := tmux.PaneOption(bg, id, tmuxctl.RequestOption); err == nil && v == request {
			_ = tmux.SetPaneOptions(bg, id, []string{tmuxctl.RequestOption}, []string{""})
		}
		why := "within " + answerWithin.String()
		if errors.Is(err, errWatcherGone) {
			why = "before it stopped"
		}
		return watcher.Outcome{}, fmt.Errorf("%s did not take the request %s; it is withdrawn, and nothing was sent", who, why)
	}
	if err != nil || !out.Pending {
		return out, err
	}
	fmt.Fprintf(logTo, "cac-tmux: %s %s: %s; waiting for the watcher to see the outcome (at most %s)\n", a, id, out.Message, outcomeWithin)
	return awaitOutcome(ctx, tmux, id, nonce, out)
}

// awaitOutcome waits for the outcome of a resume whose keys went out (sent says so) for the
// request of nonce. Not answered in time, or the watcher gone, it is not known to have resumed.
func awaitOutcome(ctx context.Context, tmux *tmuxctl.Client, id, nonce string, sent watcher.Outcome) (watcher.Outcome, error) {
	out, err := awaitReply(ctx, tmux, id, nonce, outcomeWithin, true)
	switch {
	case errors.Is(err, errNoAnswer):
		return watcher.Outcome{Sent: true, Message: sent.Message + "; the watcher saw no outcome within " + outcomeWithin.String() +
			" (it goes on looking: cac-tmux list shows the pane)"}, nil
	case errors.Is(err, errWatcherGone):
		return watcher.Outcome{Sent: true, Message: sent.Message + "; the watcher stopped before it saw the outcome"}, nil
	}
	return out, err
}

// awaitReply reads @cac_reply every 100 ms until it answers the request of nonce (with its
// outcome when final is set), for at most within; every second it checks that a watcher still
// runs (errWatcherGone).
func awaitReply(ctx context.Context, tmux *tmuxctl.Client, id, nonce string, within time.Duration, final bool) (watcher.Outcome, error) {
	deadline := clock.Real.Now().Add(within)
	for i := 1; clock.Real.Now().Before(deadline); i++ {
		reply, err := tmux.PaneOption(ctx, id, tmuxctl.ReplyOption)
		if err != nil {
			return watcher.Outcome{}, err
		}
		if out, ok := watcher.ParseReply(reply, nonce); ok && (!final || !out.Pending) {
			return out, nil
		}
		if i%10 == 0 && !watcherRunning(ctx, tmux) {
			return watcher.Outcome{}, errWatcherGone
		}
		if err := clock.Real.Sleep(ctx, 100*time.Millisecond); err != nil {
			return watcher.Outcome{}, err
		}
	}
	return watcher.Outcome{}, errNoAnswer
}

// actHere carries out the action without a watcher, holding its lock: the watcher's own code,
// with the settings of the configuration file and the tmux options, and the state file. A
// resume's keys are followed until their effect shows (or 3 × Settle); no watcher makes
// another attempt, and the outcome says so.
func actHere(ctx context.Context, tmux *tmuxctl.Client, server, id string, a watcher.Action, logTo io.Writer) (watcher.Outcome, error) {
	l, err := loadSettings(ctx, tmux, config.Path(os.Getenv), nil)
	if err != nil {
		return watcher.Outcome{}, err
	}
	stateDir, err := store.StateDir(os.Getenv)
	if err != nil {
		return watcher.Outcome{}, err
	}
	cfg := settings(l.Config)
	cfg.Store = store.New(stateDir, server)
	cfg.Server = server
	cfg.Log = zerolog.New(logTo).Level(zerolog.WarnLevel)
	wt := watcher.New(tmux, newFinder(), cfg)
	out, err := wt.Do(ctx, id, a)
	if err == nil && out.Pending {
		out, err = wt.Follow(ctx, id, 3*cfg.Settle)
	}
	switch {
	case err == nil && out.Sent:
		out.Message += "; no watcher runs on this server, so nothing more will be tried"
	case err == nil && out.Done && a == watcher.Unskip:
		out.Message += "; no watcher runs on this server: the wait is saved, and nothing resumes the session until one starts (cac-tmux watch)"
	}
	return out, err
}
