//go:build unix

package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// PrivateDir makes dir (0700, with its parents) when it is missing and checks that it is
// this user's own, as the lock and the state file need: a directory, not
// a symlink, owned by this user and writable by nobody else; and that its parent, where
// another user could replace it, is not writable by others unless sticky (like /tmp, where
// nobody can rename another's entry). The error names the directory and the fix.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store: create %s: %w", dir, err)
	}
	if err := owned(dir, true); err != nil {
		return err
	}
	parent := filepath.Dir(dir)
	fi, err := os.Stat(parent)
	if err != nil {
		return fmt.Errorf("store: %s: %w", parent, err)
	}
	if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("store: %s can be written by other users (mode %#o) and is not sticky: another user could replace %s; set XDG_RUNTIME_DIR and XDG_STATE_HOME to directories only you can write (chmod 700)",
			parent, fi.Mode().Perm(), filepath.Base(dir))
	}
	return nil
}

// owned checks that path (not followed) is a directory (dir) or a regular file of this user
// that nobody else can write.
func owned(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("store: %s: %w", path, err)
	}
	return ownedInfo(path, fi, dir)
}

func ownedInfo(path string, fi fs.FileInfo, dir bool) error {
	want := "a regular file"
	if dir {
		want = "a directory"
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("store: %s is a symlink, not %s: remove it (a lock or state file is never a link)", path, want)
	case dir != fi.IsDir() || !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("store: %s is not %s (mode %s): remove it", path, want, fi.Mode())
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("store: %s belongs to another user: remove it, or set XDG_RUNTIME_DIR and XDG_STATE_HOME to directories of your own", path)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("store: %s can be written by other users (mode %#o): chmod go-w %s", path, fi.Mode().Perm(), path)
	}
	return nil
}

// openPrivate opens a file of a private directory without following a symlink
// (O_NOFOLLOW), creating it 0600 when create is set, and checks the file it opened (fstat):
// this user's own regular file.
func openPrivate(path string, flag int, create bool) (*os.File, error) {
	flag |= syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	if create {
		flag |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, ownedInfo(path, fi, false)
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = ownedInfo(path, fi, false)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
