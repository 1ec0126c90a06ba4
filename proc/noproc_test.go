package proc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/records"
)

// lsofFake is what a fake lsof tells of one process.
type lsofFake struct {
	comm string // base(exe) when ""
	exe  string // no txt file when ""
	cwd  string // "/" when ""
	// unreadable: lsof cannot read the links (another user's process on Linux): both files
	// are listed with type "unknown" and a note instead of a path.
	unreadable bool
}

// lsofOf is a Finder.lsof that prints what lsof with lsofArgs prints for the pids asked about
// that procs names; the others are not listed (gone).
func lsofOf(procs map[int]lsofFake) func(context.Context, []int) (string, error) {
	return func(_ context.Context, pids []int) (string, error) {
		var b strings.Builder
		for _, pid := range pids {
			p, ok := procs[pid]
			if !ok {
				continue
			}
			comm, cwd := p.comm, p.cwd
			if comm == "" {
				comm = baseName(p.exe)
			}
			if cwd == "" {
				cwd = "/"
			}
			fmt.Fprintf(&b, "p%d\nc%s\n", pid, comm)
			if p.unreadable {
				fmt.Fprintf(&b, "fcwd\ntunknown\nn/proc/%d/cwd (readlink: Permission denied)\n", pid)
				fmt.Fprintf(&b, "ftxt\ntunknown\nn/proc/%d/exe (readlink: Permission denied)\n", pid)
				continue
			}
			fmt.Fprintf(&b, "fcwd\ntDIR\nn%s\n", cwd)
			if p.exe != "" {
				fmt.Fprintf(&b, "ftxt\ntREG\nn%s\n", p.exe)
			}
		}
		return b.String(), nil
	}
}

// noExactArgs is a Finder.args for a system without kern.procargs2: ps's args serve.
func noExactArgs(int) (procArgs, error) { return procArgs{}, errNoExactArgs }

// fakeTools is a Finder without /proc whose ps prints listing and whose lsof knows procs.
func fakeTools(listing string, procs map[int]lsofFake) *Finder {
	return &Finder{NoProc: true, ps: func(context.Context) (string, error) { return listing, nil },
		lsof: lsofOf(procs), args: noExactArgs}
}

// row is one line of a ps listing with psArgs.
func row(pid, ppid, pgid, tpgid int, stat, args string) string {
	return fmt.Sprintf("%5d %5d %5d %5d %-4s Fri Nov 20 22:54:%02d 2026 %s\n", pid, ppid, pgid, tpgid, stat, pid%60, args)
}

// procargs2 builds a kern.procargs2 buffer as XNU writes it for a 64-bit process: argc, the
// executable's path, NULs to the next 8-byte boundary, then strs (arguments, environment,
// "" for an empty string), each followed by a NUL.
func procargs2(argc int, exec string, strs ...string) []byte {
	b := binary.NativeEndian.AppendUint32(nil, uint32(int32(argc)))
	b = append(b, exec...)
	b = append(b, 0)
	for (len(b)-4)%8 != 0 {
		b = append(b, 0)
	}
	for _, s := range strs {
		b = append(append(b, s...), 0)
	}
	return b
}

