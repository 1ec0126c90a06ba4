//go:build linux

// /proc: the CPU and the peak RSS of a process and its descendants.

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cpuTicks is a process's CPU in clock ticks: own (utime+stime) and children (cutime+cstime
// of the children it waited for, plus all CPU of its live descendants).
type cpuTicks struct{ own, children float64 }

func (c cpuTicks) total() float64 { return c.own + c.children }

func readCPU(pid int) (cpuTicks, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTicks{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 15 {
		return cpuTicks{}, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	v := make([]float64, 4)
	for k := range v {
		if v[k], err = strconv.ParseFloat(f[11+k], 64); err != nil { // fields 14–17
			return cpuTicks{}, err
		}
	}
	return cpuTicks{own: v[0] + v[1], children: v[2] + v[3]}, nil
}

// treeCPU is readCPU of pid with the CPU of its live descendants added to children, for the
// part inside the window; descendants are read first, so one that ends in between is counted
// twice rather than missed. The watcher's control-mode client (`tmux -C`, waited for only at
// close) is such a child for the whole window; reaped within it (a reconnect), its CPU moves to
// the watcher's cutime+cstime, still in children. Expect it near 0: a tmux 3.3a client hands
// its stdin and stdout to the server, so the control connection's work is the server's CPU.
func treeCPU(pid int) (cpuTicks, error) {
	var live float64
	for _, k := range descendants(pid) {
		if c, err := readCPU(k); err == nil {
			live += c.total() // its reaped children included; its live ones are in the list too
		}
	}
	c, err := readCPU(pid)
	c.children += live
	return c, err
}

// descendants lists pid's children and theirs, from /proc/PID/task/*/children (every thread's:
// a child is listed under the thread that forked it), or from every process's ppid when the
// kernel lacks those files (CONFIG_PROC_CHILDREN off).
func descendants(pid int) []int {
	if !opt.liveChildren {
		return descendantsByPPID(pid)
	}
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(f); err == nil {
				out = append(out, k)
				out = append(out, descendants(k)...)
			}
		}
	}
	return out
}

// descendantsByPPID is descendants from a scan of /proc/*/stat.
func descendantsByPPID(pid int) []int {
	kids := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if k, err := strconv.Atoi(e.Name()); err == nil {
			if pp := parent(k); pp > 0 {
				kids[pp] = append(kids[pp], k)
			}
		}
	}
	var out []int
	for todo := kids[pid]; len(todo) > 0; {
		k := todo[0]
		todo = append(todo[1:], kids[k]...)
		out = append(out, k)
	}
	return out
}

// peakRSS is VmHWM in MB.
func peakRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", pid)
}

func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }
