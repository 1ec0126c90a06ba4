package demo

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// anyAlive says whether one of the processes still runs (a zombie does not).
func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if syscall.Kill(pid, 0) != nil {
			continue // gone (ESRCH)
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if i := bytes.LastIndexByte(stat, ')'); err == nil && i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		return true
	}
	return false
}
