//go:build darwin

package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// noProcSource names the sources of the path without /proc in Found.How.
const noProcSource = " (ps, lsof, kern.procargs2)"

// exactArgs reads the argv and environment the process was started with from the kernel
// (sysctl kern.procargs2, no cgo), exactly: ps's args column joins argv with spaces. It
// fails for another user's process, as /proc/PID/environ does. The executable's path it
// also holds is not used: it is the path as given to execve, not resolved (a symlink named
// claude to cat would pass for Claude Code), and lies in the process's own memory; lsof
// gives the file the kernel mapped.
func exactArgs(pid int) (procArgs, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return procArgs{}, fmt.Errorf("sysctl kern.procargs2 %d: %w", pid, err)
	}
	return parseProcArgs(b)
}
