package accounts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// move hands the pane a skip, checks the gates on a fresh look, copies the transcript and
// respawns the pane in the target account. Until the pane is respawned, a failure takes the
// skip back; after it, the skip went with the old process.
func (sw *switching) move(ctx context.Context, dst Headroom) (Switched, error) {
	out, err := sw.Ask(ctx, sw.pane.ID, true, sw.Notices)
	if err != nil {
		return Switched{}, sw.failed(err)
	}
	if !out.Done { // the watcher's own words, but for what a skip would have been
		return Switched{}, sw.refusal("%s", strings.TrimSuffix(out.Message, "; there is nothing to skip"))
	}
	server, err := sw.Tmux.SocketFileHere()
	var busy *store.Lock
	if err == nil {
		// One action on a pane at a time: a resume by hand is refused until the switch ends.
		busy, err = store.LockPane(sw.Getenv, server, sw.pane.ID)
	}
	respawned := false
	if err == nil {
		respawned, err = sw.moveSkipped(ctx, dst)
	}
	busy.Release()
	if respawned {
		return sw.started(ctx, dst)
	}
	sw.unskip(ctx)
	if refused := (*refusedError)(nil); !errors.As(err, &refused) {
		err = sw.failed(err)
	}
	return Switched{}, err
}

// unskip takes the skip back after a refusal; a pane that changed since is left as it is.
func (sw *switching) unskip(ctx context.Context) {
	out, err := sw.Ask(context.WithoutCancel(ctx), sw.pane.ID, false, io.Discard)
	switch {
	case err != nil:
		fmt.Fprintf(sw.Notices, "cac-tmux: switch %s: the skip could not be taken back (%v): cac-tmux unskip %s does it\n", sw.Target, err, sw.pane.ID)
	case !out.Done:
		fmt.Fprintf(sw.Notices, "cac-tmux: switch %s: the skip was not taken back: %s\n", sw.Target, out.Message)
	}
}

// moveSkipped is move once the pane is skipped and its lock held: the gates, the copy, the
// gates again right before the respawn (the copy took time), the record, the respawn.
func (sw *switching) moveSkipped(ctx context.Context, dst Headroom) (respawned bool, err error) {
	if err := sw.gates(ctx); err != nil {
		return false, err
	}
	program, err := program(sw.found.PID)
	if err != nil {
		return false, sw.refusal("%v", strings.TrimPrefix(err.Error(), "accounts: "))
	}
	if fi, err := os.Stat(sw.entry.Cwd); !filepath.IsAbs(sw.entry.Cwd) || err != nil || !fi.IsDir() {
		// Claude Code started elsewhere would look for the session under another project.
		return false, sw.refusal("the working directory of session %s (%q) is not a directory any more", sw.entry.SessionID, sw.entry.Cwd)
	}
	copied, err := copySession(sw.script, dst.Dir)
	if errors.Is(err, errConflict) || errors.Is(err, errLink) {
		return false, sw.refusal("%v", strings.TrimPrefix(err.Error(), "accounts: "))
	}
	if err != nil {
		return false, err
	}
	if err := sw.gates(ctx); err != nil {
		return false, fmt.Errorf("%w (the copy %s stays: the same conversation, unused)", err, copied)
	}
	now := sw.Clock.Now()
	if err := sw.switches.Add(store.Switch{Session: sw.entry.SessionID, From: sw.from, To: dst.Dir, At: now}, now); err != nil {
		return false, err
	}
	if err := sw.Tmux.RespawnPane(ctx, sw.pane.ID, respawn(sw.entry.Cwd, dst.Dir, sw.env.Home, program, sw.entry.SessionID, sw.message())); err != nil {
		return false, err
	}
	return true, nil
}

