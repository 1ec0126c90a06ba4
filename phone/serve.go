package phone

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/net/netutil"

	"github.com/cac-tmux/cac-tmux/clock"
)

// The bounds of the endpoint's connections: a phone's request is a few hundred bytes, so
// a slow client is cut early; shutdownWithin bounds the wait for requests in flight (each
// answers at once: the actions run in the background). At most maxConns connections are
// open at once: more wait in the kernel's backlog, unaccepted, so that idle connections
// (4,200 exhausted the watcher's file descriptors, and then it could read neither /proc nor
// its state file) hold at most maxConns descriptors.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 30 * time.Second
	maxHeaderBytes    = 16 << 10
	shutdownWithin    = 5 * time.Second
	maxConns          = 32
)

// serve answers h on addr (host:port) until ctx ends, then shuts down gracefully: listen,
// then serveOn.
func serve(ctx context.Context, addr string, public bool, h http.Handler, log zerolog.Logger) error {
	ln, err := listen(ctx, addr, public)
	if err != nil {
		return err
	}
	return serveOn(ctx, ln, h, log)
}

// listen listens on addr (host:port). Unless public, the address must be this host's own
// (loopback: "localhost", 127.0.0.0/8, ::1), so that only the user's tunnel reaches it; ""
// and 0.0.0.0 are every address, not loopback. A name is resolved once, and listen listens on
// the address it resolved to. The listener accepts at most maxConns connections at once.
// Listening apart from serving lets Endpoint tell an address that must never be listened on
// (an error at the watcher's start) from a port held now (tried again later).
func listen(ctx context.Context, addr string, public bool) (net.Listener, error) {
	listen, err := listenAddr(ctx, addr, public)
	if err != nil {
		return nil, err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("phone: listen %s: %w", addr, err)
	}
	return netutil.LimitListener(ln, maxConns), nil
}

// serveOn answers h on ln until ctx ends, then shuts down gracefully (requests in flight
// get shutdownWithin) and closes ln. The address is logged at info ("addr"), the port
// chosen for ":0" included; a slow client is cut by the connection timeouts
// (readHeaderTimeout and the others).
func serveOn(ctx context.Context, ln net.Listener, h http.Handler, log zerolog.Logger) error {
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

// addressError is an address that must not be listened on whatever happens (the
// configuration's mistake), unlike a port in use or a name that does not resolve now.
type addressError struct{ error }

func (e addressError) Unwrap() error { return e.error }

// listenAddr is the address to listen on for addr: addr itself for an IP literal (or any
// host with public), the address a name resolves to otherwise. Without public, a host that
// is not loopback is an error that says the fix.
func listenAddr(ctx context.Context, addr string, public bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", addressError{fmt.Errorf("phone: listen %q: want HOST:PORT like 127.0.0.1:8765: %w", addr, err)}
	}
	if public {
		return addr, nil
	}
	notLoopback := addressError{fmt.Errorf("phone: listen %s: not a loopback address, so the endpoint would be reachable from other hosts; listen on 127.0.0.1 behind your tunnel, or set [phone] public = true", addr)}
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

// retryListen is how long the Endpoint waits before it tries to listen again.
const retryListen = 30 * time.Second

// Endpoint keeps the phone's endpoint listening while the watcher runs, on an address it may
// not get at once: another program, maybe another local user's, may hold the port. While it
// does not listen, Up is false and the notifications go without buttons (LinksConfig.Up), so
// that no tap, token or reply reaches whatever holds the port; supervision goes on.
type Endpoint struct {
	Addr    string
	Public  bool
	Handler http.Handler
	Log     zerolog.Logger
	Clock   clock.Clock

	up atomic.Bool
}

// Up reports whether the endpoint listens now.
func (e *Endpoint) Up() bool { return e.up.Load() }

// Start listens on Addr and serves Handler until ctx ends. An address that must not be
// listened on (not loopback without Public, not HOST:PORT) is returned at once; any other
// failure to listen or to serve is a warning, and it tries again every retryListen. done is
// closed once it has stopped.
func (e *Endpoint) Start(ctx context.Context) (done <-chan struct{}, err error) {
	ln, lerr := listen(ctx, e.Addr, e.Public)
	var bad addressError
	if errors.As(lerr, &bad) {
		return nil, lerr
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		e.run(ctx, ln, lerr)
	}()
	return stopped, nil
}

// run serves on ln, or, when err says it could not listen, waits retryListen and listens
// again; until ctx ends. A failure is logged at warn once, until the endpoint listens again.
func (e *Endpoint) run(ctx context.Context, ln net.Listener, err error) {
	warned := false
	for ctx.Err() == nil {
		if err == nil {
			e.up.Store(true)
			warned = false
			err = serveOn(ctx, ln, e.Handler, e.Log)
			e.up.Store(false)
			if err == nil || ctx.Err() != nil {
				if err != nil {
					e.Log.Debug().Err(err).Msg("phone: the endpoint stopped")
				}
				return
			}
		}
		if !warned {
			e.Log.Warn().Err(err).Str("retry", retryListen.String()).
				Msg("phone: the endpoint does not listen, so the notifications go without buttons until it does; the watcher goes on supervising")
			warned = true
		} else {
			e.Log.Debug().Err(err).Msg("phone: the endpoint still does not listen")
		}
		if e.Clock.Sleep(ctx, retryListen) != nil {
			return
		}
		ln, err = listen(ctx, e.Addr, e.Public)
	}
}
