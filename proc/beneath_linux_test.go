//go:build linux

package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// waitBeneath polls Diagnose on every source until each sees Claude Code out of the pane's
// reach, and returns what each saw. Find must take no process in the pane meanwhile.
func waitBeneath(t *testing.T, name string, pane int) []Diagnosis {
	t.Helper()
	ds := make([]Diagnosis, len(finders))
	for i, src := range finders {
		// ps and lsof get up to a minute, not the product's 5 s each (toolTimeout): ps over
		// the whole process table took longer on 2 cores loaded by the tmux matrix (as in
		// TestRealPS).
		ctx, cancel := context.WithTimeout(context.Background(), tmuxtest.Scale(time.Minute))
		defer cancel()
		tmuxtest.WaitFor(t, 30*time.Second, name+": "+src.name+" sees claude below pane pid "+strconv.Itoa(pane), func() bool {
			d, err := src.f.Diagnose(ctx, pane)
			if err != nil {
				t.Fatalf("%s: %s: Diagnose(%d): %v", name, src.name, pane, err)
			}
			ds[i] = d
			return d.Beneath != nil
		})
		if f, ok, err := src.f.Find(ctx, pane); err != nil || ok {
			t.Errorf("%s: %s: Find(%d) = %+v, %v, %v, want not Claude Code: it is out of the pane's reach", name, src.name, pane, f, ok, err)
		}
		why, err := src.f.explain(ctx, pane)
		if err != nil || len(why) == 0 || why[0] != ds[i].Beneath.String() {
			t.Errorf("%s: %s: explain(%d) = %q, %v, want the sentence of Beneath first", name, src.name, pane, why, err)
		}
		t.Logf("%s: %s: %q", name, src.name, ds[i].Why)
	}
	if ds[0].Beneath.Claude.PID != ds[1].Beneath.Claude.PID || ds[0].Beneath.Via != ds[1].Beneath.Via {
		t.Errorf("%s: /proc saw %+v, the path without /proc %+v", name, *ds[0].Beneath, *ds[1].Beneath)
	}
	return ds
}

// wantClaudeExe fails the test unless pid runs the executable claude.
func wantClaudeExe(t *testing.T, name string, pid int, claude string) {
	t.Helper()
	if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err != nil || exe != claude {
		t.Errorf("%s: pid %d runs %q (%v), want %s", name, pid, exe, err, claude)
	}
}

// TestTmuxBeneath: Claude Code out of the pane's reach is never taken (Find), and explain
// and Diagnose name it, on /proc and without it: under script(1), on a terminal of its own;
// in a pane of another tmux server whose client runs in the pane (nested tmux), that server
// named by -S, or by -L and the client's TMUX_TMPDIR and user. A client of the pane's own
// server shows nothing out of reach.
func TestTmuxBeneath(t *testing.T) {
	needLsof(t)
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script(1) is not installed (Debian: bsdutils, util-linux): %v", err)
	}
	claude := fakeClaudeBin(t)
	s := tmuxtest.Start(t, 80, 24)

	pane := newWindow(t, s, "script", "-qfc", claude+" 600", "/dev/null")
	for _, d := range waitBeneath(t, "script", pane) {
		b := d.Beneath
		wantClaudeExe(t, "script", b.Claude.PID, claude)
		tty, err := os.Readlink("/proc/" + strconv.Itoa(b.Claude.PID) + "/fd/0")
		if err != nil || b.Terminal != tty || b.ViaComm != "script" || b.Socket != "" || !strings.HasPrefix(b.Terminal, "/dev/pts/") {
			t.Errorf("script: %+v, want claude under script on its terminal %s (%v)", b, tty, err)
		}
		want := "claude (pid " + strconv.Itoa(b.Claude.PID) + ") runs under script (pid " + strconv.Itoa(b.Via) + ") on its own terminal " + tty +
			", not in this pane's terminal: cac-tmux does not type through it; run claude directly in the pane"
		if d.Why[0] != want {
			t.Errorf("script: Why[0] = %q\nwant %q", d.Why[0], want)
		}
	}

	inner := tmuxtest.Start(t, 80, 24)
	innerPane := newWindow(t, inner, claude, "601") // claude is the pane's process
	client := newWindow(t, s, "env", "-u", "TMUX", "tmux", "-S", inner.Socket, "attach", "-t", "main")
	for _, d := range waitBeneath(t, "tmux -S", client) {
		b := d.Beneath
		if b.Claude.PID != innerPane || b.Socket != inner.Socket || b.ViaComm != "tmux" || b.Via != client {
			t.Errorf("tmux -S: %+v, want claude pid %d in the server on %s, through client %d", b, innerPane, inner.Socket, client)
		}
		if !strings.Contains(d.Why[0], "runs in another tmux server, on socket "+inner.Socket) || !strings.HasSuffix(d.Why[0], "a watcher must run on that server: cac-tmux watch -S "+inner.Socket) {
			t.Errorf("tmux -S: Why[0] = %q", d.Why[0])
		}
	}

	// -L NAME: in the client's $TMUX_TMPDIR (tmuxtest's private directory), under its uid.
	label := "cxb" + strconv.Itoa(os.Getpid())
	conf := filepath.Join(s.Dir, "inner.conf")
	if err := os.WriteFile(conf, []byte(tmuxtest.Config), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tmux", "-L", label, "-f", conf, "new-session", "-d", "-s", "main", claude, "602").CombinedOutput(); err != nil {
		t.Fatalf("tmux -L %s new-session: %v: %s", label, err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", label, "kill-server").Run() })
	labelled := newWindow(t, s, "env", "-u", "TMUX", "tmux", "-L", label, "attach")
	want, err := filepath.EvalSymlinks(filepath.Join(os.Getenv("TMUX_TMPDIR"), "tmux-"+strconv.Itoa(os.Getuid())))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range waitBeneath(t, "tmux -L", labelled) {
		wantClaudeExe(t, "tmux -L", d.Beneath.Claude.PID, claude)
		if d.Beneath.Socket != filepath.Join(want, label) {
			t.Errorf("tmux -L: socket %q, want %q", d.Beneath.Socket, filepath.Join(want, label))
		}
	}

	// A client of the pane's own server, whose panes hold Claude Code: nothing out of reach
	// (the watcher of this server supervises them), and nothing more said.
	newWindow(t, s, claude, "603")
	own := newWindow(t, s, "env", "-u", "TMUX", "tmux", "-S", s.Socket, "attach", "-t", "main")
	waitForeground(t, "own server's client", own, "tmux: client")
	for _, src := range finders {
		d, err := src.f.Diagnose(context.Background(), own)
		if err != nil || d.Beneath != nil || len(d.Why) != 1 || !strings.HasPrefix(d.Why[0], "pid "+strconv.Itoa(own)+": ") {
			t.Errorf("%s: Diagnose(own server's client) = %+v, %v, want its not-Claude-Code sentence alone", src.name, d, err)
		}
	}
}
