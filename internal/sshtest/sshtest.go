// Package sshtest starts a private sshd for tests on a free loopback port that lets in only
// the current user, with a key made for the test, and writes the ssh configuration that reaches
// it with no prompt (ssh -F Config testhost); Remote runs a given cac-tmux on a private tmux
// server "on the other host". It never touches ~/.ssh, the system's sshd or the user's tmux:
// all is in a short temporary directory, removed with sshd killed (as root it only makes sure
// /run/sshd exists). Sessions run the login shell without ~/.bashrc (sshd sets SHLVL) and with
// sshd's small environment. Only a missing /usr/sbin/sshd skips; missing ssh or ssh-keygen fails.
package sshtest

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/internal/syncbuf"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// SSHD is the sshd the tests run: Debian's, where openssh-server puts it.
const SSHD = "/usr/sbin/sshd"

// The aliases of the client configuration Start writes.
const (
	// Host reaches the server.
	Host = "testhost"
	// Dead is a loopback port nothing listens on: ssh fails at once, "Connection refused".
	Dead = "deadhost"
)

// Server is a private sshd and the ssh client configuration that reaches it.
type Server struct {
	Dir    string // the temporary directory of its keys, configurations and scripts
	Port   int    // the loopback port it listens on
	User   string // the user it lets in: the current one
	Config string // the ssh client configuration: Host and Dead, the key, the known host key
	log    *syncbuf.Buffer
}

// Args are the ssh arguments that read the client configuration (hosts.Options.SSHArgs).
func (s *Server) Args() []string { return []string{"-F", s.Config} }

// Log is what sshd has written so far (-e: its log goes to stderr), for a failing test.
func (s *Server) Log() string { return s.log.String() }

// Start starts a private sshd on 127.0.0.1 at a free port and waits, with a deadline, until
// the port accepts. sshd is killed and the directory removed when t ends; sshd's log is
// printed then if t failed.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := os.Stat(SSHD); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("sshtest: %s is not installed (apt-get install openssh-server): the tests over ssh need a private sshd", SSHD)
	}
	for _, p := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("sshtest: %s is not installed (apt-get install openssh-client): %v", p, err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatalf("sshtest: the current user: %v", err)
	}
	dir, err := os.MkdirTemp("/tmp", "sx") // short: ssh's ControlPath and tmux sockets live under it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &Server{Dir: dir, User: u.Username, Config: filepath.Join(dir, "ssh_config"), log: &syncbuf.Buffer{}}
	s.keys(t)
	privsepDir(t)
	for attempt := 1; ; attempt++ {
		err := s.listen(t)
		if err == nil {
			break
		}
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("sshtest: start sshd: %v\nsshd's log:\n%s", err, s.Log())
		}
	}
	s.writeClientConfig(t)
	return s
}

// keys makes the host key, the client key and the files that trust each: the client key is
// the one authorized key, the host key the one known host (under the alias "sshtest").
func (s *Server) keys(t testing.TB) {
	t.Helper()
	for _, k := range []string{"host_key", "id"} {
		path := filepath.Join(s.Dir, k)
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sshtest", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("sshtest: ssh-keygen %s: %v\n%s", k, err, out)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(s.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	write(t, filepath.Join(s.Dir, "authorized_keys"), read("id.pub")+"\n", 0o600)
	write(t, filepath.Join(s.Dir, "known_hosts"), hostKeyAlias+" "+read("host_key.pub")+"\n", 0o600)
}

// hostKeyAlias is the name the client looks the host key up by, whatever the port.
const hostKeyAlias = "sshtest"

// privsepDir makes sure sshd's privilege separation directory exists: sshd started as root
// refuses to run without it, and a container with openssh-server installed but never started
// by its init script has none. It is what the package's service would create (root's, 0755,
// empty).
func privsepDir(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		return // an unprivileged sshd needs none
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Fatalf("sshtest: sshd run as root needs /run/sshd: %v (mkdir -m 755 /run/sshd)", err)
	}
}

// write writes a file of the test and fails it on error.
func write(t testing.TB, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// freePort is a loopback port free right now: the kernel chose it, and it was let go.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("sshtest: a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// quote makes s one word for sh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Script writes an executable sh script named name, in a directory of its own under s.Dir,
// with body after its #! line, and returns its path: a remote command for the tests
// (hosts.Options.Command) that records its arguments, sleeps, or runs a cac-tmux.
func (s *Server) Script(t testing.TB, name, body string) string {
	t.Helper()
	dir, err := os.MkdirTemp(s.Dir, "r")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	write(t, path, "#!/bin/sh\n"+body, 0o755)
	return path
}

// testEnv are the variables a remote cac-tmux takes from the test's process, which sshd does
// not pass on: tmuxtest.Isolate's private directories (tmux, configuration, state, locks), so
// that the remote side shares the test's, and PATH, so that it finds the same tmux.
var testEnv = []string{"TMUX_TMPDIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "PATH", tmuxtest.SlowEnv}

// Remote writes a script named cac-tmux that runs the cac-tmux binary bin on the private tmux
// server of socket, and returns its path, for hosts.Options.Command: `cac-tmux SUBCOMMAND
// ARGS…` runs `bin SUBCOMMAND -S socket ARGS…` (SUBCOMMAND must take -S: list, resume, skip,
// unskip, status, doctor), in the test's private directories (see testEnv), never on a tmux
// server of the user's.
func (s *Server) Remote(t testing.TB, bin, socket string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# cac-tmux of a test: " + bin + " on the private tmux server " + socket + "\n")
	for _, name := range testEnv {
		if v, ok := os.LookupEnv(name); ok {
			fmt.Fprintf(&b, "%s=%s; export %s\n", name, quote(v), name)
		}
	}
	b.WriteString("unset TMUX TMUX_PANE\n")
	fmt.Fprintf(&b, "[ $# -gt 0 ] || exec %s\nsub=$1\nshift\nexec %s \"$sub\" -S %s \"$@\"\n", quote(bin), quote(bin), quote(socket))
	return s.Script(t, "cac-tmux", b.String())
}
