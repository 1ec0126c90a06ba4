package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
)

// What changes without a pane's output, and what tmux 3.3a tells a control client of it.
//
// A full listing costs the server a row per pane (docs/costs.md), mostly reading each pane's
// foreground program for #{pane_current_command}. Between listings only a pane's output changes
// its screen, program, title or process, and output stamps its window's #{window_activity}. The
// rest of a row changes by commands, and tmux 3.3a tells every control client of most of them,
// even with no-output: %sessions-changed, %session-renamed, %window-add, %window-close (and
// their %unlinked- forms), %window-pane-changed, %pane-mode-changed; %layout-change (a pane
// made, closed or moved) and %session-changed only for the client's own session.
//
// Not told at all: a pane closed or moved in a window of another session while not its active
// pane, windows renumbered, panes swapped inside a window, select-pane -d/-e, synchronize-panes,
// user options set by hand, a program exiting without output (remain-on-exit). So ListChanges
// must still list every pane now and then.

// changeNotices are the notifications (tmux 3.3a, control mode) that tell of a change to
// what a listing shows other than a pane's output; each is followed by a blank or ends the
// line. Left out as harmless to a listing: %window-renamed and %unlinked-window-renamed
// (window names are not listed), %session-window-changed and %client-session-changed (which
// window or session a client shows), %client-detached, %paste-buffer-changed and -deleted,
// %subscription-changed, %message, %config-error and the output notifications.
var changeNotices = []string{
	"%sessions-changed", "%session-renamed", "%session-changed",
	"%window-add", "%window-close", "%unlinked-window-add", "%unlinked-window-close",
	"%layout-change", "%window-pane-changed", "%pane-mode-changed",
}

// changeNotice reports whether a line read between reply blocks is one of changeNotices.
func changeNotice(line string) bool {
	if !strings.HasPrefix(line, "%") {
		return false
	}
	name, _, _ := strings.Cut(line, " ")
	for _, n := range changeNotices {
		if name == n {
			return true
		}
	}
	return false
}

// dials numbers the control connections of this process (controlClient.id), so that a Mark of one
// is never taken for a Mark of the next.
var dials atomic.Uint64

// Mark stands for what one listing saw of a server: ListChanges returns one with its listing
// and takes the last one back to tell whether anything but the panes' output can have changed
// since. The zero Mark stands for nothing seen: the next listing lists every pane. Its fields
// mean something only to the Client that made it (a fake server in a test makes its own).
type Mark struct {
	Conn     uint64 // the control connection the listing went over (numbered from 1)
	Changes  uint64 // the change notifications it had read before the listing
	requests string // requestsOption when it listed
	quiet    uint64 // the output signal's wait armed before the listing (activity.go); 0: none
	from     int64  // the Unix second the listing began, on the Wall clock, as tmux stamps activity
	// Skipped: the call that returned this Mark listed nothing, the output signal saying that
	// no pane had printed since the listing it goes with.
	Skipped bool
}

// seen reports whether m went with k's listings and tmux has notified k of no change since.
func (m Mark) seen(k *controlClient) bool {
	return m.Conn == k.id && m.Changes == k.changes.Load()
}

// Request hands a request to the running watcher: it sets the pane's RequestOption to value,
// and requestsOption to value too, in one tmux call. value should be unique (a nonce). Where
// the watcher reads nothing until a pane prints, it then wakes it as output would: the wait
// of tmux 3.8 (wait-for -E -w, the client named in signalOption; activity.go), or a byte into
// the FIFO of the output pipes (tmux 3.2a to 3.7, named there; pipes.go). The watcher lists,
// and reads the request, at its next tick. A wake that finds no wait is no error: a wait not
// in place is sent again, before a listing that reads the request.
func (c *Client) Request(ctx context.Context, pane, value string) error {
	out, err := c.Run(ctx, "set-option", "-p", "-t", pane, RequestOption, arg(value), ";", "set-option", "-g", requestsOption, arg(value),
		";", "display-message", "-p", freeText(signalOption))
	if err != nil {
		return err
	}
	f, err := splitFields(out, 1, "display-message")
	switch {
	case err != nil || f[0] == "":
		// no signal to wake (none published)
	case strings.HasPrefix(f[0], "/"): // the output pipes' FIFO (tmux 3.2a to 3.7, pipes.go)
		_ = wakePipes(f[0])
	default: // the output signal's client (tmux 3.8, activity.go)
		_, _ = c.Run(ctx, "wait-for", "-E", "-w", f[0], activityEvent)
	}
	return nil
}

