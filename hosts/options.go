package hosts

import (
	"context"
	"fmt"
	"io"

	"github.com/cac-tmux/cac-tmux/config"
)

// OptionsOf are the settings of [hosts] as the calls of this package take them: the ssh
// program, the arguments it starts with, the remote cac-tmux and the timeout of each host.
func OptionsOf(h config.Hosts) Options {
	o := Options{Command: h.Command, Timeout: h.Timeout}
	if len(h.SSH) > 0 {
		o.SSH, o.SSHArgs = h.SSH[0], h.SSH[1:]
	}
	return o
}

// Relay runs the action on target of host (Act), copies what the remote command printed to
// out, and says how it ended for a line of its own: code is the remote exit status when the
// remote cac-tmux ran and failed (0 otherwise), with an error that names the action, the
// pane and the host; an error with code 0 says why it did not run to its end.
func Relay(ctx context.Context, host, action, target string, o Options, out io.Writer) (code int, err error) {
	code, printed, err := Act(ctx, host, action, target, o)
	io.WriteString(out, printed)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s %s on %s: %s", action, target, host, Reason(err))
	case code != 0:
		return code, fmt.Errorf("%s %s on %s: the remote cac-tmux exited %d", action, target, host, code)
	}
	return 0, nil
}
