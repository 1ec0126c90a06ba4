package phone

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// The bounds of the endpoint's connections: a phone's request is a few hundred bytes, so
// a slow client is cut early; shutdownWithin bounds the wait for requests in flight (each
// answers at once: the actions run in the background).
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 16 << 10
	shutdownWithin    = 5 * time.Second
)

// Serve answers h on addr (host:port) until ctx ends, then shuts down gracefully: Listen,
// then ServeOn.
func Serve(ctx context.Context, addr string, public bool, h http.Handler, log zerolog.Logger) error {
	ln, err := Listen(ctx, addr, public)
	if err != nil {
		return err
	}
	return ServeOn(ctx, ln, h, log)
}

// Listen listens on addr (host:port). Unless public, the address must be this host's own
// (loopback: "localhost", 127.0.0.0/8, ::1), so that only the user's tunnel reaches it; ""
// and 0.0.0.0 are every address, not loopback. A name is resolved once, and Listen listens on
// the address it resolved to. Listening apart from serving lets the caller report a port in
// use at its start.
func Listen(ctx context.Context, addr string, public bool) (net.Listener, error) {
	listen, err := listenAddr(ctx, addr, public)
	if err != nil {
		return nil, err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("phone: listen %s: %w", addr, err)
	}
	return ln, nil
}

// ServeOn answers h on ln until ctx ends, then shuts down gracefully (requests in flight
// get shutdownWithin) and closes ln. The address is logged at info ("addr"), the port
// chosen for ":0" included; a slow client is cut by the connection timeouts
// (readHeaderTimeout and the others).
func ServeOn(ctx context.Context, ln net.Listener, h http.Handler, log zerolog.Logger) error {
	addr := ln.Addr().String()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
		ErrorLog: stdlog.New(debugWriter{log}, "", 0)}
	log.Info().Str("addr", addr).Msg("phone: listening for the phone's actions")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("phone: serve %s: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownWithin)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
	}
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if err != nil {
		return fmt.Errorf("phone: shut down %s: %w", addr, err)
	}
	log.Info().Str("addr", addr).Msg("phone: stopped listening")
	return nil
}

// listenAddr is the address to listen on for addr: addr itself for an IP literal (or any
// host with public), the address a name resolves to otherwise. Without public, a host that
// is not loopback is an error that says the fix.
func listenAddr(ctx context.Context, addr string, public bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("phone: listen %q: want HOST:PORT like 127.0.0.1:8765: %w", addr, err)
	}
	if public {
		return addr, nil
	}
	notLoopback := fmt.Errorf("phone: listen %s: not a loopback address, so the endpoint would be reachable from other hosts; listen on 127.0.0.1 behind your tunnel, or set [phone] public = true", addr)
	if host == "" {
		return "", notLoopback
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return "", notLoopback
		}
		return addr, nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return "", fmt.Errorf("phone: listen %s: %w", addr, err)
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return "", notLoopback
		}
	}
	if len(ips) == 0 {
		return "", notLoopback
	}
	return net.JoinHostPort(ips[0].IP.String(), port), nil
}

// debugWriter makes net/http's error log (a client's broken connection, a TLS handshake
// on the plain port) debug lines of the Logger.
type debugWriter struct{ log zerolog.Logger }

func (d debugWriter) Write(p []byte) (int, error) {
	d.log.Debug().Msg("phone: " + strings.TrimSpace(string(p)))
	return len(p), nil
}
