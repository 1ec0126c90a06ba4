//go:build !unix

package store

import (
	"fmt"
	"os"
)

// PrivateDir makes dir; ownership is not checked where tmux does not run.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: create %s: %w", dir, err)
	}
	return nil
}

func openPrivate(path string, flag int, create bool) (*os.File, error) {
	if create {
		flag |= os.O_CREATE
	}
	return os.OpenFile(path, flag, 0o600)
}
