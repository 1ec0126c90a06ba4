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
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
	"github.com/cac-tmux/cac-tmux/watcher/store"
)

// newAction is `cac-tmux resume PANE` or `cac-tmux skip PANE`.
func newAction(std stdio, a watcher.Action) *cobra.Command {
	var tmux *tmuxctl.Client
	short, long := "resume a stopped session now (every safety gate but the reset)",
		`Resumes the Claude Code session in PANE now, through every gate the watcher keeps before
a key (SAFETY.md) but the reset: a draft in the input box, another process, a busy pane, copy
mode or synchronize-panes each refuse it (exit 1, saying which). It sends one resume: when a
watcher runs, the request is handed to it and its answer printed; otherwise the command acts
itself, holding the watcher's lock, and reports whether the session resumed.`
	if a == watcher.Skip {
		short, long = "skip this wait: leave a stopped session alone until its next stop",
			`Marks the stopped Claude Code session in PANE skipped: nothing is typed into it until it
stops again. Through the running watcher when there is one.`
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
	return c
}

// answerWithin bounds the wait for the running watcher's answer: it sees a request at its next
// tick (the interval is at most a minute), and a resume takes a few seconds.
const answerWithin = 75 * time.Second

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
	case out.Sent && !out.Done:
		return fmt.Errorf("%s %s: sent, but the session did not resume: %s", a, target, out.Message)
	case !out.Done:
		return fmt.Errorf("%s %s: refused: %s", a, target, out.Message)
	}
	fmt.Fprintln(std.out, out.Message)
	return nil
}

// doAction carries out the action on pane id: through the running watcher when there is one,
// else here, holding its lock (warnings go to logTo).
func doAction(ctx context.Context, tmux *tmuxctl.Client, id string, a watcher.Action, logTo io.Writer) (watcher.Outcome, error) {
	server, err := tmux.SocketFileHere()
	if err != nil {
		return watcher.Outcome{}, err
	}
	lockDir, err := store.LockDir(os.Getenv)
	if err != nil {
		return watcher.Outcome{}, err
	}
	lock, err := store.Acquire(lockDir, server)
	var locked *store.LockedError
	switch {
	case errors.As(err, &locked): // a watcher runs: it does it
		return handOver(ctx, tmux, id, a)
	case err != nil:
		return watcher.Outcome{}, err
	}
	defer lock.Release()
	return actHere(ctx, tmux, server, id, a, logTo)
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

// handOver hands the action to the running watcher through the pane option @cac_request and
// waits for its answer in @cac_reply. Unanswered, the request is withdrawn.
func handOver(ctx context.Context, tmux *tmuxctl.Client, id string, a watcher.Action) (watcher.Outcome, error) {
	nonce := strconv.FormatInt(clock.Real.Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid())
	if err := tmux.Request(ctx, id, string(a)+" "+nonce); err != nil {
		return watcher.Outcome{}, err
	}
	deadline := clock.Real.Now().Add(answerWithin)
	for clock.Real.Now().Before(deadline) {
		reply, err := tmux.PaneOption(ctx, id, tmuxctl.ReplyOption)
		if err != nil {
			return watcher.Outcome{}, err
		}
		if rest, ok := strings.CutPrefix(reply, nonce+" "); ok {
			verdict, msg, _ := strings.Cut(rest, " ")
			return watcher.Outcome{Done: verdict == "ok", Message: msg}, nil
		}
		if err := clock.Real.Sleep(ctx, 100*time.Millisecond); err != nil {
			return watcher.Outcome{}, err
		}
	}
	_ = tmux.SetPaneOptions(context.WithoutCancel(ctx), id, []string{tmuxctl.RequestOption}, []string{""})
	return watcher.Outcome{}, fmt.Errorf("the running watcher did not answer within %s; the request is withdrawn", answerWithin)
}

// actHere carries out the action without a watcher, holding its lock: the watcher's own code,
// with the settings of the configuration file and the tmux options, and the state file.
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
	if err != nil || !out.Done || a != watcher.ResumeNow {
		return out, err
	}
	return wt.Follow(ctx, id, 3*cfg.Settle)
}
