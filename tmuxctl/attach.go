package tmuxctl

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
)

// Attach attaches a terminal (in, out and errOut) to a session of c's server and returns when
// the client ends: detached, or its server gone. It runs `tmux attach-session -t session` with
// $TMUX and $TMUX_PANE removed from its environment, so that from inside tmux the client nests
// in the current pane (tmux refuses to nest while $TMUX is set). It has no timeout and takes no
// context: a killed client would leave the terminal in raw mode, so it is ended through tmux
// (detach-client, kill-server).
func (c *Client) Attach(session string, in, out, errOut *os.File) error {
	args := []string{"attach-session", "-t", session}
	argv := c.argv(args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, errOut
	cmd.Env = []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	if err == nil {
		return nil
	}
	e := &Error{Args: args, ExitCode: -1, Err: err}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		e.ExitCode = exit.ExitCode()
	}
	return e
}

// CurrentClient is the name of the server's current client: from a popup, the most recently
// active client, the one whose key opened it (tmux 3.3a expands no format in display-popup's
// command, so a binding cannot pass #{client_name}). Ask before anyone switches.
func (c *Client) CurrentClient(ctx context.Context) (string, error) {
	out, err := c.Run(ctx, "display-message", "-p", "#{client_name}")
	return strings.TrimSpace(out), err
}

// SwitchTo switches the client named client to pane: its session, window and pane.
func (c *Client) SwitchTo(ctx context.Context, client, pane string) error {
	_, err := c.Run(ctx, "switch-client", "-c", client, "-t", pane, ";", "select-window", "-t", pane, ";", "select-pane", "-t", pane)
	return err
}
