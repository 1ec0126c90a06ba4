package proc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestTmuxSocketFlags(t *testing.T) {
	for _, tc := range []struct {
		argv        []string
		path, label string
	}{
		{[]string{"tmux", "attach"}, "", ""},
		{[]string{"tmux", "-S", "/tmp/s", "attach"}, "/tmp/s", ""},
		{[]string{"tmux", "-S/tmp/s", "a"}, "/tmp/s", ""},
		{[]string{"tmux", "-2uL", "work", "attach", "-t", "x"}, "", "work"},
		{[]string{"tmux", "-uLwork"}, "", "work"},
		{[]string{"tmux", "-f", "-S", "attach"}, "", ""},              // -f takes "-S" as its value
		{[]string{"tmux", "-L", "a", "-S", "b", "-L", "c"}, "b", "c"}, // the last of each; -S wins (socketFrom)
		{[]string{"tmux", "attach", "-S", "/x"}, "", ""},              // after the command: not tmux's flags
		{[]string{"tmux", "--", "-S", "/x"}, "", ""},
		{[]string{"tmux", "-S"}, "", ""},
		{nil, "", ""},
	} {
		if path, label := tmuxSocketFlags(tc.argv); path != tc.path || label != tc.label {
			t.Errorf("tmuxSocketFlags(%q) = %q, %q, want %q, %q", tc.argv, path, label, tc.path, tc.label)
		}
	}
}

func TestSocketFrom(t *testing.T) {
	tmp := t.TempDir()
	real, err := filepath.EvalSymlinks(tmp)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"TMUX_TMPDIR": tmp}
	for _, tc := range []struct {
		argv []string
		env  map[string]string
		uid  int
		cwd  string
		want string // "" : an error
	}{
		{[]string{"tmux", "-S", "/a/../b/s", "attach"}, nil, -1, "", "/b/s"},
		{[]string{"tmux", "-S", "s", "attach"}, nil, -1, "/home/u", "/home/u/s"},
		{[]string{"tmux", "-S", "s", "attach"}, nil, -1, "", ""}, // relative, cwd unknown
		{[]string{"tmux", "-L", "work", "attach"}, env, 1000, "", filepath.Join(real, "tmux-1000", "work")},
		{[]string{"tmux", "attach"}, env, 0, "", filepath.Join(real, "tmux-0", "default")},
		{[]string{"tmux", "attach"}, map[string]string{"TMUX": "/x/y,123,0"}, 0, "", "/x/y"},
		{[]string{"tmux", "-L", "w", "attach"}, map[string]string{"TMUX": "/x/y,123,0", "TMUX_TMPDIR": tmp}, 5, "", filepath.Join(real, "tmux-5", "w")},
		{[]string{"tmux", "attach"}, nil, 0, "", ""},  // environment unreadable
		{[]string{"tmux", "attach"}, env, -1, "", ""}, // user unknown
	} {
		got, err := tmuxClient{argv: tc.argv}.socketFrom(tc.env, tc.uid, tc.cwd)
		if got != tc.want || (err != nil) != (tc.want == "") {
			t.Errorf("socketFrom(%q, %v, %d, %q) = %q, %v, want %q", tc.argv, tc.env, tc.uid, tc.cwd, got, err, tc.want)
		}
	}
}

func TestTTYName(t *testing.T) {
	for tty, want := range map[int]string{
		34816: "/dev/pts/0", 136<<8 | 5: "/dev/pts/5", 0x34 | 136<<8 | 0x1200<<12: "/dev/pts/" + strconv.Itoa(0x1234),
		4<<8 | 2: "/dev/tty2", 0: "", 4<<8 | 64: "", 5<<8 | 1: "",
	} {
		if got := ttyName(tty); got != want {
			t.Errorf("ttyName(%#x) = %q, want %q", tty, got, want)
		}
	}
}

func TestEnvironVars(t *testing.T) {
	got := environVars([]byte("A=1\x00TMUX=/s,1,0\x00TMUX_TMPDIR=/t\x00TMUX=/later\x00junk\x00"), tmuxEnv...)
	if want := map[string]string{"TMUX": "/s,1,0", "TMUX_TMPDIR": "/t"}; !reflect.DeepEqual(got, want) {
		t.Errorf("environVars = %v, want %v", got, want)
	}
	vars, err := psEnvVars("tmux attach TMUX_TMPDIR=/a b HOME=/h\n", "tmux attach", tmuxEnv...)
	if want := map[string]string{"TMUX_TMPDIR": "/a b"}; err != nil || !reflect.DeepEqual(vars, want) {
		t.Errorf("psEnvVars = %v, %v, want %v", vars, err, want)
	}
	if vars, err := psEnvVars("tmux attach TMUX=/a TMUX=/b\n", "tmux attach", tmuxEnv...); err == nil {
		t.Errorf("psEnvVars with TMUX twice = %v, want an error", vars)
	}
}

