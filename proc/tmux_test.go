//go:build unix

package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// fakeClaudeBin returns the path of an executable named "claude": a copy of sleep. Its
// executable, comm and base(argv[0]) are "claude", which is all Find looks at for it.
func fakeClaudeBin(t testing.TB) string {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("no sleep: %v", err)
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func panePID(t *testing.T, s *tmuxtest.Server, target string) int {
	t.Helper()
	out := s.Tmux(t, "display-message", "-p", "-t", target, "#{pane_pid}")
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("pane_pid of %s: %q", target, out)
	}
	return pid
}

// finders are the two paths: /proc, and the path without it (ps and lsof) that macOS and
// the BSDs take, run here on Linux.
var finders = []struct {
	name   string
	f      *Finder
	prefix string
}{
	{"proc", &Finder{}, ticksPrefix},
	{"noproc", &Finder{NoProc: true}, lstartPrefix},
}

// needLsof fails the test when lsof is missing: the path without /proc needs it, and a test
// that skipped would hide that path untested.
func needLsof(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("lsof"); err != nil {
		t.Fatalf("lsof is not installed, and the path without /proc needs it (Debian: apt-get install lsof): %v", err)
	}
}

// toolCtx bounds one look at the process table in these tests, ps and lsof included, at 30 s
// (CAC_TEST_SLOW stretches it): the product's 5 s (toolTimeout, when the context has none) is
// a watcher's patience with one run, and ps took longer than that on 2 cores running three
// versions of the tmux matrix at once. What these tests check is what a look finds, not how
// fast.
func toolCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), tmuxtest.Scale(30*time.Second))
	t.Cleanup(cancel)
	return ctx
}

// waitFound polls Find on every source until each finds Claude Code in the pane, and returns
// what each found.
func waitFound(t *testing.T, pane int) []Found {
	t.Helper()
	founds := make([]Found, len(finders))
	for i, src := range finders {
		tmuxtest.WaitFor(t, 5*time.Second, src.name+" finds claude in pane pid "+strconv.Itoa(pane), func() bool {
			f, ok, err := src.f.Find(toolCtx(t), pane)
			if err != nil {
				t.Fatalf("%s: Find(%d): %v", src.name, pane, err)
			}
			founds[i] = f
			return ok
		})
		if !strings.HasPrefix(founds[i].Start, src.prefix) {
			t.Errorf("%s: Find(%d).Start = %q, want prefix %q", src.name, pane, founds[i].Start, src.prefix)
		}
		t.Logf("%s: %+v", src.name, founds[i])
	}
	if founds[0].PID != founds[1].PID {
		t.Errorf("/proc found pid %d, the path without /proc pid %d", founds[0].PID, founds[1].PID)
	}
	return founds
}

