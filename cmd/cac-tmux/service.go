package main

import (
	"errors"
	"os"
	"runtime"

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

// command is the service command of c: the service manager (--platform, else this system's)
// and the path of its file, talking to std.
func (o *serviceOptions) command(c *cobra.Command, std *deps) (service.Command, error) {
	p, err := service.ForOS(runtime.GOOS)
	if o.platform != "" {
		if p, err = service.ParsePlatform(o.platform); err != nil {
			return service.Command{}, usageErrorf("%s--platform: must be systemd or launchd (got %q)", prefix(c), o.platform)
		}
	}
	if err != nil {
		return service.Command{}, err
	}
	path, err := service.Path(p, os.Getenv)
	return service.Command{Platform: p, Path: path, Out: std.out, Err: std.err, DryRun: o.dryRun, System: service.Local()}, err
}

// given is what the flags ask the service to run: --binary and the server of -L/-S (neither:
// the default server, or for status the one the file names).
func (o *serviceOptions) given() service.Spec {
	return service.Spec{Binary: o.binary, SocketName: o.tmux.SocketName, SocketPath: o.tmux.SocketPath}
}

// usage makes the mistakes of the command line that service finds the usage errors they are.
func (o *serviceOptions) usage(c *cobra.Command, err error) error {
	if errors.Is(err, service.ErrNotExecutable) || errors.Is(err, service.ErrTwoServers) {
		return usageErrorf("%s%v", prefix(c), err)
	}
	return err
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
	cmd, err := o.command(c, std)
	if err != nil {
		return err
	}
	return o.usage(c, cmd.Install(o.given()))
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
	cmd, err := o.command(c, std)
	if err != nil {
		return err
	}
	return cmd.Uninstall()
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

func runServiceStatus(c *cobra.Command, o *serviceOptions, std *deps) error {
	cmd, err := o.command(c, std)
	if err != nil {
		return err
	}
	return o.usage(c, cmd.Status(c.Context(), o.given()))
}
