package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// What `cac-tmux service install|uninstall|status` do with a service file, and what they
// tell the person who ran them.

// System is what this package reads of the machine: the environment, where programs are
// found (tmux, for the service's PATH), the service manager's programs and the user.
type System struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
	Run      Runner
	UID      int
}

// Local is the System this program runs on.
func Local() System {
	return System{Getenv: os.Getenv, LookPath: exec.LookPath, Run: Exec, UID: os.Getuid()}
}

// Command is one service command: the manager, the path of its file, where its report (Out)
// and its notices (Err) go, and whether it only says what it would do.
type Command struct {
	Platform Platform
	Path     string
	Out, Err io.Writer
	DryRun   bool
	System
}

// Mistakes of the command line that Resolve finds: a --binary that is not an executable
// file, and both -L and -S.
var (
	ErrNotExecutable = errors.New("not an executable file")
	ErrTwoServers    = errors.New("give -L NAME or -S PATH, not both")
)

// Resolve completes what the user gave (a binary, "" for this program, and a server) into
// what the service runs: the binary made absolute (this program's executable with its
// symbolic links resolved), a socket path made absolute, the environment (Environment) and,
// for launchd, the log file (LogPath).
func (c Command) Resolve(given Spec) (Spec, error) {
	s := Spec{SocketName: given.SocketName, SocketPath: given.SocketPath,
		Env: Environment(c.Platform, c.Getenv, c.LookPath)}
	if s.SocketName != "" && s.SocketPath != "" {
		return s, ErrTwoServers
	}
	if s.SocketPath != "" {
		abs, err := filepath.Abs(s.SocketPath)
		if err != nil {
			return s, fmt.Errorf("service: -S %s: %w", s.SocketPath, err)
		}
		s.SocketPath = abs
	}
	bin, err := binaryPath(given.Binary)
	if err != nil {
		return s, err
	}
	s.Binary = bin
	if c.Platform == Launchd {
		s.LogFile, err = LogPath(c.Getenv)
	}
	return s, err
}

// binaryPath is given made absolute, else this program's executable, symlinks resolved.
func binaryPath(given string) (string, error) {
	if given != "" {
		abs, err := filepath.Abs(given)
		if err != nil {
			return "", fmt.Errorf("service: --binary %s: %w", given, err)
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", fmt.Errorf("--binary %s: %w", given, ErrNotExecutable)
		}
		return abs, nil
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return "", fmt.Errorf("service: find this program's path: %w; pass --binary", err)
	}
	return exe, nil
}

// Install writes the service file for given (Resolve) and says what to run next
// (WriteInstalled), after the warnings of Warn; with DryRun it writes the file to Out, and
// where it would go to Err.
func (c Command) Install(given Spec) error {
	s, content, err := c.render(given)
	if err != nil {
		return err
	}
	c.warn(s)
	if c.DryRun {
		fmt.Fprintf(c.Err, "would write %s (nothing written):\n", c.Path)
		_, err := c.Out.Write(content)
		return err
	}
	res, err := Install(c.Path, content)
	if err != nil {
		return err
	}
	WriteInstalled(c.Out, c.Platform, c.Path, res, s)
	return nil
}

// render is the service given resolves to (Resolve) and its file as Install writes it.
func (c Command) render(given Spec) (Spec, []byte, error) {
	s, err := c.Resolve(given)
	if err != nil {
		return Spec{}, nil, err
	}
	content, err := Render(c.Platform, s)
	return s, content, err
}

