package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// envOf is a getenv over env.
func envOf(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

// Open takes the server's lock and checks the state directory; a second Open of the server is
// refused while the first holds it; read-only takes no lock and makes nothing.
func TestOpen(t *testing.T) {
	base := t.TempDir()
	getenv := envOf(map[string]string{"XDG_STATE_HOME": filepath.Join(base, "state"), "XDG_RUNTIME_DIR": filepath.Join(base, "run")})
	const server = "/tmp/tmux-1/default"
	stateDir, lockDir := filepath.Join(base, "state", "cac-tmux"), filepath.Join(base, "run", "cac-tmux")

	ro, lock, err := Open(getenv, server, true)
	if err != nil || lock != nil || !ro.ReadOnly || ro.Path != New(stateDir, server).Path {
		t.Fatalf("Open(read-only) = %+v, %v, %v; want a read-only store of %s and no lock", ro, lock, err, stateDir)
	}
	if _, err := os.Lstat(stateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(read-only) made %s (%v); want nothing made", stateDir, err)
	}

	st, lock, err := Open(getenv, server, false)
	if err != nil || st.ReadOnly || st.Server != server || st.Path != New(stateDir, server).Path || lock.path != LockPath(lockDir, server) {
		t.Fatalf("Open() = %+v, %+v, %v; want the store of %s and the lock in %s", st, lock, err, stateDir, lockDir)
	}
	if fi, err := os.Lstat(stateDir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("the state directory after Open: %v, %v; want a directory, mode 0700", fi, err)
	}
	var locked *LockedError
	if _, _, err := Open(getenv, server, false); !errors.As(err, &locked) || locked.PID != os.Getpid() {
		t.Errorf("a second Open() = %v; want a *LockedError naming pid %d", err, os.Getpid())
	}
	if _, l, err := Open(getenv, server, true); err != nil || l != nil {
		t.Errorf("Open(read-only) while the lock is held = %v, %v; want it to read, without the lock", l, err)
	}
	lock.Release()
	if _, lock, err = Open(getenv, server, false); err != nil {
		t.Fatalf("Open() after Release = %v", err)
	}
	lock.Release()
}

// A state directory that is a symlink is refused, and the lock taken for it dropped; a lock
// held is told before the state directory is looked for, so a command without one can still
// hand its request to the watcher.
func TestOpenRefusals(t *testing.T) {
	base := t.TempDir()
	const server = "/tmp/tmux-1/default"
	target := filepath.Join(base, "elsewhere")
	if err := os.MkdirAll(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(base, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(base, "state", "cac-tmux")); err != nil {
		t.Fatal(err)
	}
	getenv := envOf(map[string]string{"XDG_STATE_HOME": filepath.Join(base, "state"), "XDG_RUNTIME_DIR": filepath.Join(base, "run")})
	if _, _, err := Open(getenv, server, false); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("Open() with a symlink for the state directory = %v; want a refusal naming the symlink", err)
	}
	lockDir := filepath.Join(base, "run", "cac-tmux")
	if _, held, err := Holder(lockDir, server); held || err != nil {
		t.Errorf("the lock after a refused Open: held %v, %v; want it dropped", held, err)
	}

	noHome := envOf(map[string]string{"XDG_RUNTIME_DIR": filepath.Join(base, "run")})
	if _, _, err := Open(noHome, server, false); err == nil || !strings.Contains(err.Error(), "no state directory") {
		t.Errorf("Open() without a state directory = %v; want the error", err)
	}
	l, err := acquire(lockDir, server)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	var locked *LockedError
	if _, _, err := Open(noHome, server, false); !errors.As(err, &locked) {
		t.Errorf("Open() without a state directory while a watcher holds the lock = %v; want a *LockedError", err)
	}
}

// A pane's lock is one per pane, beside the server's and apart from it.
func TestLockPane(t *testing.T) {
	base := t.TempDir()
	getenv := envOf(map[string]string{"XDG_RUNTIME_DIR": base})
	const server = "/tmp/tmux-1/default"
	l, err := LockPane(getenv, server, "%3")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if want := LockPath(filepath.Join(base, "cac-tmux"), server+".pane3"); l.path != want {
		t.Errorf("LockPane(%%3).path = %s, want %s", l.path, want)
	}
	var locked *LockedError
	if _, err := LockPane(getenv, server, "%3"); !errors.As(err, &locked) || locked.PID != os.Getpid() {
		t.Errorf("LockPane(%%3) again = %v; want a *LockedError naming pid %d", err, os.Getpid())
	}
	other, err := LockPane(getenv, server, "%4")
	if err != nil {
		t.Fatalf("LockPane(%%4) = %v; want another pane's lock", err)
	}
	other.Release()
	srv, err := acquire(filepath.Join(base, "cac-tmux"), server)
	if err != nil {
		t.Fatalf("the server's lock while a pane's is held = %v; want it", err)
	}
	srv.Release()
}