// killAndWait kills the process and waits until neither source sees it alive.
func killAndWait(t *testing.T, founds []Found) {
	t.Helper()
	for i, src := range finders {
		alive, err := src.f.alive(toolCtx(t), founds[i].Identity)
		if err != nil || !alive {
			t.Errorf("%s: alive(%+v) = %v, %v, want true", src.name, founds[i].Identity, alive, err)
		}
	}
	if err := syscall.Kill(founds[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i, src := range finders {
		tmuxtest.WaitFor(t, 5*time.Second, src.name+" sees pid "+strconv.Itoa(founds[i].PID)+" dead", func() bool {
			alive, err := src.f.alive(toolCtx(t), founds[i].Identity)
			if err != nil {
				t.Fatalf("%s: alive(%+v): %v", src.name, founds[i].Identity, err)
			}
			return !alive
		})
	}
}

func wantNotClaude(t *testing.T, pane int) {
	t.Helper()
	for _, src := range finders {
		tmuxtest.WaitFor(t, 5*time.Second, src.name+" sees no claude in pane pid "+strconv.Itoa(pane), func() bool {
			f, ok, err := src.f.Find(toolCtx(t), pane)
			if err != nil {
				t.Fatalf("%s: Find(%d): %v", src.name, pane, err)
			}
			if ok {
				t.Logf("%s: still %+v", src.name, f)
			}
			return !ok
		})
	}
}

func TestTmux(t *testing.T) {
	needLsof(t)
	claude := fakeClaudeBin(t)
	s := tmuxtest.Start(t, 80, 24) // /bin/sh at its prompt in main:0

	shPane := panePID(t, s, "main:0")
	t.Run("shell alone", func(t *testing.T) {
		for _, src := range finders {
			f, ok, err := src.f.Find(toolCtx(t), shPane)
			if err != nil || ok {
				t.Errorf("%s: Find(%d) (sh) = %+v, %v, %v, want not claude", src.name, shPane, f, ok, err)
			}
		}
	})

	t.Run("pane process", func(t *testing.T) {
		// Two arguments: tmux execs them without a shell, so claude is the pane's process.
		out := s.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_pid}", "-t", "main:", claude, "600")
		pane, err := strconv.Atoi(strings.TrimSpace(out))
		if err != nil {
			t.Fatalf("new-window printed %q", out)
		}
		founds := waitFound(t, pane)
		if founds[0].PID != pane {
			t.Errorf("found pid %d, want the pane's pid %d", founds[0].PID, pane)
		}
		killAndWait(t, founds)
		wantNotClaude(t, pane)
	})

	t.Run("wrapper", func(t *testing.T) {
		// sh runs claude in the foreground and waits for it (the "; true" keeps it from exec'ing).
		out := s.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_pid}", "-t", "main:", "sh", "-c", claude+" 600; true")
		pane, err := strconv.Atoi(strings.TrimSpace(out))
		if err != nil {
			t.Fatalf("new-window printed %q", out)
		}
		founds := waitFound(t, pane)
		if founds[0].PID == pane || !strings.Contains(founds[0].How, "depth 1") {
			t.Errorf("found %+v, want a child of the pane's pid %d", founds[0], pane)
		}
		killAndWait(t, founds)
	})

	t.Run("typed at the shell prompt", func(t *testing.T) {
		ctx := context.Background()
		tmuxtest.WaitFor(t, 5*time.Second, "a shell prompt", func() bool { // "$ ", or "# " as root
			screen, err := s.Client.Capture(ctx, "main:0")
			return err == nil && strings.TrimSpace(screen) != ""
		})
		if err := s.Client.SendLiteral(ctx, "main:0", claude+" 600"); err != nil {
			t.Fatal(err)
		}
		if err := s.Client.SendKey(ctx, "main:0", "Enter"); err != nil {
			t.Fatal(err)
		}
		founds := waitFound(t, shPane)
		if founds[0].PID == shPane {
			t.Errorf("found the shell itself: %+v", founds[0])
		}
		killAndWait(t, founds)
		wantNotClaude(t, shPane) // the shell is back in the foreground
	})
}