func TestParseLsof(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want map[int]lsofProc
	}{
		{"empty: nothing listed", "", map[int]lsofProc{}},
		{"lsof 4.95 on Linux: a deleted program, a path with a space, an escaped newline",
			"p5131\ncdel\nfcwd\ntDIR\nn/tmp\nftxt\ntREG\nn/tmp/lt/del (deleted)\n" +
				"p5140\ncmy sleep\nfcwd\ntDIR\nn/tmp\nftxt\ntREG\nn/tmp/lt/my sleep\n" +
				"p5142\ncnl\\nclaude\nfcwd\ntDIR\nn/tmp\nftxt\ntREG\nn/tmp/lt/nl\\nclaude\n",
			map[int]lsofProc{5131: {"del", "/tmp/lt/del", "/tmp"}, 5140: {"my sleep", "/tmp/lt/my sleep", "/tmp"},
				5142: {`nl\nclaude`, `/tmp/lt/nl\nclaude`, "/tmp"}}},
		{"a kernel thread: no program text", "p2\nckthreadd\nfcwd\ntDIR\nn/\n", map[int]lsofProc{2: {"kthreadd", "", "/"}}},
		{"another user's process: notes, type unknown",
			"p7\ncclaude\nfcwd\ntunknown\nn/proc/7/cwd (readlink: Permission denied)\nftxt\ntunknown\nn/proc/7/exe (readlink: Permission denied)\n",
			map[int]lsofProc{7: {"claude", "", ""}}},
		{"macOS: the program, then dyld",
			"p4210\nc2.1.329\nfcwd\ntDIR\nn/Users/me\nftxt\ntREG\nn/Users/me/.local/share/claude/versions/2.1.329\nftxt\ntREG\nn/usr/lib/dyld\n",
			map[int]lsofProc{4210: {"2.1.329", "/Users/me/.local/share/claude/versions/2.1.329", "/Users/me"}}},
		{"macOS: the first txt an error, a claude after it does not count",
			"p9\ncnode\nftxt\nnregion info error: Operation not permitted\nftxt\ntREG\nn/x/claude\n",
			map[int]lsofProc{9: {"node", "", ""}}},
		{"notes and odd names are not paths",
			"p1\nftxt\ntREG\nn/usr/bin/cat (stat: Permission denied)\n" +
				"p3\nftxt\ntREG\nnclaude\nfcwd\ntDIR\nnrelative\n" +
				"p4\nftxt\ntDIR\nn/x/claude\n" +
				"p5\nftxt\ntREG\nn/tmp/a (x)/claude\n" +
				"p6\nftxt\ntREG\n",
			map[int]lsofProc{1: {}, 3: {}, 4: {}, 5: {}, 6: {}}},
	}
	for _, tt := range tests {
		got, err := parseLsof(tt.out)
		if err != nil || !mapsEqual(got, tt.want) {
			t.Errorf("%s: parseLsof = %+v, %v\nwant %+v", tt.name, got, err, tt.want)
		}
	}
	for _, out := range []string{
		"p1\n\nftxt\n", "\n", "p1\nL1\n", "ftxt\ntREG\nn/x/claude\n", "p1\nf3\ntREG\nn/x\n", "p1\nfmem\n",
		"p1\ntREG\n", "p1\nftxt\nn/a\nn/b\n", "p1\nftxt\ntREG\ntREG\n", "p1\np1\n", "p1\np2\np1\n",
		"p0\n", "p-1\n", "px\n", "p99999999999999999999\n", "p1 \n", "p1\r\n", "p\n",
		"p1\nftxt\ntREG\nn/x\ncclaude\n", "p1\nfcwd\nfcwd\n", "p1\ncx\ncy\n", "cclaude\n",
		"\x00\xff", "lsof: illegal option character: -\n",
	} {
		if got, err := parseLsof(out); err == nil {
			t.Errorf("parseLsof(%q) = %+v, want an error", out, got)
		}
	}
}

func mapsEqual(a, b map[int]lsofProc) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestRunLsofFakes(t *testing.T) {
	ctx := context.Background()
	f := &Finder{lsof: func(context.Context, []int) (string, error) { return "p1\nftxt\ntREG\nn/x/claude\np2\n", nil }}
	if got, err := f.runLsof(ctx, []int{1}); err == nil {
		t.Errorf("runLsof listing a pid not asked about = %+v, want an error", got)
	}
	f.lsof = func(context.Context, []int) (string, error) { return "", errors.New("not installed") }
	if _, err := f.runLsof(ctx, []int{1}); err == nil || !strings.Contains(err.Error(), "lsof: not installed") {
		t.Errorf("runLsof with a failing lsof: %v", err)
	}
}

