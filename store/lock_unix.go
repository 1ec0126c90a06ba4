//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
)

// tryLock tries to flock f without waiting: exclusive keeps the lock, else a shared lock is
// taken and dropped at once (a probe). held is true when another descriptor holds the lock.
func tryLock(f *os.File, exclusive bool) (held bool, err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, nil
	case err != nil:
		return false, err
	}
	if !exclusive {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	}
	return false, nil
}
