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

// finders are the two sources: the real /proc, and ps (no /proc at Root).
var finders = []struct {
	name   string
	f      *Finder
	prefix string
}{
	{"proc", &Finder{}, ticksPrefix},
	{"ps", &Finder{Root: "/nonexistent"}, lstartPrefix},
}

// waitFound polls Find on every source until each finds Claude Code in the pane, and returns
// what each found.
func waitFound(t *testing.T, pane int) []Found {
	t.Helper()
	founds := make([]Found, len(finders))
	for i, src := range finders {
		tmuxtest.WaitFor(t, 5*time.Second, src.name+" finds claude in pane pid "+strconv.Itoa(pane), func() bool {
			f, ok, err := src.f.Find(context.Background(), pane)
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
		t.Errorf("/proc found pid %d, ps pid %d", founds[0].PID, founds[1].PID)
	}
	return founds
}

// killAndWait kills the process and waits until neither source sees it alive.
func killAndWait(t *testing.T, founds []Found) {
	t.Helper()
	for i, src := range finders {
		alive, err := src.f.Alive(context.Background(), founds[i].Identity)
		if err != nil || !alive {
			t.Errorf("%s: Alive(%+v) = %v, %v, want true", src.name, founds[i].Identity, alive, err)
		}
	}
	if err := syscall.Kill(founds[0].PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for i, src := range finders {
		tmuxtest.WaitFor(t, 5*time.Second, src.name+" sees pid "+strconv.Itoa(founds[i].PID)+" dead", func() bool {
			alive, err := src.f.Alive(context.Background(), founds[i].Identity)
			if err != nil {
				t.Fatalf("%s: Alive(%+v): %v", src.name, founds[i].Identity, err)
			}
			return !alive
		})
	}
}

func wantNotClaude(t *testing.T, pane int) {
	t.Helper()
	for _, src := range finders {
		tmuxtest.WaitFor(t, 5*time.Second, src.name+" sees no claude in pane pid "+strconv.Itoa(pane), func() bool {
			f, ok, err := src.f.Find(context.Background(), pane)
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
	claude := fakeClaudeBin(t)
	s := tmuxtest.Start(t, 80, 24) // /bin/sh at its prompt in main:0

	shPane := panePID(t, s, "main:0")
	t.Run("shell alone", func(t *testing.T) {
		for _, src := range finders {
			f, ok, err := src.f.Find(context.Background(), shPane)
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
// (issue 11, finding 3) are not Claude Code for /proc, which reads what runs. (ps can only
// read names: see SAFETY.md.)
func TestTmuxNamesAreNotClaude(t *testing.T) {
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
	f := &Finder{}
	window := func(argv ...string) int {
		out := s.Tmux(t, append([]string{"new-window", "-d", "-P", "-F", "#{pane_pid}", "-t", "main:"}, argv...)...)
		pane, err := strconv.Atoi(strings.TrimSpace(out))
		if err != nil {
			t.Fatalf("new-window printed %q", out)
		}
		return pane
	}
	// notClaude waits until the pane's foreground runs what wantComm names, then checks that
	// Find does not take it for Claude Code.
	notClaude := func(name string, pane int, wantComm string) {
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
		if got, ok, err := f.Find(context.Background(), pane); err != nil || ok {
			t.Errorf("%s: Find = %+v, %v, %v, want not Claude Code", name, got, ok, err)
		}
	}
	notClaude("exec -a claude cat", window("bash", "-c", "exec -a claude cat"), "cat")
	notClaude("a script named claude running cat", window(script("cat", "cat")), "cat")

	// A wrapper named claude: Claude Code while its claude child runs, not once it is killed
	// and the wrapper sits in its read.
	pane := window(script("wrapper", claude+" 600; read x"))
	var found Found
	tmuxtest.WaitFor(t, 5*time.Second, "the wrapper's claude child found", func() bool {
		var ok bool
		found, ok, _ = f.Find(context.Background(), pane)
		return ok
	})
	if found.PID == pane {
		t.Fatalf("found the wrapper itself: %+v", found)
	}
	if err := syscall.Kill(found.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the child gone", func() bool {
		alive, err := f.Alive(context.Background(), found.Identity)
		return err == nil && !alive
	})
	notClaude("a wrapper named claude whose child is gone", pane, "claude")
}

// BenchmarkFindTmux measures Find on the real /proc for a pane with a shell at its prompt (one
// candidate, the common case) and one running a wrapper shell with claude below it (two).
func BenchmarkFindTmux(b *testing.B) {
	bin := fakeClaudeBin(b)
	s := tmuxtest.Start(b, 80, 24) // sh in main:0
	s.Tmux(b, "new-window", "-d", "-t", "main:1", "sh", "-c", bin+" 600; true")
	f := &Finder{}
	ctx := context.Background()
	for _, c := range []struct {
		name, target string
		want         bool
	}{{"shell", "main:0", false}, {"wrapper", "main:1", true}} {
		out := s.Tmux(b, "display-message", "-p", "-t", c.target, "#{pane_pid}")
		pane, err := strconv.Atoi(strings.TrimSpace(out))
		if err != nil {
			b.Fatalf("pane_pid of %s: %q", c.target, out)
		}
		tmuxtest.WaitFor(b, 5*time.Second, c.name+" ready", func() bool {
			_, ok, err := f.Find(ctx, pane)
			return err == nil && ok == c.want
		})
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, ok, err := f.Find(ctx, pane); err != nil || ok != c.want {
					b.Fatalf("Find: %v, %v", ok, err)
				}
			}
		})
	}
}