func TestParseProcArgs(t *testing.T) {
	const node = "/opt/homebrew/Cellar/node/22.1.0/bin/node"
	apple := []string{"", "ptr_munge=", "main_stack=", "executable_file=0x1a01000009,0x35c8f4"}
	tests := []struct {
		name     string
		b        []byte
		argv     []string
		retitled bool
		env      records.Env
	}{
		{"npm claude before its title", procargs2(3, node, slices.Concat([]string{"node", "/opt/homebrew/bin/claude", "--resume",
			"HOME=/Users/me", "CLAUDE_CONFIG_DIR=/Users/me/.claude work"}, apple)...),
			[]string{"node", "/opt/homebrew/bin/claude", "--resume"}, false,
			records.Env{ConfigDir: "/Users/me/.claude work", Home: "/Users/me"}},
		{"arguments with spaces are whole", procargs2(2, node, "node", "/Users/John Smith/cli.js", "HOME=/Users/John Smith"),
			[]string{"node", "/Users/John Smith/cli.js"}, false, records.Env{Home: "/Users/John Smith"}},
		// The path is 7 bytes: with its NUL exactly one 8-byte unit, no padding.
		{"an empty argv[0] right after the path", procargs2(2, "/bin/ab", "", "x", "HOME=/h"),
			[]string{"", "x"}, false, records.Env{Home: "/h"}},
		{"an empty argv[0] after padding", procargs2(2, "/bin/cat", "", "x", "HOME=/h"),
			[]string{"", "x"}, false, records.Env{Home: "/h"}},
		{"npm claude titled: its argument area rewritten",
			procargs2(3, node, "claude", "", "", "", "", "", "", "", "", "", "", "HOME=/Users/me", "", "ptr_munge="),
			[]string{"claude"}, true, records.Env{Home: "/Users/me"}},
		{"exec -a claude node", procargs2(1, node, "claude", "HOME=/Users/me"), []string{"claude"}, false, records.Env{Home: "/Users/me"}},
		{"no environment, apple strings after padding", procargs2(1, "/bin/cat", "cat", "", "", "ptr_munge="),
			[]string{"cat"}, false, records.Env{}},
		{"argc 0", procargs2(0, "/bin/cat"), nil, false, records.Env{}},
	}
	for _, tt := range tests {
		got, err := parseProcArgs(tt.b)
		if err != nil || !slices.Equal(got.argv, tt.argv) || got.retitled != tt.retitled || records.ParseEnviron(got.env) != tt.env {
			t.Errorf("%s: parseProcArgs = %+v (env %q), %v\nwant argv %q retitled %v env %+v", tt.name, got, got.env, err, tt.argv, tt.retitled, tt.env)
		}
	}
	bad := map[string][]byte{
		"short":                      {1, 0, 0},
		"negative argc":              procargs2(-1, "/bin/cat", "cat"),
		"argc beyond the buffer":     procargs2(1<<20, "/bin/cat", "cat"),
		"no end to the path":         append(binary.NativeEndian.AppendUint32(nil, 1), "/bin/cat"...),
		"fewer arguments than argc":  procargs2(3, "/bin/cat", "cat", "x"),
		"an argument without an end": append(procargs2(2, "/bin/cat", "cat"), "x"...),
		"environment without an end": append(procargs2(1, "/bin/cat", "cat"), "HOME=/h"...),
	}
	for name, b := range bad {
		if got, err := parseProcArgs(b); err == nil {
			t.Errorf("%s: parseProcArgs(%q) = %+v, want an error", name, b, got)
		}
	}
}

