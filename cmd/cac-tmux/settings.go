package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/table"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// loaded is the configuration in effect and what it was read from.
type loaded struct {
	config.Effective
	file config.File
	// options are the server's @cac-tmux-* options; served is false when none were read,
	// and unread then says why.
	options []config.Option
	served  bool
	unread  string
	// failed is why the server could not be asked, when settingsBeside read without it.
	failed error
}

// loadSettings reads the configuration in effect (config.Resolve): the file at path, the
// global tmux options @cac-tmux-* of the client's server when one runs, and the flags given,
// as the texts given (config.GivenFlags). Resolve parses and checks every value once, by the
// rule of its key. Mistakes in the file, in the options and in the flags are a *UsageError
// (exit 2) listing all of them: this is where a mistake of the configuration, wherever it
// was made, becomes one. A tmux failure other than no server is an error of its own. A nil
// tmux reads no server's options.
func loadSettings(ctx context.Context, tmux *tmuxctl.Client, path string, flags []config.Flag) (loaded, error) {
	var l loaded
	var fileErr error
	l.file, fileErr = config.ReadFile(path)
	var opts []tmuxctl.UserOption
	var err error
	if tmux != nil {
		opts, err = tmux.UserOptions(ctx, config.OptionPrefix)
	}
	switch {
	case tmux == nil:
		l.unread = "no tmux server asked"
	case errors.Is(err, tmuxctl.ErrNoServer):
		l.unread = "no server runs on " + tmux.Name()
	case errors.Is(err, exec.ErrNotFound):
		l.unread = "tmux is not installed"
	case err != nil:
		return loaded{}, fmt.Errorf("tmux options of %s: %w", tmux.Name(), err)
	default:
		l.served = true
		for _, o := range opts {
			l.options = append(l.options, config.Option{Name: o.Name, Value: o.Value})
		}
	}
	file := l.file
	if fileErr != nil {
		file = config.File{} // the options and flags are checked all the same
	}
	eff, err := config.Resolve(file, l.options, flags)
	if err = errors.Join(fileErr, err); err != nil {
		return loaded{}, &UsageError{Err: err}
	}
	l.Effective = eff
	return l, nil
}

// settingsBeside reads the settings as loadSettings does, for a command that covers more than
// tmux's server (other servers, other hosts): when that server cannot be asked (it hangs or
// fails, which is no mistake of the configuration), they are read without its options, and
// failed says why. A mistake of the configuration is a *UsageError all the same.
func settingsBeside(ctx context.Context, tmux *tmuxctl.Client, path string, flags []config.Flag) (loaded, error) {
	l, err := loadSettings(ctx, tmux, path, flags)
	var usage *UsageError
	if err == nil || errors.As(err, &usage) {
		return l, err
	}
	l, ferr := loadSettings(ctx, nil, path, flags)
	l.unread, l.failed = err.Error(), err
	return l, ferr
}

// fromElsewhere lists the keys whose values are not the defaults' and where each came from:
// "watch.margin: tmux option @cac-tmux-margin", for the log.
func (l loaded) fromElsewhere() []string {
	var out []string
	for _, s := range l.Settings() {
		if s.Source != (config.Source{}) {
			out = append(out, s.Key+": "+s.Source.String())
		}
	}
	return out
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
	for _, line := range l.describe(tmux) {
		fmt.Fprintln(std.out, line)
	}
	fmt.Fprintln(std.out)
	cells := [][]string{{"KEY", "VALUE", "SOURCE"}}
	for _, s := range l.Settings() {
		cells = append(cells, []string{s.Key, s.Value, s.Source.String()})
	}
	for _, line := range table.Format(cells, 0) {
		fmt.Fprintln(std.out, line)
	}
	return nil
}

// describe says what the configuration was read from: the file and the tmux options.
func (l loaded) describe(tmux *tmuxctl.Client) []string {
	file := "file " + l.file.Path + ": read"
	switch {
	case l.file.Path == "":
		file = "file: none (neither XDG_CONFIG_HOME nor HOME is set)"
	case !l.file.Found:
		file = "file " + l.file.Path + ": none; the defaults apply (cac-tmux config example prints one)"
	}
	opts := "tmux options: " + l.unread + "; none read"
	if l.served {
		names := make([]string, 0, len(l.options))
		for _, o := range l.options {
			if !slices.Contains(config.PluginOptions(), o.Name) {
				names = append(names, o.Name)
			}
		}
		opts = fmt.Sprintf("tmux options of %s: %d set", tmux.Name(), len(names))
		if len(names) > 0 {
			opts += " (" + strings.Join(names, ", ") + ")"
		}
	}
	return []string{file, opts}
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
