package tmuxctl

import "context"

// What the tests of package tmuxctl_test reach that other packages reach only through
// Client's listings and calls.

// Argv returns the full argv for a tmux command, socket flags included (argv).
func (c *Client) Argv(args ...string) []string { return c.argv(args...) }

// MessageOption is the pane option that replaces the message typed into a pane
// (messageOption).
const MessageOption = messageOption

// PaneFormat returns the list-panes format for a search (paneFormat).
func PaneFormat(s Search) string { return paneFormat(s) }

// ParsePanes parses ListPanes output (parsePanes).
func ParsePanes(out string) ([]Pane, error) { return parsePanes(out) }

// ParsePaused parses PausedPanes output (parsePaused).
func ParsePaused(out string) ([]Pane, error) { return parsePaused(out) }

// ParseUserOptions reads the user options whose names start with prefix out of what
// `show-options -g` prints (parseUserOptions).
func ParseUserOptions(out, prefix string) ([]UserOption, error) {
	return parseUserOptions(out, prefix)
}

// Listings is how many listings ListChanges has sent over c's control connection up now: a
// tick with nothing to list (activity.go) sends none.
func (c *Client) Listings() uint64 {
	c.conn.mu.Lock()
	defer c.conn.mu.Unlock()
	if c.conn.k == nil {
		return 0
	}
	return c.conn.k.listings.Load()
}

// Signalled reports whether the output signal of tmux 3.8 is up for c's connection.
func (c *Client) Signalled() bool {
	c.conn.mu.Lock()
	defer c.conn.mu.Unlock()
	return c.conn.act != nil && !c.conn.act.broken()
}

// SignalClient is the pid of the output signal's tmux client, 0 when there is none.
func (c *Client) SignalClient() int {
	c.conn.mu.Lock()
	defer c.conn.mu.Unlock()
	if c.conn.act == nil {
		return 0
	}
	return c.conn.act.k.cmd.Process.Pid
}

// Send writes line to the control client's stdin as it is, with no wait for a reply: a test
// of what tmux does with a command in flight when this process dies.
func (k *controlClient) Send(line string) error {
	_, err := k.stdin.Write([]byte(line + "\n"))
	return err
}

// ControlClient is the control-mode client (controlClient).
type ControlClient = controlClient

// Transport is the control connection with its exec fallback (transport).
type Transport = transport

// DefaultRedial is transport's least time between two dials (defaultRedial).
const DefaultRedial = defaultRedial

// ErrFraming and ErrNoClient are errFraming and errNoClient.
var (
	ErrFraming  = errFraming
	ErrNoClient = errNoClient
)

// Dial starts a control-mode client of c's server (dial).
func (c *Client) Dial(ctx context.Context) (*ControlClient, error) { return c.dial(ctx) }

// Version is the server's #{version} (version).
func (k Capabilities) Version() string { return k.version }

// PipeCommand is the shell command of an output pipe into the FIFO at path (pipeCommand).
func PipeCommand(path string) string { return pipeCommand(path) }
