// Package hosts reaches cac-tmux on other hosts through the user's own ssh only:
// `ssh HOST -- env CAC_TMUX_OVER_SSH=1 cac-tmux …` (OverSSH: the remote command ends with the
// call's ssh), every remote word quoted and what comes back made printable. Connection, host
// keys, authentication, jump hosts and ControlMaster are ssh's and ~/.ssh/config's: no agent,
// port or protocol of its own. Each call has a timeout that kills the whole ssh, and a typed
// error says why a host did not answer (unreachable, no cac-tmux, failed, bad output, timed
// out). It is the only code that runs ssh (Run), and it runs nothing else.
package hosts

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Default bounds of a call.
const (
	// DefaultTimeout bounds a List (and a Run) per host: a listing answers in a second on a
	// host that is up, so a host that has not answered in 10 s is reported rather than
	// waited for.
	DefaultTimeout = 10 * time.Second
	// DefaultActTimeout bounds an Act: a remote resume handed to a running watcher waits up
	// to 75 s for the watcher to take it, then up to 1 min for the outcome (resume.go), and
	// that answer must not be cut.
	DefaultActTimeout = 3 * time.Minute
)

// Options say how to reach the other hosts. The zero value runs "ssh" and "cac-tmux" as found
// on the PATHs, with the default timeouts.
type Options struct {
	// SSH is the ssh program, "ssh" (found on PATH) when empty.
	SSH string
	// SSHArgs come first on ssh's command line (-F FILE, -o …); ssh takes the first value of
	// each option, so these win over the options the package adds.
	SSHArgs []string
	// Command is cac-tmux on the remote hosts, one program path, "cac-tmux" (the remote
	// shell's PATH) when empty. A non-interactive shell's PATH often lacks ~/go/bin: give
	// "~/go/bin/cac-tmux" (a leading ~/ is the remote user's home).
	Command string
	// Timeout bounds each List and Run per host, DefaultTimeout when zero; ssh's
	// ConnectTimeout is a second less.
	Timeout time.Duration
	// ActTimeout bounds each Act, DefaultActTimeout when zero.
	ActTimeout time.Duration
}

func (o Options) ssh() string {
	if o.SSH == "" {
		return "ssh"
	}
	return o.SSH
}

func (o Options) command() string {
	if o.Command == "" {
		return "cac-tmux"
	}
	return o.Command
}

func (o Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o Options) actTimeout() time.Duration {
	if o.ActTimeout <= 0 {
		return DefaultActTimeout
	}
	return o.ActTimeout
}

// Result is what one host answered to List: its panes, or why there are none from it. Err is
// an *Error (errors.Is with ErrUnreachable, ErrNoCacTmux, …) and Panes is nil when it is set.
type Result struct {
	Host  string // the host as given
	Panes []Pane // its panes as its cac-tmux listed them, in its order; nil when Err is set
	Err   error  // why the host gave no listing, nil when it did
}

// listArgs is the remote listing: every Claude pane, paused or not, so that the caller
// filters as it would at home.
var listArgs = []string{"list", "--json", "--all"}

// List asks host for its Claude Code panes: `cac-tmux list --json --all` over ssh, bounded by
// o.Timeout.
func List(ctx context.Context, host string, o Options) Result {
	r, err := run(ctx, host, "", o, o.timeout(), listArgs)
	if err != nil {
		return Result{Host: host, Err: err}
	}
	if r.Code != 0 {
		detail := fmt.Sprintf("exit %d", r.Code)
		if l := lastLine(r.Stderr); l != "" {
			detail += ": " + l
		}
		return Result{Host: host, Err: &Error{Op: "list", Host: host, Kind: ErrRemoteFailed, Code: r.Code, Detail: detail}}
	}
	if r.cut {
		return Result{Host: host, Err: &Error{Op: "list", Host: host, Kind: ErrBadOutput, Detail: fmt.Sprintf("more than %d MiB", maxStdout>>20)}}
	}
	panes, err := Decode(host, []byte(r.Stdout))
	if err != nil {
		return Result{Host: host, Err: err}
	}
	return Result{Host: host, Panes: panes}
}

// ListAll lists every host at once and returns their results in the order of hosts: a slow or
// dead host delays the answer by its own timeout at most, and never hides the others' panes.
func ListAll(ctx context.Context, hosts []string, o Options) []Result {
	results := make([]Result, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		wg.Go(func() { results[i] = List(ctx, h, o) })
	}
	wg.Wait()
	return results
}

