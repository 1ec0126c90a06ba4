//go:build !unix

package store

import (
	"errors"
	"os"
)

// tryLock: tmux runs on Unix only; elsewhere there is nothing to lock.
func tryLock(f *os.File, exclusive bool) (bool, error) {
	return false, errors.New("locking needs flock(2) (Unix)")
}
