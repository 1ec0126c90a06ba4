package notify_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/notify"
)

// A reload's Start makes the new notifier the one reports go to, and the old one is closed;
// after Close nothing is sent, and the report that could not go is logged.
func TestCurrentReplacedAtReload(t *testing.T) {
	first, second := newServer(t, http.StatusOK, false), newServer(t, http.StatusOK, false)
	logs := &logBuf{}
	c := &notify.Current{Log: zerolog.New(logs), Clock: clocktest.New(start)}
	old, err := c.Start(settings(func(s *notify.Settings) { s.URL = first.URL + "/topic" }))
	if err != nil {
		t.Fatal(err)
	}
	c.Say(context.Background(), "one", "body")
	first.waitRequests(t, 1)
	n, err := c.Start(settings(func(s *notify.Settings) { s.URL = second.URL + "/topic" }))
	if err != nil || c.Notifier() != n {
		t.Fatalf("Start = %p, %v; Notifier() = %p, want the new one", n, err, c.Notifier())
	}
	c.Say(context.Background(), "two", "body")
	second.waitRequests(t, 1)
	waitFor(t, "the replaced notifier to be closed", func() bool {
		return old.Say(context.Background(), "late", "body") != nil
	})
	c.Close()
	if c.Notifier() != nil {
		t.Error("Notifier() after Close is not nil")
	}
	c.Say(context.Background(), "three", "body")
	if got := logs.count("the phone was not told the outcome"); got != 1 {
		t.Errorf("%d log lines about a report not sent, want 1:\n%s", got, logs)
	}
	if len(first.requests()) != 1 || len(second.requests()) != 1 {
		t.Errorf("POSTs: %d to the first, %d to the second; want one each", len(first.requests()), len(second.requests()))
	}
}