func TestListening(t *testing.T) {
	file := filepath.Join(t.TempDir(), "unix")
	text := "Num       RefCount Protocol Flags    Type St Inode Path\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01   777 /tmp/x/s\n" + // listening
		"0000000000000000: 00000003 00000000 00000000 0001 03   778 /tmp/x/s\n" + // a connection
		"0000000000000000: 00000002 00000000 00010000 0001 01   779 /tmp/x/s2\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01   780 /tmp/with space\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01   781\n" // unbound
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]map[string]bool{
		"/tmp/x/s":        {"socket:[777]": true},
		"/tmp/with space": {"socket:[780]": true},
		"/tmp/none":       {},
	} {
		if got := listening(file, path); !reflect.DeepEqual(got, want) {
			t.Errorf("listening(%s) = %v, want %v", path, got, want)
		}
	}
	if got := listening(filepath.Join(t.TempDir(), "none"), "/tmp/x/s"); len(got) != 0 {
		t.Errorf("listening(no file) = %v", got)
	}

	// A server that bound its socket through a symlink is the server of the resolved path.
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, real, "real/s", nil)
	if err := os.Symlink(filepath.Join(real, "real"), filepath.Join(real, "link")); err != nil {
		t.Fatal(err)
	}
	text = "Num RefCount Protocol Flags Type St Inode Path\n0: 00000002 00000000 00010000 0001 01 790 " + filepath.Join(real, "link", "s") + "\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := listening(file, filepath.Join(real, "real", "s")); !reflect.DeepEqual(got, map[string]bool{"socket:[790]": true}) {
		t.Errorf("listening(through a link) = %v", got)
	}
	if got, err := parseLsofUnix("p60\nf6\nn"+filepath.Join(real, "link", "s")+" type=STREAM\n", filepath.Join(real, "real", "s")); err != nil || !reflect.DeepEqual(got, []int{60}) {
		t.Errorf("parseLsofUnix(through a link) = %v, %v", got, err)
	}
}

func TestParseLsofUnix(t *testing.T) {
	out := "p1\nf3\nntype=STREAM\np60\nf6\nn/tmp/x/s type=STREAM\nf7\nn/tmp/x/s type=STREAM\np61\nf5\nn/tmp/x/s2 type=STREAM\np70\nf4\nn/tmp/x/s\n"
	if got, err := parseLsofUnix(out, "/tmp/x/s"); err != nil || !reflect.DeepEqual(got, []int{60, 70}) {
		t.Errorf("parseLsofUnix = %v, %v, want [60 70]", got, err)
	}
	for _, bad := range []string{"f3\n", "n/x\n", "p1\n\n", "px\n", "p1\nc tmux\n", "p0\n"} {
		if got, err := parseLsofUnix(bad, "/x"); err == nil {
			t.Errorf("parseLsofUnix(%q) = %v, want an error", bad, got)
		}
	}
}

// beneathTree is a fake /proc with pane 100's shell (tpgid 200) and, in the foreground, the
// processes given.
func beneathTree(t *testing.T, procs ...fake) string {
	return fakeTree(t, true, append([]fake{shell(200)}, procs...)...)
}

