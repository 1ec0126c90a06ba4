package proc

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestExplainFakeProc(t *testing.T) {
	for _, tc := range []struct {
		name  string
		procs []fake
		pane  int
		want  string
	}{
		{"claude found", []fake{shell(200),
			{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}}, 100, ""},
		{"a script named claude", []fake{shell(200),
			{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"/bin/sh", "/home/u/bin/claude"}, exe: "/usr/bin/dash", start: 5000}}, 100,
			`pid 200: comm "claude", argv[0] "/bin/sh", executable "/usr/bin/dash": not Claude Code`},
		{"another user's claude", []fake{shell(200),
			{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, start: 5000}}, 100,
			`pid 200 (comm "claude"): its executable cannot be read (another user's process?), and only the executable can confirm Claude Code`},
		{"the shell at its prompt", []fake{shell(100)}, 100,
			`pid 100: comm "bash", argv[0] "-bash", executable "/usr/bin/bash": not Claude Code`},
		{"no terminal", []fake{shell(-1)}, 100, "the pane's process 100 has no terminal, so no foreground"},
		{"gone", []fake{shell(100)}, 999, "the pane's process 999 is gone"},
		{"make -j", []fake{shell(200),
			{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "make", argv: []string{"make", "-j"}, exe: "/usr/bin/make", start: 5000},
			{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "cc", argv: []string{"cc"}, exe: "/usr/bin/cc", start: 5001},
			{pid: 202, ppid: 200, pgrp: 200, tpgid: 200, comm: "cc", argv: []string{"cc"}, exe: "/usr/bin/cc", start: 5002},
			{pid: 203, ppid: 200, pgrp: 200, tpgid: 200, comm: "cc", argv: []string{"cc"}, exe: "/usr/bin/cc", start: 5003}}, 100,
			`pid 200: comm "make", argv[0] "make", executable "/usr/bin/make": not Claude Code|` +
				`pid 201: comm "cc", argv[0] "cc", executable "/usr/bin/cc": not Claude Code|` +
				`pid 202: comm "cc", argv[0] "cc", executable "/usr/bin/cc": not Claude Code|` +
				`pid 203: comm "cc", argv[0] "cc", executable "/usr/bin/cc": not Claude Code`},
	} {
		f := &Finder{procRoot: fakeTree(t, true, tc.procs...), ps: noPS(t)}
		why, err := f.explain(context.Background(), tc.pane)
		if got := strings.Join(why, "|"); err != nil || got != tc.want || (why == nil) != (tc.want == "") {
			t.Errorf("%s: explain(%d) = %q, %v\nwant %q", tc.name, tc.pane, why, err, tc.want)
		}
		if _, ok, _ := f.Find(context.Background(), tc.pane); ok != (tc.want == "") {
			t.Errorf("%s: Find(%d) = %v, but explain says %q", tc.name, tc.pane, ok, tc.want)
		}
	}
	f := &Finder{procRoot: filepath.Join(t.TempDir(), "none"), ps: failPS}
	if _, err := f.explain(context.Background(), 100); err == nil || !strings.HasPrefix(err.Error(), "proc: explain pane pid 100: ") {
		t.Errorf("explain without /proc, ps failing = %v, want an error", err)
	}
}

func TestProcStart(t *testing.T) {
	for _, tc := range []struct {
		id    Identity
		start string
		ok    bool
	}{
		{Identity{PID: 1, Start: "ticks:26849"}, "26849", true},
		{Identity{PID: 1, Start: "lstart:Fri Nov 20 10:00:00 2026"}, "", false},
		{Identity{}, "", false},
	} {
		if start, ok := tc.id.ProcStart(); ok != tc.ok || ok && start != tc.start {
			t.Errorf("%+v.ProcStart() = %q, %v; want %q, %v", tc.id, start, ok, tc.start, tc.ok)
		}
	}
}
