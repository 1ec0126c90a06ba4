package tmuxctl

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SocketFile returns the path of the client's server socket, worked out as tmux 3.3a does
// without asking the server (it may not run yet): -S as given (made absolute); -L NAME, or no
// flag outside tmux ("default"), as tmux-UID/NAME in $TMUX_TMPDIR (else /tmp) resolved through
// symlinks; no flag inside tmux, the socket named first in $TMUX. A socket that exists is
// resolved through symlinks. It keys the watcher's lock and state file, so two spellings of
// one server must give one path.
func (c *Client) SocketFile(getenv func(string) string, uid int) (string, error) {
	path, err := c.socketFile(getenv, uid)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r, nil
	}
	return path, nil
}

func (c *Client) socketFile(getenv func(string) string, uid int) (string, error) {
	switch {
	case c.SocketPath != "":
		return filepath.Abs(c.SocketPath)
	case c.SocketName == "":
		if t, _, _ := strings.Cut(getenv("TMUX"), ","); t != "" {
			return t, nil
		}
	}
	label := c.SocketName
	if label == "" {
		label = "default"
	}
	return filepath.Join(SocketDir(getenv, uid), label), nil
}

// SocketDir is the directory where tmux puts the sockets of a user's servers (-L NAME and the
// default one): tmux-UID in $TMUX_TMPDIR, else in /tmp, resolved through symlinks (macOS's
// /tmp is a link to /private/tmp) as far as it exists.
func SocketDir(getenv func(string) string, uid int) string {
	tmp := getenv("TMUX_TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	dir := filepath.Join(tmp, "tmux-"+strconv.Itoa(uid))
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		return filepath.Join(r, "tmux-"+strconv.Itoa(uid))
	}
	return dir
}

// SocketFileHere is SocketFile with this process's environment and user id.
func (c *Client) SocketFileHere() (string, error) {
	return c.SocketFile(os.Getenv, os.Getuid())
}

// Name names the client's server for people, in messages: "server PATH" (-S), "server -L
// NAME", inside tmux without either "server" and the socket $TMUX names, else "the default
// tmux server".
func (c *Client) Name() string {
	switch {
	case c.SocketPath != "":
		return "server " + c.SocketPath
	case c.SocketName != "":
		return "server -L " + c.SocketName
	}
	if t, _, _ := strings.Cut(os.Getenv("TMUX"), ","); t != "" {
		return "server " + t
	}
	return "the default tmux server"
}
