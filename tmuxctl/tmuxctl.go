// Package tmuxctl is the only code in cac-tmux that runs tmux: argv slices (never a shell
// string), the server selected with -L or -S exactly like tmux (neither: $TMUX's server, else
// the default one), a context timeout on every call, tmux's stderr and exit status kept in its
// errors. The parsers of tmux output are pure functions, tested on their own. gotmux is not
// used: it panics on a pane title holding "-:-", has no literal send-keys and no -L, and drops
// tmux's error text (docs/choices.md).
package tmuxctl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/cac-tmux/cac-tmux/clock"
)

// Errors a caller can test with errors.Is.
var (
	// ErrNoServer: no tmux server listens on the socket.
	ErrNoServer = errors.New("no tmux server running")
	// ErrNoTarget: the pane, window, session or client does not exist (any more).
	ErrNoTarget = errors.New("no such tmux target")
	// errNoClient: the command needs an attached client and there is none.
	errNoClient = errors.New("no tmux client attached")
)

// Error is a failed tmux call: its arguments (after the binary and socket flags), exit status
// and stderr. It wraps ErrNoServer, ErrNoTarget, errNoClient or ErrNoSession when stderr says so.
//
// Error() names the tmux command and its target and gives tmux's stderr; Args keeps every
// argument (the long -F formats among them) for a debug log.
type Error struct {
	Args     []string
	ExitCode int
	Stderr   string
	Err      error // the exec error, or one of the sentinel errors
}

func (e *Error) Error() string {
	return "tmuxctl: " + summary(e.Args) + ": " + e.reason()
}

// reason is tmux's stderr on one line, else the error under it.
func (e *Error) reason() string {
	msg := strings.ReplaceAll(strings.TrimSpace(e.Stderr), "\n", "; ")
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return msg
}

// quoteIfSpaced quotes a target that would not read as one word.
func quoteIfSpaced(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r == 0x7f }) {
		return strconv.Quote(s)
	}
	return s
}

// summary is what a person needs of a tmux argv: the command name and the flags that say
// what it acts on (-a, -t, -s, -c and their values), "tmux" when there is no command, and
// how many commands follow when several are chained with ";". tmux's global flags before
// the command (-f FILE, -N, -C) are left out.
func summary(args []string) string {
	var cmds [][]string // each command's words
	start := true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if start && strings.HasPrefix(a, "-") {
			if a == "-f" || a == "-L" || a == "-S" || a == "-c" || a == "-T" {
				i++ // tmux's global flags with a value, before the command
			}
			continue
		}
		w, sep := a, strings.HasSuffix(a, ";") && !strings.HasSuffix(a, `\;`)
		if sep {
			w = a[:len(a)-1]
		}
		if !sep || w != "" {
			if start {
				cmds = append(cmds, nil)
				start = false
			}
			cmds[len(cmds)-1] = append(cmds[len(cmds)-1], w)
		}
		if sep {
			start = true
		}
	}
	if len(cmds) == 0 {
		return "tmux"
	}
	words := []string{cmds[0][0]}
flags:
	for i, w := range cmds[0][1:] {
		switch {
		case w == "--":
			break flags // the rest are keys or text
		case w == "-a":
			words = append(words, w)
		case (w == "-t" || w == "-s" || w == "-c") && i+2 < len(cmds[0]):
			words = append(words, w, quoteIfSpaced(cmds[0][i+2]))
		}
	}
	if len(cmds) > 1 {
		words = append(words, fmt.Sprintf("(and %d more)", len(cmds)-1))
	}
	return strings.Join(words, " ")
}

func (e *Error) Unwrap() error { return e.Err }

