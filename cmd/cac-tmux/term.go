package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal says whether f is a terminal: a tty that answers the terminal ioctls, not any
// character device (/dev/null is one).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// termSize returns the width and height of the terminal on f, or 0, 0 when f is none.
func termSize(f *os.File) (width, height int) {
	w, h, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0, 0
	}
	return w, h
}
