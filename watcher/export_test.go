package watcher

import "context"

// What the tests of package watcher_test reach that commands reach only through Ask.

// Do carries out an action on pane id now (do), as the running watcher does for a request.
func (w *Watcher) Do(ctx context.Context, id string, a Action) (Outcome, error) {
	return w.do(ctx, id, a)
}

// Reply is the value of @cac_reply that answers the request of nonce with o (replyValue).
func (o Outcome) Reply(nonce string) string { return o.replyValue(nonce) }

// ParseReply reads a value of @cac_reply (parseReply).
func ParseReply(reply, nonce string) (Outcome, bool) { return parseReply(reply, nonce) }
