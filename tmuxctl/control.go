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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
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
	// ErrNoSession: the server has no session: Dial found none to attach to, or a command
	// without a target found no current one (a server being killed ends its sessions before
	// it exits, and one kept with exit-empty off has none).
	ErrNoSession = errors.New("no tmux session to attach to")
	// ErrFraming: a reply was framed wrongly, most likely because output forged the end of
	// its block; its text cannot be trusted. The connection stays in step.
	ErrFraming = errors.New("tmux control reply misframed")
	// errNotSent marks an ErrClosed returned before the command was written: it did not run.
	errNotSent = errors.New("command not sent")
)

// controlFlags are the client flags of Dial's attach-session (tmux 3.3a, attach-session -f):
// no-output stops %output notifications (the pane output we would only discard), ignore-size
// keeps the client out of window sizing. A control client that never ran refresh-client -C
// has no size anyway, so ignore-size is a second guard.
const controlFlags = "no-output,ignore-size"

// ControlClient is a persistent control-mode client (`tmux -C`) of one tmux server: commands run
// over it cost the server's work only, not a tmux process each. Make one with Client.Dial. It
// is attached to a session like any client (tmux lists it in list-clients, with
// #{client_control_mode} 1, and runs client-attached hooks), and commands without -t resolve
// against that session rather than the most recent one.
//
// Its methods are safe for concurrent use; commands run one at a time.
type ControlClient struct {
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

// Dial starts a control-mode client of c's server (`tmux -u -N [-S|-L] -C attach-session -f
// no-output,ignore-size`, -N so that it never starts a server, which attach-session would
// otherwise do, reading the user's tmux.conf) and returns once tmux has answered the
// attach. With no session on the server it returns an *Error wrapping ErrNoSession, with no
// server one wrapping ErrNoServer. ctx, bounded by c.Timeout, limits the handshake only.
func (c *Client) Dial(ctx context.Context) (*ControlClient, error) {
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

// newControl is a ControlClient of c's server with its nonce drawn, not started yet.
func newControl(c *Client) (*ControlClient, error) {
	nonce := make([]byte, 12)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("tmuxctl: control nonce: %w", err)
	}
	return &ControlClient{
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
func (k *ControlClient) start(argv, args []string) error {
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
func (k *ControlClient) handshake(ctx context.Context, args []string, timeout time.Duration) (*ControlClient, error) {
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
func (k *ControlClient) stderrText() string {
	select {
	case <-k.done:
		return k.stderr.String()
	default:
		return ""
	}
}

// read parses the client's stdout into events until it ends, then reaps the client and
// closes done. It delivers nothing once Close has begun but keeps reading, so that the client
// is never stuck writing.
//
// Framing: a block ends at "%end F" or "%error F" where F is its %begin's fields, byte for
// byte; any other line inside is output. Output that forges that exact line ends the block
// early; the real end line then follows between blocks, a second end of the block just
// closed, unless the forgery goes on with a %begin reusing the same fields to swallow it.
// Both are reported as misframed. (Lines between blocks are otherwise ignored but for the
// notifications changeNotice counts: tmux prints the output of a client-attached hook there
// too, which at worst counts as a change.) A forgery of a %begin with other fields would
// swallow the replies that follow: Run then times out, and the next Run closes the
// connection.
func (k *ControlClient) read(out *os.File) {
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
func (k *ControlClient) deliver(e event) {
	select {
	case k.events <- e:
	case <-k.closing:
	}
}

// reap waits for the client process, sets err to why the connection ended and closes done.
// The reason is tmux's %exit reason (exitReason), else how its output ended (readFail), else
// its exit status, with its stderr after; "closed" once Close has begun.
func (k *ControlClient) reap(exitReason, readFail string) {
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
func (k *ControlClient) Done() <-chan struct{} { return k.done }

// Err is nil while the connection is up, then an error wrapping ErrClosed with the reason
// (tmux's %exit reason or the client's exit status and stderr).
func (k *ControlClient) Err() error {
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
func (k *ControlClient) Close() error {
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
func (k *ControlClient) kill() {
	k.cmd.Process.Kill()
	k.stdout.Close()
}

// Run runs one tmux command line and returns its output, exactly as Client.Run would: the
// same argv, with tmux 3.3a's rule for it (an argument ending in ";" ends a command, the ";"
// dropped, unless it ends in "\;", which is a literal ";"; so a ";" argument separates
// commands) and every argument otherwise arriving byte for byte (see quoteArg). A command
// that fails gives an *Error with tmux's message as Stderr, ExitCode 1 and Err the sentinel
// error classify finds (ErrNoTarget, …); like exec, an error stops the rest of the line.
//
// ctx, bounded by the Client's Timeout, limits the wait; when it ends first the next Run
// skips the late reply, and the connection stays usable unless that reply does not come in
// the next Run's time either (then the connection is closed). When the connection is over
// the error wraps ErrClosed; the command was not run if that was known before it was
// written (Transport then runs it by exec).
// An argument with a NUL byte, or a command name with "=" (tmux would read an environment
// assignment), is refused.
func (k *ControlClient) Run(ctx context.Context, args ...string) (string, error) {
	blocks, err := k.run(ctx, args)
	if err != nil {
		return "", err
	}
	return strings.Join(blocks, ""), nil
}

// run is Run with the output of each block of the reply apart, in order: one block for each
// command the line ran (an error stops the line: no block for the commands after it).
func (k *ControlClient) run(ctx context.Context, args []string) ([]string, error) {
	line, err := commandLine(args)
	if err != nil {
		return nil, &Error{Args: args, ExitCode: -1, Err: err}
	}
	timeout := k.client.timeout()
	ctx, cancel := withTimeout(ctx, k.client.clock(), timeout)
	defer cancel()

	k.mu.Lock()
	defer k.mu.Unlock()
	fail := func(err error) ([]string, error) { return nil, &Error{Args: args, ExitCode: -1, Err: err} }
	if err := k.Err(); err != nil {
		return fail(fmt.Errorf("%w (%w)", err, errNotSent))
	}
	if err := k.drainPending(ctx); err != nil {
		return fail(err)
	}
	token, err := k.send(ctx, line)
	if err != nil {
		return fail(err)
	}

	blocks, failed, err := k.await(ctx, token)
	if err != nil {
		if !errors.Is(err, ErrClosed) && !errors.Is(err, ErrFraming) {
			k.pending = token
			if errors.Is(err, context.DeadlineExceeded) {
				k.unanswered.Store(true)
				err = fmt.Errorf("no reply within %s: %w", timeout, err)
			} else {
				err = fmt.Errorf("reply abandoned: %w", err)
			}
		}
		return fail(err)
	}
	if failed != nil {
		return blocks, &Error{Args: args, ExitCode: 1, Stderr: failed.body, Err: classify(failed.body)}
	}
	return blocks, nil
}

// drainPending reads the reply of an abandoned Run, if one is still to come, before a new
// command is written. Its error wraps errNotSent. Called with k.mu held.
func (k *ControlClient) drainPending(ctx context.Context) error {
	if k.pending == "" {
		return nil
	}
	// The reply of an abandoned Run first. If it does not come in this Run's time either,
	// tmux is stuck or the framing lost: give the connection up.
	if _, _, err := k.await(ctx, k.pending); err != nil && !errors.Is(err, ErrFraming) {
		if !errors.Is(err, ErrClosed) {
			k.kill()
			err = fmt.Errorf("%w: no reply to an abandoned command: %v", ErrClosed, err)
		}
		return fmt.Errorf("%w (%w)", err, errNotSent)
	}
	k.pending = ""
	k.unanswered.Store(false)
	return nil
}

// send writes the command line, then the sync line `display-message -p TOKEN` whose reply
// marks the end of the line's, and returns TOKEN. It returns ctx's error if ctx is over
// before the write; a failed write's error wraps errNotSent unless part of the line went out
// (then it has killed the client). Called with k.mu held.
func (k *ControlClient) send(ctx context.Context, line string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	k.seq++
	token := "cac-sync-" + k.nonce + "-" + strconv.FormatUint(k.seq, 10)
	// tmux reads stdin all the time, so the write blocks only when tmux is stuck; then ctx
	// ends it through a write deadline in the past (an instant of no clock: it has passed on
	// any), removed again before the next Run.
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		k.stdin.SetWriteDeadline(time.Unix(1, 0))
		close(fired)
	})
	n, err := k.stdin.Write([]byte(line + "\ndisplay-message -p " + token + "\n"))
	if !stop() {
		<-fired
		k.stdin.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		if n > 0 {
			// Half a line sent: tmux would read the next command as its rest, and on EOF
			// might run the half. Kill the client, so that nothing more is read.
			k.kill()
			return "", fmt.Errorf("%w: writing a command: %v", ErrClosed, err)
		}
		if k.Err() != nil || errors.Is(err, os.ErrClosed) || errors.Is(err, syscall.EPIPE) {
			return "", fmt.Errorf("%w: writing a command: %v (%w)", ErrClosed, err, errNotSent)
		}
		return "", fmt.Errorf("writing a command: %w (%w)", err, errNotSent)
	}
	return token, nil
}

// await reads blocks up to the one printing token and returns the output of each of those
// before it that succeeded, the first that failed, ErrFraming if the reply was misframed, an
// ErrClosed error if the connection ended first or ctx's error.
func (k *ControlClient) await(ctx context.Context, token string) ([]string, *event, error) {
	var (
		out       []string
		failed    *event
		misframed string
	)
	sentinel := token + "\n"
	take := func(e event) bool {
		switch {
		case e.misframed != "":
			if misframed == "" {
				misframed = e.misframed
			}
		case e.flags != "1":
			// attach-session's or a hook's
		case !e.failed && e.body == sentinel:
			return true
		case e.failed:
			if failed == nil {
				failed = &e
			}
		default:
			out = append(out, e.body)
		}
		return false
	}
	finish := func() ([]string, *event, error) {
		if misframed != "" {
			return nil, nil, fmt.Errorf("%w at %q", ErrFraming, misframed)
		}
		return out, failed, nil
	}
	for {
		select {
		case e := <-k.events:
			if take(e) {
				return finish()
			}
		case <-k.done:
			for {
				select {
				case e := <-k.events:
					if take(e) {
						return finish()
					}
				default:
					return nil, nil, k.err
				}
			}
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// commandLine turns an argv into one control-mode command line: argv split into commands
// the way tmux 3.3a splits a command line's arguments (cmd_parse_from_arguments), each
// argument quoted by quoteArg, commands joined by " ; ".
func commandLine(args []string) (string, error) {
	var b strings.Builder
	words := 0 // of the current command
	for _, a := range args {
		if strings.IndexByte(a, 0) >= 0 {
			return "", fmt.Errorf("tmuxctl: argument %q holds a NUL byte", a)
		}
		sep := false
		if strings.HasSuffix(a, ";") {
			a = a[:len(a)-1]
			if strings.HasSuffix(a, `\`) {
				a = a[:len(a)-1] + ";"
			} else {
				sep = true
			}
		}
		if !sep || a != "" {
			if words == 0 {
				if strings.Contains(a, "=") {
					return "", fmt.Errorf("tmuxctl: %q is not a command name", a)
				}
				if b.Len() > 0 {
					b.WriteString(" ; ")
				}
			} else {
				b.WriteByte(' ')
			}
			quoteArg(&b, a)
			words++
		}
		if sep {
			words = 0
		}
	}
	if b.Len() == 0 {
		return "", errors.New("tmuxctl: no command")
	}
	return b.String(), nil
}

// quoteArg writes s as one token of tmux 3.3a's command parser (cmd-parse.y) that reads back
// as s byte for byte. The rules it relies on, checked on 3.3a for every byte value:
//
//   - Inside single quotes every byte is literal (no \ escapes, no $VAR or ~ expansion; # { }
//     ; and blanks are plain characters) except ', which ends the quote, newline, which ends
//     the control-mode line itself (tmux reads stdin line by line), and 0xff, which the lexer
//     reads as EOF (it keeps the line in signed chars) and so ends the token.
//   - Inside double quotes \n, \r and the octal \377 are escapes, and ' is literal.
//   - Quoted pieces next to each other make one token ('a'"'"'b' is a'b), and two single quotes
//     with nothing between are the empty argument.
//   - The whole token is quoted so its first byte is a quote: unquoted, a leading % would be
//     read as %if/%hidden and a leading # as a comment.
//   - Quotes do not stop a NAME=VALUE word where a command is expected from being an
//     environment assignment ('A=b' list-panes sets A globally), so commandLine refuses a
//     command name with "=".
//
// So s goes in single quotes, with ', newline, carriage return and 0xff written as '"'"',
// '"\n"', '"\r"' and '"\377"'.
func quoteArg(b *strings.Builder, s string) {
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString(`'"'"'`)
		case '\n':
			b.WriteString(`'"\n"'`)
		case '\r':
			b.WriteString(`'"\r"'`)
		case 0xff:
			b.WriteString(`'"\377"'`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
}

// Transport runs tmux commands over a control connection while one is up and by exec otherwise:
// it dials on first use, dials again when tmux drops the connection (at most once per
// Redial; while dials fail the wait doubles, up to 10 s), and runs a command by exec
// (Client.Run) whenever no connection is up. A command cut off by a drop after it was sent is
// not run again (it may have run): its error wraps ErrClosed, and the next Run redials or
// uses exec.
//
// The connection is an attached client of one session, and tmux 3.3a counts it as such. On a
// server whose global exit-unattached is on, or when that session's destroy-unattached is
// on, it would keep the server or the session alive after the user's last detach: there
// Transport closes it at once and uses exec from then on.
type Transport struct {
	Client *Client
	// Redial is the least time between two dials, DefaultRedial when zero. It runs on
	// Client.Clock.
	Redial time.Duration
	// Log, when not nil, is told when a connection comes up ("up", nil), when tmux drops it
	// ("down", why), when a dial fails ("dial", why), when Transport gives control mode up on
	// this server ("refused", why) and when the output signal of tmux 3.8 is made or cannot be
	// ("signal", nil or why; activity.go). Calls come from Run and ListChanges, one at a time.
	Log func(event string, err error)

	mu       sync.Mutex
	k        *ControlClient
	lastDial time.Time
	failures int   // dials failed in a row
	refused  error // why control mode is not used on this server
	closed   bool

	// The output signal (activity.go) of connection k: act, made at actDial for the
	// connection numbered actFor (the one connection it was tried for, made or not).
	act     *activity
	actFor  uint64
	actDial time.Time
}

// DefaultRedial is Transport's least time between two dials.
const DefaultRedial = time.Second

// maxRedial bounds the wait between failed dials: a server started again is back on control
// mode within it.
const maxRedial = 10 * time.Second

// ErrRefused: Transport does not use control mode on this server (see Transport).
var ErrRefused = errors.New("control mode not used")

// Run runs a command like Client.Run, over the control connection when one is up.
func (n *Transport) Run(ctx context.Context, args ...string) (string, error) {
	if k := n.control(ctx); k != nil {
		out, err := k.Run(ctx, args...)
		if !errors.Is(err, errNotSent) {
			return out, err
		}
	}
	return n.Client.exec(ctx, args...)
}

// control returns the live control connection, dialling if none is up and the wait since
// the last dial is over; nil when there is none (Run then uses exec).
func (n *Transport) control(ctx context.Context) *ControlClient {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed || n.refused != nil {
		return nil
	}
	if n.k != nil {
		err := n.k.Err()
		if err == nil {
			return n.k
		}
		n.k.Close()
		n.k = nil
		if n.act != nil {
			n.act.close() // it goes with the connection that is gone
			n.act = nil
		}
		n.log("down", err)
	}
	now := n.Client.clock().Now()
	// A clock set back (a manual one; the real clock's readings are monotonic) must not hold
	// dials off for the length of the jump.
	if !n.lastDial.IsZero() && !now.Before(n.lastDial) && now.Sub(n.lastDial) < n.wait() {
		return nil
	}
	n.lastDial = now
	k, err := n.Client.Dial(ctx)
	if err != nil {
		n.failures++
		n.log("dial", err)
		return nil
	}
	n.failures = 0
	if err := keepsAlive(ctx, k.Run); err != nil {
		k.Close()
		n.refused = err
		n.log("refused", err)
		return nil
	}
	n.k = k
	n.log("up", nil)
	return k
}

// wait is the least time from the last dial to the next: Redial after a dial that
// succeeded and after the first that failed, then doubling with each failure up to
// maxRedial (Redial 1 s: 1, 2, 4, 8, 10, 10 s between failed dials).
func (n *Transport) wait() time.Duration {
	wait := n.Redial
	if wait <= 0 {
		wait = DefaultRedial
	}
	return clock.Backoff(wait, maxRedial, n.failures)
}

// keepsAlive says why an attached control client would change what the server does when the
// user detaches (a nil error: it would not).
func keepsAlive(ctx context.Context, run func(context.Context, ...string) (string, error)) error {
	out, err := run(ctx, "display-message", "-p", strings.Join([]string{"#{exit-unattached}", "#{destroy-unattached}", freeText("session_name")}, sep))
	if err != nil {
		return fmt.Errorf("%w: cannot read exit-unattached and destroy-unattached: %w", ErrRefused, err)
	}
	f, err := splitFields(out, 3, "display-message")
	switch {
	case err != nil:
		return fmt.Errorf("%w: reading exit-unattached and destroy-unattached: %w", ErrRefused, err)
	case !off(f[0]):
		return fmt.Errorf("%w: exit-unattached is on (%s): an attached control client would keep the server running after the last detach", ErrRefused, f[0])
	case !off(f[1]):
		return fmt.Errorf("%w: destroy-unattached is on (%s) for session %s: an attached control client would keep it after the last detach", ErrRefused, f[1], f[2])
	}
	return nil
}

// off reports whether an option's value in a format is off: "0" for a flag, and for
// destroy-unattached, a choice since tmux 3.4 (off, on, keep-last, keep-group), "off". Any other
// value keeps the watcher off control mode.
func off(v string) bool { return v == "0" || v == "off" }

func (n *Transport) log(event string, err error) {
	if n.Log != nil {
		n.Log(event, err)
	}
}

// Connected reports whether a control connection is up now.
func (n *Transport) Connected() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.k != nil && n.k.Err() == nil
}

// Close closes the control connection; later Runs use exec.
func (n *Transport) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	var name string
	if n.act != nil { // closed beside the withdraw: each may wait on a server that never answers
		name = n.act.name
		act := n.act
		n.act = nil
		closed := make(chan struct{})
		go func() {
			defer close(closed)
			act.close()
		}()
		defer func() { <-closed }()
	}
	if n.k == nil {
		return nil
	}
	// Best effort: a name left names a client that is gone. Not tried when the server did not
	// answer the connection's last command within its timeout: it would only wait out its own.
	if !n.k.unanswered.Load() {
		ctx, cancel := withTimeout(context.Background(), n.Client.clock(), n.Client.timeout())
		_ = withdraw(ctx, n.k, name)
		cancel()
	}
	err := n.k.Close()
	n.k = nil
	return err
}
