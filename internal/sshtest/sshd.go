package sshtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// errPortTaken: another process took the free port before sshd bound it; Start tries another.
var errPortTaken = errors.New("the port was taken before sshd bound it")

// optional are lines of the server's configuration that an older sshd may not know; Start
// drops each one sshd -t refuses. PerSourcePenalties (OpenSSH 9.8): no refusing 127.0.0.1 for a
// while after the tests' connections that end early (killed at a timeout). SetEnv SHLVL=1
// (OpenSSH 8.7): bash run by sshd reads the user's ~/.bashrc only as a top-level shell, and a
// user's startup files (a version manager's init: seconds on a loaded machine) or anything
// they print are no part of the tests.
var optional = []string{"PerSourcePenalties no", "SetEnv SHLVL=1"}

// sshdConfig is the server's configuration: the current user with the test's key only, on
// 127.0.0.1:port. StrictModes no: the files are in a temporary directory; UsePAM no: no login
// session of the system's; prohibit-password lets root in with the key (CI runs as root).
func (s *Server) sshdConfig(port int, extra string) string {
	return fmt.Sprintf(`ListenAddress 127.0.0.1:%d
HostKey %s
AuthorizedKeysFile %s
AuthorizedPrincipalsFile none
PidFile none
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
AllowUsers %s
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
HostbasedAuthentication no
PermitEmptyPasswords no
X11Forwarding no
AllowAgentForwarding no
AllowTcpForwarding no
PrintMotd no
MaxStartups 100
MaxSessions 100
LogLevel INFO
`, port, filepath.Join(s.Dir, "host_key"), filepath.Join(s.Dir, "authorized_keys"), s.User) + extra
}

// writeConfig writes the server's configuration for port with the optional lines this sshd
// takes, checked with sshd -t, and returns its path.
func (s *Server) writeConfig(t testing.TB, port int) (string, error) {
	conf := filepath.Join(s.Dir, "sshd_config")
	lines := slices.Clone(optional)
	for {
		write(t, conf, s.sshdConfig(port, strings.Join(lines, "\n")+"\n"), 0o600)
		out, err := exec.Command(SSHD, "-t", "-f", conf).CombinedOutput()
		if err == nil {
			return conf, nil
		}
		refused := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(string(out), strings.Fields(l)[0]) })
		if refused < 0 {
			return "", fmt.Errorf("%s -t: %v: %s", SSHD, err, out)
		}
		lines = slices.Delete(lines, refused, refused+1)
	}
}

// listen starts sshd on a free port, waits until the port accepts and sets s.Port; sshd is
// killed when t ends.
func (s *Server) listen(t testing.TB) error {
	port := freePort(t)
	conf, err := s.writeConfig(t, port)
	if err != nil {
		return err
	}
	cmd := exec.Command(SSHD, "-D", "-e", "-f", conf)
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // stop kills the group
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	if err := s.await(port, exited); err != nil {
		stop(cmd, exited)
		return err
	}
	s.Port = port
	t.Cleanup(func() {
		stop(cmd, exited)
		if t.Failed() {
			t.Logf("sshd's log:\n%s", s.Log())
		}
	})
	return nil
}

// await waits until sshd says it listens on port and the port accepts a connection, for a
// deadline stretched by tmuxtest.Scale; sshd exiting first ends the wait.
func (s *Server) await(port int, exited <-chan struct{}) error {
	limit := tmuxtest.Scale(10 * time.Second)
	deadline := clock.Real.Now().Add(limit)
	listening := "Server listening on 127.0.0.1 port " + strconv.Itoa(port) + "."
	for {
		select {
		case <-exited:
			if strings.Contains(s.Log(), "Address already in use") {
				return errPortTaken
			}
			return errors.New("sshd exited")
		default:
		}
		if strings.Contains(s.Log(), listening) {
			c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
			if err == nil {
				c.Close()
				return nil
			}
		}
		if clock.Real.Now().After(deadline) {
			return fmt.Errorf("port %d did not accept within %s", port, limit)
		}
		clock.Real.Sleep(context.Background(), 20*time.Millisecond)
	}
}

// stop ends sshd's process group (the listener; each connection's sshd is a session of its own
// and ends with its client): SIGTERM, then SIGKILL if it has not exited within 5 s.
func stop(cmd *exec.Cmd, exited <-chan struct{}) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	timer := clock.Real.NewTimer(5 * time.Second)
	defer timer.Stop()
	select {
	case <-exited:
		return
	case <-timer.C():
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}

// writeClientConfig writes the ssh client configuration: Host at the server's port, Dead at a
// port nothing listens on (deadPort), both as the current user with the test's key only (no agent), the
// server's host key the one known (StrictHostKeyChecking yes: any other is refused, never
// prompted for or learnt), and nothing of ~/.ssh.
func (s *Server) writeClientConfig(t testing.TB) {
	t.Helper()
	text := fmt.Sprintf(`Host %s
  Port %d
Host %s
  Port %d
Host *
  HostName 127.0.0.1
  User %s
  IdentityFile %s
  IdentitiesOnly yes
  IdentityAgent none
  PreferredAuthentications publickey
  HostKeyAlias %s
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  UpdateHostKeys no
  ControlMaster no
  ControlPath none
`, Host, s.Port, Dead, deadPort(t), s.User, filepath.Join(s.Dir, "id"), hostKeyAlias, filepath.Join(s.Dir, "known_hosts"))
	write(t, s.Config, text, 0o600)
}

// deadPort is a loopback port nothing listens on until t ends: a TCP socket bound to it and
// never listening, so that a connection is refused and no other process (another test's sshd)
// can take the port meanwhile.
func deadPort(t testing.TB) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatalf("sshtest: a socket: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("sshtest: bind a loopback port: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("sshtest: the bound port: %v", err)
	}
	return sa.(*syscall.SockaddrInet4).Port
}
