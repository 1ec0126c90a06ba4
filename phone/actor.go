package phone

import (
	"context"
	"errors"
	"fmt"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// AskActor is the Actor of a watch: it carries out the phone's actions on the servers whose
// watchers run in this process, through watcher.Ask, so the running watcher of the server
// takes them at its next tick, through the gates of `cac-tmux resume`, for the session of the
// link only (AskConfig.Binding).
type AskActor struct {
	// Servers are the servers supervised in this process (servers.Fleet).
	Servers interface {
		Client(socket string) (*tmuxctl.Client, bool)
	}
	// Asking is what watcher.Ask needs on the server of c.
	Asking func(c *tmuxctl.Client) watcher.AskConfig
	Finder watcher.Finder
}

var errNotSupervised = errors.New("no watcher of this process supervises that tmux server now")

// client is the tmux client of the server on socket, if a watcher of this process has it.
func (a AskActor) client(socket string) (*tmuxctl.Client, error) {
	if c, ok := a.Servers.Client(socket); ok {
		return c, nil
	}
	return nil, errNotSupervised
}

// Act carries out act on the session of s.
func (a AskActor) Act(ctx context.Context, s Session, act watcher.Action) (watcher.Outcome, error) {
	return a.ask(ctx, s, act, "")
}

// Prompt types text into the session of s.
func (a AskActor) Prompt(ctx context.Context, s Session, text string) (watcher.Outcome, error) {
	return a.ask(ctx, s, watcher.Prompt, text)
}

func (a AskActor) ask(ctx context.Context, s Session, act watcher.Action, text string) (watcher.Outcome, error) {
	c, err := a.client(s.Server)
	if err != nil {
		return watcher.Outcome{}, err
	}
	cfg := a.Asking(c)
	cfg.Text, cfg.Binding = text, s.Binding
	return watcher.Ask(ctx, c, s.Pane, act, cfg)
}

// Screen is the text of the pane, only while it runs the session of the link: a pane id
// outlives its program, and another's screen is not what the button was offered for.
func (a AskActor) Screen(ctx context.Context, s Session) (string, error) {
	c, err := a.client(s.Server)
	if err != nil {
		return "", err
	}
	_, why, err := watcher.Bound(ctx, c, a.Finder, s.Pane, s.Binding)
	switch {
	case err != nil:
		return "", err
	case why != "":
		return "", fmt.Errorf("%s; its screen is not sent", why) // the body of the report to the phone
	}
	return c.Capture(ctx, s.Pane)
}

// Where is where the session of the link runs, for the reply form.
func (a AskActor) Where(ctx context.Context, s Session) (watcher.Place, string, error) {
	c, err := a.client(s.Server)
	if err != nil {
		return watcher.Place{}, "", err
	}
	return watcher.Bound(ctx, c, a.Finder, s.Pane, s.Binding)
}