// changedFilter is the filter (list-panes -f) of a listing of what changed: the panes whose
// window showed activity at or after since (window_activity, 1 s resolution). The comparison
// is tmux's string one (#{>=:…}), a third cheaper than the arithmetic one and the same on two
// 10-digit Unix times, which both are until the year 2286.
func changedFilter(since time.Time) string {
	return "#{>=:#{window_activity}," + strconv.FormatInt(since.Unix(), 10) + "}"
}

// listing runs a listing over k, followed in the same command line by a read of
// requestsOption, and returns its output and the option's value.
func (k *controlClient) listing(ctx context.Context, args ...string) (out, requests string, err error) {
	k.listings.Add(1)
	blocks, err := k.run(ctx, append(args, ";", "display-message", "-p", freeText(requestsOption)))
	if err != nil {
		return "", "", err
	}
	if len(blocks) != 2 {
		return "", "", &Error{Args: args, ExitCode: -1, Err: fmt.Errorf("%d replies to a listing and an option, want 2", len(blocks))}
	}
	f, err := splitFields(blocks[1], 1, "display-message")
	if err != nil {
		return "", "", err
	}
	return blocks[0], f[0], nil
}

// ListChanges lists panes as ListPanes does, or only what changed since the listing that
// returned since: when that listing went over the connection up now and no change notice
// (changeNotices) and no Request came since, it lists only the windows active at or after
// s.Since (full false). With an output signal and no output since, it sends nothing and
// returns since again, Skipped: tmux 3.8's wait (activity.go), or the output pipes (pipes.go)
// when s.Piped says they cover every pane that matters. Otherwise (the zero Mark, exec, another connection, a
// notice, a request) it lists every pane (full true). A change notified late makes the next
// call full; a request set by hand waits for a full listing. The Mark is zero by exec.
func (c *Client) ListChanges(ctx context.Context, s Search, since Mark) (panes []Pane, full bool, mark Mark, err error) {
	var k *controlClient
	var a signal
	if c.conn != nil {
		if k = c.conn.control(ctx); k != nil {
			a = c.conn.signal(ctx, k)
		}
	}
	if k != nil && since != (Mark{}) && !s.Since.IsZero() && since.seen(k) {
		panes, mark, err := listChanged(ctx, k, a, s, since, clock.Or(c.Wall))
		if mark != (Mark{}) || (err != nil && !errors.Is(err, errNotSent)) {
			return panes, false, mark, err
		}
		// A change was notified or a request made while it ran, or the connection was
		// found closed: all of it.
	}
	if k != nil && k.Err() == nil {
		// Armed, and the changes read, before the listing: output after it fires the wait, a
		// change notified meanwhile lists all again next time.
		quiet := armed(ctx, a)
		mark := Mark{Conn: k.id, Changes: k.changes.Load(), quiet: quiet, from: clock.Or(c.Wall).Now().Unix()}
		out, requests, err := k.listing(ctx, "list-panes", "-a", "-F", paneFormat(s))
		if err == nil {
			mark.requests = requests
			panes, err = parsePanes(out)
			return panes, true, mark, err
		}
		if !errors.Is(err, errNotSent) {
			return nil, false, Mark{}, err
		}
	}
	panes, err = c.ListPanes(ctx, s) // by exec: no control connection is up
	return panes, true, Mark{}, err
}

