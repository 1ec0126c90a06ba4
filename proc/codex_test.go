package proc

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// The paths of codex 0.171.0 as npm installs it (SPEC §11), and its daemon's own copy.
const (
	codexLauncher = "/usr/lib/node_modules/@openai/codex/bin/codex.js"
	codexNative   = "/usr/lib/node_modules/@openai/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
	codexDaemon   = "/home/u/.codex/packages/app-server-daemon/releases/0.171.0-x86_64-unknown-linux-musl/bin/codex"
	codexThread   = "01a2222c-0810-74f1-b0b2-948e10a8d168"
)

func TestIsCodex(t *testing.T) {
	for _, c := range []struct {
		name         string
		argv         []string
		exe          string
		ok, launcher bool
	}{
		{"npm's native binary", []string{codexNative}, codexNative, true, false},
		{"a standalone install", []string{"codex", "-m", "o3", "--cd", "/w"}, "/home/u/.local/bin/codex", true, false},
		{"Windows' name", []string{"codex.exe"}, "/mnt/c/codex.exe", true, false},
		{"a release binary", []string{"codex"}, "/opt/homebrew/Caskroom/codex/0.171.0/codex-aarch64-apple-darwin", true, false},
		{"a release binary for Linux", []string{"codex-x86_64-unknown-linux-musl"}, "/home/u/bin/codex-x86_64-unknown-linux-musl", true, false},
		{"codex- and no target", []string{"codex-helper"}, "/usr/bin/codex-helper", false, false},
		{"resume a thread", []string{"codex", "resume", codexThread}, codexNative, true, false},
		{"a first prompt", []string{"codex", "-c", "model=o3", "fix the tests"}, codexNative, true, false},
		{"a first prompt after --", []string{"codex", "--", "exec"}, codexNative, true, false},
		{"codex exec", []string{"codex", "exec", "fix it"}, codexNative, false, false},
		{"codex e after a valued option", []string{"codex", "-m", "exec", "e", "x"}, codexNative, false, false},
		{"the daemon", []string{codexDaemon, "app-server", "--listen", "unix://", "--managed-daemon"}, codexDaemon, false, false},
		{"the daemon's updater", []string{codexDaemon, "app-server", "daemon", "pid-update-loop"}, codexDaemon, false, false},
		{"--version", []string{"codex", "--version"}, codexNative, false, false},
		{"argv unknown", nil, codexNative, false, false},
		{"executable unknown", []string{"codex"}, "", false, false},
		{"exec -a codex cat", []string{"codex"}, "/usr/bin/cat", false, false},
		{"a script named codex", []string{"/bin/sh", "/home/u/bin/codex"}, "/usr/bin/dash", false, false},
		{"node running the launcher", []string{"node", codexLauncher}, "/usr/bin/node", false, true},
		{"node running the launcher with resume", []string{"node", codexLauncher, "resume", "--last"}, "/usr/bin/node", false, true},
		{"node running the launcher for exec", []string{"node", codexLauncher, "exec", "x"}, "/usr/bin/node", false, false},
		{"bun running the launcher", []string{"bun", "run", codexLauncher}, "/home/u/.bun/bin/bun", false, true},
		{"node running the SDK", []string{"node", "/w/node_modules/@openai/codex-sdk/dist/index.js"}, "/usr/bin/node", false, false},
		{"node running a script that names the package", []string{"node", "server.js", "@openai/codex/"}, "/usr/bin/node", false, false},
	} {
		why, ok, launcher := isCodex(c.argv, c.exe, nil)
		if ok != c.ok || launcher != c.launcher {
			t.Errorf("%s: isCodex = %q, ok %v, launcher %v; want ok %v, launcher %v", c.name, why, ok, launcher, c.ok, c.launcher)
		}
		if name, _, ok, _ := decide("", c.argv, c.exe, nil); ok != c.ok || (ok && name != agent.Codex) {
			t.Errorf("%s: decide = %q, %v", c.name, name, ok)
		}
	}
	// The npm bin link, resolved into the package.
	resolve := func(p string) string { return strings.Replace(p, "/usr/bin/codex", codexLauncher, 1) }
	if why, _, launcher := isCodex([]string{"node", "/usr/bin/codex"}, "/usr/bin/node", resolve); !launcher || !strings.Contains(why, "→ "+codexLauncher) {
		t.Errorf("the bin link: %q, launcher %v", why, launcher)
	}
	// Claude Code's rule is unchanged, and first.
	if name, _, ok, _ := decide("claude", []string{"claude"}, nativeExe, nil); !ok || name != agent.Claude {
		t.Errorf("claude: decide = %q, %v", name, ok)
	}
}