func TestParsePSEnviron(t *testing.T) {
	tests := []struct {
		name, out, args string
		want            records.Env
	}{
		{"procps: arguments, then the environment", "/bin/sleep 302 A=x y B=l1 l2 HOME=/h  2\n", "/bin/sleep 302", records.Env{Home: "/h  2"}},
		{"FreeBSD: the environment first", "HOME=/root CLAUDE_CONFIG_DIR=/a b/c claude --resume\n", "claude --resume",
			records.Env{ConfigDir: "/a b/c", Home: "/root"}},
		{"no environment", "/bin/sleep 301\n", "/bin/sleep 301", records.Env{}},
		{"names with dashes and dots start entries; --opt= does not",
			"x npm_config_a-b.c=1 LESS=-R --prompt=y HOME=/h\n", "x", records.Env{Home: "/h"}},
		{"a value with = in it", "x CLAUDE_CONFIG_DIR=/a=b HOME=/h=\n", "x", records.Env{ConfigDir: "/a=b", Home: "/h="}},
	}
	for _, tt := range tests {
		got, err := parsePSEnviron(tt.out, tt.args)
		if err != nil || got != tt.want {
			t.Errorf("%s: parsePSEnviron = %+v, %v, want %+v", tt.name, got, err, tt.want)
		}
	}
	for _, c := range [][2]string{
		{"x HOME=/a FOO=b HOME=/evil\n", "x"}, // HOME twice
		{"x FOO=a HOME=/evil HOME=/h\n", "x"}, // a value holding " HOME=": ambiguous
		{"x CLAUDE_CONFIG_DIR=/a CLAUDE_CONFIG_DIR=/b\n", "x"},
		{"y HOME=/h\n", "x"},                                      // other arguments: the pid was reused
		{"x HOME=/h\ny HOME=/e\n", "x"},                           // two lines
		{"x =y\n", "x"}, {"x 1A=2\n", "x"}, {"x  HOME=/h\n", "x"}, // not NAME= first
		{"x HOME=/h\n", ""}, // no arguments to find
		{"", "x"}, {"ps: no such process\n", "x"},
	} {
		if got, err := parsePSEnviron(c[0], c[1]); err == nil {
			t.Errorf("parsePSEnviron(%q, %q) = %+v, want an error", c[0], c[1], got)
		}
	}
}

