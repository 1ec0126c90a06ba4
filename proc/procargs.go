package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// procArgs is what macOS's kern.procargs2 tells of a process: exactly the argv and the
// environment it was started with, each string whole (no ps column to split).
type procArgs struct {
	argc int // the kernel's count of arguments, which the process cannot change
	// argv with its trailing empty arguments dropped, as procfs.cmdline drops the NULs that
	// a process leaves when it rewrites its argument area (node's process.title).
	argv []string
	// retitled: the process rewrote its argument area to argv[0] alone: the kernel counts
	// more than one argument, and every one after the first reads empty now (libuv's
	// process.title pads the rest of the area with NULs).
	retitled bool
	env      []byte // NUL-separated, as /proc/PID/environ
}

// procArgsAlign is the alignment of the arguments after the executable's path in the buffer
// (pointer size; macOS has run 64-bit processes only since 10.15).
const procArgsAlign = 8

// parseProcArgs parses the buffer of sysctl kern.procargs2 (XNU's sysctl_procargsx): the
// argument count (a 32-bit int), the path the program was started by, NUL, NULs up to the
// next pointer boundary, argc NUL-terminated arguments, then the environment strings up to an
// empty one, then XNU's own "apple" strings (stack_guard=…, never HOME or CLAUDE_CONFIG_DIR;
// without NULs between them and the environment they are read as part of it). A process that
// set its title left NULs between its arguments and its environment: they are skipped.
// Anything that does not fit (short, no NUL where one must be) is an error.
func parseProcArgs(b []byte) (procArgs, error) {
	if len(b) < 4 {
		return procArgs{}, fmt.Errorf("procargs2: %d bytes", len(b))
	}
	argc := int(int32(binary.NativeEndian.Uint32(b)))
	if argc < 0 || argc > len(b) {
		return procArgs{}, fmt.Errorf("procargs2: argc %d in %d bytes", argc, len(b))
	}
	n := bytes.IndexByte(b[4:], 0)
	if n < 0 {
		return procArgs{}, errors.New("procargs2: no end to the executable's path")
	}
	// Skip the path's NUL and the padding, but no further than the boundary: an empty
	// argv[0] starts right there. (A non-NUL before it: a 32-bit layout, argv[0] starts
	// there.)
	i, aligned := 4+n+1, 4+(n+1+procArgsAlign-1)/procArgsAlign*procArgsAlign
	for i < aligned && i < len(b) && b[i] == 0 {
		i++
	}
	pa := procArgs{argc: argc, argv: make([]string, 0, min(argc, 64))}
	for range argc {
		n := bytes.IndexByte(b[min(i, len(b)):], 0)
		if n < 0 {
			return procArgs{}, fmt.Errorf("procargs2: %d of %d arguments", len(pa.argv), argc)
		}
		pa.argv = append(pa.argv, string(b[i:i+n]))
		i += n + 1
	}
	for len(pa.argv) > 0 && pa.argv[len(pa.argv)-1] == "" {
		pa.argv = pa.argv[:len(pa.argv)-1]
	}
	pa.retitled = argc > 1 && len(pa.argv) == 1
	for i < len(b) && b[i] == 0 {
		i++
	}
	start := i
	for i < len(b) && b[i] != 0 {
		n := bytes.IndexByte(b[i:], 0)
		if n < 0 {
			return procArgs{}, errors.New("procargs2: no end to an environment string")
		}
		i += n + 1
	}
	pa.env = b[start:i]
	return pa, nil
}
