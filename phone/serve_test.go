package phone_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/phone"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// TestServeRefusesBeyondLoopback: without public, an address that other hosts reach is
// refused before anything listens, with the fix.
func TestServeRefusesBeyondLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:8765", "8765", "localhost"} {
		// A Serve that listened, wrongly, returns nil when the deadline ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := phone.Serve(ctx, addr, false, http.NotFoundHandler(), zerolog.Nop())
		cancel()
		if err == nil || !strings.Contains(err.Error(), "phone: listen") {
			t.Errorf("Serve(%q) = %v, want a refusal", addr, err)
		}
		if err != nil && strings.Contains(addr, ":") && !strings.Contains(err.Error(), "public = true") {
			t.Errorf("Serve(%q) = %v; the error does not say the fix", addr, err)
		}
	}
}

// TestServeLoopback: on a loopback address Serve answers until its context ends, then
// returns nil; the address it listens on (the port of ":0" chosen) is logged.
func TestServeLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		t.Run(addr, func(t *testing.T) {
			logs := &logBuf{}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- phone.Serve(ctx, addr, false, http.NotFoundHandler(), zerolog.New(logs)) }()
			var listening string
			tmuxtest.WaitFor(t, 10*time.Second, "the listening log line", func() bool {
				for _, l := range logs.lines(t) {
					if l["message"] == "phone: listening for the phone's actions" {
						listening = fmt.Sprint(l["addr"])
					}
				}
				return listening != ""
			})
			if !strings.HasPrefix(listening, "127.0.0.1:") && !strings.HasPrefix(listening, "[::1]:") {
				t.Errorf("listening on %s", listening)
			}
			resp, err := http.Get("http://" + listening + "/v1/act")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("GET: %d", resp.StatusCode)
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve = %v after its context ended", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return after its context ended")
			}
		})
	}
}
