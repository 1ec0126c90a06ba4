package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// Output, signalled (tmux 3.8). A listing of changes (ListChanges) still costs the server a
// pass over every pane each tick, most of what watching 1,000 idle panes costs (docs/costs.md).
// tmux 3.8's `wait-for -E pane-activity` holds a client's command queue until any pane prints
// (once per server loop per pane that printed, in any session; a title, an option or a key
// sent is no output); over a control client its own reply comes at once, and the commands after
// it run when the event fires. So a second control connection holds one wait at a time:
//
//   - armed: the wait-for sent and its reply read; output from then on fires it.
//   - fired: the sync line after it answered. The next wait is armed just before the next
//     listing, never at once, or a pane printing without pause would make it spin.
//
// A listing made while a wait is armed sees all output up to its start, and later output fires
// the wait: while it is armed and unfired nothing has printed, and the next listing is skipped,
// sending tmux nothing, since any command costs tmux a pass over every pane (docs/costs.md,
// next-3.8 with its output signal). The listing after a skip searches from the last one made.
// A request (`cac-tmux resume` …) wakes the wait: the signal's client is named in signalOption,
// and Request ends with `wait-for -E -w NAME pane-activity`. Without -E (tmux 3.2a to 3.7)
// there is no second connection: the output pipes stand in (pipes.go).

// quietGens numbers every arm and every firing of every activity connection of this process,
// so that a Mark's output generation stands for one armed wait of one connection only.
var quietGens atomic.Uint64

// waitState is what the activity connection's wait is doing.
type waitState int

const (
	waitIdle   waitState = iota // none in tmux's queue: the last one fired, or none was sent
	waitSent                    // sent; its reply (armed) not read yet
	waitArmed                   // in place: output fires it
	waitBroken                  // the connection failed or ended: nothing can be told
)

// activity is the second control connection that signals output (see above). Its methods
// are safe for concurrent use.
type activity struct {
	k       *controlClient
	conn    uint64        // the id of the main connection it goes with
	name    string        // k's client name, published in signalOption
	replied chan struct{} // a value when a wait-for's reply is read (a wait armed)

	mu    sync.Mutex
	state waitState
	gen   uint64 // the quietGens value of the last arm or firing
}

// activityEvent is the wait-for -E event that fires on any pane's output (tmux 3.8).
const activityEvent = "pane-activity"

// newActivity starts the signal on w, a connection that runs nothing else and is named name
// in signalOption, for the main connection numbered conn.
func newActivity(w *controlClient, conn uint64, name string) *activity {
	a := &activity{k: w, conn: conn, name: name, replied: make(chan struct{}, 1)}
	go a.watch()
	return a
}

// watch reads the connection's replies until it ends: the wait-for's (armed), then its sync
// line's (fired), one after the other. Anything else ends the signal: an error, a misframed
// reply, a reply that comes in no state that expects it.
func (a *activity) watch() {
	for {
		select {
		case e := <-a.k.events:
			if e.misframed == "" && e.flags != "1" {
				continue // a hook's output, printed between blocks
			}
			if !a.step(e) {
				a.k.Close()
				return
			}
		case <-a.k.done:
			a.set(waitBroken)
			return
		}
	}
}

// step takes one reply of ours and reports whether the signal still holds.
func (a *activity) step(e event) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case e.misframed != "" || e.failed:
	case a.state == waitSent && e.body == "":
		a.state, a.gen = waitArmed, quietGens.Add(1)
		select {
		case a.replied <- struct{}{}:
		default: // arm gave up waiting, and its value is still there
		}
		return true
	case a.state == waitArmed:
		a.state, a.gen = waitIdle, quietGens.Add(1)
		return true
	}
	a.state, a.gen = waitBroken, quietGens.Add(1)
	return false
}

func (a *activity) set(s waitState) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.state, a.gen = s, quietGens.Add(1)
}

// quiet reports whether the wait armed at gen is still armed and has not fired: nothing has
// printed since it was armed. A nil activity (no signal) knows nothing: false.
func (a *activity) quiet(gen uint64) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return gen != 0 && a.state == waitArmed && a.gen == gen
}

