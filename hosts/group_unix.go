//go:build unix

package hosts

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own and makes its cancel kill that whole group:
// ssh and what it started for this call (a ProxyCommand, a ProxyJump's ssh), which would
// otherwise live on and hold the output pipes. A ControlPersist master detaches into a
// session of its own and is left alone, for the next call to share.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
