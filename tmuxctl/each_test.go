package tmuxctl_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// AskAll asks every client at once and answers in the clients' order: the first client's
// question returns only once the last one has been asked, which a one-by-one loop never
// reaches.
func TestAskAll(t *testing.T) {
	clients := []*tmuxctl.Client{{SocketName: "a"}, {SocketName: "b"}, {SocketName: "c"}}
	lastAsked := make(chan struct{})
	got := tmuxctl.AskAll(clients, func(c *tmuxctl.Client) string {
		switch c.SocketName {
		case "a":
			<-lastAsked
		case "c":
			close(lastAsked)
		}
		return c.Name()
	})
	if want := []string{"server -L a", "server -L b", "server -L c"}; !slices.Equal(got, want) {
		t.Errorf("AskAll = %q, want %q", got, want)
	}
}

// Hint says how to reach a server when none runs on the socket, and leaves other errors as
// they are.
func TestHint(t *testing.T) {
	none := fmt.Errorf("tmuxctl: list-panes -a: %w", tmuxctl.ErrNoServer)
	if got := tmuxctl.Hint(none); !errors.Is(got, tmuxctl.ErrNoServer) || got.Error() != none.Error()+"; start tmux, or select the server with -L NAME or -S PATH" {
		t.Errorf("Hint = %v", got)
	}
	other := errors.New("tmuxctl: list-panes -a: exit status 1")
	if got := tmuxctl.Hint(other); got != other {
		t.Errorf("Hint(other) = %v", got)
	}
}