// TestFindNoProcFake: the decision without /proc, on fake tools: by the executable lsof
// gives, never by a name.
func TestFindNoProcFake(t *testing.T) {
	pkg := t.TempDir() // an npm install, for a script path that resolves into the package
	cli := filepath.Join(pkg, "lib", "node_modules", "@anthropic-ai", "claude-code", "cli.js")
	writeFile(t, pkg, "lib/node_modules/@anthropic-ai/claude-code/cli.js", []byte("// cli\n"))
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../lib/node_modules/@anthropic-ai/claude-code/cli.js", filepath.Join(pkg, "bin", "claude")); err != nil {
		t.Fatal(err)
	}
	const node, nodeMac = "/usr/bin/node", "/opt/homebrew/Cellar/node/22.1.0/bin/node"
	pane := row(100, 1, 100, 200, "Ss", "-bash")
	bash := lsofFake{exe: "/usr/bin/bash"}
	tests := []struct {
		name    string
		rows    string
		procs   map[int]lsofFake
		args    map[int][]byte // kern.procargs2 by pid (macOS); nil: ps's args
		wantPID int
		wantHow string
	}{
		{"native claude", row(200, 100, 200, 200, "S+", "claude --resume"),
			map[int]lsofFake{200: {exe: nativeExe, comm: "claude"}}, nil, 200, "version-named executable"},
		{"exec -a claude cat", row(200, 100, 200, 200, "S+", "claude"),
			map[int]lsofFake{200: {exe: "/usr/bin/cat"}}, nil, 0, ""},
		{"a script named claude", row(200, 100, 200, 200, "S+", "/bin/sh ./claude"),
			map[int]lsofFake{200: {exe: "/usr/bin/dash", comm: "claude"}}, nil, 0, ""},
		{"a wrapper named claude, its claude child alive",
			row(200, 100, 200, 200, "S+", "/bin/sh /home/u/bin/claude") + row(201, 200, 200, 200, "S+", "claude"),
			map[int]lsofFake{200: {exe: "/usr/bin/dash", comm: "claude"}, 201: {exe: nativeExe}}, nil, 201, "pid 201 at depth 1"},
		{"a wrapper named claude whose child is gone", row(200, 100, 200, 200, "S+", "/bin/sh /home/u/bin/claude"),
			map[int]lsofFake{200: {exe: "/usr/bin/dash", comm: "claude"}}, nil, 0, ""},
		{"not listed by lsof (gone, or not ours)", row(200, 100, 200, 200, "S+", "claude"), nil, nil, 0, ""},
		{"another user's claude", row(200, 100, 200, 200, "S+", "claude"),
			map[int]lsofFake{200: {comm: "claude", unreadable: true}}, nil, 0, ""},
		{"node running cli.js", row(200, 100, 200, 200, "S+", "node "+cli),
			map[int]lsofFake{200: {exe: node}}, nil, 200, "node (/usr/bin/node) running"},
		{"node running the bin link, relative to its cwd", row(200, 100, 200, 200, "S+", "node bin/claude"),
			map[int]lsofFake{200: {exe: node, cwd: pkg}}, nil, 200, "bin/claude → " + cli},
		{"node running the bin link, cwd unknown", row(200, 100, 200, 200, "S+", "node bin/claude"),
			map[int]lsofFake{200: {exe: node, cwd: "relative"}}, nil, 0, ""},
		{"node titled claude on Linux", row(200, 100, 200, 200, "S+", "claude"),
			map[int]lsofFake{200: {exe: node, comm: "claude"}}, nil, 200, "titled itself"},
		{"exec -a claude node", row(200, 100, 200, 200, "S+", "claude"),
			map[int]lsofFake{200: {exe: node}}, nil, 0, ""},
		{"node server.js claude", row(200, 100, 200, 200, "S+", "node server.js claude"),
			map[int]lsofFake{200: {exe: node}}, nil, 0, ""},
		// macOS: argv from kern.procargs2.
		{"macOS: npm claude titled (its argument area rewritten)", row(200, 100, 200, 200, "S+", "claude"),
			map[int]lsofFake{200: {exe: nodeMac, comm: "node"}},
			map[int][]byte{200: procargs2(3, nodeMac, "claude", "", "", "", "", "", "HOME=/Users/me")}, 200, "titled itself"},
		{"macOS: exec -a claude node", row(200, 100, 200, 200, "S+", "claude"),
			map[int]lsofFake{200: {exe: nodeMac, comm: "node"}},
			map[int][]byte{200: procargs2(1, nodeMac, "claude", "HOME=/Users/me")}, 0, ""},
		{"macOS: a package path with a space, exact", row(200, 100, 200, 200, "S+", "node /Users/John Smith/x"),
			map[int]lsofFake{200: {exe: nodeMac, comm: "node"}},
			map[int][]byte{200: procargs2(2, nodeMac, "node", "/Users/John Smith/@anthropic-ai/claude-code/cli.js")}, 200,
			`running "/Users/John Smith/@anthropic-ai/claude-code/cli.js"`},
		{"macOS: arguments unreadable, the native build by its executable", row(200, 100, 200, 200, "S+", "claude"),
			map[int]lsofFake{200: {exe: nativeExe}}, map[int][]byte{}, 200, "version-named executable"},
		{"macOS: arguments unreadable, node is not taken", row(200, 100, 200, 200, "S+", "node "+cli),
			map[int]lsofFake{200: {exe: nodeMac}}, map[int][]byte{}, 0, ""},
	}
	for _, tt := range tests {
		procs := map[int]lsofFake{100: bash}
		for pid, p := range tt.procs {
			procs[pid] = p
		}
		f := fakeTools(pane+tt.rows, procs)
		if tt.args != nil {
			f.args = func(pid int) (procArgs, error) {
				if b, ok := tt.args[pid]; ok {
					return parseProcArgs(b)
				}
				return procArgs{}, errors.New("sysctl kern.procargs2: operation not permitted")
			}
		}
		got, ok, err := f.Find(context.Background(), 100)
		switch {
		case err != nil:
			t.Errorf("%s: Find error %v", tt.name, err)
		case tt.wantPID == 0 && ok:
			t.Errorf("%s: Find = %+v, want not Claude Code", tt.name, got)
		case tt.wantPID != 0 && (!ok || got.PID != tt.wantPID || !strings.Contains(got.How, tt.wantHow) || !strings.Contains(got.How, noProcSource)):
			t.Errorf("%s: Find = %+v, %v, want pid %d, How containing %q", tt.name, got, ok, tt.wantPID, tt.wantHow)
		}
		why, err := f.explain(context.Background(), 100)
		if err != nil || (why == nil) != (tt.wantPID != 0) {
			t.Errorf("%s: explain = %q, %v", tt.name, why, err)
		}
	}
}

