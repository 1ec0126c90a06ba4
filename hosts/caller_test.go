package hosts

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// A command run through ssh for another host (CAC_TMUX_OVER_SSH=1) ends when its standard
// input closes; any other command keeps reading nothing of it.
func TestWhileCallerLives(t *testing.T) {
	r, w := io.Pipe()
	getenv := func(k string) string {
		if k == OverSSH {
			return "1"
		}
		return ""
	}
	ctx := WhileCallerLives(context.Background(), getenv, r)
	if ctx.Err() != nil {
		t.Fatalf("ended before stdin closed: %v", context.Cause(ctx))
	}
	w.Close()
	tmuxtest.WaitFor(t, 10*time.Second, "the context to end once stdin closed", func() bool { return ctx.Err() != nil })
	if context.Cause(ctx) != errCallerGone {
		t.Errorf("cause %v, want %v", context.Cause(ctx), errCallerGone)
	}
	closed, _ := io.Pipe()
	closed.Close()
	if ctx := WhileCallerLives(context.Background(), func(string) string { return "" }, closed); ctx.Done() != nil {
		t.Error("without CAC_TMUX_OVER_SSH the context can end")
	}
}
