package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		in   string
		want statInfo
	}{
		{
			"5026 (bash) S 5025 5026 5026 34816 5100 4194560 1541 26151 2 32 0 1 17 7 20 0 1 0 125573 5124096 895 18446744073709551615 0 0\n",
			statInfo{pid: 5026, comm: "bash", state: 'S', ppid: 5025, pgrp: 5026, tty: 34816, tpgid: 5100, start: "125573"},
		},
		{
			"42 (my (odd) prog) x) R 1 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0",
			statInfo{pid: 42, comm: "my (odd) prog) x", state: 'R', ppid: 1, pgrp: 42, tpgid: -1, start: "7"},
		},
		{
			"7 () Z 1 7 7 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 99",
			statInfo{pid: 7, comm: "", state: 'Z', ppid: 1, pgrp: 7, tpgid: 0, start: "99"},
		},
	}
	for _, tt := range tests {
		got, err := parseStat([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("parseStat(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{
		"",
		"5026 bash S 1 2 3",
		"5026 (bash) S 5025 5026 5026 34816 5100 4194560",                  // too few fields
		"5026 (bash) S 5025 5026 5026 34816 x 0 0 0 0 0 0 0 0 0 0 0 1 0 9", // tpgid not a number
		"x (bash) S 5025 5026 5026 34816 1 0 0 0 0 0 0 0 0 0 0 0 1 0 9",
		"5026 (bash",
	} {
		if got, err := parseStat([]byte(in)); err == nil {
			t.Errorf("parseStat(%q) = %+v, want an error", in, got)
		}
	}
}

func TestParseStatSelf(t *testing.T) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	st, err := parseStat(b)
	if err != nil {
		t.Fatal(err)
	}
	if st.pid != os.Getpid() || st.ppid != os.Getppid() || st.start == "" {
		t.Errorf("parseStat(/proc/self/stat) = %+v, want pid %d ppid %d", st, os.Getpid(), os.Getppid())
	}
}

// fake is one process of a fake /proc tree.
type fake struct {
	pid, ppid, pgrp, tpgid int
	state                  byte // 'S' when 0
	comm                   string
	argv                   []string
	exe                    string // no exe link when ""
	start                  int
}

// fakeTree writes a fake /proc under a temporary directory and returns its root. Children
// files are derived from ppid; withChildren=false leaves them out (a kernel without
// CONFIG_PROC_CHILDREN).
func fakeTree(t testing.TB, withChildren bool, procs ...fake) string {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	kids := map[int][]string{}
	for _, p := range procs {
		kids[p.ppid] = append(kids[p.ppid], strconv.Itoa(p.pid))
	}
	for _, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(p.pid))
		task := filepath.Join(dir, "task", strconv.Itoa(p.pid))
		if err := os.MkdirAll(task, 0o755); err != nil {
			t.Fatal(err)
		}
		state := p.state
		if state == 0 {
			state = 'S'
		}
		stat := fmt.Sprintf("%d (%s) %c %d %d %d 34816 %d 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %d 5124096 895 0\n",
			p.pid, p.comm, state, p.ppid, p.pgrp, p.pgrp, p.tpgid, p.start)
		cmdline := ""
		for _, a := range p.argv {
			cmdline += a + "\x00"
		}
		files := map[string]string{"stat": stat, "comm": p.comm + "\n", "cmdline": cmdline}
		if withChildren {
			files["task/"+strconv.Itoa(p.pid)+"/children"] = strings.Join(kids[p.pid], " ") + " "
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if p.exe != "" {
			if err := os.Symlink(p.exe, filepath.Join(dir, "exe")); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// noPS is a Finder.PS that fails the test: /proc must answer.
func noPS(t testing.TB) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		t.Errorf("ps was run, want /proc to answer")
		return "", errors.New("no ps in this test")
	}
}

const nativeExe = "/home/u/.local/share/claude/versions/2.1.329"

// The pane's shell, pid 100, in most cases.
func shell(tpgid int) fake {
	return fake{pid: 100, ppid: 1, pgrp: 100, tpgid: tpgid, comm: "bash", argv: []string{"-bash"}, exe: "/usr/bin/bash", start: 1000}
}

// tmuxServer is a tmux 3.3a server on Linux, pid 50: it names itself "tmux: server".
var tmuxServer = fake{pid: 50, ppid: 1, pgrp: 50, tpgid: -1, comm: "tmux: server", argv: []string{"tmux", "new", "-d"}, exe: "/usr/bin/tmux", start: 900}

func TestFindFakeProc(t *testing.T) {
	tests := []struct {
		name     string
		children bool // write task/PID/children files
		procs    []fake
		pane     int
		wantPID  int // 0: not Claude Code
		wantHow  string
		starting bool // not Claude Code for now (Found.Starting)
	}{
		{
			name: "claude as leader", children: true, pane: 100, wantPID: 200,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
			wantHow: `foreground group 200 of pane pid 100: version-named executable under a claude directory`,
		},
		{
			name: "claude as pane process", children: true, pane: 100, wantPID: 100,
			procs: []fake{
				{pid: 100, ppid: 1, pgrp: 100, tpgid: 100, comm: "claude", argv: []string{"/home/u/.local/bin/claude", "--resume"}, exe: nativeExe, start: 5000}},
			wantHow: "foreground group 100 of pane pid 100",
		},
		{
			name: "node and cli.js", children: true, pane: 100, wantPID: 200,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "node", argv: []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}, exe: "/usr/bin/node", start: 5000}},
			wantHow: "node (/usr/bin/node) running",
		},
		{
			name: "versioned native binary", children: true, pane: 100, wantPID: 200,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "2.1.329", argv: []string{"2.1.329", "--continue"}, exe: nativeExe + " (deleted)", start: 5000}},
			wantHow: "version-named executable under a claude directory: " + strconv.Quote(nativeExe),
		},
		{
			name: "wrapper bash then claude", children: true, pane: 100, wantPID: 201,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "wrapper.sh"}, exe: "/usr/bin/bash", start: 4000},
				{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
			wantHow: "pid 201 at depth 1",
		},
		{
			name: "wrapper without children files", children: false, pane: 100, wantPID: 201,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "wrapper.sh"}, exe: "/usr/bin/bash", start: 4000},
				{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
			wantHow: "pid 201 at depth 1",
		},
		{
			name: "claude at depth 3", children: true, pane: 100, wantPID: 203,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "a.sh"}},
				{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "b.sh"}},
				{pid: 202, ppid: 201, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "c.sh"}},
				{pid: 203, ppid: 202, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
			wantHow: "depth 3",
		},
		{
			name: "claude at depth 4 is too deep", children: true, pane: 100,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "a.sh"}},
				{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "b.sh"}},
				{pid: 202, ppid: 201, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "c.sh"}},
				{pid: 203, ppid: 202, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "d.sh"}},
				{pid: 204, ppid: 203, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
		},
		// What runs decides, not a name.
		{
			name: "wrapper script named claude whose claude child is gone", children: true, pane: 100,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"/bin/bash", "/home/u/bin/claude"}, exe: "/usr/bin/bash", start: 4000}},
		},
		{
			name: "wrapper script named claude, claude child alive", children: true, pane: 100, wantPID: 201,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"/bin/bash", "/home/u/bin/claude"}, exe: "/usr/bin/bash", start: 4000},
				{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
			wantHow: "pid 201 at depth 1",
		},
		{
			name: "exec -a claude cat", children: true, pane: 100,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "cat", argv: []string{"claude"}, exe: "/usr/bin/cat", start: 5000}},
		},
		{
			name: "script named claude running cat", children: true, pane: 100,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"/bin/sh", "./claude"}, exe: "/usr/bin/dash", start: 4000},
				{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "cat", argv: []string{"cat"}, exe: "/usr/bin/cat", start: 5000}},
		},
		{
			name: "executable unreadable", children: true, pane: 100,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, start: 5000}},
		},
		{
			name: "shell at the prompt", children: true, pane: 100,
			procs: []fake{shell(100)},
		},
		{
			name: "claude suspended with Ctrl-Z", children: true, pane: 100,
			procs: []fake{shell(100),
				{pid: 300, ppid: 100, pgrp: 300, tpgid: 100, state: 'T', comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
		},
		{
			name: "claude in the background, vim in front", children: true, pane: 100,
			procs: []fake{shell(400),
				{pid: 300, ppid: 100, pgrp: 300, tpgid: 400, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000},
				{pid: 400, ppid: 100, pgrp: 400, tpgid: 400, comm: "vim", argv: []string{"vim", "claude.md"}, exe: "/usr/bin/vim", start: 6000}},
		},
		{
			name: "node server", children: true, pane: 100,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "node", argv: []string{"node", "server.js"}, exe: "/usr/bin/node", start: 5000}},
		},
		{
			name: "zombie claude", children: true, pane: 100,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, state: 'Z', comm: "claude", start: 5000}},
		},
		{
			name: "group leader gone", children: true, pane: 100, wantPID: 201,
			procs: []fake{shell(200),
				{pid: 201, ppid: 1, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
			wantHow: "(leader gone): pid 201",
		},
		{
			name: "group leader a zombie", children: true, pane: 100, wantPID: 201,
			procs: []fake{shell(200),
				{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, state: 'Z', comm: "bash"},
				{pid: 201, ppid: 1, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}},
			wantHow: "(leader gone): pid 201",
		},
		{
			name: "no terminal", children: true, pane: 100,
			procs: []fake{{pid: 100, ppid: 1, pgrp: 100, tpgid: -1, comm: "claude", argv: []string{"claude"}, exe: nativeExe}},
		},
		{
			name: "pane pid missing", children: true, pane: 999,
			procs: []fake{shell(100)},
		},
		// tmux 3.3a forks the pane's process and only then executes the program: a listing
		// in between names the program (from the pane's argv) while /proc shows the fork.
		{
			name: "tmux's fork before its terminal", children: true, pane: 100, starting: true,
			procs: []fake{tmuxServer,
				{pid: 100, ppid: 50, pgrp: 50, tpgid: -1, comm: "tmux: server", argv: tmuxServer.argv, exe: "/usr/bin/tmux", start: 5000}},
		},
		{
			name: "tmux's fork with its terminal", children: true, pane: 100, starting: true,
			procs: []fake{tmuxServer,
				{pid: 100, ppid: 50, pgrp: 100, tpgid: 100, comm: "tmux: server", argv: tmuxServer.argv, exe: "/usr/bin/tmux", start: 5000}},
		},
		{
			name: "a tmux client as the pane's program", children: true, pane: 100,
			procs: []fake{tmuxServer,
				{pid: 100, ppid: 50, pgrp: 100, tpgid: 100, comm: "tmux: client", argv: []string{"tmux", "attach"}, exe: "/usr/bin/tmux", start: 5000}},
		},
		{
			name: "a shell, child of the tmux server", children: true, pane: 100,
			procs: []fake{tmuxServer,
				{pid: 100, ppid: 50, pgrp: 100, tpgid: 100, comm: "bash", argv: []string{"-bash"}, exe: "/usr/bin/bash", start: 5000}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Finder{procRoot: fakeTree(t, tt.children, tt.procs...), ps: noPS(t)}
			got, ok, err := f.Find(context.Background(), tt.pane)
			if err != nil {
				t.Fatalf("Find(%d) error: %v", tt.pane, err)
			}
			if tt.wantPID == 0 {
				if ok || got.Starting != tt.starting {
					t.Fatalf("Find(%d) = %+v, %v, want not Claude Code, Starting %v", tt.pane, got, ok, tt.starting)
				}
				return
			}
			if !ok || got.PID != tt.wantPID || got.Start != "ticks:5000" {
				t.Fatalf("Find(%d) = %+v, %v, want pid %d start ticks:5000", tt.pane, got, ok, tt.wantPID)
			}
			if !strings.Contains(got.How, tt.wantHow) {
				t.Errorf("Find(%d).How = %q, want it to contain %q", tt.pane, got.How, tt.wantHow)
			}
			alive, err := f.alive(context.Background(), got.Identity)
			if err != nil || !alive {
				t.Errorf("alive(%+v) = %v, %v, want true", got.Identity, alive, err)
			}
		})
	}
}

