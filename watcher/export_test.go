package watcher

import (
	"context"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// What the tests of package watcher_test reach that commands reach only through Ask, and
// the steps of a listing and of a stop that they test on their own.

// DoPrompt types a prompt into pane id now (do), as the running watcher does for a request.
func (w *Watcher) DoPrompt(ctx context.Context, id, text string) (Outcome, error) {
	return w.do(ctx, id, Prompt, text, "")
}

// Do carries out an action on pane id now (do), as the running watcher does for a request.
func (w *Watcher) Do(ctx context.Context, id string, a Action) (Outcome, error) {
	return w.do(ctx, id, a, "", "")
}

// Reply is the value of @cac_reply that answers the request of nonce with o (replyValue).
func (o Outcome) Reply(nonce string) string { return o.replyValue(nonce) }

// ParseReply reads a value of @cac_reply (parseReply).
func ParseReply(reply, nonce string) (Outcome, bool) { return parseReply(reply, nonce) }

// ParseAction reads an action's name (parseAction).
func ParseAction(s string) (Action, error) { return parseAction(s) }

// ParseState reads a state as published (parseState).
func ParseState(s string) (State, error) { return parseState(s) }

// RowOf reads a row from the pane options a watcher published (rowOf).
func RowOf(info tmuxctl.Pane) (Row, error) { return rowOf(info) }

// Exact refines the reset and kind read from the screen with the agent's record of the limit
// (exactReset).
func Exact(r detector.Reset, kind detector.Kind, l agent.Limit) (detector.Reset, detector.Kind, bool) {
	return exactReset(r, kind, l)
}

// Apply hands new settings to the watcher as a SIGHUP does, at once (apply).
func (w *Watcher) Apply(cfg Config) { w.apply(cfg) }
