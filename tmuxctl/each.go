package tmuxctl

import (
	"errors"
	"fmt"
	"sync"
)

// AskAll calls ask for every client at once and returns the answers in the clients' order:
// every tmux call is bounded, so a hung server delays the answer by one bound, not by one
// for each such server.
func AskAll[T any](clients []*Client, ask func(*Client) T) []T {
	out := make([]T, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() { out[i] = ask(c) })
	}
	wg.Wait()
	return out
}

// Hint adds how to fix a tmux error a user can fix: no server on the socket.
func Hint(err error) error {
	if errors.Is(err, ErrNoServer) {
		return fmt.Errorf("%w; start tmux, or select the server with -L NAME or -S PATH", err)
	}
	return err
}
