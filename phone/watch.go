package phone

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Phone is the phone's side of one `cac-tmux watch` with [phone] listen: the endpoint that
// answers the buttons, and the signer of the buttons of every server's notifications. A nil
// *Phone (no [phone]) adds no button.
type Phone struct {
	settings config.Phone
	signer   *Signer
	up       func() bool
	log      zerolog.Logger
}

// Start serves the phone's endpoint on p.Listen until ctx ends, carrying each action out
// through actor and reporting its outcome through report (the ntfy topic). An address that
// must not be listened on is its error; a port that another program holds is not: the
// watcher supervises, its notifications go without buttons, and the endpoint tries the port
// again (Endpoint).
func Start(ctx context.Context, p config.Phone, actor Actor, report func(ctx context.Context, title, body string), log zerolog.Logger, clk clock.Clock) (*Phone, error) {
	signer := NewSigner(clk.Now)
	plog := log.With().Str("part", "phone").Logger()
	h := NewHandler(ctx, Config{
		Signer: signer, Actor: actor, Log: plog, Clock: clk,
		Report: report, Screen: p.Screen, Prompts: p.Prompts, PromptMax: p.PromptMax,
	})
	ep := &Endpoint{Addr: p.Listen, Public: p.Public, Handler: h, Log: plog, Clock: clk}
	done, err := ep.Start(ctx)
	if err != nil {
		return nil, err
	}
	go func() {
		<-done
		h.Wait()
	}()
	log.Info().Str("listen", p.Listen).Str("url", p.URL).Msg("answering the phone's buttons")
	return &Phone{settings: p, signer: signer, up: ep.Up, log: log}, nil
}

// Notifier is next with the phone's buttons on the events of the server on socket, shown
// while the endpoint listens. Without a phone it is next.
func (ph *Phone) Notifier(socket string, next watcher.Notifier) watcher.Notifier {
	if ph == nil {
		return next
	}
	p := ph.settings
	links, err := NewLinks(LinksConfig{Signer: ph.signer, Socket: socket, URL: p.URL, TTL: p.LinkTTL, Screen: p.Screen, Prompts: p.Prompts, Up: ph.up})
	if err != nil { // config checked url; a mistake here is ours
		ph.log.Error().Err(err).Msg("notifications go without the phone's buttons")
		return next
	}
	return linked{links: links, next: next}
}

// linked is a notifier whose events carry the phone's buttons for their pane.
type linked struct {
	links *Links
	next  watcher.Notifier
}

func (l linked) Send(e notify.Event) { l.next.Send(l.links.Decorate(e)) }
