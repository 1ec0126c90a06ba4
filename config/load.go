package config

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
)

// Server is the tmux server whose global options @cac-tmux-* Load reads. The command gives
// it (TmuxServer of its tmuxctl.Client): this package runs no tmux.
type Server interface {
	// Options returns the server's global user options whose names start with prefix. An
	// *Unasked error says there is no server to ask; any other error is a failure of the
	// server, worded with its name.
	Options(ctx context.Context, prefix string) ([]Option, error)
	// Name names the server for people: "server -L work", "the default tmux server".
	Name() string
}

// Unasked is the error of Server.Options when there is no server to ask: none runs there,
// or tmux is not installed. Load then reads without tmux options and says Why.
type Unasked struct{ Why string }

// Error is Why: "no server runs on server -L work".
func (u *Unasked) Error() string { return u.Why }

// Tmux is a tmux client as TmuxServer asks it for its options (a *tmuxctl.Client: this
// package runs no tmux); O is its option, a name and a value.
type Tmux[O ~struct{ Name, Value string }] interface {
	UserOptions(ctx context.Context, prefix string) ([]O, error)
	Name() string
}

// TmuxServer is the Server of the tmux client c. noServer is the error c gives when no
// server runs on its socket (tmuxctl.ErrNoServer): that, and tmux not installed, is no server
// to ask (*Unasked); any other error is a failure of the server, worded with its name.
func TmuxServer[O ~struct{ Name, Value string }](c Tmux[O], noServer error) Server {
	return tmuxServer[O]{c: c, noServer: noServer}
}

type tmuxServer[O ~struct{ Name, Value string }] struct {
	c        Tmux[O]
	noServer error
}

func (t tmuxServer[O]) Name() string { return t.c.Name() }

func (t tmuxServer[O]) Options(ctx context.Context, prefix string) ([]Option, error) {
	opts, err := t.c.UserOptions(ctx, prefix)
	switch {
	case t.noServer != nil && errors.Is(err, t.noServer):
		return nil, &Unasked{Why: "no server runs on " + t.c.Name()}
	case errors.Is(err, exec.ErrNotFound):
		return nil, &Unasked{Why: "tmux is not installed"}
	case err != nil:
		return nil, fmt.Errorf("tmux options of %s: %w", t.c.Name(), err)
	}
	out := make([]Option, len(opts))
	for i, o := range opts {
		out[i] = Option(o)
	}
	return out, nil
}

// Loaded is the configuration in effect and what it was read from.
type Loaded struct {
	Effective
	File File
	// Options are the server's options @cac-tmux-*; Served is false when none were read,
	// and Unread then says why.
	Options []Option
	Served  bool
	Unread  string
	// Server names the server asked, "" when none was given.
	Server string
	// Failed is why the server could not be asked when it failed (it hangs, tmux errs):
	// the configuration was then read without its options. A command about that server
	// alone takes it as its error; one that covers more goes on without them.
	Failed error
}

// Load reads the configuration in effect (Resolve): the file at path, the global options
// @cac-tmux-* of server (nil: none asked) and the flags given (GivenFlags). Every value is
// parsed and checked once, by the rule of its key. Mistakes in the file, in the options and in
// the flags are the error, all of them joined: the configuration's own, which a command
// reports as bad input. A server that cannot be asked is no mistake: the configuration is
// read without its options, and Failed says why.
func Load(ctx context.Context, path string, server Server, flags []Flag) (Loaded, error) {
	l := Loaded{}
	var fileErr error
	l.File, fileErr = ReadFile(path)
	l.readOptions(ctx, server)
	file := l.File
	if fileErr != nil {
		file = File{} // the options and flags are checked all the same
	}
	eff, err := Resolve(file, l.Options, flags)
	if err = errors.Join(fileErr, err); err != nil {
		return Loaded{}, err
	}
	l.Effective = eff
	return l, nil
}

// FailedAlone is the error of a command that read the configuration for the server asked
// alone (alone): Failed, since it cannot go on without that server. A command that covers
// more (every server of the user, other hosts) goes on without its options: nil.
func (l Loaded) FailedAlone(alone bool) error {
	if alone {
		return l.Failed
	}
	return nil
}

// readOptions asks server for its options, and says why none were read when it cannot.
func (l *Loaded) readOptions(ctx context.Context, server Server) {
	if server == nil {
		l.Unread = "no tmux server asked"
		return
	}
	l.Server = server.Name()
	opts, err := server.Options(ctx, OptionPrefix)
	var unasked *Unasked
	switch {
	case errors.As(err, &unasked):
		l.Unread = unasked.Why
	case err != nil:
		l.Unread, l.Failed = err.Error(), err
	default:
		l.Served, l.Options = true, opts
	}
}

// FromElsewhere lists the keys whose values are not the defaults' and where each came from:
// "watch.margin: tmux option @cac-tmux-margin", for the log.
func (l Loaded) FromElsewhere() []string {
	var out []string
	for _, s := range l.Settings() {
		if s.Source != (Source{}) {
			out = append(out, s.Key+": "+s.Source.String())
		}
	}
	return out
}

// Describe says what the configuration was read from: the file, then the tmux options.
func (l Loaded) Describe() []string {
	file := "file " + l.File.Path + ": read"
	switch {
	case l.File.Path == "":
		file = "file: none (neither XDG_CONFIG_HOME nor HOME is set)"
	case !l.File.Found:
		file = "file " + l.File.Path + ": none; the defaults apply (cac-tmux config example prints one)"
	}
	opts := "tmux options: " + l.Unread + "; none read"
	if l.Served {
		names := make([]string, 0, len(l.Options))
		for _, o := range l.Options {
			if !slices.Contains(pluginOptions, o.Name) {
				names = append(names, o.Name)
			}
		}
		opts = fmt.Sprintf("tmux options of %s: %d set", l.Server, len(names))
		if len(names) > 0 {
			opts += " (" + strings.Join(names, ", ") + ")"
		}
	}
	return []string{file, opts}
}