// classify maps tmux's stderr to a sentinel error (texts of tmux 3.3a).
func classify(stderr string) error {
	switch {
	case strings.Contains(stderr, "no server running"), strings.Contains(stderr, "error connecting to"),
		strings.Contains(stderr, "server exited unexpectedly"):
		return ErrNoServer
	case strings.Contains(stderr, "can't find pane"), strings.Contains(stderr, "can't find window"),
		strings.Contains(stderr, "can't find session"), strings.Contains(stderr, "can't find client"),
		strings.Contains(stderr, "no such pane"), strings.Contains(stderr, "no such window"),
		strings.Contains(stderr, "no such session"): // set-option -t on a pane just closed
		return ErrNoTarget
	case strings.Contains(stderr, "no current client"), strings.Contains(stderr, "no client"):
		return errNoClient
	case strings.Contains(stderr, "no current target"):
		return ErrNoSession
	}
	return nil
}

// DefaultTimeout bounds one tmux call when the Client sets none.
const DefaultTimeout = 5 * time.Second

// waitDelay bounds the wait for a tmux client's output to end once the client has exited or
// been killed. A tmux client hands its stdin and stdout to the server (an SCM_RIGHTS message
// on its socket); a server that never reads that message (stopped, or a socket that accepts
// and never answers) keeps the pipes open after the client is gone, and without this bound
// the wait for them never ended (seen with tmux 3.3a). A live server closes them when it
// reads the message, or when the client exits; a loaded one may take longer, which exec
// does not count as a failure. It runs on the real clock, inside os/exec.
const waitDelay = time.Second

