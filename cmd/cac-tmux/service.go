package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cac-tmux/cac-tmux/service"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// serviceOptions are the flags of `cac-tmux service install|uninstall|status`.
type serviceOptions struct {
	tmux     *tmuxctl.Client // -L/-S: the server the service watches
	platform string
	binary   string
	dryRun   bool
}

func newService(std *deps) *cobra.Command {
	c := &cobra.Command{
		Use:   "service COMMAND",
		Short: "install, remove or check the user service that runs watch (systemd, launchd)",
		Long: `Write, remove or check the user service that runs "cac-tmux watch" at login and restarts
it when it fails: a systemd user unit (~/.config/systemd/user/cac-tmux.service) on Linux, a
launchd agent (~/Library/LaunchAgents/com.github.cac-tmux.plist) on macOS. cac-tmux writes
and removes the file only; it prints the systemctl or launchctl command that starts or stops
the service, and never runs one that changes anything.`,
	}
	c.AddCommand(newServiceInstall(std), newServiceUninstall(std), newServiceStatus(std))
	return c
}

// bind defines the flags every service command has; with socket, -L and -S too.
func (o *serviceOptions) bind(fs *pflag.FlagSet, socket bool) {
	if socket {
		o.tmux = socketFlags(fs)
		fs.StringVar(&o.binary, "binary", "", "the cac-tmux the service runs (default: this one, symlinks resolved; give a stable link such as Homebrew's /opt/homebrew/bin/cac-tmux instead of a versioned path)")
	}
	fs.StringVar(&o.platform, "platform", "", "systemd or launchd (default: launchd on macOS, systemd on Linux)")
}

// where is the service manager and the path of its file.
func (o *serviceOptions) where(c *cobra.Command) (service.Platform, string, error) {
	p, err := service.ForOS(runtime.GOOS)
	if o.platform != "" {
		if p, err = service.ParsePlatform(o.platform); err != nil {
			return "", "", usageErrorf("%s--platform: must be systemd or launchd (got %q)", prefix(c), o.platform)
		}
	}
	if err != nil {
		return "", "", err
	}
	path, err := service.Path(p, os.Getenv)
	return p, path, err
}

// spec is what the service runs: this binary (or --binary) watching the server of -L/-S, or
// of socketName/socketPath when neither flag is given.
func (o *serviceOptions) spec(c *cobra.Command, p service.Platform, socketName, socketPath string) (service.Spec, error) {
	s := service.Spec{SocketName: o.tmux.SocketName, SocketPath: o.tmux.SocketPath,
		Env: service.Environment(p, os.Getenv, exec.LookPath)}
	if s.SocketName == "" && s.SocketPath == "" {
		s.SocketName, s.SocketPath = socketName, socketPath
	}
	if s.SocketName != "" && s.SocketPath != "" {
		return s, usageErrorf("%sgive -L NAME or -S PATH, not both", prefix(c))
	}
	if s.SocketPath != "" {
		abs, err := filepath.Abs(s.SocketPath)
		if err != nil {
			return s, err
		}
		s.SocketPath = abs
	}
	bin, err := o.binaryPath(c)
	if err != nil {
		return s, err
	}
	s.Binary = bin
	if p == service.Launchd {
		s.LogFile, err = service.LogPath(os.Getenv)
	}
	return s, err
}

// binaryPath is --binary made absolute, else this program's executable, symlinks resolved.
func (o *serviceOptions) binaryPath(c *cobra.Command) (string, error) {
	if o.binary != "" {
		abs, err := filepath.Abs(o.binary)
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", usageErrorf("%s--binary %s: not an executable file", prefix(c), o.binary)
		}
		return abs, nil
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return "", fmt.Errorf("%sfind this program's path: %w; pass --binary", prefix(c), err)
	}
	return exe, nil
}

