package store

import "path/filepath"

// LockAllServers takes the lock of the one `watch --all-servers` of the tmux servers in
// socketDir (tmuxctl.SocketDir), without waiting; another holding it gives *LockedError with
// its pid. The lock file is in the state directory (StateDir), not the runtime directory of
// the servers' own locks: a second --all-servers started with another XDG_RUNTIME_DIR (or
// after the runtime directory was removed at logout) finds it all the same.
func LockAllServers(getenv func(string) string, socketDir string) (*Lock, error) {
	dir, err := StateDir(getenv)
	if err != nil {
		return nil, err
	}
	return acquire(dir, allServers(socketDir))
}

// AllServersHolder returns the pid of the `watch --all-servers` that holds the servers in
// socketDir: running is false when none does (LockAllServers).
func AllServersHolder(getenv func(string) string, socketDir string) (pid int, running bool, err error) {
	dir, err := StateDir(getenv)
	if err != nil {
		return 0, false, err
	}
	return Holder(dir, allServers(socketDir))
}

// allServers names the lock of the servers in socketDir: all-servers-<digest of the path>.lock.
func allServers(socketDir string) string { return filepath.Join(socketDir, "all-servers") }
