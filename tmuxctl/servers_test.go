package tmuxctl_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// Servers finds the live servers among the sockets of a directory and the extra paths: two
// servers in the directory and one elsewhere, each once (a link to one of them is the same
// server); not a socket nobody listens on (a server that died without removing it), a plain
// file, a path that does not exist, nor sockets of another user. Asking leaves no client
// behind on the servers.
func TestServers(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("/tmp", "cxs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	a := tmuxtest.StartAt(t, filepath.Join(dir, "a"), 80, 24)
	b := tmuxtest.StartAt(t, filepath.Join(dir, "b"), 80, 24)
	elsewhere := tmuxtest.Start(t, 80, 24)
	staleSocket(t, filepath.Join(dir, "stale"))
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(a.Socket, link); err != nil {
		t.Fatal(err)
	}
	extra := []string{elsewhere.Socket, link, filepath.Join(dir, "gone")}

	got, err := tmuxctl.Servers(dir, extra, os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{a.Socket, b.Socket, elsewhere.Socket}
	for i, p := range want {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			want[i] = r
		}
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Servers = %q, want %q", got, want)
	}
	if got, _ := tmuxctl.Servers(dir, extra, os.Getuid()+1); len(got) != 0 {
		t.Errorf("Servers of another user = %q, want none", got)
	}
	if got, err := tmuxctl.Servers(filepath.Join(dir, "none"), nil, os.Getuid()); err != nil || len(got) != 0 {
		t.Errorf("Servers of a directory that does not exist = %q, %v; want none and no error", got, err)
	}
	for _, s := range []*tmuxtest.Server{a, b, elsewhere} {
		if clients := strings.TrimSpace(s.Tmux(t, "list-clients")); clients != "" {
			t.Errorf("%s: clients after Servers: %q", s.Socket, clients)
		}
	}
}

// staleSocket leaves a socket file at path that nobody listens on, as a server that died
// leaves its own. The socket is bound and never listens: a listener closed at once was still
// reached once on a loaded machine (a child being forked by a parallel test held a copy of it),
// and a socket that never listened refuses every connect whoever holds it.
func staleSocket(t *testing.T, path string) {
	syscall.ForkLock.RLock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
}

// Label names a server by its -L name when its socket is in the user's tmux directory, by
// its path otherwise.
func TestLabel(t *testing.T) {
	for _, tc := range []struct{ socket, dir, want string }{
		{"/tmp/tmux-1000/default", "/tmp/tmux-1000", "default"},
		{"/tmp/tmux-1000/work", "/tmp/tmux-1000/", "work"},
		{"/srv/t/work", "/tmp/tmux-1000", "/srv/t/work"},
	} {
		if got := tmuxctl.Label(tc.socket, tc.dir); got != tc.want {
			t.Errorf("Label(%q, %q) = %q, want %q", tc.socket, tc.dir, got, tc.want)
		}
	}
}

// Covered: -L or -S names one server; inside tmux a command covers the server of $TMUX
// unless it asks for all; else every live server of the user, or, with none, the client
// given, whose error then says so.
func TestCovered(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	a := tmuxtest.StartAt(t, filepath.Join(dir, "a"), 80, 24)
	b := tmuxtest.StartAt(t, filepath.Join(dir, "b"), 80, 24)
	env := func(tmux string) func(string) string {
		return func(k string) string {
			return map[string]string{"TMUX_TMPDIR": tmp, "TMUX": tmux}[k]
		}
	}
	inside := a.Socket + ",1,0"
	given := &tmuxctl.Client{SocketName: "given"}
	sockets := func(cs []*tmuxctl.Client) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.SocketPath+c.SocketName)
		}
		return out
	}
	both := []string{a.Socket, b.Socket}
	slices.Sort(both)
	for _, tc := range []struct {
		name       string
		named, all bool
		tmux       string
		want       []string
	}{
		{"named", true, false, "", []string{"given"}},
		{"named, all", true, true, inside, []string{"given"}},
		{"inside tmux", false, false, inside, []string{"given"}},
		{"inside tmux, all", false, true, inside, both},
		{"outside tmux", false, false, "", both},
	} {
		if got := sockets(tmuxctl.Covered(given, tc.named, tc.all, env(tc.tmux), os.Getuid())); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Covered = %q, want %q", tc.name, got, tc.want)
		}
	}
	none := func(k string) string { return map[string]string{"TMUX_TMPDIR": filepath.Join(tmp, "none")}[k] }
	if got := sockets(tmuxctl.Covered(given, false, true, none, os.Getuid())); !slices.Equal(got, []string{"given"}) {
		t.Errorf("no server: Covered = %q, want the client given", got)
	}
}
