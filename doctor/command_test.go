package doctor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The Env of a server: its name and socket, the directories under the user's XDG ones, and
// the watch command of that server (-S, -L, or none for the default one).
func TestNewEnv(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_STATE_HOME": filepath.Join(dir, "state"), "XDG_RUNTIME_DIR": filepath.Join(dir, "run")}
	getenv := func(k string) string { return env[k] }
	sock := filepath.Join(dir, "s")
	e := NewEnv(&tmuxctl.Client{SocketPath: sock}, nil, getenv, nil)
	if e.Server != "server "+sock || e.Socket != sock || e.DirErr != nil || !strings.HasPrefix(e.StateDir, env["XDG_STATE_HOME"]) ||
		!strings.HasPrefix(e.LockDir, env["XDG_RUNTIME_DIR"]) || e.WatchCommand != "cac-tmux watch -S "+sock {
		t.Errorf("NewEnv(-S) = %+v", e)
	}
	if _, running := e.Watcher(context.Background()); running {
		t.Error("a watcher runs on a server that is not there")
	}
	e = NewEnv(&tmuxctl.Client{SocketPath: sock}, nil, getenv, func(ctx context.Context) (config.Loaded, error) {
		return config.Load(ctx, filepath.Join(dir, "none.toml"), nil, nil)
	})
	if _, said, err := e.Config(context.Background()); err != nil || said != "file "+filepath.Join(dir, "none.toml")+": none; the defaults apply (cac-tmux config example prints one); tmux options: no tmux server asked; none read" {
		t.Errorf("the configuration said = %q, %v; want what was read, in one line", said, err)
	}
	for c, want := range map[*tmuxctl.Client]string{{SocketName: "work"}: "cac-tmux watch -L work", {}: "cac-tmux watch"} {
		if got := NewEnv(c, nil, getenv, nil).WatchCommand; got != want {
			t.Errorf("the watch command of %s = %q, want %q", c.Name(), got, want)
		}
	}
}

// The report prints as JSON or for people, and its error counts the checks that found a
// problem.
func TestPrint(t *testing.T) {
	r := Report{Checks: []Check{{Name: "tmux", OK: true}, {Name: "server", Detail: "gone"}, {Name: "state", Detail: "read-only"}}, Panes: []Pane{}}
	var b strings.Builder
	err := r.Print(&b, false)
	if err == nil || err.Error() != "doctor: 2 checks found a problem; each comes with its fix" || !strings.Contains(b.String(), "PROBLEM server: gone\n") {
		t.Errorf("Print = %v\n%s", err, b.String())
	}
	b.Reset()
	r = Report{OK: true, Checks: r.Checks[:1], Panes: []Pane{}}
	var back Report
	if err := r.Print(&b, true); err != nil || json.Unmarshal([]byte(b.String()), &back) != nil || !back.OK || !strings.Contains(b.String(), "\n  \"checks\"") {
		t.Errorf("Print(JSON) = %v\n%s", err, b.String())
	}
}

// ssh is a program that stands for ssh: it runs script, whatever it is asked.
func ssh(t *testing.T, script string) hosts.Options {
	path := filepath.Join(t.TempDir(), "ssh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return hosts.Options{SSH: path}
}

// The doctor of another host: its report and exit status passed on; a host ssh does not
// reach, or without cac-tmux, is the one problem, with its fix.
func TestRemote(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		script   string
		code     int
		err, out string
	}{
		{`echo "all is well"`, 0, "", "all is well\n"},
		{`echo "PROBLEM server: gone"; echo oops >&2; exit 1`, 1, "doctor: host dev1 found a problem; each comes with its fix", "PROBLEM server: gone\n"},
		{`echo "sh: cac-tmux: command not found" >&2; exit 127`, 0, "install cac-tmux there, or set [hosts] command to its path", ""},
		{`echo "ssh: connect to host dev1 port 22: Connection refused" >&2; exit 255`, 0, "check that `ssh dev1 true` works without a prompt", ""},
	} {
		var out, errOut strings.Builder
		code, err := Remote(ctx, "dev1", ssh(t, tc.script), false, &out, &errOut)
		if code != tc.code || out.String() != tc.out || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Remote(%s) = %d, %v, stdout %q; want %d, %q, %q", tc.script, code, err, out.String(), tc.code, tc.err, tc.out)
		}
		if code == 1 && errOut.String() != "oops\n" {
			t.Errorf("Remote(%s): stderr %q, want the remote's", tc.script, errOut.String())
		}
	}
}