func TestParseCodexArgs(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want CodexArgs
	}{
		{[]string{"codex"}, CodexArgs{}},
		{[]string{"codex", "resume", codexThread}, CodexArgs{Thread: codexThread}},
		{[]string{"codex", "-C", "sub", "resume", "--all", codexThread}, CodexArgs{Thread: codexThread, Dir: "sub"}},
		{[]string{"codex", "--cd=/w", "--no-daemon"}, CodexArgs{Dir: "/w", NoDaemon: true}},
		{[]string{"codex", "resume", "--last"}, CodexArgs{}},
		{[]string{"codex", "resume", "my-thread-name"}, CodexArgs{}},
		{[]string{"codex", "fork", codexThread}, CodexArgs{}},
		{[]string{"codex", "resume " + codexThread}, CodexArgs{}}, // a first prompt
		{[]string{"codex", "-m", "resume", codexThread}, CodexArgs{}},
		{nil, CodexArgs{}},
	} {
		if got := ParseCodexArgs(c.argv); got != c.want {
			t.Errorf("ParseCodexArgs(%q) = %+v, want %+v", c.argv, got, c.want)
		}
	}
}

// codexNPMTree is a pane whose shell (100) runs codex through npm: node (200, the group
// leader) and its native child (201), which started the daemon (300) in a session of its own.
func codexNPMTree(withChild bool) []fake {
	procs := []fake{shell(200),
		{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "node", argv: []string{"node", codexLauncher}, exe: "/usr/bin/node", start: 5000},
		{pid: 300, ppid: 1, pgrp: 300, tpgid: -1, comm: "codex", argv: []string{codexDaemon, "app-server", "--listen", "unix://", "--managed-daemon"}, exe: codexDaemon, start: 5200},
	}
	if withChild {
		procs = append(procs, fake{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "codex", argv: []string{codexNative}, exe: codexNative, start: 5010})
	}
	return procs
}

// TestFindCodexFakeProc: Find takes the native codex below npm's launcher, the same process on
// every look; the launcher without its child is for now only; the daemon and codex exec are
// never a pane's Codex; explain words each.
func TestFindCodexFakeProc(t *testing.T) {
	for _, c := range []struct {
		name     string
		procs    []fake
		pane     int
		wantPID  int
		starting bool
		why      string
	}{
		{"npm: the native child", codexNPMTree(true), 100, 201, false, ""},
		{"npm: the launcher before its child", codexNPMTree(false), 100, 0, true, "running Codex's npm launcher"},
		{"the native binary run directly", []fake{
			{pid: 100, ppid: 1, pgrp: 100, tpgid: 100, comm: "codex", argv: []string{"codex", "resume", codexThread}, exe: codexNative, start: 5000}}, 100, 100, false, ""},
		{"the daemon's pane (its process in a pane of its own)", []fake{
			{pid: 100, ppid: 1, pgrp: 100, tpgid: 100, comm: "codex", argv: []string{codexDaemon, "app-server", "--managed-daemon"}, exe: codexDaemon, start: 5000}}, 100, 0, false,
			`running "app-server", not its interactive TUI`},
		{"codex exec", []fake{shell(200),
			{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "codex", argv: []string{"codex", "exec", "x"}, exe: codexNative, start: 5000}}, 100, 0, false,
			`running "exec", not its interactive TUI`},
	} {
		f := &Finder{procRoot: fakeTree(t, true, c.procs...), ps: noPS(t)}
		var first Found
		for look := range 2 {
			got, ok, err := f.Find(context.Background(), c.pane)
			switch {
			case err != nil:
				t.Fatalf("%s: Find: %v", c.name, err)
			case c.wantPID == 0 && (ok || got.Starting != c.starting):
				t.Errorf("%s: Find = %+v, %v; want none, Starting %v", c.name, got, ok, c.starting)
			case c.wantPID != 0 && (!ok || got.PID != c.wantPID || got.Agent != agent.Codex):
				t.Errorf("%s: Find = %+v, %v; want Codex pid %d", c.name, got, ok, c.wantPID)
			case look == 1 && got != first:
				t.Errorf("%s: Find = %+v, then %+v: not the same answer", c.name, first, got)
			}
			first = got
		}
		why, err := f.explain(context.Background(), c.pane)
		if err != nil || !strings.Contains(strings.Join(why, "|"), c.why) || (c.wantPID != 0) != (why == nil) {
			t.Errorf("%s: explain = %q, %v; want %q", c.name, why, err, c.why)
		}
	}
}

// TestFindCodexNoProcFake: the same rule without /proc (ps and lsof).
func TestFindCodexNoProcFake(t *testing.T) {
	pane := row(100, 1, 100, 200, "Ss", "-bash")
	node := row(200, 100, 200, 200, "Sl+", "node "+codexLauncher)
	native := row(201, 200, 200, 200, "Sl+", codexNative)
	daemon := row(300, 1, 300, -1, "Ssl", codexDaemon+" app-server --listen unix:// --managed-daemon")
	procs := map[int]lsofFake{100: {exe: "/usr/bin/bash"}, 200: {exe: "/usr/bin/node"}, 201: {exe: codexNative}, 300: {exe: codexDaemon}}
	for _, c := range []struct {
		name     string
		listing  string
		wantPID  int
		starting bool
	}{
		{"npm: the native child", pane + node + native + daemon, 201, false},
		{"npm: the launcher before its child", pane + node + daemon, 0, true},
		{"codex exec", pane + row(200, 100, 200, 200, "S+", "codex exec x"), 0, false},
	} {
		p := procs
		if c.name == "codex exec" {
			p = map[int]lsofFake{100: {exe: "/usr/bin/bash"}, 200: {exe: codexNative}}
		}
		got, ok, err := fakeTools(c.listing, p).Find(context.Background(), 100)
		switch {
		case err != nil:
			t.Errorf("%s: Find: %v", c.name, err)
		case c.wantPID == 0 && (ok || got.Starting != c.starting):
			t.Errorf("%s: Find = %+v, %v; want none, Starting %v", c.name, got, ok, c.starting)
		case c.wantPID != 0 && (!ok || got.PID != c.wantPID || got.Agent != agent.Codex || !strings.Contains(got.How, noProcSource)):
			t.Errorf("%s: Find = %+v, %v; want Codex pid %d", c.name, got, ok, c.wantPID)
		}
	}
}