func newServiceInstall(std *deps) *cobra.Command {
	o := &serviceOptions{}
	c := &cobra.Command{
		Use:   "install [-L NAME|-S PATH] [--dry-run] [--platform systemd|launchd] [--binary PATH]",
		Short: "write the service file and print the command that starts the service",
		Long: `Write the service file that runs "cac-tmux watch" (with -L/-S, for that server; else the
default server) and print the command that enables and starts it. A file cac-tmux wrote
before is rewritten; a file it did not write is left alone (exit 1). --dry-run prints the
file and writes nothing.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runServiceInstall(c, o, std) },
	}
	o.bind(c.Flags(), true)
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the file and where it would go; write nothing")
	return c
}

func runServiceInstall(c *cobra.Command, o *serviceOptions, std *deps) error {
	p, path, err := o.where(c)
	if err != nil {
		return err
	}
	s, err := o.spec(c, p, "", "")
	if err != nil {
		return err
	}
	content, err := service.Render(p, s)
	if err != nil {
		return err
	}
	serviceWarnings(std, s, o.tmux)
	if o.dryRun {
		fmt.Fprintf(std.err, "would write %s (nothing written):\n", path)
		_, err := std.out.Write(content)
		return err
	}
	res, err := service.Install(path, content)
	if err != nil {
		return err
	}
	service.WriteInstalled(std.out, p, path, res, s)
	return nil
}

// serviceWarnings warns on stderr of a service that would not do what the user may think:
// a binary that is a temporary build, or a default server that is not the one the command
// runs in.
func serviceWarnings(std *deps, s service.Spec, tmux *tmuxctl.Client) {
	if strings.Contains(s.Binary, "/go-build") || strings.HasPrefix(s.Binary, filepath.Clean(os.TempDir())+"/") {
		fmt.Fprintf(std.err, "warning: %s looks like a temporary build (go run, go test); the service fails once it is gone: install cac-tmux, or pass --binary\n", s.Binary)
	}
	if tmux.SocketName != "" || tmux.SocketPath != "" || os.Getenv("TMUX") == "" {
		return
	}
	here, err1 := (&tmuxctl.Client{}).SocketFile(os.Getenv, os.Getuid())
	def, err2 := (&tmuxctl.Client{SocketName: "default"}).SocketFile(os.Getenv, os.Getuid())
	if err1 == nil && err2 == nil && here != def {
		fmt.Fprintf(std.err, "warning: this shell runs in the tmux server %s, but the service watches the default server (%s); to watch this one: cac-tmux service install -S %s\n", here, def, here)
	}
}

func newServiceUninstall(std *deps) *cobra.Command {
	o := &serviceOptions{}
	c := &cobra.Command{
		Use:   "uninstall [--dry-run] [--platform systemd|launchd]",
		Short: "remove the service file cac-tmux wrote",
		Long: `Remove the service file, if cac-tmux wrote it (a file it did not write is left alone: exit
1), and print the command that stops the service. A systemd unit still enabled is refused:
disable it first (the command says how).`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runServiceUninstall(c, o, std) },
	}
	o.bind(c.Flags(), false)
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "say what would be removed; remove nothing")
	return c
}

func runServiceUninstall(c *cobra.Command, o *serviceOptions, std *deps) error {
	p, path, err := o.where(c)
	if err != nil {
		return err
	}
	if o.dryRun {
		st, err := service.Inspect(path, nil)
		switch {
		case err != nil:
			return err
		case !st.Exists:
			fmt.Fprintf(std.out, "nothing to remove: no %s\n", path)
		case !st.Ours:
			return &service.ForeignError{Path: path, Op: "uninstall"}
		default:
			fmt.Fprintf(std.out, "would remove %s (nothing removed)\n", path)
		}
		return nil
	}
	err = service.Uninstall(p, path)
	if errors.Is(err, service.ErrNotInstalled) {
		fmt.Fprintf(std.out, "nothing to remove: no %s\n", path)
		return nil
	}
	if err != nil {
		return err
	}
	service.WriteRemoved(std.out, p, path)
	return nil
}

func newServiceStatus(std *deps) *cobra.Command {
	o := &serviceOptions{}
	c := &cobra.Command{
		Use:   "status [-L NAME|-S PATH] [--platform systemd|launchd] [--binary PATH]",
		Short: "say whether the service file is there, cac-tmux's, up to date, and the service's state",
		Long: `Say whether the service file exists, whether cac-tmux wrote it, whether it is what
"cac-tmux service install" would write now (the same server as the file names, unless -L/-S
say otherwise; this binary, unless --binary), and what systemctl or launchctl says of the
service when it can be asked. Exit 0 when the file is installed and up to date, 1 otherwise.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runServiceStatus(c, o, std) },
	}
	o.bind(c.Flags(), true)
	return c
}

// managerWithin bounds the question to systemctl or launchctl.
const managerWithin = 5 * time.Second

func runServiceStatus(c *cobra.Command, o *serviceOptions, std *deps) error {
	p, path, err := o.where(c)
	if err != nil {
		return err
	}
	st, err := service.Inspect(path, nil)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Context(), managerWithin)
	defer cancel()
	defer func() {
		fmt.Fprintf(std.out, "%-8s %s\n", p+":", service.ManagerState(ctx, p, os.Getuid(), service.Exec))
	}()
	fmt.Fprintf(std.out, "%-8s %s\n", "file:", path)
	switch {
	case !st.Exists:
		fmt.Fprintf(std.out, "%-8s no (cac-tmux service install writes it)\n", "written:")
		return &exitError{code: exitFailure, err: errors.New("service status: not installed")}
	case !st.Ours:
		fmt.Fprintf(std.out, "%-8s not by cac-tmux (no %q line)\n", "written:", service.Marker)
		return &exitError{code: exitFailure, err: fmt.Errorf("service status: %s is not cac-tmux's", path)}
	}
	name, sock, _ := service.Server(st.Content)
	s, err := o.spec(c, p, name, sock)
	if err != nil {
		return err
	}
	want, err := service.Render(p, s)
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
	fmt.Fprintf(std.out, "%-8s by cac-tmux, for %s\n", "written:", server)
	if string(want) == string(st.Content) {
		fmt.Fprintf(std.out, "%-8s yes\n", "current:")
		return nil
	}
	fmt.Fprintf(std.out, "%-8s no: cac-tmux service install would change these lines (run it to update the file):\n", "current:")
	for _, l := range service.Diff(st.Content, want) {
		fmt.Fprintf(std.out, "           %s\n", l)
	}
	return &exitError{code: exitFailure, err: errors.New("service status: the file is out of date")}
}