// TestDiagnoseFakeProc: on fake /proc trees, Claude Code under a program with a terminal of
// its own and in the panes of the server of a tmux client is named, and never found; what is
// not Claude Code there, or a server that cannot be looked at, is said.
func TestDiagnoseFakeProc(t *testing.T) {
	script := fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "script", argv: []string{"script", "-qfc", "claude"}, exe: "/usr/bin/script", start: 5000}
	under := fake{pid: 300, ppid: 200, pgrp: 300, tpgid: 300, comm: "sh", argv: []string{"sh", "-c", "claude"}, exe: "/usr/bin/dash", start: 5001}
	claude := fake{pid: 301, ppid: 300, pgrp: 300, tpgid: 300, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5002}
	ctx := context.Background()

	f := &Finder{procRoot: beneathTree(t, script, under, claude), ps: noPS(t)}
	d, err := f.Diagnose(ctx, 100)
	want := Beneath{Claude: Found{Identity: Identity{PID: 301, Start: "ticks:5002"}}, Via: 200, ViaComm: "script", Terminal: "/dev/pts/0"}
	if err != nil || d.Beneath == nil || d.Beneath.Claude.Identity != want.Claude.Identity || d.Beneath.Via != 200 ||
		d.Beneath.ViaComm != "script" || d.Beneath.Terminal != "/dev/pts/0" || len(d.Why) != 2 || d.Why[0] != d.Beneath.String() {
		t.Errorf("Diagnose(script) = %+v, %v\nwant %+v first", d, err, want)
	}
	if _, ok, _ := f.Find(ctx, 100); ok {
		t.Errorf("Find took the claude under script")
	}

	// A background job is on the pane's terminal: not looked under. Nor is a job on a
	// terminal of its own whose claude is not Claude Code.
	bg := under
	bg.tpgid = 200
	sleeper := claude
	sleeper.exe = "/usr/bin/sleep"
	for name, root := range map[string]string{"background": beneathTree(t, script, bg, claude), "not claude": beneathTree(t, script, under, sleeper)} {
		f := &Finder{procRoot: root, ps: noPS(t)}
		if d, err := f.Diagnose(ctx, 100); err != nil || d.Beneath != nil || len(d.Why) != 1 {
			t.Errorf("Diagnose(%s) = %+v, %v, want the script alone", name, d, err)
		}
	}

	// A tmux client (pid 200) of the server pid 60, listening on /tmp/x/s, whose pane 61 runs claude.
	client := fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "tmux: client", argv: []string{"tmux", "-S", "/tmp/x/s", "attach"}, exe: "/usr/bin/tmux", start: 5000}
	server := fake{pid: 60, ppid: 1, pgrp: 60, tpgid: -1, comm: "tmux: server", argv: []string{"tmux", "-S", "/tmp/x/s", "new"}, exe: "/usr/bin/tmux", start: 900}
	inner := fake{pid: 61, ppid: 60, pgrp: 61, tpgid: 61, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 901}
	root := beneathTree(t, client, server, inner)
	writeFile(t, root, "net/unix", []byte("Num RefCount Protocol Flags Type St Inode Path\n0: 00000002 00000000 00010000 0001 01 777 /tmp/x/s\n"))
	if err := os.MkdirAll(filepath.Join(root, "60", "fd"), 0o755); err != nil {
		t.Fatal(err)
	}
	for fd, link := range map[string]string{"0": "/dev/null", "6": "socket:[777]"} {
		if err := os.Symlink(link, filepath.Join(root, "60", "fd", fd)); err != nil {
			t.Fatal(err)
		}
	}
	f = &Finder{procRoot: root, ps: noPS(t)}
	d, err = f.Diagnose(ctx, 100)
	if err != nil || d.Beneath == nil || d.Beneath.Claude.PID != 61 || d.Beneath.Socket != "/tmp/x/s" || d.Beneath.Via != 200 || d.Beneath.ViaComm != "tmux" ||
		d.Why[0] != "claude (pid 61) runs in another tmux server, on socket /tmp/x/s, that this pane's tmux client (tmux, pid 200) is attached to: "+
			"cac-tmux does not type through a tmux client; a watcher must run on that server: cac-tmux watch -S /tmp/x/s" {
		t.Errorf("Diagnose(tmux client) = %+v, %v", d, err)
	}

	// Its server's process not found: said, with the fix; its socket not told: said.
	f = &Finder{procRoot: beneathTree(t, client, server, inner), ps: noPS(t)}
	d, err = f.Diagnose(ctx, 100)
	if err != nil || d.Beneath != nil || d.Why[0] != "pid 200 (tmux) is a client of the tmux server on socket /tmp/x/s, whose process cannot be looked at "+
		"(another user's, or none): if Claude Code runs there, cac-tmux does not type through the client; a watcher must run on that server: cac-tmux watch -S /tmp/x/s" {
		t.Errorf("Diagnose(tmux client, server not found) = %+v, %v", d, err)
	}
	client.argv = []string{"tmux", "attach"} // no environ file in the fake tree
	f = &Finder{procRoot: beneathTree(t, client), ps: noPS(t)}
	d, err = f.Diagnose(ctx, 100)
	if err != nil || d.Beneath != nil || d.Why[0] != "pid 200 (tmux) is a tmux client whose server cannot be told: its environment cannot be read" {
		t.Errorf("Diagnose(tmux client, environment unreadable) = %+v, %v", d, err)
	}
}

