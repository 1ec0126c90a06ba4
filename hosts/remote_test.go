package hosts_test

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/internal/sshtest"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// patience bounds a call that should answer: generous, since a loaded CI machine can be slow,
// and a passing test never waits for it.
const patience = 20 * time.Second

// options reach the test's sshd, running command there.
func options(srv *sshtest.Server, command string) hosts.Options {
	return hosts.Options{SSHArgs: srv.Args(), Command: command, Timeout: tmuxtest.Scale(patience), ActTimeout: tmuxtest.Scale(patience)}
}

// config writes an ssh client configuration that reads the server's after the lines of first
// (ssh takes the first value of each option, so these win) and before those of last, and
// returns the arguments that read it.
func config(t *testing.T, srv *sshtest.Server, first, last string) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ssh_config")
	if err := os.WriteFile(path, []byte(first+"Include "+srv.Config+"\n"+last), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"-F", path}
}

// kind is the kind of a hosts error, nil for another error or none.
func kind(err error) error {
	var e *hosts.Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return nil
}

// killPidFile kills, when t ends, the process whose pid a remote script wrote to path: a
// remote command outlives the ssh killed at a timeout.
func killPidFile(t *testing.T, path string) {
	t.Cleanup(func() {
		b, err := os.ReadFile(path)
		if pid, err2 := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && err2 == nil && pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// A port nothing listens on is unreachable at once, in ssh's words; an Act there returns no
// remote code: ssh's own exit 255 is not the remote cac-tmux's.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	o := options(srv, "cac-tmux")
	start := time.Now()
	r := hosts.List(context.Background(), sshtest.Dead, o)
	took := time.Since(start)
	want := "hosts: list " + sshtest.Dead + ": unreachable: ssh: connect to host 127.0.0.1 port "
	if kind(r.Err) != hosts.ErrUnreachable || r.Panes != nil || !strings.HasPrefix(r.Err.Error(), want) ||
		!strings.HasSuffix(r.Err.Error(), ": Connection refused") {
		t.Errorf("List of a dead port = %+v, want %s…: Connection refused", r, want)
	}
	if limit := tmuxtest.Scale(5 * time.Second); took > limit {
		t.Errorf("List of a dead port took %s, want under %s", took, limit)
	}
	code, _, err := hosts.Act(context.Background(), sshtest.Dead, "resume", "%1", o)
	var e *hosts.Error
	if code != -1 || !errors.As(err, &e) || e.Kind != hosts.ErrUnreachable || e.Code != 255 ||
		!strings.HasPrefix(err.Error(), "hosts: resume %1 on "+sshtest.Dead+": unreachable: ssh: connect to host") {
		t.Errorf("Act on a dead port = %d, %v; want -1 and unreachable (ssh's 255)", code, err)
	}
}

// Host keys are ssh's: a host whose key is not known is refused (BatchMode: never asked),
// and the error says what ssh said.
func TestUnknownHostKey(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o := options(srv, "cac-tmux")
	o.SSHArgs = config(t, srv, "UserKnownHostsFile "+empty+"\n", "")
	r := hosts.List(context.Background(), sshtest.Host, o)
	if want := "hosts: list " + sshtest.Host + ": unreachable: Host key verification failed."; kind(r.Err) != hosts.ErrUnreachable || r.Err.Error() != want {
		t.Errorf("List with an unknown host key = %v, want %s", r.Err, want)
	}
}

// A remote command the host cannot find is "no cac-tmux": by its path, or on the PATH (env(1),
// which runs it, says so).
func TestNoCacTmux(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	missing := filepath.Join(srv.Dir, "nowhere", "cac-tmux")
	for _, tc := range []struct{ command, want string }{
		{missing, "hosts: list " + sshtest.Host + ": no cac-tmux: "},
		{"cac-tmux-not-installed", "hosts: list " + sshtest.Host + ": no cac-tmux: "},
	} {
		r := hosts.List(context.Background(), sshtest.Host, options(srv, tc.command))
		var e *hosts.Error
		if !errors.As(r.Err, &e) || e.Kind != hosts.ErrNoCacTmux || e.Code != 127 || !strings.HasPrefix(r.Err.Error(), tc.want) ||
			!strings.Contains(r.Err.Error(), "'cac-tmux-not-installed': No such file") && !strings.Contains(r.Err.Error(), missing) {
			t.Errorf("List with the remote command %s = %v, want %s… naming it", tc.command, r.Err, tc.want)
		}
	}
}

// A remote cac-tmux that fails is "remote command failed", with its exit status and the last
// line of its stderr; one that prints something else than the listing is "bad output".
func TestRemoteFailsOrBabbles(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	fails := srv.Script(t, "cac-tmux", "echo 'cac-tmux: a notice' >&2\necho 'cac-tmux: list: it broke' >&2\nexit 1\n")
	r := hosts.List(context.Background(), sshtest.Host, options(srv, fails))
	if want := "hosts: list " + sshtest.Host + ": remote command failed: exit 1: cac-tmux: list: it broke"; kind(r.Err) != hosts.ErrRemoteFailed || r.Err.Error() != want {
		t.Errorf("List of a failing cac-tmux = %v, want %s", r.Err, want)
	}
	// The real one, on a tmux server that does not run.
	none := filepath.Join(t.TempDir(), "no-server")
	r = hosts.List(context.Background(), sshtest.Host, options(srv, srv.Remote(t, bins.cac, none)))
	if want := "hosts: list " + sshtest.Host + ": remote command failed: exit 1: cac-tmux: list: server " + none; kind(r.Err) != hosts.ErrRemoteFailed || !strings.HasPrefix(r.Err.Error(), want) {
		t.Errorf("List of a host without a tmux server = %v, want %s…", r.Err, want)
	}
	babbles := srv.Script(t, "cac-tmux", "echo 'Welcome to dev1'\necho '[]'\n")
	r = hosts.List(context.Background(), sshtest.Host, options(srv, babbles))
	if want := `hosts: list ` + sshtest.Host + `: bad output: not a JSON array (it starts "Welcome to dev1\n[]"`; kind(r.Err) != hosts.ErrBadOutput || !strings.HasPrefix(r.Err.Error(), want) {
		t.Errorf("List of a host that prints a banner = %v, want %s…", r.Err, want)
	}
}

// A remote command that hangs is cut at the timeout: the error says so, and the call ends
// then. The timeout is made from the time a call takes now (roundTrip), so that the remote
// command runs when it comes even where a shell's startup is slow.
func TestTimeout(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	killPidFile(t, pidFile)
	hangs := srv.Script(t, "cac-tmux", "echo $$ > '"+pidFile+"'\nexec sleep 120\n")
	o := options(srv, hangs)
	o.Timeout = 3*roundTrip(t, srv) + tmuxtest.Scale(time.Second)
	start := time.Now()
	r := hosts.List(context.Background(), sshtest.Host, o)
	took := time.Since(start)
	want := "hosts: list " + sshtest.Host + ": timed out: no answer within " + o.Timeout.String() + "; ssh was killed"
	if kind(r.Err) != hosts.ErrTimeout || !errors.Is(r.Err, context.DeadlineExceeded) || r.Err.Error() != want {
		t.Errorf("List of a hanging host = %v, want %s", r.Err, want)
	}
	if limit := o.Timeout + tmuxtest.Scale(2*time.Second); took < o.Timeout || took > limit {
		t.Errorf("List of a hanging host took %s, want from %s to %s", took, o.Timeout, limit)
	}
	if _, err := os.Stat(pidFile); err != nil {
		t.Logf("the remote command had not started by the timeout (the machine is slow): ssh was cut before it")
	}
}

// roundTrip is how long a List of a remote command that answers at once takes now: on a
// loaded machine, or with a remote shell whose startup files are slow, seconds.
func roundTrip(t *testing.T, srv *sshtest.Server) time.Duration {
	t.Helper()
	quick := srv.Script(t, "cac-tmux", "echo '[]'\n")
	start := time.Now()
	if r := hosts.List(context.Background(), sshtest.Host, options(srv, quick)); r.Err != nil {
		t.Fatalf("List of a remote command that answers at once: %v", r.Err)
	}
	return time.Since(start)
}

// Every word reaches the remote program as itself: a target with spaces, quotes, $(…),
// backquotes and a newline is one argument, nothing in it runs; so is a remote command whose
// path is no plain word, and a leading ~/ is the remote home.
func TestQuotingReachesTheRemote(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	dir := t.TempDir()
	argv, mark := filepath.Join(dir, "argv"), filepath.Join(dir, "ran")
	record := "printf '%s\\0' \"$@\" > '" + argv + "'\necho '[]'\n"
	recorder := srv.Script(t, "cac tmux 'q' \"dq\" $(false) \\", record)
	target := "my session:1.0 'single' \"double\" $(touch " + mark + "1) `touch " + mark + "2` ; touch " + mark + "3 \\ back\\slash\n\t| & * ? ~ # %1 -S /x"
	code, out, err := hosts.Act(context.Background(), sshtest.Host, "resume", target, options(srv, recorder))
	if code != 0 || err != nil || out != "[]\n" {
		t.Fatalf("Act through the recorder = %d, %q, %v; want 0", code, out, err)
	}
	wantArgv := func(want ...string) {
		t.Helper()
		b, err := os.ReadFile(argv)
		if got := strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00"); err != nil || strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("the remote command received %q (%v), want %q", got, err, want)
		}
	}
	wantArgv("resume", "--", target)
	r := hosts.List(context.Background(), sshtest.Host, options(srv, recorder))
	if r.Err != nil || r.Panes == nil || len(r.Panes) != 0 {
		t.Errorf("List through the recorder = %+v, want no pane and no error", r)
	}
	wantArgv("list", "--json", "--all")
	if matches, _ := filepath.Glob(mark + "*"); len(matches) > 0 {
		t.Errorf("the remote shell ran what the words held: %q", matches)
	}
	// ~/ is the remote user's home, the rest of the path quoted.
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(u.HomeDir, recorder)
	if _, statErr := os.Stat(u.HomeDir); err != nil || statErr != nil {
		t.Skipf("no home directory to reach the recorder from (%v, %v)", err, statErr)
	}
	if r := hosts.List(context.Background(), sshtest.Host, options(srv, "~/"+rel)); r.Err != nil {
		t.Errorf("List with the remote command ~/%s = %v", rel, r.Err)
	}
	wantArgv("list", "--json", "--all")
}