// respawn is what the pane runs instead: program --resume session -- message in cwd with config
// directory dst, then the user's shell. message is Claude Code's first prompt (`claude -r ID
// "query"`), so the session goes on at once without a key typed; "" leaves it at its prompt.
// "--" keeps the message from being read as an option (Claude Code 2.1.332: `claude --resume ID
// --version` prints the version and exits). The words reach the shell as positional parameters,
// never in its script. For $HOME/.claude CLAUDE_CONFIG_DIR is unset, not set: set, Claude Code
// reads $CLAUDE_CONFIG_DIR/.claude.json, not $HOME/.claude.json (docs/claude-code.md).
func respawn(cwd, dst, home string, program []string, session, message string) tmuxctl.Respawn {
	script := `"$@"; exec "${SHELL:-/bin/sh}"`
	env := []string{"CLAUDE_CONFIG_DIR=" + dst}
	if home != "" && same(dst, (records.Env{Home: home}).Dir()) {
		script, env = "unset CLAUDE_CONFIG_DIR; "+script, nil
	}
	argv := append([]string{"/bin/sh", "-c", script, "sh"}, program...)
	argv = append(argv, "--resume", session)
	if message != "" {
		argv = append(argv, "--", message)
	}
	return tmuxctl.Respawn{Dir: cwd, Env: env, Argv: argv}
}

// message is the new Claude Code's first prompt: the pane's @cac_message when it is a valid
// message (config.CheckMessage, as the watcher types it), else Config.Message.
func (sw *switching) message() string {
	if m := sw.pane.Message; m != "" && config.CheckMessage(m) == "" {
		return m
	}
	return sw.Message
}

// startWithin bounds the wait for the new Claude Code after the respawn.
const startWithin = 15 * time.Second

// started waits until a Claude Code other than the old one runs in the pane with dst as its
// config directory, tells Started, and renews the pane's published state.
func (sw *switching) started(ctx context.Context, dst Headroom) (Switched, error) {
	deadline := sw.Clock.Now().Add(startWithin)
	for {
		if pid, ok := sw.runsIn(ctx, dst); ok {
			done := Switched{Pane: sw.pane, Account: dst.Account, Session: sw.entry.SessionID, PID: pid}
			if sw.Started != nil {
				sw.Started(done)
			}
			sw.forget(ctx)
			return done, nil
		}
		if !sw.Clock.Now().Before(deadline) {
			return Switched{}, fmt.Errorf("accounts: switch %s: pane %s was respawned in %s, but no Claude Code runs there after %s: look at the pane",
				sw.Target, sw.pane.ID, dst.Name, startWithin)
		}
		if err := sw.Clock.Sleep(ctx, 100*time.Millisecond); err != nil {
			return Switched{}, err
		}
	}
}

// runsIn reports whether a new Claude Code process runs in the pane with dst as its config
// directory, and its pid.
func (sw *switching) runsIn(ctx context.Context, dst Headroom) (int, bool) {
	info, err := sw.Tmux.PaneInfo(ctx, sw.pane.ID)
	if err != nil {
		return 0, false
	}
	found, ok, err := sw.Finder.Find(ctx, info.PID)
	if err != nil || !ok || found.Identity == sw.found.Identity {
		return 0, false
	}
	env, err := sw.Finder.Env(ctx, found.Identity)
	return found.PID, err == nil && same(env.Dir(), dst.Dir)
}

// forget has the watcher's code look at the pane again once the new Claude Code runs, so
// that what it published of the old process (skipped, in @cac_state and the state file) is
// replaced by what it sees now: a pane option outlives respawn-pane, and without a running
// watcher nothing else would replace it. An unskip does that as a side effect (the watcher
// visits the pane and publishes it before the action), and is refused itself: the new
// process was never skipped.
func (sw *switching) forget(ctx context.Context) {
	if _, err := sw.Ask(ctx, sw.pane.ID, false, io.Discard); err != nil {
		fmt.Fprintf(sw.Notices, "cac-tmux: switch %s: the pane's published state was not renewed (%v); the next watcher renews it\n", sw.Target, err)
	}
}