// timeout is the Client's Timeout, DefaultTimeout when zero.
func (c *Client) timeout() time.Duration {
	if c.Timeout <= 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

// Client runs tmux against one server.
type Client struct {
	// SocketName is tmux's -L; SocketPath is -S (it wins when both are set). With neither,
	// tmux uses $TMUX's server, else the default server.
	SocketName string
	SocketPath string
	// Bin is the tmux binary, "tmux" when empty.
	Bin string
	// Timeout bounds each call, DefaultTimeout when zero.
	Timeout time.Duration
	// Clock is the time Timeout and the control connection's waits (redial backoff, the wait
	// for a closed client to exit) run on; nil is clock.Real. A manual clock in a test makes
	// them fire only when the test moves it, and every timeout of a call in flight fire at
	// once when it jumps.
	Clock clock.Clock
	// Wall is the system clock tmux stamps window_activity on, which ListChanges compares
	// with; nil is clock.Real. A test that shifts Clock leaves Wall on the system clock.
	Wall clock.Clock

	conn *transport // set by Connect: commands go over a control-mode connection while it is up
}

// Connect makes c run its commands over a persistent control-mode connection to its server
// (see transport) while one is up, and by exec otherwise: the connection is made at the first
// command, made again when tmux drops it, and never made on a server where an attached
// control client would change what tmux does (see transport). log, when not nil, is told when the
// connection comes up, goes down or is refused. Close ends it.
func (c *Client) Connect(log func(event string, err error)) {
	plain := *c
	plain.conn = nil
	c.conn = &transport{Client: &plain, Log: log}
}

// Close closes the control connection that Connect set up, if any; later commands use exec.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

// Connected reports whether c's commands go over a control connection now.
func (c *Client) Connected() bool { return c.conn != nil && c.conn.Connected() }

// argv returns the full argv for a tmux command, socket flags included.
func (c *Client) argv(args ...string) []string {
	bin := c.Bin
	if bin == "" {
		bin = "tmux"
	}
	// -u: tmux 3.3a rewrites control characters (our field separator among them) and
	// non-ASCII in its output to "_" unless the client's locale says UTF-8, and a watcher run
	// by systemd or cron often has LANG unset.
	argv := []string{bin, "-u"}
	switch {
	case c.SocketPath != "":
		argv = append(argv, "-S", c.SocketPath)
	case c.SocketName != "":
		argv = append(argv, "-L", c.SocketName)
	}
	return append(argv, args...)
}

// Run runs one tmux command and returns its stdout: over the control connection when
// Connect set one up and it is up, else as its own tmux process.
func (c *Client) Run(ctx context.Context, args ...string) (string, error) {
	if c.conn != nil {
		return c.conn.Run(ctx, args...)
	}
	return c.exec(ctx, args...)
}

// exec runs one tmux command as its own process.
func (c *Client) exec(ctx context.Context, args ...string) (string, error) {
	timeout := c.timeout()
	ctx, cancel := withTimeout(ctx, c.clock(), timeout)
	defer cancel()
	argv := c.argv(args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = waitDelay
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// A client that exited 0 printed all it had (tmux 3.x writes a command's output through
	// the client): a server slow to let go of its pipes does not make the call fail.
	if err == nil || errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success() {
		return stdout.String(), nil
	}
	e := &Error{Args: args, ExitCode: -1, Stderr: stderr.String(), Err: err}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		e.ExitCode = exit.ExitCode()
	}
	if ctx.Err() != nil {
		e.Err = fmt.Errorf("timed out after %s: %w", timeout, ctx.Err())
	} else if s := classify(e.Stderr); s != nil {
		e.Err = s
	}
	return "", e
}

// Capture returns the visible screen of a pane as `capture-pane -p -J` prints it: no escapes,
// wrapped lines joined, trailing spaces kept, and a tab as the spaces it covers on screen (see
// expandTabs).
func (c *Client) Capture(ctx context.Context, pane string) (string, error) {
	return c.CaptureShot(ctx, Shot{Pane: pane})
}

// CaptureStyled is Capture with the SGR escapes of the text kept (capture-pane -e), for a
// program whose screen tells by an attribute alone what a row is.
func (c *Client) CaptureStyled(ctx context.Context, pane string) (string, error) {
	return c.CaptureShot(ctx, Shot{Pane: pane, Styled: true})
}

// CaptureShot captures the shot's pane, styled or not as the shot says.
func (c *Client) CaptureShot(ctx context.Context, s Shot) (string, error) {
	out, err := c.Run(ctx, s.args()...)
	return expandTabs(out), err
}

// Shot is one pane to capture; Styled keeps the SGR escapes of its text (capture-pane -e).
type Shot struct {
	Pane   string
	Styled bool
}

// args is the capture command of the shot.
func (s Shot) args() []string {
	if s.Styled {
		return []string{"capture-pane", "-p", "-J", "-e", "-t", s.Pane}
	}
	return []string{"capture-pane", "-p", "-J", "-t", s.Pane}
}

// expandTabs replaces each tab of a capture by spaces up to the next tab stop (every 8
// columns, tmux's default), so that a screen reads the same on every tmux: tmux 3.6 and later
// print a tab where the program wrote one, earlier versions the spaces it moved over. Columns
// count display width (a wide character takes two). A program that set other tab stops, or a
// tab on a wrapped row of a pane whose width is not a multiple of 8, comes out a few spaces
// off: the detector reads words, not exact columns, there.
func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 64)
	for line := range strings.Lines(s) {
		col := 0
		for len(line) > 0 {
			r, n := utf8.DecodeRuneInString(line)
			if r == '\t' {
				pad := 8 - col%8
				b.WriteString("        "[:pad])
				col += pad
			} else {
				b.WriteString(line[:n]) // as it is: an invalid byte stays that byte
				col += runewidth.RuneWidth(r)
			}
			line = line[n:]
		}
	}
	return b.String()
}

// SendLiteral types text into a pane literally (`send-keys -l --`: without "--" a text that
// starts with "-" would be read as a flag). It sends no Enter: keys go in a separate call,
// since text and Enter in one call is read as a paste by Claude Code.
func (c *Client) SendLiteral(ctx context.Context, pane, text string) error {
	_, err := c.Run(ctx, "send-keys", "-t", pane, "-l", "--", arg(text))
	return err
}

// arg protects a free-text argument: tmux 3.3a reads an argument that ends in ";" as the
// end of a command (the ";" dropped) and an ending "\;" as a literal ";", so a final ";"
// gets a backslash before it.
func arg(s string) string {
	if strings.HasSuffix(s, ";") {
		return s[:len(s)-1] + `\;`
	}
	return s
}

// SendKey sends one key by name ("Enter", "Escape", "1") to a pane.
func (c *Client) SendKey(ctx context.Context, pane, key string) error {
	_, err := c.Run(ctx, "send-keys", "-t", pane, key)
	return err
}

