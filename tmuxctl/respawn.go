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

// RespawnPane kills what runs in pane (its terminal closes: the processes on it get SIGHUP)
// and starts r there: `respawn-pane -k -t PANE -c DIR -e NAME=VALUE… -- ARGV…`. The pane keeps
// its id, place, size and user options, and its screen until the new program draws. On every
// tmux cac-tmux supports (3.2a to 3.8):
//   - -e (tmux 3.0+) sets values as given (environ_put), with no format expansion.
//   - -c is expanded as a format (spawn.c: format_single), so "#" is written "##"; tmux 3.4+
//     take a relative -c from the client's directory, so Dir must be absolute.
//   - Two words or more run as they are (spawn.c: execvp); one word alone would go to
//     `$SHELL -c WORD`, so a one-word Argv is refused: no user data reaches a shell's parser.
//
// The new program gets the server's environment (set-environment -g and the session's), not
// the old program's: anything else it needs goes into Env.
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
