//go:build !linux && !freebsd

package tmuxctl

import "syscall"

// controlAttr is how a control-mode client is started: in its own process group (a ^C meant
// for the program using it must not end the connection under its feet). These systems have
// no Pdeathsig: a client whose process was killed by SIGKILL with a reply in flight stays on
// the server until its own process is killed (see control_unix.go and docs/how-it-works.md).
func controlAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
