//go:build linux

// Command fakeclaude is the simulated Claude Code of package demo/simclaude as a program of
// its own, for the integration tests that run it in tmux panes (CONTRIBUTING.md, What the tests
// cover): its flags, log protocol and scenarios are documented in demo/simclaude. The tests
// build it under the name "claude", so that the watcher recognises it through /proc like the
// real one.
package main

import (
	"fmt"
	"os"

	"github.com/cac-tmux/cac-tmux/demo/simclaude"
)

func main() {
	if err := simclaude.Run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "fakeclaude:", err)
		os.Exit(2)
	}
}
