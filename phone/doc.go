// Package phone lets the user act on a pane from a phone: the buttons of the ntfy
// notifications the watcher sends (resume now, skip, unskip, the screen, a reply), and the
// loopback HTTP endpoint that the user's own tunnel brings them to.
//
// Each button carries a token (Signer): one action on one Claude Code session (its process
// and conversation, as the notification's event binds them: watcher.BindingOf) in one pane of
// one tmux server (a keyed ID, never the socket's path), signed with HMAC-SHA256 under a key
// that lives in the watcher's memory only, valid for [phone] link_ttl and redeemed once. A
// watcher that restarts has a new key, so every link it sent before is void. The request
// names its target (server, pane, action) and a token for any other target is refused, as
// are forged, expired and used ones, each refusal logged with its reason (beyond a few per
// window, counted on one line); a token, a prompt and a screen are never logged.
//
// Links (one per tmux server) adds the buttons to a notify.Event, and none while the endpoint
// does not listen; Handler is the endpoint; Endpoint answers it on a
// loopback address unless told that it may be public, at most 32 connections at once, and
// tries again when the address is held. What a button asks is carried out by an Actor, which
// the command implements with watcher.Ask and the session's binding: every action passes the
// same gates as `cac-tmux resume`, `skip` and `unskip`, for that session only, and the
// outcome (a refusal included) is reported back to the phone as a notification.
//
// Whoever can read the ntfy topic can press its buttons: the topic's secrecy, the tunnel and
// the tokens' short life are the protection. The package never types into a pane itself,
// never listens beyond loopback unless [phone] public is set, and never writes its key.
package phone