func TestAliveFakeProc(t *testing.T) {
	root := fakeTree(t, true, shell(200),
		fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000},
		fake{pid: 300, ppid: 100, pgrp: 300, tpgid: 200, state: 'Z', comm: "claude", start: 6000})
	f := &Finder{procRoot: root, ps: noPS(t)}
	ctx := context.Background()
	tests := []struct {
		id   Identity
		want bool
	}{
		{Identity{200, "ticks:5000"}, true},
		{Identity{200, "ticks:4999"}, false}, // pid reused by another process
		{Identity{300, "ticks:6000"}, false}, // zombie
		{Identity{999, "ticks:5000"}, false}, // gone
	}
	for _, tt := range tests {
		got, err := f.alive(ctx, tt.id)
		if err != nil || got != tt.want {
			t.Errorf("alive(%+v) = %v, %v, want %v", tt.id, got, err, tt.want)
		}
	}
	for _, id := range []Identity{{200, "5000"}, {0, "ticks:1"}} {
		if got, err := f.alive(ctx, id); err == nil {
			t.Errorf("alive(%+v) = %v, nil, want an error", id, got)
		}
	}
	// An identity from /proc cannot be checked without /proc.
	f = &Finder{procRoot: filepath.Join(root, "nonexistent"), ps: noPS(t)}
	if got, err := f.alive(ctx, Identity{200, "ticks:5000"}); err == nil {
		t.Errorf("alive without /proc = %v, nil, want an error", got)
	}
}

