package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSwitches(t *testing.T) {
	dir := t.TempDir()
	env := func(k string) string {
		return map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state"), "XDG_RUNTIME_DIR": filepath.Join(dir, "run")}[k]
	}
	sw, err := OpenSwitches(env)
	if err != nil {
		t.Fatal(err)
	}
	if all, err := sw.Load(); err != nil || all != nil {
		t.Fatalf("Load of no file = %v, %v; want none", all, err)
	}
	now := time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)
	for _, x := range []Switch{
		{"s1", "/a", "/b", now.Add(-8 * 24 * time.Hour)}, // dropped at the next write: older than Keep
		{"s1", "/a", "/b", now.Add(-25 * time.Hour)},
		{"s1", "/b", "/a", now.Add(-2 * time.Hour)},
		{"s2", "/a", "/b", now.Add(-time.Hour)},
		{"s1", "/a", "/b", now.Add(-time.Hour)},
	} {
		if err := sw.Add(x, now); err != nil {
			t.Fatal(err)
		}
	}
	all, err := sw.Load()
	if err != nil || len(all) != 4 || all[0].At != now.Add(-25*time.Hour) {
		t.Fatalf("Load = %+v, %v; want the 4 switches within %s, oldest first", all, err, keep)
	}
	if fi, err := os.Stat(filepath.Join(dir, "state", "cac-tmux", "switches.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the record of switches: %v, %v; want a 0600 file in the state directory", fi, err)
	}
	if n := Count(all, "s1", now, 24*time.Hour); n != 2 {
		t.Errorf("Count(s1, 24h) = %d, want 2", n)
	}
	if n := Count(all, "s1", now.Add(-3*time.Hour), 24*time.Hour); n != 3 {
		t.Errorf("Count(s1, 24h) three hours ago = %d, want 3 (later switches count too)", n)
	}
	same := func(a, b string) bool { return a == b }
	if in := Into(all, "/b", same); len(in) != 2 || in["s1"] != now.Add(-time.Hour) || in["s2"] != now.Add(-time.Hour) {
		t.Errorf("Into(/b) = %v, want s1 and s2 an hour ago", in)
	}
	if in := Into(all, "/a", same); len(in) != 1 || in["s1"] != now.Add(-2*time.Hour) {
		t.Errorf("Into(/a) = %v, want s1 two hours ago", in)
	}

	// One switch at a time.
	l, err := LockSwitches(env)
	if err != nil {
		t.Fatal(err)
	}
	var locked *LockedError
	if _, err := LockSwitches(env); !errors.As(err, &locked) || locked.PID != os.Getpid() {
		t.Errorf("a second LockSwitches = %v, want *LockedError naming pid %d", err, os.Getpid())
	}
	l.Release()
	l2, err := LockSwitches(env)
	if err != nil {
		t.Errorf("LockSwitches after Release: %v", err)
	}
	l2.Release()

	if err := os.WriteFile(filepath.Join(dir, "state", "cac-tmux", "switches.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sw.Load(); err == nil {
		t.Errorf("Load of a corrupt record = nil error")
	}
}