// TestTmuxNamesAreNotClaude: on a real server, processes that only carry Claude Code's name
// are not Claude Code, on /proc and without it: both read
// what runs.
func TestTmuxNamesAreNotClaude(t *testing.T) {
	needLsof(t)
	claude := fakeClaudeBin(t)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skipf("no bash for exec -a: %v", err)
	}
	dir := t.TempDir()
	script := func(name, body string) string {
		p := filepath.Join(dir, name, "claude")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	s := tmuxtest.Start(t, 80, 24)
	notClaude := func(name string, pane int, wantComm string) {
		t.Helper()
		waitForeground(t, name, pane, wantComm)
		for _, src := range finders {
			if got, ok, err := src.f.Find(toolCtx(t), pane); err != nil || ok {
				t.Errorf("%s: %s: Find = %+v, %v, %v, want not Claude Code", name, src.name, got, ok, err)
			}
			why, err := src.f.explain(toolCtx(t), pane)
			if err != nil || len(why) == 0 || !strings.Contains(strings.Join(why, "|"), "not Claude Code") {
				t.Errorf("%s: %s: explain = %q, %v", name, src.name, why, err)
			}
			t.Logf("%s: %s: %q", name, src.name, why)
		}
	}
	notClaude("exec -a claude cat", newWindow(t, s, "bash", "-c", "exec -a claude cat"), "cat")
	notClaude("a script named claude running cat", newWindow(t, s, script("cat", "cat")), "cat")

	// A wrapper named claude: Claude Code while its claude child runs, not once it is killed
	// and the wrapper sits in its read.
	pane := newWindow(t, s, script("wrapper", claude+" 600; read x"))
	founds := waitFound(t, pane)
	if founds[0].PID == pane {
		t.Fatalf("found the wrapper itself: %+v", founds[0])
	}
	killAndWait(t, founds)
	notClaude("a wrapper named claude whose child is gone", pane, "claude")
}

// newWindow opens a window running argv on the server and returns its pane's pid.
func newWindow(t *testing.T, s *tmuxtest.Server, argv ...string) int {
	t.Helper()
	out := s.Tmux(t, append([]string{"new-window", "-d", "-P", "-F", "#{pane_pid}", "-t", "main:"}, argv...)...)
	pane, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("new-window printed %q", out)
	}
	return pane
}

// waitForeground waits until the pane's foreground group holds a process whose comm is
// wantComm (read from /proc: the test runs on Linux).
func waitForeground(t *testing.T, name string, pane int, wantComm string) {
	t.Helper()
	tmuxtest.WaitFor(t, 5*time.Second, name+": "+wantComm+" in the foreground", func() bool {
		fs := procfs{root: "/proc"}
		st, err := fs.stat(pane)
		if err != nil {
			return false
		}
		for _, p := range fs.scan() {
			if p.pgrp == st.tpgid && p.comm == wantComm {
				return true
			}
		}
		return false
	})
}

// TestTmuxRuntimes: a JavaScript runtime running Claude Code's npm package is found by both
// paths, by its executable (a copy of sh named node) and the script it runs, an absolute
// path or one relative to its working directory through the npm bin link; a runtime running
// something else, or only named claude, is not.
func TestTmuxRuntimes(t *testing.T) {
	needLsof(t)
	dir := t.TempDir()
	sh, err := os.ReadFile("/bin/sh")
	if err != nil {
		t.Skipf("no /bin/sh: %v", err)
	}
	node := filepath.Join(dir, "rt", "node")
	writeFile(t, dir, "rt/node", sh)
	if err := os.Chmod(node, 0o755); err != nil {
		t.Fatal(err)
	}
	const body = "read x\n" // stays in the foreground, reading the terminal
	writeFile(t, dir, "lib/node_modules/@anthropic-ai/claude-code/cli.js", []byte(body))
	writeFile(t, dir, "server.js", []byte(body))
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../lib/node_modules/@anthropic-ai/claude-code/cli.js", filepath.Join(dir, "bin", "claude")); err != nil {
		t.Fatal(err)
	}
	s := tmuxtest.Start(t, 80, 24)

	abs := newWindow(t, s, node, filepath.Join(dir, "lib/node_modules/@anthropic-ai/claude-code/cli.js"))
	if f := waitFound(t, abs); !strings.Contains(f[1].How, "node ("+node+") running") {
		t.Errorf("How = %q", f[1].How)
	}
	rel := newWindow(t, s, "sh", "-c", "cd '"+dir+"' && exec ./rt/node bin/claude")
	if f := waitFound(t, rel); !strings.Contains(f[1].How, "bin/claude → ") {
		t.Errorf("How = %q, want the resolved script", f[1].How)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skipf("no bash for exec -a: %v", err)
	}
	for _, c := range []struct{ name, cmd string }{
		{"node server.js claude", "cd '" + dir + "' && exec ./rt/node server.js claude"},
		// argv is ["claude"], as a runtime that titled itself has, but its comm is "node".
		{"exec -a claude node", "cd '" + dir + "' && exec -a claude ./rt/node"},
	} {
		pane := newWindow(t, s, "bash", "-c", c.cmd)
		waitForeground(t, c.name, pane, "node")
		wantNotClaude(t, pane)
	}
}