// TestTmuxCodexNPM: npm's layout with real processes on both paths: a runtime (a copy of sh
// named node) runs the launcher script of the package, which runs the native binary (a copy
// of sh named codex, reading the terminal) as its child, passing its arguments on; Find takes
// the child, the same on each look, and says Codex; Codex reads its thread's directory, the
// thread its argv reopens, and its start.
func TestTmuxCodexNPM(t *testing.T) {
	needLsof(t)
	dir := t.TempDir()
	sh, err := os.ReadFile("/bin/sh")
	if err != nil {
		t.Skipf("no /bin/sh: %v", err)
	}
	native := "lib/node_modules/@openai/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
	for _, p := range []string{"rt/node", native} {
		writeFile(t, dir, p, sh)
		if err := os.Chmod(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The launcher waits for its child, as codex.js does (it does not exec it). The child's
	// command has no space, so that ps's args split into its argv.
	writeFile(t, dir, "lib/node_modules/@openai/codex/bin/codex.js", []byte(filepath.Join(dir, native)+" -c 'read${IFS}x' \"$@\"\n"))
	writeFile(t, dir, "work/sub/.keep", nil)
	s := tmuxtest.Start(t, 80, 24)
	before := time.Now().Add(-2 * time.Second)
	pane := newWindow(t, s, "sh", "-c", "cd '"+dir+"/work' && exec '"+dir+"/rt/node' ../lib/node_modules/@openai/codex/bin/codex.js -C sub resume "+codexThread)
	founds := waitFound(t, pane)
	for i, src := range finders {
		again, ok, err := src.f.Find(toolCtx(t), pane)
		if err != nil || !ok || again != founds[i] || again.Agent != agent.Codex || !strings.Contains(again.How, "Codex's executable") {
			t.Errorf("%s: Find = %+v, %v, %v; first %+v: want the same native codex", src.name, again, ok, err, founds[i])
		}
		c, err := src.f.Codex(toolCtx(t), founds[i].Identity)
		if err != nil || c.Cwd != filepath.Join(dir, "work", "sub") || c.Args.Thread != codexThread ||
			c.Started.Before(before) || c.Started.After(time.Now().Add(time.Second)) || c.Env.CodexDir() == "" {
			t.Errorf("%s: Codex = %+v, %v", src.name, c, err)
		}
	}
	if founds[0].PID == pane {
		t.Errorf("Find took the launcher (pid %d), want its native child", pane)
	}
}

// TestCodexEnv: CODEX_HOME is read on both paths, and a Codex process with CODEX_HOME alone
// has an environment.
func TestCodexEnv(t *testing.T) {
	env, err := parsePSEnviron("codex resume HOME=/home/u CODEX_HOME=/srv/codex 2\n", "codex resume")
	if err != nil || env != (records.Env{Home: "/home/u", CodexHome: "/srv/codex 2"}) || env.CodexDir() != "/srv/codex 2" {
		t.Errorf("parsePSEnviron = %+v, %v", env, err)
	}
	root := fakeTree(t, true, fake{pid: 100, ppid: 1, pgrp: 100, tpgid: 100, comm: "codex", argv: []string{"codex"}, exe: codexNative, start: 5000})
	writeFile(t, root, "100/environ", []byte("TERM=xterm\x00CODEX_HOME=/srv/codex\x00"))
	f := &Finder{procRoot: root, ps: noPS(t)}
	if env, err := f.Env(context.Background(), Identity{PID: 100, Start: "ticks:5000"}); err != nil || env.CodexDir() != "/srv/codex" {
		t.Errorf("Env = %+v, %v", env, err)
	}
}

func TestCodexCommandPattern(t *testing.T) {
	re := regexp.MustCompile(CodexCommandPattern())
	for _, c := range []string{"codex", "codex.exe", "codex-x86_64-un", "node", "nodejs", "bun", "claude", "xcodex", "bash", ""} {
		if got, want := re.MatchString(c), CodexHint(c); got != want {
			t.Errorf("CodexCommandPattern matches %q: %v, CodexHint: %v", c, got, want)
		}
	}
	if !CodexHint("codex") || !CodexHint("node") || CodexHint("claude") {
		t.Error("CodexHint: codex and node are hints, claude is not")
	}
}