// TestDiagnoseNoProcFake: the same without /proc, on fake tools, and the bound on the look:
// at most maxCandidates terminals, claude under the last not seen.
func TestDiagnoseNoProcFake(t *testing.T) {
	ctx := context.Background()
	pane := row(100, 1, 100, 200, "Ss", "-bash")
	listing := pane + row(200, 100, 200, 200, "S+", "script -qfc claude") + row(300, 200, 300, 300, "Ss+", "sh -c claude") +
		row(301, 300, 300, 300, "S+", "claude")
	procs := map[int]lsofFake{200: {exe: "/usr/bin/script"}, 300: {exe: "/usr/bin/dash"}, 301: {exe: nativeExe}}
	f := fakeTools(listing, procs)
	f.psOne = func(_ context.Context, pid int, column string) (string, error) {
		if pid != 301 || column != "tty" {
			return "", fmt.Errorf("ps -o %s= -p %d: not in this test", column, pid)
		}
		return "pts/9\n", nil
	}
	d, err := f.Diagnose(ctx, 100)
	if err != nil || d.Beneath == nil || d.Beneath.Claude.PID != 301 || d.Beneath.Terminal != "/dev/pts/9" || d.Beneath.ViaComm != "script" || d.Why[0] != d.Beneath.String() {
		t.Errorf("Diagnose(script) without /proc = %+v, %v", d, err)
	}

	tmp := t.TempDir()
	real, err := filepath.EvalSymlinks(tmp)
	if err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(real, "tmux-1000", "work")
	listing = pane + row(200, 100, 200, 200, "S+", "tmux -L work attach") + row(60, 1, 60, -1, "Ss", "tmux -L work new -d") +
		row(61, 60, 61, 61, "Ss+", "claude")
	f = fakeTools(listing, map[int]lsofFake{200: {exe: "/usr/bin/tmux"}, 61: {exe: nativeExe}})
	f.psOne = func(_ context.Context, pid int, column string) (string, error) { return "1000", nil }
	f.psEnviron = func(context.Context, int) (string, error) {
		return "tmux -L work attach TMUX_TMPDIR=" + tmp + " HOME=/h\n", nil
	}
	f.lsofUnix = func(context.Context) (string, error) { return "p60\nf6\nn" + socket + " type=STREAM\n", nil }
	d, err = f.Diagnose(ctx, 100)
	if err != nil || d.Beneath == nil || d.Beneath.Claude.PID != 61 || d.Beneath.Socket != socket || d.Beneath.Via != 200 {
		t.Errorf("Diagnose(tmux -L) without /proc = %+v, %v", d, err)
	}
	f.lsofUnix = func(context.Context) (string, error) { return "p60\nf6\nn" + socket + "2 type=STREAM\n", nil }
	if d, err = f.Diagnose(ctx, 100); err != nil || d.Beneath != nil || !strings.Contains(d.Why[0], "whose process cannot be looked at") {
		t.Errorf("Diagnose(tmux -L, server not found) without /proc = %+v, %v", d, err)
	}

	// maxCandidates+1 terminals under the foreground, claude on the last: the look stops
	// before it (the walk keeps maxCandidates processes).
	var b strings.Builder
	b.WriteString(pane + row(200, 100, 200, 200, "S+", "runner"))
	procs = map[int]lsofFake{200: {exe: "/usr/bin/runner"}}
	for i := range maxCandidates + 1 {
		pid := 300 + 2*i
		b.WriteString(row(pid, 200, pid, pid, "Ss+", "sh") + row(pid+1, pid, pid, pid, "S+", "claude"))
		procs[pid] = lsofFake{exe: "/usr/bin/dash"}
		procs[pid+1] = lsofFake{exe: "/usr/bin/sleep"}
	}
	procs[300+2*maxCandidates+1] = lsofFake{exe: nativeExe}
	f = fakeTools(b.String(), procs)
	f.psOne = func(context.Context, int, string) (string, error) { return "?", nil }
	if d, err := f.Diagnose(ctx, 100); err != nil || d.Beneath != nil {
		t.Errorf("Diagnose(beyond the bound) = %+v, %v, want nothing found", d, err)
	}
	procs[300+2*(maxCandidates-2)+1] = lsofFake{exe: nativeExe} // within it
	if d, err := f.Diagnose(ctx, 100); err != nil || d.Beneath == nil || d.Beneath.Terminal != "" {
		t.Errorf("Diagnose(within the bound) = %+v, %v, want claude, its terminal not known", d, err)
	}
}