// TestTmuxEnv: Env reads CLAUDE_CONFIG_DIR and HOME of the process found, on both paths, a
// value with spaces whole; where ps's output is ambiguous (a value holding " HOME=") the path
// without /proc says so rather than guess.
func TestTmuxEnv(t *testing.T) {
	needLsof(t)
	claude := fakeClaudeBin(t)
	s := tmuxtest.Start(t, 80, 24)
	want := records.Env{ConfigDir: "/tmp/cfg dir/a b", Home: "/tmp/home"}
	pane := newWindow(t, s, "env", "CLAUDE_CONFIG_DIR="+want.ConfigDir, "HOME="+want.Home, claude, "600")
	founds := waitFound(t, pane)
	for i, src := range finders {
		if env, err := src.f.Env(toolCtx(t), founds[i].Identity); err != nil || env != want {
			t.Errorf("%s: Env(%+v) = %+v, %v, want %+v", src.name, founds[i].Identity, env, err, want)
		}
	}
	pane = newWindow(t, s, "env", "HOME="+want.Home, "X=a HOME=/elsewhere", claude, "601")
	founds = waitFound(t, pane)
	if env, err := finders[0].f.Env(toolCtx(t), founds[0].Identity); err != nil || env.Home != want.Home {
		t.Errorf("proc: Env = %+v, %v, want HOME %s", env, err, want.Home)
	}
	if env, err := finders[1].f.Env(toolCtx(t), founds[1].Identity); err == nil {
		t.Errorf("noproc: Env with a value holding \" HOME=\" = %+v, want an error", env)
	} else {
		t.Logf("noproc: %v", err)
	}
	killAndWait(t, founds)
	for i, src := range finders {
		if env, err := src.f.Env(toolCtx(t), founds[i].Identity); err == nil {
			t.Errorf("%s: Env of a killed process = %+v, want an error", src.name, env)
		}
	}
}

// BenchmarkFindTmux measures Find on both paths for a pane with a shell at its prompt (one
// candidate, the common case), one running claude itself, and one running a wrapper shell
// with claude below it (two): /proc reads a few files; the path without it runs ps and lsof.
func BenchmarkFindTmux(b *testing.B) {
	needLsof(b)
	bin := fakeClaudeBin(b)
	s := tmuxtest.Start(b, 80, 24) // sh in main:0
	s.Tmux(b, "new-window", "-d", "-t", "main:1", bin, "600")
	s.Tmux(b, "new-window", "-d", "-t", "main:2", "sh", "-c", bin+" 600; true")
	ctx := context.Background()
	for _, src := range finders {
		for _, c := range []struct {
			name, target string
			want         bool
		}{{"shell", "main:0", false}, {"claude", "main:1", true}, {"wrapper", "main:2", true}} {
			out := s.Tmux(b, "display-message", "-p", "-t", c.target, "#{pane_pid}")
			pane, err := strconv.Atoi(strings.TrimSpace(out))
			if err != nil {
				b.Fatalf("pane_pid of %s: %q", c.target, out)
			}
			tmuxtest.WaitFor(b, 5*time.Second, c.name+" ready", func() bool {
				_, ok, err := src.f.Find(ctx, pane)
				return err == nil && ok == c.want
			})
			b.Run(src.name+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					if _, ok, err := src.f.Find(ctx, pane); err != nil || ok != c.want {
						b.Fatalf("Find: %v, %v", ok, err)
					}
				}
			})
		}
	}
}
