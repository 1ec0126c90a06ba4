package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// settingsBeside reads the configuration in effect with config.Load: the file at path, the
// options of tmux's server (nil: none asked) and the flags given. A mistake of the
// configuration is a *UsageError (exit 2). It serves a command that covers more than that
// server (other servers, other hosts): a server that cannot be asked is read without, and
// Failed says why.
func settingsBeside(ctx context.Context, tmux *tmuxctl.Client, path string, flags []config.Flag) (config.Loaded, error) {
	var server config.Server
	if tmux != nil {
		server = config.TmuxServer[tmuxctl.UserOption](tmux, tmuxctl.ErrNoServer)
	}
	l, err := config.Load(ctx, path, server, flags)
	if err != nil {
		return config.Loaded{}, &UsageError{Err: err}
	}
	return l, nil
}

// loadSettings is settingsBeside for a command about tmux's server alone: a server that
// cannot be asked is its error.
func loadSettings(ctx context.Context, tmux *tmuxctl.Client, path string, flags []config.Flag) (config.Loaded, error) {
	l, err := settingsBeside(ctx, tmux, path, flags)
	if err == nil {
		err = l.FailedAlone(true)
	}
	if err != nil {
		return config.Loaded{}, err
	}
	return l, nil
}

func newConfig(std stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "config COMMAND",
		Short: "check the configuration, or print an example file",
	}
	c.AddCommand(newConfigCheck(std), newConfigExample(std))
	return c
}

func newConfigCheck(std stdio) *cobra.Command {
	var tmux *tmuxctl.Client
	c := &cobra.Command{
		Use:   "check [-L NAME|-S PATH] [PATH]",
		Short: "validate the configuration and print every setting in effect and where it came from",
		Long: `Validate the configuration file (PATH, else the default file when it exists) and the tmux
options @cac-tmux-* of the server (when one runs), then print every setting in effect, its
value and where it came from: a tmux option, a line of the file, or the default. Flags of
watch win over both; they are not part of this check. Exit 0 when all is valid, 2 with every
mistake otherwise.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("%sunexpected argument %q (see %s --help)", prefix(c), args[1], c.CommandPath())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			path := config.Path(os.Getenv)
			if len(args) == 1 {
				path = args[0]
				// A named file must exist. ReadFile tells an absent one from a symbolic link to
				// nothing, which is an error of its own, reported with the others below.
				if f, err := config.ReadFile(path); err == nil && !f.Found {
					return usageErrorf("config check: %s does not exist (without PATH, %s is read when it exists)", path, config.Path(os.Getenv))
				}
			}
			return runConfigCheck(c.Context(), tmux, path, std)
		},
	}
	tmux = socketFlags(c.Flags())
	return c
}

func runConfigCheck(ctx context.Context, tmux *tmuxctl.Client, path string, std stdio) error {
	l, err := loadSettings(ctx, tmux, path, nil)
	if err != nil {
		return fmt.Errorf("config check: %w", err)
	}
	for _, line := range table.Settings(l) {
		fmt.Fprintln(std.out, line)
	}
	return nil
}

func newConfigExample(std stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "example",
		Short: "print a configuration file with every key, its default and what it does",
		Long: `Print a configuration file with every key set to its default, what it does, its tmux
option and its flag. cac-tmux config check accepts it as it is:

  cac-tmux config example > ~/.config/cac-tmux/config.toml`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprint(std.out, config.Example())
			return err
		},
	}
}
