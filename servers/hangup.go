package servers

import (
	"os"

	"golang.org/x/term"
)

// HungUp returns a func that says whether the terminal of files has hung up (OnHangUp's
// hungUp): one of them was a terminal when HungUp was called and is no longer usable as one.
// After a hang-up (the terminal emulator or the tmux server holding the pty went away) the
// kernel answers every terminal ioctl on it with EIO.
func HungUp(files ...*os.File) func() bool {
	var ttys []*os.File
	for _, f := range files {
		if term.IsTerminal(int(f.Fd())) {
			ttys = append(ttys, f)
		}
	}
	return func() bool {
		for _, f := range ttys {
			if !term.IsTerminal(int(f.Fd())) {
				return true
			}
		}
		return false
	}
}
