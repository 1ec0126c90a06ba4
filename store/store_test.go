package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func sample() map[string]Pane {
	at := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return t
	}
	return map[string]Pane{
		"%3": {PID: 4242, Start: "ticks:991", Agent: "codex", State: "waiting", Stop: "You've hit your session limit · resets 7:30pm (Asia/Nicosia)",
			Appeared: at("2026-11-20T14:02:03+02:00"), Stopped: at("2026-11-20T14:02:03+02:00"), Kind: "session",
			Reset: at("2026-11-20T19:30:00+02:00"), ResetHow: "next 7:30pm after the message", ResetZone: "Asia/Nicosia",
			Due: at("2026-11-20T19:31:00+02:00")},
		"%12": {PID: 77, Start: "lstart:Fri Nov 20 10:00:00 2026", State: "verifying", Stop: "Claude usage limit reached.",
			Stopped: at("2026-11-20T10:00:00Z"), Attempts: 2, Sent: at("2026-11-20T11:00:00Z"), Typed: true, Above: "ab12"},
	}
}

func TestSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "cac-tmux")
	s := New(dir, "/tmp/tmux-1000/default")
	if got, err := s.Load(); err != nil || len(got) != 0 {
		t.Fatalf("Load() of a missing file = %v, %v, want no records and no error", got, err)
	}
	want := sample()
	if err := s.Save(want); err != nil {
		t.Fatal(err)
	}
	for path, mode := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, s.Path: 0o600} {
		if st, err := os.Stat(path); err != nil || st.Mode() != mode {
			t.Errorf("mode of %s = %v (%v), want %v", path, st.Mode(), err, mode)
		}
	}
	got, err := New(dir, "/tmp/tmux-1000/default").Load()
	if err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		g := got[id]
		// Times come back as the same instants.
		if !g.Reset.Equal(w.Reset) || !g.Due.Equal(w.Due) || !g.Sent.Equal(w.Sent) || !g.Appeared.Equal(w.Appeared) {
			t.Errorf("Load()[%s] times = %+v, want %+v", id, g, w)
		}
		g.Reset, g.Due, g.Sent, g.Appeared, g.Stopped = w.Reset, w.Due, w.Sent, w.Appeared, w.Stopped
		if !reflect.DeepEqual(g, w) {
			t.Errorf("Load()[%s] = %+v, want %+v", id, g, w)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files in the state directory = %d, want 1 (no temporary file left)", len(entries))
	}
}

