package hosts

import "github.com/cac-tmux/cac-tmux/config"

// OptionsOf are the settings of [hosts] as the calls of this package take them: the ssh
// program, the arguments it starts with, the remote cac-tmux and the timeout of each host.
func OptionsOf(h config.Hosts) Options {
	o := Options{Command: h.Command, Timeout: h.Timeout}
	if len(h.SSH) > 0 {
		o.SSH, o.SSHArgs = h.SSH[0], h.SSH[1:]
	}
	return o
}
