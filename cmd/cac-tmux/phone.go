package main

import (
	"context"
	"io"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/phone"
	"github.com/cac-tmux/cac-tmux/servers"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// The phone's buttons (package phone), wired into watch: with [phone] listen, the watcher
// signs the buttons of its ntfy notifications, answers them (phone.Start), and carries each
// out as the commands do (phone.AskActor: watcher.Ask, the gates of `cac-tmux resume`),
// reporting the outcome to the same ntfy topic.

// startPhone serves the phone's endpoint until ctx ends, for the servers of w.
func startPhone(ctx context.Context, w *servers.Watch, std *deps) (*phone.Phone, error) {
	actor := phone.AskActor{Servers: w, Finder: std.finder, Asking: func(c *tmuxctl.Client) watcher.AskConfig { return asking(c, io.Discard) }}
	return phone.Start(ctx, w.Loaded.Config.Phone, actor, w.Notifiers.Say, w.Log, std.clock)
}

// notifierFor makes the notifier of the watcher of the server on socket (servers.Watch's
// Decorate): n, with the phone's buttons (ph; nil without [phone]), and switching the sessions
// that stop with [accounts] auto ([phone] and [accounts] as watch started), the stops of the
// state file first when the watcher starts (at a reload, the switch queue of the start still
// holds them). A nil n stays nil (Reconfigure keeps the notifier it has).
func notifierFor(o *watchOptions, ph *phone.Phone, log zerolog.Logger) func(context.Context, string, watcher.Notifier, bool) watcher.Notifier {
	return func(ctx context.Context, socket string, n watcher.Notifier, start bool) watcher.Notifier {
		if n == nil {
			return n
		}
		n = ph.Notifier(socket, n)
		if c := o.loaded.Config; c.Accounts.Auto && !o.dryRun && !o.once {
			n = autoSwitch(ctx, socket, n, c, log, start)
		}
		return n
	}
}
