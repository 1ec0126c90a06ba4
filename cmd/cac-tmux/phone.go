package main

import (
	"context"
	"io"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/phone"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// The phone's buttons (package phone), wired into watch: with [phone] listen, the
// watcher signs the buttons of its ntfy notifications (linked), answers them on listen
// (phone.Handler), and carries each out as the commands do (phone.AskActor: watcher.Ask, the gates
// of `cac-tmux resume`), reporting the outcome to the same ntfy topic.

// phoneOn says whether [phone] is on: listen set (config requires url and notify.url with it).
func phoneOn(p config.Phone) bool { return p.Listen != "" }

// startPhone serves the phone's endpoint until ctx ends, for the servers of f, and sets the
// signer of their buttons (notifierFor). An address that must not be listened on is an error
// of watch's start; a port that another program holds is not: the watcher supervises, its
// notifications go without buttons, and the endpoint tries the port again (phone.Endpoint).
func startPhone(ctx context.Context, f *fleet, p config.Phone, report *notifiers) error {
	signer := phone.NewSigner(f.d.clock.Now)
	log := f.log.With().Str("part", "phone").Logger()
	h := phone.NewHandler(ctx, phone.Config{
		Signer: signer, Actor: phone.AskActor{Servers: f, Finder: f.d.finder, Asking: func(c *tmuxctl.Client) watcher.AskConfig { return asking(c, io.Discard) }}, Log: log, Clock: f.d.clock,
		Report: report.say, Screen: p.Screen, Prompts: p.Prompts, PromptMax: p.PromptMax,
	})
	ep := &phone.Endpoint{Addr: p.Listen, Public: p.Public, Handler: h, Log: log, Clock: f.d.clock}
	done, err := ep.Start(ctx)
	if err != nil {
		return err
	}
	f.signer, f.listen = signer, ep.Up
	go func() {
		<-done
		h.Wait()
	}()
	f.log.Info().Str("listen", p.Listen).Str("url", p.URL).Msg("answering the phone's buttons")
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
// [accounts] auto ([phone] and [accounts] as watch started), the stops of the state file first
// when the watcher starts (at a reload, the switch queue of the start still holds them). A nil
// n stays nil (Reconfigure keeps the notifier it has).
func (f *fleet) notifierFor(ctx context.Context, socket string, n watcher.Notifier, start bool) watcher.Notifier {
	if n == nil {
		return n
	}
	if f.signer != nil {
		p := f.o.loaded.Config.Phone
		links, err := phone.NewLinks(phone.LinksConfig{Signer: f.signer, Socket: socket, URL: p.URL, TTL: p.LinkTTL, Screen: p.Screen, Prompts: p.Prompts, Up: f.listen})
		if err != nil { // config checked url; a mistake here is ours
			f.log.Error().Err(err).Msg("notifications go without the phone's buttons")
		} else {
			n = linked{links: links, next: n}
		}
	}
	if c := f.o.loaded.Config; c.Accounts.Auto && !f.o.dryRun && !f.o.once {
		n = autoSwitch(ctx, socket, n, c, f.log, start)
	}
	return n
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
