//go:build unix

package proc

import (
	"io/fs"
	"syscall"
)

// readFile reads a whole (small, proc) file into buf, growing it when full, with raw system
// calls: os.Open would also register the descriptor with the poller and stat it, which doubles
// the system calls per file on Linux.
func readFile(path string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	buf = buf[:cap(buf)]
	n := 0
	for {
		if n == len(buf) {
			grown := make([]byte, 2*len(buf)+512)
			copy(grown, buf)
			buf = grown
		}
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		n += m
		if m == 0 || n < len(buf) {
			// A short read is the end of the file for regular files and for Linux procfs
			// files (stat, cmdline and children fill the whole buffer when they can): no
			// second read to see 0 bytes, one system call less per file.
			return buf[:n], nil
		}
	}
}