func TestSaveWritesOnlyChanges(t *testing.T) {
	s := New(t.TempDir(), "/s")
	if err := s.Save(sample()); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(s.Path)
	// Replace the file behind the store's back: an unchanged Save must not rewrite it.
	if err := os.WriteFile(s.Path, []byte("marker"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(sample()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(s.Path); string(b) != "marker" {
		t.Errorf("an unchanged Save rewrote the file (size was %d)", before.Size())
	}
	changed := sample()
	delete(changed, "%3")
	if err := s.Save(changed); err != nil {
		t.Fatal(err)
	}
	if got, err := New(filepath.Dir(s.Path), "/s").Load(); err != nil || len(got) != 1 {
		t.Errorf("Load() after a changed Save = %d records, %v, want 1", len(got), err)
	}
}

func TestLoadSetsAside(t *testing.T) {
	for _, tc := range []struct{ name, content, why string }{
		{"corrupt", `{"version":1,"server":"/s","panes":{"%1":{"pid":`, "not a state file"},
		{"garbage", "\x00\x01binary", "not a state file"},
		{"foreign version", `{"version":7,"server":"/s","panes":{}}`, "format version 7"},
		{"unknown field", `{"version":1,"server":"/s","panes":{},"extra":1}`, "not a state file"},
		{"other server", `{"version":1,"server":"/other","panes":{}}`, `written for server "/other"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := New(dir, "/s")
			s.now = func() time.Time { return time.Date(2026, 11, 21, 9, 8, 7, 0, time.UTC) }
			if err := os.WriteFile(s.Path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := s.Load()
			var aside *setAsideError
			if !errors.As(err, &aside) || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("Load() error = %v, want a *setAsideError saying %q", err, tc.why)
			}
			if len(got) != 0 {
				t.Errorf("Load() = %v, want no records", got)
			}
			if b, err := os.ReadFile(s.Path + ".bad-20261121T090807Z"); err != nil || string(b) != tc.content {
				t.Errorf("set-aside file = %q, %v, want the old content", b, err)
			}
			if _, err := os.Stat(s.Path); !os.IsNotExist(err) {
				t.Errorf("the unusable file is still in place: %v", err)
			}
			// A fresh state is written where it was.
			if err := s.Save(sample()); err != nil {
				t.Fatal(err)
			}
			if got, err := New(dir, "/s").Load(); err != nil || len(got) != 2 {
				t.Errorf("Load() after a fresh Save = %d records, %v, want 2", len(got), err)
			}
		})
	}
}

func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	s := New(dir, "/s")
	s.ReadOnly = true
	if err := s.Save(sample()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path); !os.IsNotExist(err) {
		t.Errorf("a read-only Save wrote %s", s.Path)
	}
	os.WriteFile(s.Path, []byte("{"), 0o600)
	if _, err := s.Load(); err == nil {
		t.Error("Load() of a corrupt file = nil error, want a warning")
	}
	if _, err := os.Stat(s.Path); err != nil {
		t.Errorf("a read-only Load moved the file: %v", err)
	}
}

func TestKey(t *testing.T) {
	a, b := key("/tmp/tmux-1000/default"), key("/tmp/other/default")
	if a == b || !strings.HasPrefix(a, "default-") || !strings.HasPrefix(b, "default-") {
		t.Errorf("key() = %q and %q, want two different names starting default-", a, b)
	}
	if k := key("/x/a\x01b"); strings.ContainsAny(k, "/\x01") {
		t.Errorf("key() = %q, want no / or control character", k)
	}
}

func TestDirs(t *testing.T) {
	for _, tc := range []struct {
		env         map[string]string
		state, lock string
	}{
		{map[string]string{"HOME": "/h"}, "/h/.local/state/cac-tmux", "/h/.local/state/cac-tmux"},
		{map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/st", "XDG_RUNTIME_DIR": "/run/user/7"}, "/st/cac-tmux", "/run/user/7/cac-tmux"},
		{map[string]string{"HOME": "/h", "XDG_STATE_HOME": "rel", "XDG_RUNTIME_DIR": "rel"}, "/h/.local/state/cac-tmux", "/h/.local/state/cac-tmux"},
	} {
		getenv := func(k string) string { return tc.env[k] }
		st, err1 := StateDir(getenv)
		lk, err2 := LockDir(getenv)
		if st != tc.state || lk != tc.lock || err1 != nil || err2 != nil {
			t.Errorf("StateDir, LockDir(%v) = %q, %q (%v, %v), want %q, %q", tc.env, st, lk, err1, err2, tc.state, tc.lock)
		}
	}
	if _, err := StateDir(func(string) string { return "" }); err == nil {
		t.Error("StateDir() with no HOME = nil error, want one")
	}
}

func TestLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	l, err := acquire(dir, "/tmp/tmux-1/a")
	if err != nil {
		t.Fatal(err)
	}
	_, err = acquire(dir, "/tmp/tmux-1/a")
	var locked *LockedError
	if !errors.As(err, &locked) || locked.PID != os.Getpid() || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second acquire() = %v, want a *LockedError naming pid %d", err, os.Getpid())
	}
	if pid, running, err := Holder(dir, "/tmp/tmux-1/a"); pid != os.Getpid() || !running || err != nil {
		t.Errorf("Holder() = %d, %v, %v, want %d, true", pid, running, err, os.Getpid())
	}
	other, err := acquire(dir, "/tmp/tmux-1/b")
	if err != nil {
		t.Fatalf("acquire() of another server = %v, want it to succeed", err)
	}
	other.Release()
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, running, err := Holder(dir, "/tmp/tmux-1/a"); running || err != nil {
		t.Errorf("Holder() after Release = running %v, %v, want not running", running, err)
	}
	again, err := acquire(dir, "/tmp/tmux-1/a")
	if err != nil {
		t.Fatalf("acquire() after Release = %v", err)
	}
	again.Release()
	if _, running, err := Holder(t.TempDir(), "/none"); running || err != nil {
		t.Errorf("Holder() without a lock file = running %v, %v", running, err)
	}
}

// TestLockDiesWithProcess: a watcher killed with SIGKILL leaves no lock behind.
func TestLockDiesWithProcess(t *testing.T) {
	if dir := os.Getenv("CAC_STORE_HOLD"); dir != "" {
		if _, err := acquire(dir, "/srv"); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockDiesWithProcess$")
	cmd.Env = append(os.Environ(), "CAC_STORE_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "held\n" {
		cmd.Process.Kill()
		t.Fatalf("helper process did not take the lock: %q, %v", buf, err)
	}
	var locked *LockedError
	if _, err := acquire(dir, "/srv"); !errors.As(err, &locked) || locked.PID != cmd.Process.Pid {
		t.Errorf("acquire() while another process holds the lock = %v, want pid %d", err, cmd.Process.Pid)
	}
	cmd.Process.Kill() // SIGKILL
	cmd.Wait()
	l, err := acquire(dir, "/srv")
	if err != nil {
		t.Fatalf("acquire() after the holder was killed = %v, want the lock", err)
	}
	l.Release()
}

// TestLockAndStateRefuseWhatOthersControl: a symlink planted where the lock or the state file
// goes is never followed (its target is left as it was), and a directory or file that another
// user owns or can write is refused with the fix.
func TestLockAndStateRefuseWhatOthersControl(t *testing.T) {
	base := t.TempDir()
	victim := filepath.Join(base, "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "run", "cac-tmux")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	server := "/tmp/tmux-0/default"
	if err := os.Symlink(victim, LockPath(dir, server)); err != nil {
		t.Fatal(err)
	}
	if l, err := acquire(dir, server); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("acquire with a planted symlink = %v, %v; want a refusal naming the symlink", l, err)
	}
	if _, _, err := Holder(dir, server); err == nil {
		t.Errorf("Holder through a planted symlink: no error")
	}
	st := New(dir, server)
	if err := os.Symlink(victim, st.Path); err != nil {
		t.Fatal(err)
	}
	if recs, err := st.Load(); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("Load through a planted symlink = %v, %v; want a refusal", recs, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the symlink's target was changed: %q", b)
	}

	// A lock file others can write, a directory others can write, a parent others can write.
	os.Remove(LockPath(dir, server))
	if err := os.WriteFile(LockPath(dir, server), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(LockPath(dir, server), 0o666)
	if _, err := acquire(dir, server); err == nil || !strings.Contains(err.Error(), "chmod go-w") {
		t.Errorf("acquire with a lock file others can write: %v; want a refusal", err)
	}
	os.Chmod(LockPath(dir, server), 0o600)
	os.Chmod(dir, 0o777)
	if _, err := acquire(dir, server); err == nil || !strings.Contains(err.Error(), "written by other users") {
		t.Errorf("acquire in a directory others can write: %v; want a refusal", err)
	}
	os.Chmod(dir, 0o700)
	os.Chmod(filepath.Dir(dir), 0o777)
	if _, err := acquire(dir, server); err == nil || !strings.Contains(err.Error(), "XDG_RUNTIME_DIR") {
		t.Errorf("acquire under a runtime directory others can write: %v; want a refusal with the fix", err)
	}
	os.Chmod(filepath.Dir(dir), 0o777|os.ModeSticky) // sticky, like /tmp: nobody can replace another's entry
	l, err := acquire(dir, server)
	if err != nil {
		t.Fatalf("acquire under a sticky runtime directory: %v", err)
	}
	l.Release()

	// A directory of another user (as root, the test can make one).
	if os.Getuid() != 0 {
		t.Logf("not root: the directory of another user is not tried")
		return
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(dir, server); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Errorf("acquire in another user's directory: %v; want a refusal", err)
	}
}

// A state file found at 0644 (copied in, restored from a backup) is 0600 once written: the
// records name processes and limits, nobody else's business.
func TestReplaceSetsTheMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after Replace = %v, want 0600", fi.Mode().Perm())
	}
}