// TestFindFallback: /proc that cannot answer (missing, not a procfs, a stat that does not
// parse) sends Find to ps, and when ps fails too, Find fails.
func TestFindFallback(t *testing.T) {
	const listing = `  100     1   100   200 Ss   Fri Nov 20 22:54:00 2026 -bash
  200   100   200   200 S+   Fri Nov 20 22:54:10 2026 claude
`
	good := func(context.Context) (string, error) { return listing, nil }
	bad := func(context.Context) (string, error) { return "", errors.New("ps not found") }
	tools := map[int]lsofFake{100: {exe: "/usr/bin/bash"}, 200: {exe: nativeExe, comm: "claude"}}

	notProcfs := t.TempDir() // exists but has no "self"
	garbled := fakeTree(t, true, shell(200))
	if err := os.WriteFile(filepath.Join(garbled, "100", "stat"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{filepath.Join(t.TempDir(), "none"), notProcfs, garbled} {
		f := &Finder{procRoot: root, ps: good, lsof: lsofOf(tools), args: noExactArgs}
		got, ok, err := f.Find(context.Background(), 100)
		if err != nil || !ok || got.PID != 200 || got.Start != "lstart:Fri Nov 20 22:54:10 2026" || !strings.Contains(got.How, noProcSource) {
			t.Errorf("Find with root %s = %+v, %v, %v, want pid 200 from ps", root, got, ok, err)
		}
		f = &Finder{procRoot: root, ps: bad, lsof: lsofOf(tools), args: noExactArgs}
		if got, ok, err := f.Find(context.Background(), 100); err == nil || !strings.Contains(err.Error(), "ps not found") {
			t.Errorf("Find with root %s and failing ps = %+v, %v, %v, want an error", root, got, ok, err)
		} else {
			t.Logf("error: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &Finder{procRoot: garbled, ps: good, lsof: lsofOf(tools), args: noExactArgs}
	if _, _, err := f.Find(ctx, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("Find with a cancelled context: error %v, want context.Canceled", err)
	}
	if _, _, err := f.Find(context.Background(), 0); err == nil {
		t.Errorf("Find(0): no error")
	}
}

// BenchmarkFind measures one Find (one pane) on a fake tree on tmpfs or disk: the system
// calls are those of a real /proc, their cost is not.
func BenchmarkFind(b *testing.B) {
	cases := []struct {
		name  string
		procs []fake
	}{
		{"shell", []fake{shell(100)}},
		{"claude", []fake{shell(200),
			{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}}},
		{"wrapper", []fake{shell(200),
			{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "wrapper.sh"}, exe: "/usr/bin/bash", start: 4000},
			{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f := &Finder{procRoot: fakeTree(b, true, c.procs...), ps: noPS(b)}
			ctx := context.Background()
			for b.Loop() {
				if _, _, err := f.Find(ctx, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestFindRegistryConfirms: Claude Code's session registry entry for the process (same pid and
// start) is named in How; one for an earlier process with the pid is not.
func TestFindRegistryConfirms(t *testing.T) {
	home := t.TempDir()
	root := fakeTree(t, true, shell(200),
		fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000})
	writeFile(t, root, "200/environ", []byte("PATH=/bin\x00HOME="+home+"\x00"))
	writeFile(t, home, ".claude/sessions/200.json", []byte(`{"pid":200,"procStart":"5000","version":"2.1.330"}`))
	f := &Finder{procRoot: root, ps: noPS(t)}
	got, ok, err := f.Find(context.Background(), 100)
	if err != nil || !ok || !strings.Contains(got.How, "session registry entry names it (Claude Code 2.1.330)") {
		t.Errorf("Find = %+v, %v, %v, want the registry named in How", got, ok, err)
	}
	writeFile(t, home, ".claude/sessions/200.json", []byte(`{"pid":200,"procStart":"4000","version":"2.1.330"}`))
	got, ok, err = f.Find(context.Background(), 100)
	if err != nil || !ok || strings.Contains(got.How, "registry") {
		t.Errorf("Find with a stale entry = %+v, %v, %v, want Claude Code without the registry", got, ok, err)
	}
}
