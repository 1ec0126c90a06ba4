//go:build linux

// Command retitle stands in tests for Claude Code's npm build on Linux once it has set
// process.title to "claude": libuv rewrites the whole argument area to the title and NULs
// and sets the main thread's name (prctl PR_SET_NAME), so that /proc/PID/cmdline, ps's args
// and comm all read "claude" while the executable stays node. Then it waits to be killed.
package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// The name is the main thread's (the process's comm) only if main runs on it.
func init() { runtime.LockOSThread() }

func main() {
	// os.Args' strings lie in the argument area the kernel wrote: argv[0] to the end of the
	// last argument, contiguous.
	first := unsafe.StringData(os.Args[0])
	last := os.Args[len(os.Args)-1]
	end := uintptr(unsafe.Pointer(unsafe.StringData(last))) + uintptr(len(last))
	area := unsafe.Slice(first, int(end-uintptr(unsafe.Pointer(first))))
	const title = "claude"
	n := copy(area, title)
	clear(area[n:])
	name := []byte(title + "\x00")
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME, uintptr(unsafe.Pointer(&name[0])), 0); errno != 0 {
		os.Exit(1)
	}
	for {
		time.Sleep(time.Hour)
	}
}
