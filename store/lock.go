package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Lock is the lock of one watcher on one tmux server, held until Release or the process ends.
type Lock struct {
	// path is the lock file.
	path string
	f    *os.File
}

// LockedError says that another watcher supervises the server.
type LockedError struct {
	path, server string
	PID          int // 0 when the holder has not written it yet
}

func (e *LockedError) Error() string {
	who := "another watcher"
	if e.PID > 0 {
		who += " (pid " + strconv.Itoa(e.PID) + ")"
	}
	return fmt.Sprintf("store: %s already supervises server %s (lock %s); stop it first, or watch another server with -L/-S", who, e.server, e.path)
}

// LockPath is the lock file of the server whose socket is server, in directory dir.
func LockPath(dir, server string) string { return filepath.Join(dir, key(server)+".lock") }

// acquire takes the lock of server in dir without waiting (dir made private, see PrivateDir;
// the lock file opened without following a symlink, and checked to be this user's own), and
// writes this process's pid and the server into the lock file for the next one who asks
// (Open, LockPane). A held lock gives *LockedError.
// The lock file is never removed: removing it would let a second watcher lock a new file
// while a third still holds the old one.
func acquire(dir, server string) (*Lock, error) {
	if err := PrivateDir(dir); err != nil {
		return nil, err
	}
	path := LockPath(dir, server)
	f, err := openPrivate(path, os.O_RDWR, true)
	if err != nil {
		return nil, fmt.Errorf("store: open lock %s: %w", path, err)
	}
	held, err := tryLock(f, true)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: lock %s: %w", path, err)
	}
	if held {
		pid := readPID(f)
		f.Close()
		return nil, &LockedError{path: path, server: server, PID: pid}
	}
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"+server+"\n"), 0)
	}
	return &Lock{path: path, f: f}, nil
}

// Release drops the lock.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the last descriptor drops the flock
	l.f = nil
	if err != nil {
		return fmt.Errorf("store: release %s: %w", l.path, err)
	}
	return nil
}

// Holder returns the pid of the watcher that holds server's lock in dir: running is false
// when no watcher holds it; pid is 0 when the holder has not written its pid yet.
func Holder(dir, server string) (pid int, running bool, err error) {
	path := LockPath(dir, server)
	f, err := openPrivate(path, os.O_RDONLY, false)
	if os.IsNotExist(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("store: open lock %s: %w", path, err)
	}
	defer f.Close()
	held, err := tryLock(f, false)
	if err != nil {
		return 0, false, fmt.Errorf("store: lock %s: %w", path, err)
	}
	if !held {
		return 0, false, nil
	}
	return readPID(f), true, nil
}

func readPID(f *os.File) int {
	b := make([]byte, 64)
	n, _ := f.ReadAt(b, 0)
	first, _, _ := strings.Cut(string(b[:n]), "\n")
	pid, _ := strconv.Atoi(first)
	return pid
}
