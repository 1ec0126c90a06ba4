package store

import "strings"

// Open opens the state of the server whose socket is server for a command that may change it
// (`watch`; `resume`, `skip`, `unskip` without a watcher): it finds LockDir and StateDir with
// getenv, takes the lock without waiting (*LockedError when a watcher holds it), then checks
// the state directory (PrivateDir). The lock comes first, so a command that finds it held can
// hand its request over whatever its own environment lacks. A read-only store (--dry-run,
// --once) takes no lock, makes and checks nothing, and its Save writes nothing.
func Open(getenv func(string) string, server string, readOnly bool) (*Store, *Lock, error) {
	if readOnly {
		dir, err := StateDir(getenv)
		if err != nil {
			return nil, nil, err
		}
		st := New(dir, server)
		st.ReadOnly = true
		return st, nil, nil
	}
	lockDir, err := LockDir(getenv)
	if err != nil {
		return nil, nil, err
	}
	lock, err := acquire(lockDir, server)
	if err != nil {
		return nil, nil, err
	}
	stateDir, err := StateDir(getenv)
	if err == nil {
		err = PrivateDir(stateDir)
	}
	if err != nil {
		lock.Release()
		return nil, nil, err
	}
	return New(stateDir, server), lock, nil
}

// LockPane takes the lock of the actions on pane (its id, %12) of the tmux server whose
// socket is server, without waiting: a lock file beside the server's (LockPath), one per pane
// acted on, so that one resume, skip or unskip of a pane runs at a time. Another command
// holding it gives *LockedError.
func LockPane(getenv func(string) string, server, pane string) (*Lock, error) {
	dir, err := LockDir(getenv)
	if err != nil {
		return nil, err
	}
	return acquire(dir, server+".pane"+strings.TrimPrefix(pane, "%"))
}
