package tmuxctl

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Control mode (tmux -C), as tmux 3.3a speaks it:
//
//   - The client writes one command line per line on stdin; tmux parses it with its command
//     parser (the language of tmux.conf) and replies, for each command it runs, with a block:
//     "%begin TIME NUMBER FLAGS", the output lines, then "%end TIME NUMBER FLAGS" or
//     "%error TIME NUMBER FLAGS" with the same three fields. NUMBER is a server-wide counter
//     and FLAGS is 1 for a command read from the control client (0 for the attach-session
//     that started it). Notifications (%session-changed, %window-add, %exit, …) come between
//     blocks, never inside one.
//   - Output lines are raw: tmux escapes nothing, so a captured screen line, a title or an
//     option value can read "%end …" or "%error …". A block ends only at the line that repeats
//     its %begin's fields exactly, which a pane cannot know in advance except by guessing the
//     counter; see read for the forgeries that are detected anyway.
//   - A line with several commands ("a ; b") gives one block per command run, an error stops
//     the rest of the line (no block for them), and a command that runs others (if-shell,
//     source-file) gives a block for each of them too. So the number of blocks of a line is
//     not known in advance: Run ends each command line with a second line,
//     `display-message -p TOKEN`, TOKEN unique per Run and unguessable, and the reply is every
//     block before TOKEN's. A Run abandoned on its context leaves its TOKEN to be drained by
//     the next Run, so the connection never desyncs.
//   - Hooks run for the control client's commands (after-set-option, …) print blocks with
//     FLAGS 0, after the command's own block; the output of a hook run at attach
//     (client-attached) even comes outside any block. Run takes blocks with FLAGS 1 only and
//     ignores lines between blocks.
//   - An empty line detaches the client, and stdin closing ends it.

// Errors of the control connection, for errors.Is.
var (
	// ErrClosed: the control connection is over (tmux dropped it: server killed, the
	// attached session closed, the client detached; or Close). The reason follows in the text.
	ErrClosed = errors.New("tmux control connection closed")
	// ErrNoSession: the server has no session: dial found none to attach to, or a command
	// without a target found no current one (a server being killed ends its sessions before
	// it exits, and one kept with exit-empty off has none).
	ErrNoSession = errors.New("no tmux session to attach to")
	// errFraming: a reply was framed wrongly, most likely because output forged the end of
	// its block; its text cannot be trusted. The connection stays in step.
	errFraming = errors.New("tmux control reply misframed")
	// errNotSent marks an ErrClosed returned before the command was written: it did not run.
	errNotSent = errors.New("command not sent")
)

// controlFlags are the client flags of dial's attach-session (tmux 3.3a, attach-session -f):
// no-output stops %output notifications (the pane output we would only discard), ignore-size
// keeps the client out of window sizing. A control client that never ran refresh-client -C
// has no size anyway, so ignore-size is a second guard.
const controlFlags = "no-output,ignore-size"

// controlClient is a persistent control-mode client (`tmux -C`) of one tmux server: commands run
// over it cost the server's work only, not a tmux process each. Make one with Client.dial. It
// is attached to a session like any client (tmux lists it in list-clients, with
// #{client_control_mode} 1, and runs client-attached hooks), and commands without -t resolve
// against that session rather than the most recent one.
//
// Its methods are safe for concurrent use; commands run one at a time.
type controlClient struct {
	client Client
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File     // the read end of the client's stdout, read by read
	stderr bytes.Buffer // the tmux client's stderr, read after it exits

	id       uint64        // unique among the connections of this process
	changes  atomic.Uint64 // notifications of a change to the listing read so far (see changeNotice)
	listings atomic.Uint64 // listings sent (listing), for tests: a tick that lists nothing sends none

	events  chan event    // blocks and framing faults, from read
	closing chan struct{} // closed by Close: read stops delivering
	done    chan struct{} // closed when the client process is gone
	err     error         // why, set before done is closed

	mu      sync.Mutex // serializes Run
	nonce   string
	seq     uint64
	pending string // the TOKEN of an abandoned Run whose reply is still to come
	// unanswered: the reply of pending did not come within its Run's timeout (not a Run its
	// caller gave up on), for Close, which does not wait for a Run in flight.
	unanswered atomic.Bool

	closeOnce sync.Once
	closeErr  error
}

