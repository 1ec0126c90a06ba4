//go:build linux

package hosts_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/internal/sshtest"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// startClaude runs the fake Claude Code with args in a new window of s and waits until it drew
// its first screen; it returns the pane's id and its session:window.pane.
func startClaude(t *testing.T, s *tmuxtest.Server, args ...string) (pane, target string) {
	t.Helper()
	log := filepath.Join(s.Dir, "claude"+strconv.FormatInt(time.Now().UnixNano(), 36)+".log")
	out := s.Tmux(t, append([]string{"new-window", "-d", "-P", "-F", "#{pane_id} #{session_name}:#{window_index}.#{pane_index}", bins.claude, "--log", log}, args...)...)
	pane, target, _ = strings.Cut(strings.TrimSpace(out), " ")
	tmuxtest.WaitFor(t, 10*time.Second, "the fake claude to start", func() bool { return drawn(log) })
	return pane, target
}

// drawn says whether the fake Claude Code's log records a state: it drew a screen.
func drawn(log string) bool {
	f, err := os.Open(log)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "# state ") {
			return true
		}
	}
	return false
}

// inAnHour is a reset an hour away, as the fake Claude Code takes it.
func inAnHour() string { return time.Now().Add(time.Hour).UTC().Format(time.RFC3339) }

// stopped starts a private tmux server with a fake Claude Code stopped at a limit (args added)
// and waits until the stop is on screen.
func stopped(t *testing.T, args ...string) (s *tmuxtest.Server, pane, target string) {
	t.Helper()
	s = tmuxtest.Start(t, 120, 30)
	pane, target = startClaude(t, s, append([]string{"--reset", inAnHour()}, args...)...)
	s.WaitScreen(t, pane, "limit")
	return s, pane, target
}

// find is the row of pane among panes.
func find(panes []hosts.Pane, pane string) (hosts.Pane, bool) {
	for _, p := range panes {
		if p.Pane == pane {
			return p, true
		}
	}
	return hosts.Pane{}, false
}

// List through the loopback sshd sees what the remote cac-tmux sees: the stopped Claude Code
// pane of its private tmux server, with no watcher running there. ListAll answers for every
// host in the order given: the panes of that one, ssh's refusal for a port nothing listens on,
// and for a host that never answers (a ProxyCommand that hangs) an error at its own timeout
// (made from the time the List took), which does not delay the others; its ProxyCommand ends
// with its ssh.
func TestList(t *testing.T) {
	t.Parallel()
	s, pane, target := stopped(t)
	srv := sshtest.Start(t)
	o := options(srv, srv.Remote(t, bins.cac, s.Socket))
	start := time.Now()
	r := hosts.List(context.Background(), sshtest.Host, o)
	took := time.Since(start)
	if r.Err != nil || r.Host != sshtest.Host {
		t.Fatalf("List = %+v", r)
	}
	p, ok := find(r.Panes, pane)
	if !ok || p.Target != target || p.State != "stopped" || p.Kind != "session" || p.WatcherRunning || p.Reset == nil || p.Due != nil {
		t.Errorf("List = %+v, want %s at %s stopped at a session limit, its reset, no watcher", r.Panes, pane, target)
	}

	proxyPid := filepath.Join(t.TempDir(), "proxy.pid")
	killPidFile(t, proxyPid)
	o.SSHArgs = config(t, srv, "", "Host slowhost\n  ProxyCommand sh -c 'echo $$ > "+proxyPid+"; exec sleep 600'\n")
	o.Timeout = 3*took + tmuxtest.Scale(2*time.Second)
	start = time.Now()
	rs := hosts.ListAll(context.Background(), []string{sshtest.Host, sshtest.Dead, "slowhost"}, o)
	took = time.Since(start)
	if len(rs) != 3 || rs[0].Host != sshtest.Host || rs[1].Host != sshtest.Dead || rs[2].Host != "slowhost" {
		t.Fatalf("ListAll = %+v, want the three hosts in order", rs)
	}
	if p, ok := find(rs[0].Panes, pane); rs[0].Err != nil || !ok || p.Target != target || p.State != "stopped" {
		t.Errorf("ListAll, %s = %+v, want %s stopped", sshtest.Host, rs[0], target)
	}
	if err := rs[1].Err; kind(err) != hosts.ErrUnreachable || !strings.HasSuffix(err.Error(), ": Connection refused") {
		t.Errorf("ListAll, %s = %v, want unreachable: Connection refused", sshtest.Dead, err)
	}
	// At its ConnectTimeout ssh gives up by itself (unreachable), else it is killed (timed out).
	if err := rs[2].Err; kind(err) != hosts.ErrUnreachable && kind(err) != hosts.ErrTimeout {
		t.Errorf("ListAll, slowhost = %v, want unreachable or timed out", err)
	}
	if limit := o.Timeout + tmuxtest.Scale(2*time.Second); took > limit {
		t.Errorf("ListAll took %s, want under %s", took, limit)
	}
	pid, err := os.ReadFile(proxyPid)
	if err != nil {
		t.Fatalf("the ProxyCommand never ran: %v", err)
	}
	tmuxtest.WaitFor(t, 5*time.Second, "the ProxyCommand to end with ssh", func() bool { return gone(strings.TrimSpace(string(pid))) })
}