// Act runs `cac-tmux resume|skip|unskip TARGET` on host and returns the remote exit code, for
// the caller to pass on as its own (0 done, 1 refused, 2 a bad target, 3 held after the keys, 4
// not resumed: see `cac-tmux resume --help`), and what the remote command printed (stdout and
// stderr as they came). err is set only when the remote cac-tmux did not run to its end
// (unreachable, no cac-tmux, timed out: ssh's own exit 255 is never taken for a remote code),
// and before ssh runs for an action other than resume, skip or unskip. It is bounded by
// o.ActTimeout.
func Act(ctx context.Context, host, action, target string, o Options) (code int, out string, err error) {
	switch {
	case action != "resume" && action != "skip" && action != "unskip":
		return -1, "", &Error{Op: "act", Host: host, Target: target, Kind: ErrInvalid, Code: -1,
			Detail: fmt.Sprintf("%q is not an action (resume, skip or unskip)", action)}
	case target == "":
		return -1, "", &Error{Op: action, Host: host, Kind: ErrInvalid, Code: -1, Detail: "no pane given"}
	}
	// "--": the target is never read as a flag of the remote cac-tmux (-S… would select another
	// server there).
	r, err := run(ctx, host, target, o, o.actTimeout(), []string{action, "--", target})
	if err != nil {
		return -1, r.Output, err
	}
	return r.Code, r.Output, nil
}

// Reply is what a remote command printed, each control character but newline and tab as "?"
// (no escape sequence of the remote reaches a terminal), and how it exited.
type Reply struct {
	Stdout string
	Stderr string // its last 64 KiB
	Output string // stdout and stderr as they came (its last 64 KiB)
	Code   int    // the remote command's exit status
	cut    bool   // stdout went over maxStdout and was cut there
}

// Run runs the remote cac-tmux with args on host through ssh, bounded by o.Timeout, and
// returns what it printed and its exit status. The error says why the command did not run to
// its end (an *Error of kind ErrUnreachable, ErrNoCacTmux, ErrTimeout or ErrInvalid, or
// context.Canceled); a remote command that ran and failed is no error here but its Code, for
// the caller to judge (List makes it ErrRemoteFailed, Act passes it on).
func Run(ctx context.Context, host string, o Options, args ...string) (Reply, error) {
	return run(ctx, host, "", o, o.timeout(), args)
}

// run is Run of a call about target (a pane, "" for the host) bounded by timeout: the one place
// ssh runs. The whole ssh (its process group: a ProxyCommand too) is killed at the timeout.
func run(ctx context.Context, host, target string, o Options, timeout time.Duration, args []string) (Reply, error) {
	argv, err := sshArgv(host, o, args...)
	if err != nil {
		err.(*Error).Target = target
		return Reply{Code: -1}, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errHostTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var c capture
	cmd.Stdout, cmd.Stderr = stdoutOf(&c), stderrOf(&c)
	// ssh's stdin stays open, and empty, until the call ends: its end is the remote command's
	// signal to end (OverSSH), when ssh is killed at the timeout or this process dies.
	in, hold, err := os.Pipe()
	if err != nil {
		return Reply{Code: -1}, &Error{Op: opOf(args), Host: host, Target: target, Kind: ErrUnreachable, Code: -1, Detail: "ssh: " + err.Error(), Err: err}
	}
	defer hold.Close()
	cmd.Stdin = in
	ownGroup(cmd)
	cmd.WaitDelay = waitDelay
	runErr := cmd.Start()
	in.Close() // ssh has its own copy
	if runErr == nil {
		runErr = cmd.Wait()
	}
	r := c.reply()
	r.Code = -1
	if cmd.ProcessState != nil {
		r.Code = cmd.ProcessState.ExitCode()
	}
	e := &Error{Op: opOf(args), Host: host, Target: target, Code: r.Code, Err: runErr}
	switch {
	case r.Code == -1 && ctx.Err() != nil:
		e.Kind, e.Err = ErrTimeout, ctx.Err()
		e.Detail = "no answer within " + timeout.String() + "; ssh was killed"
		if context.Cause(ctx) != errHostTimeout {
			e.Kind, e.Detail = ctx.Err(), "" // the caller's own deadline or cancel
			if e.Kind == context.DeadlineExceeded {
				e.Kind, e.Detail = ErrTimeout, "the caller's deadline passed; ssh was killed"
			}
		}
	case r.Code == -1:
		e.Kind, e.Detail = ErrUnreachable, "ssh: "+detail(runErr.Error())
	case r.Code == 255:
		e.Kind, e.Detail = ErrUnreachable, lastLine(r.Stderr)
	case r.Code == 127 || (r.Code != 0 && strings.Contains(strings.ToLower(lastLine(r.Stderr)), "command not found")):
		e.Kind, e.Detail = ErrNoCacTmux, lastLine(r.Stderr)
	default:
		return r, nil
	}
	if e.Detail == "" && e.Kind == ErrUnreachable {
		e.Detail = fmt.Sprintf("ssh exited %d", r.Code)
	}
	return r, e
}

// errHostTimeout is the cause of a call's end at its own timeout, told apart from the
// caller's deadline.
var errHostTimeout = errors.New("hosts: timeout")

// waitDelay bounds the wait for ssh's output once it exited or was killed: a process it left
// behind (a ControlPersist master that did not let go of stderr) cannot hold the call.
const waitDelay = 2 * time.Second
