package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/phone"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// The phone's buttons (package phone, issue 25), wired into watch: with [phone] listen, the
// watcher signs the buttons of its ntfy notifications (linked), answers them on listen
// (phone.Handler), and carries each out as the commands do (phoneActor: watcher.Ask, the gates
// of `cac-tmux resume`), reporting the outcome to the same ntfy topic.

// phoneOn says whether [phone] is on: listen set (config requires url and notify.url with it).
func phoneOn(p config.Phone) bool { return p.Listen != "" }

// startPhone serves the phone's endpoint until ctx ends, for the servers of f, and sets the
// signer of their buttons (notifierFor). It listens before it returns: a port in use is an
// error of watch's start, not a log line later.
func startPhone(ctx context.Context, f *fleet, p config.Phone, report *notifiers) error {
	signer := phone.NewSigner(clock.Real.Now)
	h := phone.NewHandler(ctx, phone.Config{
		Signer: signer, Actor: phoneActor{f: f}, Log: f.log.With().Str("part", "phone").Logger(),
		Report: report.say, Screen: p.Screen, Prompts: p.Prompts, PromptMax: p.PromptMax,
	})
	ln, err := phone.Listen(ctx, p.Listen, p.Public)
	if err != nil {
		return err
	}
	f.signer = signer
	go func() {
		if err := phone.ServeOn(ctx, ln, h, f.log); err != nil {
			f.log.Error().Err(err).Msg("the phone's endpoint stopped; the watcher goes on without it")
		}
		h.Wait()
	}()
	f.log.Info().Str("listen", ln.Addr().String()).Str("url", p.URL).Msg("answering the phone's buttons")
	return nil
}

// linked is a notifier whose events carry the phone's buttons for their pane.
type linked struct {
	links *phone.Links
	next  watcher.Notifier
}

func (l linked) Send(e notify.Event) { l.next.Send(l.links.Decorate(e)) }

// notifierFor is the notifier of the watcher of the server on socket: n, with the phone's
// buttons when the endpoint answers them, and switching the sessions that stop with
// [accounts] auto ([phone] and [accounts] as watch started). A nil n stays nil (Reconfigure
// keeps the notifier it has).
func (f *fleet) notifierFor(ctx context.Context, socket string, n watcher.Notifier) watcher.Notifier {
	if n == nil {
		return n
	}
	if f.signer != nil {
		p := f.o.loaded.Config.Phone
		links, err := phone.NewLinks(phone.LinksConfig{Signer: f.signer, Socket: socket, URL: p.URL, TTL: p.LinkTTL, Screen: p.Screen, Prompts: p.Prompts})
		if err != nil { // config checked url; a mistake here is ours
			f.log.Error().Err(err).Msg("notifications go without the phone's buttons")
		} else {
			n = linked{links: links, next: n}
		}
	}
	if c := f.o.loaded.Config; c.Accounts.Auto && !f.o.dryRun && !f.o.once {
		n = autoSwitch(ctx, socket, n, c, f.log)
	}
	return n
}

// phoneActor carries out the phone's actions on the servers the fleet supervises, through
// watcher.Ask: the running watcher of the server (this process) takes them at its next tick,
// through the gates of `cac-tmux resume`.
type phoneActor struct{ f *fleet }

var errNotSupervised = errors.New("no watcher of this process supervises that tmux server now")

// client is the tmux client of the server on socket, if one of the fleet's watchers has it.
func (a phoneActor) client(socket string) (*tmuxctl.Client, error) {
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	if m := a.f.members[socket]; m != nil {
		return m.tmux, nil
	}
	return nil, errNotSupervised
}

func (a phoneActor) Act(ctx context.Context, server, pane string, act watcher.Action) (watcher.Outcome, error) {
	c, err := a.client(server)
	if err != nil {
		return watcher.Outcome{}, err
	}
	return watcher.Ask(ctx, c, pane, act, asking(c, io.Discard))
}

func (a phoneActor) Prompt(ctx context.Context, server, pane, text string) (watcher.Outcome, error) {
	c, err := a.client(server)
	if err != nil {
		return watcher.Outcome{}, err
	}
	cfg := asking(c, io.Discard)
	cfg.Text = text
	return watcher.Ask(ctx, c, pane, watcher.Prompt, cfg)
}

// Screen is the text of the pane, only while Claude Code runs there: a pane id outlives its
// program, and a shell's screen is not what the button was offered for.
func (a phoneActor) Screen(ctx context.Context, server, pane string) (string, error) {
	c, err := a.client(server)
	if err != nil {
		return "", err
	}
	info, err := c.PaneInfo(ctx, pane)
	if err != nil {
		return "", err
	}
	if _, ok, err := newFinder().Find(ctx, info.PID); err != nil || !ok {
		return "", fmt.Errorf("claude does not run in pane %s now; its screen is not sent", pane)
	}
	return c.Capture(ctx, pane)
}

// say sends a report of the phone's endpoint (an action's outcome, a screen) to the current
// notifier's ntfy channel.
func (ns *notifiers) say(ctx context.Context, title, body string) {
	ns.mu.Lock()
	n := ns.cur
	ns.mu.Unlock()
	if err := n.Say(ctx, title, body); err != nil {
		ns.log.Warn().Err(err).Msg("the phone was not told the outcome")
	}
}