// gone says whether process pid has ended: no such process, or a zombie nobody reaped yet.
func gone(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(rest, "Z") || strings.HasPrefix(rest, "X")
}

// Act runs resume, skip and unskip on a pane of the remote host and passes on the remote exit
// code: 2 for a bad target, 3 for a pane held after the keys, 4 for a limit that still holds,
// 0 for a resumed session, a skip and an unskip. Each case has its own tmux server: one action
// per server at a time (a second would take the first's lock for a watcher's).
func TestAct(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	for _, tc := range []struct {
		name, action string
		args         []string // the fake Claude Code's, after its reset; nil: the pane nosuch:9
		code         int
		out          string
	}{
		{"bad target", "resume", nil, 2, `no pane "nosuch:9"`},
		{"held", "resume", []string{"--vim", "stuck"}, 3, "is held: the input box did not show what was typed"},
		{"limit holds", "resume", []string{}, 4, "the limit still holds after 1 attempt"},
		{"resumed", "resume", []string{"--limit-until", time.Now().Format(time.RFC3339)}, 0, "resumed"},
		{"skip", "skip", []string{}, 0, "skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, target := tmuxtest.Start(t, 120, 30), "nosuch:9"
			if tc.args != nil {
				s, _, target = stopped(t, tc.args...)
			}
			o := options(srv, srv.Remote(t, bins.cac, s.Socket))
			code, out, err := hosts.Act(context.Background(), sshtest.Host, tc.action, target, o)
			if err != nil || code != tc.code || !strings.Contains(out, tc.out) {
				t.Errorf("Act %s %s = %d, %v, output\n%s\nwant %d and %q", tc.action, target, code, err, out, tc.code, tc.out)
			}
			if tc.action == "skip" && code == 0 {
				code, out, err = hosts.Act(context.Background(), sshtest.Host, "unskip", target, o)
				if err != nil || code != 0 || !strings.Contains(out, "waiting") {
					t.Errorf("Act unskip %s = %d, %v, output\n%s\nwant 0, waiting again", target, code, err, out)
				}
			}
		})
	}
}

// A remote cac-tmux that does not answer (here `watch`, which runs until it is stopped) ends
// soon after the local ssh is killed at the timeout: sshd closes its standard input, the one
// thing that reaches it (ssh without a terminal leaves a remote command running).
func TestRemoteEndsWithItsSSH(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	srv := sshtest.Start(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	killPidFile(t, pidFile)
	remote := srv.Script(t, "cac-tmux", "echo $$ > '"+pidFile+"'\nexec '"+srv.Remote(t, bins.cac, s.Socket)+"' \"$@\"\n")
	o := options(srv, remote)
	o.Timeout = 3*roundTrip(t, srv) + tmuxtest.Scale(2*time.Second)
	if _, err := hosts.Run(context.Background(), sshtest.Host, o, "watch"); kind(err) != hosts.ErrTimeout {
		t.Fatalf("Run of a remote watch = %v, want a timeout", err)
	}
	b, err := os.ReadFile(pidFile)
	pid, err2 := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || err2 != nil {
		t.Fatalf("the remote cac-tmux wrote no pid (it had not started by the timeout): %v, %v", err, err2)
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the remote cac-tmux to end after its ssh", func() bool { return ended(pid) })
}

// ended says whether process pid has exited: gone, or a zombie no one reaped yet.
func ended(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z")
}