// warn tells Err of a service that would not do what the user may think: a binary that is a
// temporary build, or, from inside a tmux server that is not the default one, a service of
// the default server.
func (c Command) warn(s Spec) {
	if strings.Contains(s.Binary, "/go-build") || strings.HasPrefix(s.Binary, filepath.Clean(os.TempDir())+"/") {
		fmt.Fprintf(c.Err, "warning: %s looks like a temporary build (go run, go test); the service fails once it is gone: install cac-tmux, or pass --binary\n", s.Binary)
	}
	if s.SocketName != "" || s.SocketPath != "" || c.Getenv("TMUX") == "" {
		return
	}
	here, err1 := (&tmuxctl.Client{}).SocketFile(c.Getenv, c.UID)
	def, err2 := (&tmuxctl.Client{SocketName: "default"}).SocketFile(c.Getenv, c.UID)
	if err1 == nil && err2 == nil && here != def {
		fmt.Fprintf(c.Err, "warning: this shell runs in the tmux server %s, but the service watches the default server (%s); to watch this one: cac-tmux service install -S %s\n", here, def, here)
	}
}

// Uninstall removes the service file cac-tmux wrote and says how to stop the service
// (WriteRemoved); no file is said, and is no error. With DryRun it says what it would
// remove.
func (c Command) Uninstall() error {
	if c.DryRun {
		st, err := Inspect(c.Path, nil)
		switch {
		case err != nil:
			return err
		case !st.Exists:
			fmt.Fprintf(c.Out, "nothing to remove: no %s\n", c.Path)
		case !st.Ours:
			return &ForeignError{Path: c.Path, Op: "uninstall"}
		default:
			fmt.Fprintf(c.Out, "would remove %s (nothing removed)\n", c.Path)
		}
		return nil
	}
	err := Uninstall(c.Platform, c.Path)
	if errors.Is(err, ErrNotInstalled) {
		fmt.Fprintf(c.Out, "nothing to remove: no %s\n", c.Path)
		return nil
	}
	if err != nil {
		return err
	}
	WriteRemoved(c.Out, c.Platform, c.Path)
	return nil
}

// managerWithin bounds the question to systemctl or launchctl.
const managerWithin = 5 * time.Second

// Status reports to Out whether the service file exists, whether cac-tmux wrote it and for
// which server, whether it is what Install would write for given now (the server the file
// names when given names none), and last what the service manager says of the service
// (ManagerState). An error when the file is not installed, not cac-tmux's or out of date.
func (c Command) Status(ctx context.Context, given Spec) error {
	st, err := Inspect(c.Path, nil)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, managerWithin)
	defer cancel()
	defer func() {
		fmt.Fprintf(c.Out, "%-8s %s\n", c.Platform+":", ManagerState(ctx, c.Platform, c.UID, c.Run))
	}()
	fmt.Fprintf(c.Out, "%-8s %s\n", "file:", c.Path)
	switch {
	case !st.Exists:
		fmt.Fprintf(c.Out, "%-8s no (cac-tmux service install writes it)\n", "written:")
		return errors.New("service status: not installed")
	case !st.Ours:
		fmt.Fprintf(c.Out, "%-8s not by cac-tmux (no %q line)\n", "written:", Marker)
		return fmt.Errorf("service status: %s is not cac-tmux's", c.Path)
	}
	name, sock, _ := Server(st.Content)
	if given.SocketName == "" && given.SocketPath == "" {
		given.SocketName, given.SocketPath = name, sock
	}
	return c.compare(st.Content, name, sock, given)
}

// compare reports whether have, the file written for the server name or sock, is what
// Install would write for given now, and the lines it would change.
func (c Command) compare(have []byte, name, sock string, given Spec) error {
	_, want, err := c.render(given)
	if err != nil {
		return err
	}
	server := "the default server"
	switch {
	case name != "":
		server = "-L " + name
	case sock != "":
		server = "-S " + sock
	}
	fmt.Fprintf(c.Out, "%-8s by cac-tmux, for %s\n", "written:", server)
	if string(want) == string(have) {
		fmt.Fprintf(c.Out, "%-8s yes\n", "current:")
		return nil
	}
	fmt.Fprintf(c.Out, "%-8s no: cac-tmux service install would change these lines (run it to update the file):\n", "current:")
	for _, l := range Diff(have, want) {
		fmt.Fprintf(c.Out, "           %s\n", l)
	}
	return errors.New("service status: the file is out of date")
}
