package main

import (
	"context"
	"io"

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
