package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Respawn is what RespawnPane starts in a pane in place of what runs there.
type Respawn struct {
	// Dir is the working directory of the new program (absolute).
	Dir string
	// Env are NAME=VALUE pairs set for the new program on top of the server's environment.
	Env []string
	// Argv is the program and its arguments; at least two words (see RespawnPane).
	Argv []string
}

// RespawnPane kills what runs in pane (tmux closes its terminal: the processes on it get
// SIGHUP) and starts r there instead: `respawn-pane -k -t PANE -c DIR -e NAME=VALUE… -- ARGV…`. The pane keeps its id,
// its place, its size and its user options; what ran there is gone, and whatever its screen
// showed stays until the new program draws.
//
// Why each part, on every tmux cac-tmux supports (3.2a to 3.8):
//   - -e exists since tmux 3.0; its values are set as given (environ_put), with no format
//     expansion.
//   - -c is expanded as a format in every one of them (spawn.c: format_single), so "#" in the
//     directory is written "##" to reach the program as it is. tmux 3.4 and later take a
//     relative -c from the client's directory: Dir must be absolute.
//   - Two words or more are run as they are (spawn.c: execvp); one word alone would be handed
//     to the default shell as a script (`$SHELL -c WORD`), so a one-word Argv is refused
//     rather than quoted: no user data ever reaches a shell's parser through here.
//
// The server's environment (set-environment -g and the session's) is the new program's,
// not the old program's: anything else it needs goes into Env.
func (c *Client) RespawnPane(ctx context.Context, pane string, r Respawn) error {
	if len(r.Argv) < 2 {
		return fmt.Errorf("tmuxctl: respawn %s: %w", pane, errOneWord)
	}
	if !strings.HasPrefix(r.Dir, "/") {
		return fmt.Errorf("tmuxctl: respawn %s: directory %q is not absolute", pane, r.Dir)
	}
	args := []string{"respawn-pane", "-k", "-t", pane, "-c", arg(strings.ReplaceAll(r.Dir, "#", "##"))}
	for _, e := range r.Env {
		if name, _, ok := strings.Cut(e, "="); !ok || name == "" {
			return fmt.Errorf("tmuxctl: respawn %s: environment %q is not NAME=VALUE", pane, e)
		}
		args = append(args, "-e", arg(e))
	}
	args = append(args, "--")
	for _, a := range r.Argv {
		args = append(args, arg(a))
	}
	_, err := c.Run(ctx, args...)
	return err
}

var errOneWord = errors.New("the program needs two words or more (one would be run by a shell)")