// TestFindNoProcToolsFail: a lsof that fails or prints garbage makes Find fail, never answer.
func TestFindNoProcToolsFail(t *testing.T) {
	listing := row(100, 1, 100, 200, "Ss", "-bash") + row(200, 100, 200, 200, "S+", "claude")
	for name, lsof := range map[string]func(context.Context, []int) (string, error){
		"fails":          func(context.Context, []int) (string, error) { return "", errors.New("not found") },
		"prints garbage": func(context.Context, []int) (string, error) { return "p200\nftxt\ntREG\nn/x/claude\nz\n", nil },
		"lists another":  func(context.Context, []int) (string, error) { return "p999\nftxt\ntREG\nn/x/claude\n", nil },
	} {
		f := fakeTools(listing, nil)
		f.lsof = lsof
		if got, ok, err := f.Find(context.Background(), 100); err == nil || ok || !strings.Contains(err.Error(), "lsof") {
			t.Errorf("lsof %s: Find = %+v, %v, %v, want an error naming lsof", name, got, ok, err)
		}
		if _, err := f.explain(context.Background(), 100); err == nil {
			t.Errorf("lsof %s: explain: no error", name)
		}
	}
}

// TestEnvNoProcFake: Env for an identity found without /proc reads the environment of the
// same process only: from ps (parsePSEnviron) or kern.procargs2 on macOS.
func TestEnvNoProcFake(t *testing.T) {
	listing := row(100, 1, 100, 200, "Ss", "-bash") + row(200, 100, 200, 200, "S+", "claude --resume")
	id := Identity{PID: 200, Start: "lstart:Fri Nov 20 22:54:20 2026"}
	ctx := context.Background()
	calls := 0
	f := fakeTools(listing, nil)
	f.psEnviron = func(_ context.Context, pid int) (string, error) {
		calls++
		return "claude --resume TERM=xterm CLAUDE_CONFIG_DIR=/home/u/.claude work HOME=/home/u\n", nil
	}
	if env, err := f.Env(ctx, id); err != nil || env != (records.Env{ConfigDir: "/home/u/.claude work", Home: "/home/u"}) {
		t.Errorf("Env = %+v, %v", env, err)
	}
	if _, err := f.Env(ctx, Identity{PID: 200, Start: "lstart:Fri Nov 20 22:54:21 2026"}); err == nil || calls != 1 {
		t.Errorf("Env of another process with the pid: %v, ps eww ran %d times, want an error and once", err, calls)
	}
	f.psEnviron = func(context.Context, int) (string, error) { return "claude --resume FOO=x HOME=/e HOME=/h\n", nil }
	if env, err := f.Env(ctx, id); err == nil {
		t.Errorf("Env with HOME twice = %+v, want an error", env)
	}
	f.psEnviron = func(context.Context, int) (string, error) { return "claude --resume TERM=xterm\n", nil }
	if env, err := f.Env(ctx, id); err == nil {
		t.Errorf("Env without HOME = %+v, want an error", env)
	}
	f.psEnviron = func(context.Context, int) (string, error) { return "", errors.New("exit status 1") }
	if env, err := f.Env(ctx, id); err == nil || !strings.HasPrefix(err.Error(), "proc: environment of pid 200: ps: ") {
		t.Errorf("Env with ps failing = %+v, %v", env, err)
	}
	// macOS: kern.procargs2, exact; ps eww is not run.
	f.psEnviron = func(context.Context, int) (string, error) { t.Error("ps eww ran"); return "", nil }
	f.args = func(int) (procArgs, error) {
		return parseProcArgs(procargs2(2, nativeExe, "claude", "--resume", "HOME=/Users/me", "CLAUDE_CONFIG_DIR=/Users/me/a b"))
	}
	if env, err := f.Env(ctx, id); err != nil || env != (records.Env{ConfigDir: "/Users/me/a b", Home: "/Users/me"}) {
		t.Errorf("Env from kern.procargs2 = %+v, %v", env, err)
	}
	f.args = func(int) (procArgs, error) { return procArgs{}, errors.New("operation not permitted") }
	if env, err := f.Env(ctx, id); err == nil {
		t.Errorf("Env with kern.procargs2 failing = %+v, want an error", env)
	}
	for _, bad := range []Identity{{PID: 200, Start: "5000"}, {PID: 0, Start: "lstart:x"}} {
		if env, err := f.Env(ctx, bad); err == nil {
			t.Errorf("Env(%+v) = %+v, want an error", bad, env)
		}
	}
}

