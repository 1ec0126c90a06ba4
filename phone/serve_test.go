package phone

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// wantNotFound GETs u and fails the test unless it is answered 404 (http.NotFoundHandler).
func wantNotFound(t *testing.T, u string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET %s: %d, want 404", u, resp.StatusCode)
	}
}

// TestServeRefusesBeyondLoopback: without public, an address that other hosts reach is
// refused before anything listens, with the fix.
func TestServeRefusesBeyondLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:8765", "8765", "localhost"} {
		// A serve that listened, wrongly, returns nil when the deadline ends it.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := serve(ctx, addr, false, http.NotFoundHandler(), zerolog.Nop())
		cancel()
		if err == nil || !strings.Contains(err.Error(), "phone: listen") {
			t.Errorf("Serve(%q) = %v, want a refusal", addr, err)
		}
		if err != nil && strings.Contains(addr, ":") && !strings.Contains(err.Error(), "public = true") {
			t.Errorf("Serve(%q) = %v; the error does not say the fix", addr, err)
		}
	}
}

// TestServeLoopback: on a loopback address serve answers until its context ends, then
// returns nil; the address it listens on (the port of ":0" chosen) is logged.
func TestServeLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		t.Run(addr, func(t *testing.T) {
			logs := &logBuf{}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- serve(ctx, addr, false, http.NotFoundHandler(), zerolog.New(logs)) }()
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
			wantNotFound(t, "http://"+listening+"/v1/act")
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

// TestEndpointPortHeld: a port held by another program (maybe another user's) does not stop
// the endpoint's start: it says why it does not listen, Up is false (so no button is offered),
// and it listens once the port is free, at its next try; an address that must not be
// listened on is still refused at once.
func TestEndpointPortHeld(t *testing.T) {
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs, clk := &logBuf{}, clocktest.New(start)
	e := &Endpoint{Addr: other.Addr().String(), Handler: http.NotFoundHandler(), Log: zerolog.New(logs), Clock: clk}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done, err := e.Start(ctx)
	if err != nil {
		t.Fatalf("Start with the port held = %v, want the watcher to go on", err)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the warning and the retry's sleep", func() bool {
		return strings.Contains(logs.String(), "notifications go without buttons") && clk.Timers() > 0
	})
	if e.Up() {
		t.Fatal("Up while another program holds the port")
	}
	other.Close()
	clk.Add(30 * time.Second)
	tmuxtest.WaitFor(t, 10*time.Second, "the endpoint to listen", e.Up)
	wantNotFound(t, "http://"+e.Addr+"/")
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the endpoint did not stop after its context ended")
	}
	if e.Up() {
		t.Error("Up after it stopped")
	}

	bad := &Endpoint{Addr: "0.0.0.0:0", Handler: http.NotFoundHandler(), Log: zerolog.Nop(), Clock: clk}
	if _, err := bad.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "public = true") {
		t.Errorf("Start on 0.0.0.0 = %v, want the refusal", err)
	}
}

// TestListenBoundsConnections: the endpoint accepts at most 32 connections at once; the
// others wait in the kernel's backlog, holding none of the watcher's file descriptors, until
// one closes.
func TestListenBoundsConnections(t *testing.T) {
	ln, err := listen(context.Background(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var accepted []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			accepted = append(accepted, c)
			mu.Unlock()
		}
	}()
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(accepted) }
	for range 40 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	tmuxtest.WaitFor(t, 10*time.Second, "32 connections accepted", func() bool { return count() >= 32 })
	if n := count(); n != 32 {
		t.Fatalf("%d of 40 idle connections accepted at once, want 32", n)
	}
	mu.Lock()
	accepted[0].Close()
	mu.Unlock()
	tmuxtest.WaitFor(t, 10*time.Second, "one more accepted once one closed", func() bool { return count() >= 33 })
	if n := count(); n != 33 {
		t.Errorf("%d accepted after one closed, want 33", n)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, c := range accepted {
		c.Close()
	}
}
