//go:build linux || freebsd

package tmuxctl

import "syscall"

// controlAttr is how a control-mode client is started: in its own process group (a ^C meant
// for the program using it must not end the connection under its feet), and killed by the
// kernel when the thread that started it ends, so with this process. Its stdin closing is
// not enough: tmux (3.2a to next-3.8 alike) ends a control client whose stdin closed only
// once its pending output is written, and a reply in flight to a process killed by SIGKILL
// never is, so the client stayed on the server until the server exited. The client's own end
// is another matter: the server sees its socket close and drops it at once.
//
// Pdeathsig follows the starting thread, not the process (go.dev/issue/27505): a thread ends
// before the process only when a goroutine locked to it exits, which nothing here does; had it
// happened, the connection drops and the transport dials again.
func controlAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