// FuzzParseLsof: any lsof output parses or fails without panicking; what parses names only
// absolute paths without notes.
func FuzzParseLsof(f *testing.F) {
	f.Add("p5131\ncdel\nfcwd\ntDIR\nn/tmp\nftxt\ntREG\nn/tmp/lt/del (deleted)\np2\nckthreadd\nfcwd\ntDIR\nn/\n")
	f.Add("p7\ncclaude\nfcwd\ntunknown\nn/proc/7/cwd (readlink: Permission denied)\nftxt\ntunknown\nn/proc/7/exe (readlink: Permission denied)\n")
	f.Add("p9\ncnode\nftxt\nnregion info error: x\nftxt\ntREG\nn/x/claude\n")
	f.Add("p1\np1\n")
	f.Fuzz(func(t *testing.T, out string) {
		procs, err := parseLsof(out)
		if err != nil {
			return
		}
		for pid, p := range procs {
			for _, path := range []string{p.exe, p.cwd} {
				if path != "" && (!strings.HasPrefix(path, "/") || strings.Contains(path, " (") || strings.Contains(path, "\n")) {
					t.Errorf("parseLsof(%q): pid %d path %q", out, pid, path)
				}
			}
			if pid <= 0 {
				t.Errorf("parseLsof(%q): pid %d", out, pid)
			}
		}
	})
}

// FuzzParseProcArgs: any kern.procargs2 buffer parses or fails without panicking; what parses
// has no more arguments than argc, no trailing empty one, and an environment that is a piece
// of the buffer.
func FuzzParseProcArgs(f *testing.F) {
	f.Add(procargs2(3, "/opt/homebrew/bin/node", "node", "/opt/homebrew/bin/claude", "--resume", "HOME=/Users/me", "", "ptr_munge="))
	f.Add(procargs2(3, "/opt/homebrew/bin/node", "claude", "", "", "", "HOME=/Users/me"))
	f.Add(procargs2(2, "/bin/ab", "", "x"))
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		pa, err := parseProcArgs(b)
		if err != nil {
			return
		}
		if len(pa.argv) > pa.argc || pa.argc < 0 || len(pa.argv) > 0 && pa.argv[len(pa.argv)-1] == "" {
			t.Errorf("parseProcArgs(%q) = %+v", b, pa)
		}
		if pa.retitled && (pa.argc < 2 || len(pa.argv) != 1) {
			t.Errorf("parseProcArgs(%q) = %+v: retitled", b, pa)
		}
		if len(pa.env) > 0 && (pa.env[0] == 0 || !strings.Contains(string(b), string(pa.env))) {
			t.Errorf("parseProcArgs(%q): env %q", b, pa.env)
		}
	})
}

// FuzzParsePSEnviron: any ps output parses or fails without panicking; a value read is a
// piece of the output.
func FuzzParsePSEnviron(f *testing.F) {
	f.Add("/bin/sleep 302 A=x y B=l1 l2 HOME=/h  2\n", "/bin/sleep 302")
	f.Add("HOME=/root CLAUDE_CONFIG_DIR=/a b/c claude --resume\n", "claude --resume")
	f.Add("x HOME=/a FOO=b HOME=/evil\n", "x")
	f.Fuzz(func(t *testing.T, out, args string) {
		env, err := parsePSEnviron(out, args)
		if err != nil {
			return
		}
		for _, v := range []string{env.ConfigDir, env.Home} {
			if !strings.Contains(out, v) {
				t.Errorf("parsePSEnviron(%q, %q) = %+v: %q is not in the output", out, args, env, v)
			}
		}
	})
}
