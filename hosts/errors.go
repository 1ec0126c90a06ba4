package hosts

import (
	"errors"
	"strconv"
	"strings"

	"github.com/cac-tmux/cac-tmux/printable"
)

// The kinds of failure of a call to another host, for errors.Is: each says what the user can
// do about it (check the ssh connection, install cac-tmux or set the remote command, look at the
// remote error, update one side, wait or raise the timeout). Every *Error wraps exactly one,
// or context.Canceled when the caller gave up.
var (
	// ErrUnreachable: ssh could not run the command on the host (ssh exited 255: connection
	// refused, name not resolved, authentication or host key refused, connection timed out),
	// or ssh itself could not be started. The detail is ssh's last line of stderr.
	ErrUnreachable = errors.New("unreachable")
	// ErrNoCacTmux: the host's shell found no cac-tmux to run (exit 127, "command not found"):
	// it is not installed, or not on the PATH of a non-interactive shell (the remote command
	// can name it, ~/go/bin/cac-tmux).
	ErrNoCacTmux = errors.New("no cac-tmux")
	// ErrRemoteFailed: cac-tmux ran on the host and failed; the detail is its exit status and
	// the last line of its stderr.
	ErrRemoteFailed = errors.New("remote command failed")
	// ErrBadOutput: cac-tmux ran and succeeded, but what it printed is not the JSON this
	// package reads (a shell that prints a banner, a much older cac-tmux).
	ErrBadOutput = errors.New("bad output")
	// ErrTimeout: no answer within the timeout; the whole ssh was killed.
	ErrTimeout = errors.New("timed out")
	// ErrInvalid: the call was refused before ssh ran (a host name ssh would take for an
	// option, an action other than resume, skip or unskip, an empty target).
	ErrInvalid = errors.New("invalid")
)

// Error is a failed call to another host: what was asked (Op, on Host, of Target when it is a
// pane), its kind (one of the Err* values above, or context.Canceled) and what ssh or the
// remote cac-tmux said. Its text reads
// "hosts: list dev1: unreachable: ssh: connect to host dev1 port 22: Connection refused".
type Error struct {
	Op     string // list, resume, skip, unskip, or the remote subcommand Run ran
	Host   string // the host as given (an alias of ~/.ssh/config, user@host, …)
	Target string // the pane acted on, "" for a call about the whole host
	Kind   error  // ErrUnreachable, ErrNoCacTmux, …, or context.Canceled
	// Code is the exit status of ssh (the remote command's, or 255 for ssh's own failure); -1
	// when ssh did not exit by itself (not started, killed at the timeout).
	Code   int
	Detail string // what ssh or the remote command said, one printable line; may be ""
	Err    error  // the error underneath (exec's, the context's), when there is one
}

// Error says what was asked of which host, the kind of failure and what ssh or the remote
// command said, on one line.
func (e *Error) Error() string {
	where := quoteIfSpaced(e.Host)
	if e.Target != "" {
		where = quoteIfSpaced(e.Target) + " on " + where
	}
	return "hosts: " + e.Op + " " + where + ": " + e.Reason()
}

// Reason is the kind of failure and what ssh or the remote command said, for a line that
// names the host already ("unreachable: ssh: connect to host dev1 port 22: Connection
// refused").
func (e *Error) Reason() string {
	if e.Detail != "" {
		return e.Kind.Error() + ": " + e.Detail
	}
	return e.Kind.Error()
}

// Reason is why a call to a host failed, for a line that names the host: an *Error's
// Reason, else err's text.
func Reason(err error) string {
	if e := (*Error)(nil); errors.As(err, &e) {
		return e.Reason()
	}
	return err.Error()
}

// Unwrap gives errors.Is and errors.As both the kind and the error underneath.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// quoteIfSpaced quotes a target that would not read as one word in a message.
func quoteIfSpaced(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r == 0x7f }) {
		return strconv.Quote(s)
	}
	return s
}

// lastLine is the last line of a program's stderr that says something, made printable (a
// remote host's bytes end up in a terminal) and cut to a readable length: ssh's own
// complaint comes last, after any warnings.
func lastLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return detail(l)
		}
	}
	return ""
}

// maxDetail bounds the detail of an error, in runes.
const maxDetail = 300

// detail is s as one line for a terminal (printable.Line), cut to maxDetail runes.
func detail(s string) string {
	if r := []rune(s); len(r) > maxDetail {
		s = string(r[:maxDetail]) + "…"
	}
	return printable.Line(s)
}