// event is one thing read from the connection: a block, or a framing fault.
type event struct {
	body      string // the block's lines, each with its "\n"
	failed    bool   // it ended with %error
	flags     string // the FLAGS field: "1" for a command of ours, "0" for attach and hooks
	misframed string // a line that shows a forged or lost block end; no block then
}

// dial starts a control-mode client of c's server (`tmux -u -N [-S|-L] -C attach-session -f
// no-output,ignore-size`, -N so that it never starts a server, which attach-session would
// otherwise do, reading the user's tmux.conf) and returns once tmux has answered the
// attach. With no session on the server it returns an *Error wrapping ErrNoSession, with no
// server one wrapping ErrNoServer. ctx, bounded by c.Timeout, limits the handshake only.
func (c *Client) dial(ctx context.Context) (*controlClient, error) {
	timeout := c.timeout()
	ctx, cancel := withTimeout(ctx, c.clock(), timeout)
	defer cancel()
	args := []string{"-N", "-C", "attach-session", "-f", controlFlags}
	argv := c.argv(args...)
	k, err := newControl(c)
	if err != nil {
		return nil, err
	}
	if err := k.start(argv, args); err != nil {
		return nil, err
	}
	return k.handshake(ctx, args, timeout)
}

// newControl is a controlClient of c's server with its nonce drawn, not started yet.
func newControl(c *Client) (*controlClient, error) {
	nonce := make([]byte, 12)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("tmuxctl: control nonce: %w", err)
	}
	return &controlClient{
		id:      dials.Add(1),
		client:  *c,
		events:  make(chan event, 64),
		closing: make(chan struct{}),
		done:    make(chan struct{}),
		nonce:   hex.EncodeToString(nonce),
	}, nil
}

// start runs the tmux client argv (args is argv after the tmux flags, for an *Error) with
// pipes for its stdin and stdout, and starts read on its stdout.
func (k *controlClient) start(argv, args []string) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	k.stdin, k.stdout = inW, outR
	k.cmd = exec.Command(argv[0], argv[1:]...)
	k.cmd.Stdin, k.cmd.Stdout, k.cmd.Stderr = inR, outW, &k.stderr
	k.cmd.WaitDelay = waitDelay
	// Close ends it, and so does this process's end (controlAttr).
	k.cmd.SysProcAttr = controlAttr()
	err = k.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return &Error{Args: args, ExitCode: -1, Err: err}
	}
	go k.read(outR)
	return nil
}

// handshake waits for tmux's answer to the attach, within ctx (timeout is its bound, for the
// error), and returns k, or closes it and returns why the attach failed.
func (k *controlClient) handshake(ctx context.Context, args []string, timeout time.Duration) (*controlClient, error) {
	// The first block is attach-session's: empty on success, tmux's reason on %error.
	select {
	case e := <-k.events:
		if e.misframed == "" && !e.failed {
			return k, nil
		}
		k.Close()
		text := e.body
		if e.misframed != "" {
			text = "unexpected control-mode output: " + e.misframed
		}
		de := &Error{Args: args, ExitCode: 1, Stderr: text, Err: classify(text)}
		if strings.Contains(text, "no sessions") {
			de.Err = ErrNoSession
		}
		return nil, de
	case <-k.done:
		k.Close()
		de := &Error{Args: args, ExitCode: k.cmd.ProcessState.ExitCode(), Stderr: k.stderr.String(), Err: k.err}
		if s := classify(de.Stderr); s != nil {
			de.Err = s
		}
		return nil, de
	case <-ctx.Done():
		k.Close()
		return nil, &Error{Args: args, ExitCode: -1, Stderr: k.stderrText(),
			Err: fmt.Errorf("no control-mode handshake after %s: %w", timeout, ctx.Err())}
	}
}

// stderrText is the client's stderr once it has exited, "" before.
func (k *controlClient) stderrText() string {
	select {
	case <-k.done:
		return k.stderr.String()
	default:
		return ""
	}
}

