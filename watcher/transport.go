package watcher

import "github.com/rs/zerolog"

// TransportLog reports the events of a server's control-mode connection
// (tmuxctl.Client.Connect) on log: up, down and refused at info
// (the watcher works on by exec meanwhile), failed dials at debug (they repeat, ever less
// often, while no server or no session is there), the output signal (tmux 3.8's wait, or the
// output pipes elsewhere) at info when it comes up, at debug when it cannot.
func TransportLog(log zerolog.Logger) func(string, error) {
	return func(event string, err error) {
		switch event {
		case "up":
			log.Info().Msg("tmux commands go over a control-mode client (tmux -C)")
		case "down":
			log.Info().Err(err).Msg("the control-mode client is gone; tmux commands run as processes until it is back")
		case "refused":
			log.Info().Err(err).Msg("control mode is not used on this server; every tmux command runs as a process")
		case "signal":
			if err == nil {
				log.Info().Msg("tmux signals output (wait-for -E): a tick with no output lists nothing")
				return
			}
			log.Debug().Err(err).Msg("no output signal; every tick lists what changed")
		case "pipes":
			log.Info().Msg("Claude panes' output is piped to the watcher (pipe-pane): a tick with no output lists nothing")
		default:
			log.Debug().Err(err).Str("event", event).Msg("no control-mode client")
		}
	}
}
