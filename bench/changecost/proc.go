//go:build linux

package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of utime and stime in /proc/PID/stat (CLK_TCK 100 on Linux).
const clockTick = 10 * time.Millisecond

// cpu is a process's CPU time: utime+stime from /proc/PID/stat in clock ticks, and the run
// time from /proc/PID/schedstat in nanoseconds (its main thread; tmux has no other).
type cpu struct {
	ticks int64
	ns    int64
}

func (c cpu) minus(d cpu) cpu { return cpu{c.ticks - d.ticks, c.ns - d.ns} }

// ticksPct is c over wall, in percent of one core, from the clock ticks.
func (c cpu) ticksPct(wall time.Duration) float64 {
	return 100 * float64(c.ticks) * float64(clockTick) / float64(wall)
}

// nsPct is c over wall, in percent of one core, from schedstat.
func (c cpu) nsPct(wall time.Duration) float64 { return 100 * float64(c.ns) / float64(wall) }

// readCPU reads pid's CPU time.
func readCPU(pid int) (cpu, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpu{}, err
	}
	// The command name is in parentheses and may hold spaces ("tmux: server").
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return cpu{}, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return cpu{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	// f[0] is field 3 (state): utime and stime are fields 14 and 15.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return cpu{}, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, f[11], f[12])
	}
	c := cpu{ticks: ut + st}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid)); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			c.ns, _ = strconv.ParseInt(f[0], 10, 64)
		}
	}
	return c, nil
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func numCPU() int { return runtime.NumCPU() }
