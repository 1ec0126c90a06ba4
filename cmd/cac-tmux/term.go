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

// hangupCheck returns a func that says whether the terminal of files has hung up: one of
// them was a terminal when hangupCheck was called and is no longer usable as one. After a
// hang-up (the terminal emulator or the tmux server holding the pty went away) the kernel
// answers every terminal ioctl on it with EIO.
func hangupCheck(files ...*os.File) func() bool {
	var ttys []*os.File
	for _, f := range files {
		if isTerminal(f) {
			ttys = append(ttys, f)
		}
	}
	return func() bool {
		for _, f := range ttys {
			if !isTerminal(f) {
				return true
			}
		}
		return false
	}
}
