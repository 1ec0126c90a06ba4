package phone

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// sent keeps the events a notifier was given.
type sent struct{ events []notify.Event }

func (s *sent) Send(e notify.Event) { s.events = append(s.events, e) }

// A watch's phone: an address beyond loopback is Start's error; once the endpoint listens, the
// notifier of a server adds the buttons to its events; a url that NewLinks refuses leaves the
// events without them, said in the log; without a phone the notifier is the one given.
func TestStartAndNotifier(t *testing.T) {
	clk := clocktest.New(start)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := config.Phone{Listen: "0.0.0.0:0", URL: "https://box.example", LinkTTL: time.Hour, Screen: true}
	if ph, err := Start(ctx, p, &fakeActor{}, nil, zerolog.Nop(), clk); err == nil || ph != nil {
		t.Fatalf("Start on %s = %v, %v; want a refusal", p.Listen, ph, err)
	}
	logs := &logBuf{}
	p.Listen = "127.0.0.1:0"
	ph, err := Start(ctx, p, &fakeActor{}, nil, zerolog.New(logs), clk)
	if err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the endpoint to listen", ph.up)
	next := &sent{}
	e := notify.Event{Kind: notify.Stopped, Pane: "%3", Binding: bound}
	ph.Notifier(sock, next).Send(e)
	if len(next.events) != 1 || len(next.events[0].Actions) != 2 {
		t.Fatalf("events sent on = %+v, want one with Skip and Screen", next.events)
	}

	ph.settings.URL = "ftp://box.example"
	if n := ph.Notifier(sock, next); n != next {
		t.Errorf("Notifier with a url NewLinks refuses = %T, want the next one", n)
	}
	if !strings.Contains(logs.String(), "notifications go without the phone's buttons") {
		t.Errorf("the log does not say the buttons are left out:\n%s", logs)
	}
	if n := (*Phone)(nil).Notifier(sock, next); n != next {
		t.Errorf("Notifier without a phone = %T, want the next one", n)
	}
}
