//go:build linux

// Command fakecodex is the simulated Codex CLI of package demo/simcodex as a program of its
// own, for the integration tests that run it in tmux panes: its flags, log protocol and
// screens are documented in demo/simcodex. The tests build it under the name "codex", the
// name of the real one's executable.
package main

import (
	"fmt"
	"os"

	"github.com/cac-tmux/cac-tmux/demo/simcodex"
)

func main() {
	if err := simcodex.Run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fakecodex:", err)
		os.Exit(2)
	}
}