// read parses the client's stdout into events until it ends, then reaps the client and closes
// done; once Close has begun it delivers nothing but keeps reading, so tmux never blocks on it.
// A block ends at "%end F" or "%error F", F its %begin's fields byte for byte. Output forging
// that line ends a block early; the real end then arrives between blocks (or is swallowed by a
// forged %begin with the same fields): both are misframed. A forged %begin with other fields
// swallows later replies: Run times out and the next Run closes the connection. Lines between
// blocks are ignored but for changeNotice's (a client-attached hook's output may count).
func (k *controlClient) read(out *os.File) {
	r := bufio.NewReaderSize(out, 64<<10)
	var (
		inBlock              bool
		fields, end, errEnd  string
		flags                string
		lastFields           string
		lastEnd, lastErrEnd  string
		body                 strings.Builder
		exitReason, readFail string
	)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if line != "" {
				readFail = fmt.Sprintf("output ends in a partial line %q", line)
			}
			break
		}
		line = line[:len(line)-1]
		if inBlock {
			if line == end || line == errEnd {
				k.deliver(event{body: body.String(), failed: line == errEnd, flags: flags})
				body.Reset()
				inBlock = false
				lastFields, lastEnd, lastErrEnd = fields, end, errEnd
				continue
			}
			body.WriteString(line)
			body.WriteByte('\n')
			continue
		}
		switch {
		case strings.HasPrefix(line, "%begin "):
			fields = line[len("%begin "):]
			if fields == lastFields {
				k.deliver(event{misframed: line})
			}
			end, errEnd = "%end "+fields, "%error "+fields
			flags = fields[strings.LastIndexByte(fields, ' ')+1:]
			inBlock = true
		case line == "%exit" || strings.HasPrefix(line, "%exit "):
			exitReason = strings.TrimSpace(strings.TrimPrefix(line, "%exit"))
			if exitReason == "" {
				exitReason = "%exit"
			}
		case line == lastEnd || line == lastErrEnd:
			k.deliver(event{misframed: line})
		case changeNotice(line):
			k.changes.Add(1) // before any block read after it is delivered
		}
	}
	out.Close()
	k.reap(exitReason, readFail)
}

// deliver hands e to Run, or drops it once Close has begun.
func (k *controlClient) deliver(e event) {
	select {
	case k.events <- e:
	case <-k.closing:
	}
}

// reap waits for the client process, sets err to why the connection ended and closes done.
// The reason is tmux's %exit reason (exitReason), else how its output ended (readFail), else
// its exit status, with its stderr after; "closed" once Close has begun.
func (k *controlClient) reap(exitReason, readFail string) {
	werr := k.cmd.Wait()
	reason := exitReason
	switch {
	case reason != "":
	case readFail != "":
		reason = readFail
	case werr != nil:
		reason = "tmux client: " + werr.Error()
	default:
		reason = "tmux client exited"
	}
	if s := strings.TrimSpace(k.stderr.String()); s != "" {
		reason += ": " + s
	}
	select {
	case <-k.closing:
		reason = "closed"
	default:
	}
	k.err = fmt.Errorf("%w: %s", ErrClosed, reason)
	close(k.done)
}

// Done is closed when the connection is over; Err then says why.
func (k *controlClient) Done() <-chan struct{} { return k.done }

// Err is nil while the connection is up, then an error wrapping ErrClosed with the reason
// (tmux's %exit reason or the client's exit status and stderr).
func (k *controlClient) Err() error {
	select {
	case <-k.done:
		return k.err
	default:
		return nil
	}
}

// Close ends the connection: it closes the client's stdin, which detaches it, and waits for
// it to exit, killing it if it has not within a second (of the Client's Clock). A connection
// whose last reply did not come within its timeout is killed at once: a server that did not
// answer it would not read the detach either. It is safe to call more than once.
func (k *controlClient) Close() error {
	k.closeOnce.Do(func() {
		close(k.closing)
		k.stdin.Close()
		if k.unanswered.Load() {
			k.kill()
			<-k.done
			return
		}
		grace := k.client.clock().NewTimer(time.Second)
		defer grace.Stop()
		select {
		case <-k.done:
		case <-grace.C():
			k.kill()
			<-k.done
			k.closeErr = errors.New("tmuxctl: control client did not exit on stdin EOF: killed")
		}
	})
	return k.closeErr
}

// kill ends the client process and stops reading its output, so that read returns and done
// is closed. Killing the client alone is not enough: it handed its stdout to the server at
// attach, and a server that never reads (stopped, or a socket that accepts and never
// answers) holds that pipe open, so read would wait for its end for ever; a live server may
// write to it after the client is gone. Safe to call more than once.
func (k *controlClient) kill() {
	k.cmd.Process.Kill()
	k.stdout.Close()
}
