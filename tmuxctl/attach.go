package tmuxctl

import (
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
