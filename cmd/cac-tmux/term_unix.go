//go:build unix

package main

import (
	"os"
	"syscall"
	"unsafe"
)

// termSize returns the width and height of the terminal on f, or 0, 0 when f is none.
func termSize(f *os.File) (width, height int) {
	var ws struct{ row, col, x, y uint16 }
	_, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws)))
	if e != 0 {
		return 0, 0
	}
	return int(ws.col), int(ws.row)
}
