//go:build linux || freebsd

package tmuxctl

import "syscall"

// controlAttr starts a control-mode client in its own process group (a ^C meant for this
// program must not end the connection), killed by the kernel with this process (Pdeathsig).
// Closing its stdin is not enough: tmux 3.2a to next-3.8 end a client whose stdin closed only
// once its pending output is written, and a reply in flight to a SIGKILLed process never is,
// so the client would stay until the server exits; its own end drops it at once. Pdeathsig
// follows the starting thread (go.dev/issue/27505), which ends early only when a goroutine
// locked to it exits; none does, and the transport would then dial again.
func controlAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
