// Commands over a control connection: each command line is written as tmux's parser reads
// it (commandLine, quoteArg), sent, and its reply block awaited.

package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Run runs one tmux command line as Client.Run would: by tmux 3.3a's rule an argument ending in
// ";" (not "\;") ends a command, and every other byte arrives as it is (quoteArg). A failed
// command is an *Error (Stderr tmux's message, ExitCode 1, Err classify's sentinel) and stops
// the rest. ctx, within the Client's Timeout, bounds the wait; a late reply is skipped by the
// next Run, which closes the connection if it does not come then either. A closed connection
// gives an error wrapping ErrClosed (not run, when known before writing: transport uses exec).
// An argument with a NUL, or a command name with "=" (an environment assignment), is refused.
func (k *controlClient) Run(ctx context.Context, args ...string) (string, error) {
	blocks, err := k.run(ctx, args)
	if err != nil {
		return "", err
	}
	return strings.Join(blocks, ""), nil
}

// run is Run with the output of each block of the reply apart, in order: one block for each
// command the line ran (an error stops the line: no block for the commands after it).
func (k *controlClient) run(ctx context.Context, args []string) ([]string, error) {
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
		if !errors.Is(err, ErrClosed) && !errors.Is(err, errFraming) {
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
func (k *controlClient) drainPending(ctx context.Context) error {
	if k.pending == "" {
		return nil
	}
	// The reply of an abandoned Run first. If it does not come in this Run's time either,
	// tmux is stuck or the framing lost: give the connection up.
	if _, _, err := k.await(ctx, k.pending); err != nil && !errors.Is(err, errFraming) {
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
func (k *controlClient) send(ctx context.Context, line string) (string, error) {
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
// before it that succeeded, the first that failed, errFraming if the reply was misframed, an
// ErrClosed error if the connection ended first or ctx's error.
func (k *controlClient) await(ctx context.Context, token string) ([]string, *event, error) {
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
			return nil, nil, fmt.Errorf("%w at %q", errFraming, misframed)
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