// armed makes sure a wait is armed and returns its generation, or 0 when none could be (no
// signal, a broken one, or an arm sent earlier not answered yet: the next listing then cannot
// be skipped, which costs a listing, never an output missed).
func (a *activity) armed(ctx context.Context) uint64 {
	if a == nil {
		return 0
	}
	a.mu.Lock()
	switch a.state {
	case waitArmed:
		defer a.mu.Unlock()
		return a.gen
	case waitSent, waitBroken:
		a.mu.Unlock()
		return 0
	}
	a.state = waitSent
	select {
	case <-a.replied: // from an arm that gave up waiting: none is due now but the one sent next
	default:
	}
	a.mu.Unlock()

	ctx, cancel := withTimeout(ctx, a.k.client.clock(), a.k.client.timeout())
	defer cancel()
	a.k.mu.Lock()
	_, err := a.k.send(ctx, "wait-for -E "+activityEvent)
	a.k.mu.Unlock()
	if err != nil {
		a.k.Close()
		return 0
	}
	select {
	case <-a.replied:
	case <-a.k.done:
		return 0
	case <-ctx.Done():
		return 0 // answered later, if at all: the next listing uses it
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != waitArmed {
		return 0 // it fired already
	}
	return a.gen
}

// broken reports whether the signal has ended.
func (a *activity) broken() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.state == waitBroken
}

// close ends the connection.
func (a *activity) close() { a.k.Close() }

// activityRedial is the least time between two dials of the activity connection for one
// main connection: a user who detaches it (choose-client) costs a listing a tick meanwhile.
const activityRedial = maxRedial

// activity returns the output signal that goes with the main connection k: made the first
// time k is seen, when the server's wait-for has -E (tmux 3.8), and made again at most every
// activityRedial after it ended while k lives. nil when there is none: every tick lists.
func (n *transport) activity(ctx context.Context, k *controlClient) *activity {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || n.k != k {
		return nil
	}
	now := n.Client.clock().Now()
	if a := n.act; a != nil && a.conn == k.id {
		if !a.broken() {
			return a
		}
		if d := now.Sub(n.actDial); d >= 0 && d < activityRedial {
			return nil
		}
	} else if n.actFor == k.id {
		return nil // the server has no wait-for -E
	}
	if n.act != nil {
		n.act.close()
		n.act = nil
	}
	first := n.actFor != k.id
	n.actFor, n.actDial = k.id, now
	if first {
		if ok, err := outputSignal(ctx, k.Run); !ok {
			if err == nil {
				err = n.pipeOutput(ctx, k)
			}
			if err != nil {
				n.log("signal", fmt.Errorf("%w: no output signal on this server: %w", ErrRefused, err))
			}
			return nil
		}
	}
	w, err := n.Client.dial(ctx)
	var name string
	if err == nil {
		if name, err = publish(ctx, k, w); err != nil {
			w.Close()
		}
	}
	if err != nil {
		n.log("signal", fmt.Errorf("the output signal's client: %w", err))
		return nil
	}
	n.act = newActivity(w, k.id, name)
	n.log("signal", nil)
	return n.act
}

// outputSignal asks the server, through run, whether its wait-for has -E (tmux 3.8): false
// with a nil error when tmux refuses the flag (before 3.8: "unknown flag -E"), an error when
// it could not be asked. Probe and transport both ask it so.
func outputSignal(ctx context.Context, run func(context.Context, ...string) (string, error)) (bool, error) {
	_, err := run(ctx, "wait-for", "-E", "-l", activityEvent)
	var te *Error
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &te) && te.ExitCode == 1:
		return false, nil
	}
	return false, err
}

// publish checks that the signal's client w changes nothing when the user detaches
// (keepsAlive: it may have attached to another session than k), and names it in signalOption
// over k, for Request to wake. It returns that name.
func publish(ctx context.Context, k, w *controlClient) (string, error) {
	if err := keepsAlive(ctx, w.Run); err != nil {
		return "", err
	}
	out, err := w.Run(ctx, "display-message", "-p", freeText("client_name"))
	if err != nil {
		return "", err
	}
	f, err := splitFields(out, 1, "display-message")
	if err != nil {
		return "", err
	}
	_, err = k.Run(ctx, "set-option", "-g", signalOption, arg(f[0]))
	return f[0], err
}

// withdraw unsets signalOption over k while it names the signal's client name or the output
// pipes' FIFO, when the signal ends for good: a Request after this process would wake nothing,
// or a client of another program that tmux named alike (client-PID, the pid used again). A
// name with characters a format would read is left: control clients are named client-PID.
func withdraw(ctx context.Context, k *controlClient, name string) error {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-/._", r)
	}) {
		return nil
	}
	_, err := k.Run(ctx, "if-shell", "-F", "#{==:#{"+signalOption+"},"+name+"}", "set-option -gu "+signalOption)
	return err
}
