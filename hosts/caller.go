package hosts

import (
	"context"
	"errors"
	"io"
)

// errCallerGone ends a command that another host's cac-tmux runs through ssh when that ssh
// is gone.
var errCallerGone = errors.New("the cac-tmux that asked through ssh is gone (its ssh ended)")

// WhileCallerLives is ctx, ended when in (standard input) closes, for a command run with
// OverSSH=1: another host's cac-tmux runs it through ssh and holds its standard input open
// until the call ends, and sshd closes it when that ssh dies, whereas nothing else would stop
// the command (ssh without a terminal leaves it running). Otherwise ctx as it is.
func WhileCallerLives(ctx context.Context, getenv func(string) string, in io.Reader) context.Context {
	if getenv(OverSSH) != "1" || in == nil {
		return ctx
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		io.Copy(io.Discard, in)
		cancel(errCallerGone)
	}()
	return ctx
}