// SetPaneOption sets a pane user option (name starts with "@").
func (c *Client) SetPaneOption(ctx context.Context, pane, name, value string) error {
	_, err := c.Run(ctx, "set-option", "-p", "-t", pane, name, arg(value))
	return err
}

// SetPaneOptions sets several pane user options in one tmux call (commands separated by a
// ";" argument); an empty value unsets its option.
func (c *Client) SetPaneOptions(ctx context.Context, pane string, names, values []string) error {
	if len(names) != len(values) {
		return fmt.Errorf("tmuxctl: set pane options %s: %d names, %d values", pane, len(names), len(values))
	}
	var args []string
	for i, n := range names {
		if i > 0 {
			args = append(args, ";")
		}
		if values[i] == "" {
			args = append(args, "set-option", "-p", "-u", "-t", pane, n)
		} else {
			args = append(args, "set-option", "-p", "-t", pane, n, arg(values[i]))
		}
	}
	if len(args) == 0 {
		return nil
	}
	_, err := c.Run(ctx, args...)
	return err
}

// SetGlobalOption sets a global user option (set-option -g), or unsets it when value is "".
func (c *Client) SetGlobalOption(ctx context.Context, name, value string) error {
	var err error
	if value == "" {
		_, err = c.Run(ctx, "set-option", "-g", "-u", name)
	} else {
		_, err = c.Run(ctx, "set-option", "-g", name, arg(value))
	}
	return err
}

// ClaimGlobal sets the global user option name to value only while it holds old ("" for
// unset), and returns what it holds afterwards: value when the claim was won. The test and
// the set are one if-shell -F, whose chosen command runs next in this client's queue, before
// the server reads another client's command (tmux 3.2a to 3.8), so two claims of one old
// value cannot both win. name is a user option (@…); old and value are tokens of letters,
// digits and . _ : - (they are written into a format).
func (c *Client) ClaimGlobal(ctx context.Context, name, old, value string) (string, error) {
	for _, s := range []string{old, value} {
		if !claimToken.MatchString(s) {
			return "", fmt.Errorf("tmuxctl: claim %s: %q is not a token of letters, digits and . _ : -", name, s)
		}
	}
	if !strings.HasPrefix(name, "@") || !claimToken.MatchString(name[1:]) {
		return "", fmt.Errorf("tmuxctl: claim %q: not a user option", name)
	}
	set := "set-option -g " + name + " " + value
	if value == "" {
		set = "set-option -g -u " + name
	}
	if _, err := c.Run(ctx, "if-shell", "-F", "#{==:#{"+name+"},"+old+"}", set); err != nil {
		return "", err
	}
	return c.GlobalOption(ctx, name)
}

var claimToken = regexp.MustCompile(`^[A-Za-z0-9._:-]*$`)

// GlobalOption reads a global user option, control characters as "?"; "" when it is unset.
func (c *Client) GlobalOption(ctx context.Context, name string) (string, error) {
	return c.PaneOption(ctx, "", name)
}

// PaneOption reads a pane user option, control characters as "?"; "" when it is unset.
// pane "" reads the option as a command without -t would (the global one).
func (c *Client) PaneOption(ctx context.Context, pane, name string) (string, error) {
	v, err := c.display(ctx, pane, name)
	if err != nil {
		return "", err
	}
	return v[0], nil
}

// KeepSize is the commands, to follow a new-session -d -x W -y H in its command line, that
// give session's first window the size asked for where new-session did not: tmux 3.2a sizes a
// detached session's first window to the default 80x23. It is resize-window, which also makes
// that window's size manual, so it runs only where the size differs (if-shell -F, no shell).
// In new-session's command line it runs before the server reads the program's first output.
func KeepSize(session string, width, height int) []string {
	win := "=" + session + ":0"
	return []string{";", "if-shell", "-F", "-t", win, fmt.Sprintf("#{!=:#{window_width}x#{window_height},%dx%d}", width, height),
		fmt.Sprintf("resize-window -t %s -x %d -y %d", win, width, height)}
}
