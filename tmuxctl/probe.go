package tmuxctl

import (
	"context"
	"errors"
	"strings"
)

// Capabilities are what a running server can do of what differs between the tmux versions
// users run (3.2a to 3.8), found by asking it, never read off its version string: builds
// print "next-3.8", "3.7c", "openbsd-7.6".
type Capabilities struct {
	// version is the server's #{version}, for people.
	version string
	// Filter: list-panes -f (tmux 3.2 and later), on which every listing of the watcher
	// relies. Without it the server is too old.
	Filter bool
	// Escaping is how the server prints command output (3.4 and 3.5 escape it); fields are
	// read exactly either way (see fields.go).
	Escaping Escaping
	// Control is nil when a control-mode client may stay attached to the server without
	// changing what it does (see transport), else why not.
	Control error
	// LastOutput: #{pane_last_output_time} (tmux 3.8), the last output of each pane.
	LastOutput bool
	// OutputSignal: wait-for -E pane-activity (tmux 3.8), which the watcher waits on over a
	// second control client so that a tick with no output lists nothing (activity.go).
	OutputSignal bool
}

// Probe asks the server what it can do (a few display-message and list-panes calls).
func (c *Client) Probe(ctx context.Context) (Capabilities, error) {
	var k Capabilities
	v, err := c.display(ctx, "", "version")
	if err != nil {
		return k, err
	}
	k.version = v[0]
	if k.Escaping, err = c.escaping(ctx); err != nil {
		return k, err
	}
	_, err = c.exec(ctx, "list-panes", "-a", "-f", "0", "-F", "x")
	var te *Error
	switch {
	case err == nil:
		k.Filter = true
	case errors.As(err, &te) && strings.Contains(te.Stderr, "unknown flag"):
		// tmux before 3.2: "unknown flag -f".
	default:
		return k, err
	}
	k.Control = keepsAlive(ctx, c.exec)
	all, err := c.exec(ctx, "display-message", "-a")
	if err != nil {
		return k, err
	}
	k.LastOutput = strings.Contains(all, "\npane_last_output_time=") || strings.HasPrefix(all, "pane_last_output_time=")
	k.OutputSignal, err = outputSignal(ctx, c.exec)
	return k, err
}
