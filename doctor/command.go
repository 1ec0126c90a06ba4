package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/printable"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// What `cac-tmux doctor` does around Run: the Env of one server of this host, the report as
// it prints, and the doctor of another host.

// NewEnv is the Env of the server of tmux: its name and socket, the configuration in effect
// (load) with the sources it was read from, the watcher's directories (from getenv), whether
// a watcher runs (watcher.Watching), and the command that starts one.
func NewEnv(tmux *tmuxctl.Client, f Finder, getenv func(string) string, load func(ctx context.Context) (config.Loaded, error)) Env {
	socket, _ := tmux.SocketFileHere()
	stateDir, err := store.StateDir(getenv)
	lockDir, _ := store.LockDir(getenv) // fails as StateDir does
	cfg := func(ctx context.Context) (config.Config, string, error) {
		l, err := load(ctx)
		if err != nil {
			return config.Config{}, "", err
		}
		return l.Config, strings.Join(l.Describe(), "; "), nil
	}
	return Env{
		Tmux: tmux, Finder: f, Server: tmux.Name(), Socket: socket, Config: cfg,
		Watcher:  func(ctx context.Context) (int, bool) { return watcher.Watching(ctx, tmux, getenv) },
		StateDir: stateDir, LockDir: lockDir, DirErr: err,
		Getenv:       getenv,
		WatchCommand: watchCommand(tmux),
	}
}

// watchCommand is the command line that starts a watcher of the client's server.
func watchCommand(c *tmuxctl.Client) string {
	switch {
	case c.SocketPath != "":
		return "cac-tmux watch -S " + c.SocketPath
	case c.SocketName != "":
		return "cac-tmux watch -L " + c.SocketName
	}
	return "cac-tmux watch"
}

// Print writes the report to w, as one indented JSON object or for people (Write); the error
// says how many checks found a problem, when any did.
func (r Report) Print(w io.Writer, asJSON bool) error {
	var err error
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = r.Write(w)
	}
	if err != nil {
		return fmt.Errorf("doctor: write: %w", err)
	}
	if r.OK {
		return nil
	}
	n := 0
	for _, c := range r.Checks {
		if !c.OK {
			n++
		}
	}
	return fmt.Errorf("doctor: %s found a problem; each comes with its fix", printable.Count(n, "check"))
}

// Remote runs `cac-tmux doctor` on host through ssh (hosts.Run) and copies what it printed
// to out and errw; code is its exit status, with an error when it is not 0. A host that ssh
// does not reach, or that has no cac-tmux, is the one problem, with its fix (code 0).
func Remote(ctx context.Context, host string, o hosts.Options, asJSON bool, out, errw io.Writer) (code int, err error) {
	args := []string{"doctor"}
	if asJSON {
		args = append(args, "--json")
	}
	reply, err := hosts.Run(ctx, host, o, args...)
	switch {
	case errors.Is(err, hosts.ErrNoCacTmux):
		return 0, fmt.Errorf("doctor: host %s: %s; install cac-tmux there, or set [hosts] command to its path (a non-interactive ssh session's PATH often lacks ~/go/bin)", host, hosts.Reason(err))
	case err != nil:
		return 0, fmt.Errorf("doctor: host %s: %s; check that `ssh %s true` works without a prompt", host, hosts.Reason(err), host)
	}
	io.WriteString(out, reply.Stdout)
	io.WriteString(errw, reply.Stderr)
	if reply.Code != 0 {
		return reply.Code, fmt.Errorf("doctor: host %s found a problem; each comes with its fix", host)
	}
	return 0, nil
}
