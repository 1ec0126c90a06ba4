package tmuxctl

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// dialTimeout bounds the connect that tells a live server's socket from a stale one. A
// connect to a unix socket does not wait for the server to accept: it fails at once on a
// socket nobody listens on, and succeeds at once on a live one, however busy.
const dialTimeout = time.Second

// Servers returns the sockets of the user's live tmux servers: the sockets in dir (SocketDir)
// and the extra paths given (a server started with -S elsewhere), each resolved through
// symlinks and listed once, sorted. Only sockets owned by uid count (a server of another
// user is never supervised, even where its owner lets this user in), and only those where a
// server listens: the socket of a server that died without removing it is left out. A dir
// that does not exist is no server, not an error.
func Servers(dir string, extra []string, uid int) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("tmuxctl: find servers in %s: %w", dir, err)
	}
	paths := slices.Clone(extra)
	for _, e := range entries {
		if e.Type()&fs.ModeSocket != 0 {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	var live []string
	for _, p := range paths {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if !slices.Contains(live, p) && ownSocket(p, uid) && Listening(p) {
			live = append(live, p)
		}
	}
	slices.Sort(live)
	return live, nil
}

// ownSocket says whether path is a socket owned by uid.
func ownSocket(path string, uid int) bool {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode()&fs.ModeSocket == 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == uid
}

// Listening says whether a tmux server listens on the socket at path: a connect succeeds.
// The connection is closed at once, before the client identifies itself: tmux drops it, and
// no client is ever listed for it. A server still exiting after kill-server listens until
// its last client and job are gone.
func Listening(path string) bool {
	c, err := net.DialTimeout("unix", path, dialTimeout)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Label is how people name the server on socket: its -L name ("default", "work") when the
// socket is in dir (SocketDir), else the socket's path (a server started with -S).
func Label(socket, dir string) string {
	if filepath.Dir(socket) == filepath.Clean(dir) {
		return filepath.Base(socket)
	}
	return socket
}

// Covered are the clients of the servers a command covers: the server c names when -L or -S
// named it (named); inside tmux (getenv("TMUX") set), the server of $TMUX, the one the command
// runs for (a status line's #() job has $TMUX too, tmux 3.2a to next-3.8), unless all; else
// every live server of the user uid (Servers: the sockets of SocketDir, and the server of
// $TMUX wherever its socket is). With no server running, c alone, so that its error says so.
func Covered(c *Client, named, all bool, getenv func(string) string, uid int) []*Client {
	if named || (!all && getenv("TMUX") != "") {
		return []*Client{c}
	}
	var extra []string
	if own, err := c.SocketFile(getenv, uid); err == nil {
		extra = append(extra, own)
	}
	sockets, _ := Servers(SocketDir(getenv, uid), extra, uid)
	if len(sockets) == 0 {
		return []*Client{c}
	}
	clients := make([]*Client, len(sockets))
	for i, socket := range sockets {
		clients[i] = &Client{SocketPath: socket}
	}
	return clients
}