// listChanged is ListChanges after a listing that saw what k sees: nothing when no pane has
// printed since (a, the output signal, may be nil), else the panes of windows with activity
// since, both with the Mark to pass next. The zero Mark says to list every pane: a change was
// notified or a request handed over meanwhile, or (an error wrapping errNotSent) the
// connection was found closed. wall tells the second the listing begins, as tmux stamps
// activity.
func listChanged(ctx context.Context, k *controlClient, a signal, s Search, since Mark, wall clock.Clock) ([]Pane, Mark, error) {
	if a != nil && a.covers(s) && a.quiet(since.quiet) {
		// Nothing printed and no request handed over (Request wakes the wait): nothing to ask.
		since.Skipped = true
		return nil, since, nil
	}
	mark := since
	mark.quiet, mark.from, mark.Skipped = armed(ctx, a), wall.Now().Unix(), false
	if since.Skipped && since.from < s.Since.Unix() {
		// Calls were skipped since the last listing: the output that fired the signal may be
		// older than the skipped call the caller searches from.
		s.Since = time.Unix(since.from, 0)
	}
	out, requests, err := k.listing(ctx, "list-panes", "-a", "-f", changedFilter(s.Since), "-F", paneFormat(s))
	if err != nil {
		return nil, Mark{}, err
	}
	if !since.seen(k) || requests != since.requests {
		return nil, Mark{}, nil
	}
	panes, err := parsePanes(out)
	return panes, mark, err
}

// Screen is one pane's screen from Captures: the text Capture returns, or why there is none
// (an error wrapping ErrNoTarget when the pane is gone).
type Screen struct {
	Pane string
	Text string
	Err  error
}

// captureBatch is how many captures go in one control-mode command line: few lines for a first
// look at every pane, since each line costs the server a pass over every pane, and lines short
// enough that the user's own clients are not kept waiting between two.
const captureBatch = 64

// Captures captures several panes as Capture does, one Screen per pane in order. Over a
// control connection the captures go several to a command line (captureBatch), so that a
// watcher starting on a server of many panes does not wait a round trip for each; by exec,
// one tmux process each. A pane that is gone, or whose capture fails otherwise, gets its own
// error (tmux ends a command line at a failed command: the rest go in the next line); the
// error returned is one that ends them all (no server, ctx done), with the Screens so far.
func (c *Client) Captures(ctx context.Context, panes []Shot) ([]Screen, error) {
	out := make([]Screen, 0, len(panes))
	one := func(s Shot) error {
		text, err := c.CaptureShot(ctx, s)
		if errors.Is(err, ErrNoServer) || ctx.Err() != nil {
			return err
		}
		out = append(out, Screen{Pane: s.Pane, Text: text, Err: err})
		return nil
	}
	for len(out) < len(panes) {
		rest := panes[len(out):]
		var k *controlClient
		if c.conn != nil && len(rest) > 1 {
			k = c.conn.control(ctx)
		}
		if k == nil {
			if err := one(rest[0]); err != nil {
				return out, err
			}
			continue
		}
		batch := rest[:min(len(rest), captureBatch)]
		var args []string
		for i, s := range batch {
			if i > 0 {
				args = append(args, ";")
			}
			args = append(args, s.args()...)
		}
		blocks, err := k.run(ctx, args)
		for i, b := range blocks[:min(len(blocks), len(batch))] {
			out = append(out, Screen{Pane: batch[i].Pane, Text: expandTabs(b)})
		}
		var te *Error
		switch {
		case err == nil && len(blocks) == len(batch):
		case errors.As(err, &te) && te.ExitCode == 1 && len(blocks) < len(batch):
			// The capture after the last block failed, and tmux ran none after it.
			failed := *te
			failed.Args = batch[len(blocks)].args()
			if errors.Is(err, ErrNoServer) {
				return out, &failed
			}
			out = append(out, Screen{Pane: batch[len(blocks)].Pane, Err: &failed})
		case errors.Is(err, errNotSent), errors.Is(err, errFraming):
			// Not run, or a screen forged the end of its block: one at a time, which
			// confines a forgery to its own pane.
			for _, p := range batch {
				if err := one(p); err != nil {
					return out, err
				}
			}
		case err != nil:
			return out, err
		default:
			return out, &Error{Args: args, ExitCode: -1, Err: errors.New("fewer replies than captures")}
		}
	}
	return out, nil
}
