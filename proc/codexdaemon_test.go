package proc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The daemon of records/testdata/codex/daemon.pid, written by the real Codex 0.171.0: pid
// 10926, started at tick 2137201 of the boot below, 07:40:40 in New York (its TZ).
const (
	daemonPIDFile = "../records/testdata/codex/daemon.pid"
	daemonBoot    = "56325dc9-43fa-4c94-9f44-567379527ed2"
	daemonBtime   = 1795848268 // 2137201 ticks later is 12:40:40.01 UTC
)

// daemonTree is a fake /proc with the daemon (exe and argv given, starttime ticks, environ
// env) and a Codex home holding the real pid file.
func daemonTree(t *testing.T, exe string, argv []string, ticks int, env string) (root, home string) {
	t.Helper()
	root = fakeTree(t, true, fake{pid: 10926, ppid: 1, pgrp: 10926, tpgid: -1, comm: "codex", argv: argv, exe: exe, start: ticks})
	writeFile(t, root, "stat", []byte("cpu  1 2 3\nbtime 1795848268\nprocesses 9\n"))
	writeFile(t, root, "sys/kernel/random/boot_id", []byte(daemonBoot+"\n"))
	writeFile(t, root, "10926/environ", []byte(env))
	b, err := os.ReadFile(daemonPIDFile)
	if err != nil {
		t.Fatal(err)
	}
	home = t.TempDir()
	writeFile(t, home, "app-server-daemon/daemon.pid", b)
	return root, home
}

var daemonArgv = []string{codexDaemon, "app-server", "--listen", "unix://", "--analytics-default-enabled", "--managed-daemon"}

func TestDaemonZoneFakeProc(t *testing.T) {
	nyFile := filepath.Join(t.TempDir(), "localtime")
	if b, err := os.ReadFile("/usr/share/zoneinfo/America/New_York"); err != nil {
		t.Skipf("no zoneinfo: %v", err)
	} else if err := os.WriteFile(nyFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		exe       string
		argv      []string
		ticks     int
		env       string
		localtime string
		want      string // the zone's name, "" for an error
		why       string
	}{
		{"TZ an IANA name", codexDaemon, daemonArgv, 2137201, "HOME=/h\x00TZ=America/New_York\x00", "", "America/New_York", ""},
		{"TZ a zone file", codexDaemon, daemonArgv, 2137201, "TZ=:/usr/share/zoneinfo/America/New_York\x00", "", "America/New_York", ""},
		{"no TZ: the host's zone", codexDaemon, daemonArgv, 2137201, "HOME=/h\x00", nyFile, nyFile, ""},
		{"another zone than the start it recorded", codexDaemon, daemonArgv, 2137201, "TZ=Asia/Tokyo\x00", "", "", "which is not"},
		{"no TZ, no host zone: UTC, not the recorded start", codexDaemon, daemonArgv, 2137201, "", "/nonexistent", "", "which is not"},
		{"a POSIX rule", codexDaemon, daemonArgv, 2137201, "TZ=JST-9\x00", "", "", "not a zone"},
		{"the pid reused", codexDaemon, daemonArgv, 2137999, "TZ=America/New_York\x00", "", "", "another process"},
		{"not codex", "/usr/bin/sleep", daemonArgv, 2137201, "TZ=America/New_York\x00", "", "", "is not codex"},
		{"a codex TUI, not the daemon", codexNative, []string{"codex"}, 2137201, "TZ=America/New_York\x00", "", "", "not its app-server daemon"},
	} {
		root, home := daemonTree(t, c.exe, c.argv, c.ticks, c.env)
		f := &Finder{procRoot: root, ps: noPS(t), localtime: c.localtime}
		loc, how, err := f.DaemonZone(context.Background(), home)
		switch {
		case c.want == "" && (err == nil || !strings.Contains(err.Error(), c.why)):
			t.Errorf("%s: DaemonZone = %v, %q, %v; want an error saying %q", c.name, loc, how, err, c.why)
		case c.want != "" && (err != nil || loc.String() != c.want):
			t.Errorf("%s: DaemonZone = %v, %q, %v; want %s", c.name, loc, how, err, c.want)
		}
	}
	root, home := daemonTree(t, codexDaemon, daemonArgv, 2137201, "")
	f := &Finder{procRoot: root, ps: noPS(t)}
	if err := os.Remove(filepath.Join(root, "10926", "stat")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.DaemonZone(context.Background(), home); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Errorf("DaemonZone of a daemon gone = %v", err)
	}
	if _, _, err := f.DaemonZone(context.Background(), t.TempDir()); err == nil {
		t.Error("DaemonZone without a pid file: no error")
	}
}

// TestDaemonZoneNoProcFake: the same without /proc: ps's lstart (UTC) is the start, lsof the
// executable, ps eww the TZ.
func TestDaemonZoneNoProcFake(t *testing.T) {
	args := strings.Join(daemonArgv, " ")
	listing := "10926     1 10926    -1 Ssl  Sat Nov 28 12:40:40 2026 " + args + "\n"
	home := t.TempDir()
	b, err := os.ReadFile(daemonPIDFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, home, "app-server-daemon/daemon.pid", b)
	for _, c := range []struct {
		tz, want string
	}{{"America/New_York", "America/New_York"}, {"Europe/Berlin", ""}} {
		f := fakeTools(listing, map[int]lsofFake{10926: {exe: codexDaemon}})
		f.psEnviron = func(context.Context, int) (string, error) { return args + " HOME=/h TZ=" + c.tz + "\n", nil }
		loc, _, err := f.DaemonZone(context.Background(), home)
		if (c.want == "") != (err != nil) || (err == nil && loc.String() != c.want) {
			t.Errorf("TZ=%s: DaemonZone = %v, %v; want %q", c.tz, loc, err, c.want)
		}
	}
}

func TestStarted(t *testing.T) {
	root := fakeTree(t, true, shell(100))
	writeFile(t, root, "stat", []byte("cpu 1\nbtime 1795848268\n"))
	f := &Finder{procRoot: root}
	if at, err := f.Started(Identity{PID: 100, Start: "ticks:2137201"}); err != nil || !at.Equal(time.Date(2026, 11, 28, 12, 40, 40, 10e6, time.UTC)) {
		t.Errorf("Started from ticks = %v, %v", at, err)
	}
	if at, err := f.Started(Identity{PID: 100, Start: "lstart:Sun Nov 1 09:05:00 2026"}); err != nil || !at.Equal(time.Date(2026, 11, 1, 9, 5, 0, 0, time.UTC)) {
		t.Errorf("Started from lstart = %v, %v", at, err)
	}
	for _, bad := range []string{"ticks:x", "lstart:yesterday", "5000"} {
		if at, err := f.Started(Identity{PID: 100, Start: bad}); err == nil {
			t.Errorf("Started(%q) = %v, want an error", bad, at)
		}
	}
}
