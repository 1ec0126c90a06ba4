package service_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/service"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestPath(t *testing.T) {
	for _, c := range []struct {
		p    service.Platform
		env  map[string]string
		want string
	}{
		{service.Systemd, map[string]string{"HOME": "/home/me"}, "/home/me/.config/systemd/user/cac-tmux.service"},
		{service.Systemd, map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": "/cfg"}, "/cfg/systemd/user/cac-tmux.service"},
		{service.Systemd, map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": "rel"}, "/home/me/.config/systemd/user/cac-tmux.service"},
		{service.Systemd, map[string]string{"XDG_CONFIG_HOME": "/cfg"}, "/cfg/systemd/user/cac-tmux.service"},
		{service.Launchd, map[string]string{"HOME": "/Users/me", "XDG_CONFIG_HOME": "/cfg"}, "/Users/me/Library/LaunchAgents/com.github.cac-tmux.plist"},
	} {
		if got, err := service.Path(c.p, env(c.env)); err != nil || got != c.want {
			t.Errorf("Path(%s, %v) = %q, %v; want %q", c.p, c.env, got, err, c.want)
		}
	}
	if _, err := service.Path(service.Launchd, env(nil)); err == nil {
		t.Error("launchd without HOME: no error")
	}
	if got, _ := service.LogPath(env(map[string]string{"HOME": "/Users/me"})); got != "/Users/me/Library/Logs/cac-tmux.log" {
		t.Errorf("LogPath = %q", got)
	}
}

func TestEnvironment(t *testing.T) {
	look := func(dir string) func(string) (string, error) {
		return func(string) (string, error) {
			if dir == "" {
				return "", exec.ErrNotFound
			}
			return dir + "/tmux", nil
		}
	}
	vars := env(map[string]string{"TMUX_TMPDIR": "/run/user/1000", "XDG_STATE_HOME": "/st", "HOME": "/home/me"})
	for _, c := range []struct {
		p    service.Platform
		tmux string
		env  func(string) string
		want []string
	}{
		{service.Systemd, "/usr/bin", env(nil), []string{"PATH=/usr/bin:/usr/local/bin:/bin"}},
		{service.Systemd, "", env(nil), []string{"PATH=/usr/local/bin:/usr/bin:/bin"}},
		{service.Systemd, "/home/me/.local/bin", vars, []string{"PATH=/home/me/.local/bin:/usr/local/bin:/usr/bin:/bin",
			"TMUX_TMPDIR=/run/user/1000", "XDG_STATE_HOME=/st"}},
		{service.Launchd, "/opt/homebrew/bin", env(nil), []string{"PATH=/opt/homebrew/bin:/usr/local/bin:/usr/bin:/bin"}},
	} {
		if got := service.Environment(c.p, c.env, look(c.tmux)); !slices.Equal(got, c.want) {
			t.Errorf("%s with tmux in %q: %q, want %q", c.p, c.tmux, got, c.want)
		}
	}
}

// unitFor renders the unit of a typical installation.
func unitFor(t *testing.T, name string) []byte {
	t.Helper()
	s := spec()
	s.SocketName = name
	b, err := service.Render(service.Systemd, s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "systemd", "user")
	path := filepath.Join(dir, service.Unit)
	first, second := unitFor(t, ""), unitFor(t, "work")
	for i, c := range []struct {
		content []byte
		want    service.Result
	}{{first, service.Created}, {first, service.Unchanged}, {second, service.Updated}} {
		got, err := service.Install(path, c.content)
		if err != nil || got != c.want {
			t.Fatalf("install %d: %v, %v; want %v", i, got, err, c.want)
		}
		if b, _ := os.ReadFile(path); string(b) != string(c.content) {
			t.Fatalf("install %d: the file holds\n%s", i, b)
		}
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("file mode %v, want 0644", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm()&^0o755 != 0 {
		t.Errorf("directory mode %v, want at most 0755", fi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the directory holds %d entries, want the unit only (no temporary file left)", len(ents))
	}
}

// TestForeignFile: a file cac-tmux did not write is neither overwritten nor removed.
func TestForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), service.Unit)
	mine := "[Service]\nExecStart=/usr/bin/my-own-watcher\n"
	if err := os.WriteFile(path, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := service.Install(path, unitFor(t, ""))
	var fe *service.ForeignError
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), path+" exists and was not written by cac-tmux") ||
		!strings.Contains(err.Error(), "move it away or remove it, then run cac-tmux service install again") {
		t.Errorf("install over a foreign file: %v", err)
	}
	err = service.Uninstall(service.Systemd, path)
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "it is left alone") {
		t.Errorf("uninstall of a foreign file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != mine {
		t.Errorf("the foreign file was changed to\n%s", b)
	}
	st, err := service.Inspect(path, unitFor(t, ""))
	if err != nil || !st.Exists || st.Ours || st.Current {
		t.Errorf("Inspect = %+v, %v", st, err)
	}
}

func TestUninstall(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, service.Unit)
	if err := service.Uninstall(service.Systemd, path); !errors.Is(err, service.ErrNotInstalled) {
		t.Errorf("nothing installed: %v", err)
	}
	if _, err := service.Install(path, unitFor(t, "")); err != nil {
		t.Fatal(err)
	}
	// Enabled: the link systemctl enable makes.
	wants := filepath.Join(dir, "default.target.wants")
	os.Mkdir(wants, 0o755)
	if err := os.Symlink(path, filepath.Join(wants, service.Unit)); err != nil {
		t.Fatal(err)
	}
	err := service.Uninstall(service.Systemd, path)
	if err == nil || !strings.Contains(err.Error(), "is enabled") || !strings.Contains(err.Error(), "systemctl --user disable --now cac-tmux.service first") {
		t.Errorf("uninstall of an enabled unit: %v", err)
	}
	os.Remove(filepath.Join(wants, service.Unit))
	if err := service.Uninstall(service.Systemd, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unit is still there: %v", err)
	}
}

func TestCommands(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{service.EnableCommand(service.Systemd, "/x"), "systemctl --user daemon-reload && systemctl --user enable --now cac-tmux.service"},
		{service.EnableCommand(service.Launchd, "/Users/me/Library/LaunchAgents/com.github.cac-tmux.plist"),
			"launchctl bootstrap gui/$(id -u) /Users/me/Library/LaunchAgents/com.github.cac-tmux.plist"},
		{service.EnableCommand(service.Launchd, "/Users/J Doe/it's.plist"), `launchctl bootstrap gui/$(id -u) '/Users/J Doe/it'\''s.plist'`},
		{service.DisableCommand(service.Systemd), "systemctl --user disable --now cac-tmux.service"},
		{service.DisableCommand(service.Launchd), "launchctl bootout gui/$(id -u)/com.github.cac-tmux"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

func TestDiff(t *testing.T) {
	got := service.Diff([]byte("a\nExecStart=/old\nc\n"), []byte("a\nExecStart=/new\nc\n"))
	if want := []string{"- ExecStart=/old", "+ ExecStart=/new"}; !slices.Equal(got, want) {
		t.Errorf("Diff = %q, want %q", got, want)
	}
}

// sh is a Runner that runs a shell script instead of the manager, and records the command
// line it was asked to run.
func sh(script string, asked *[]string) service.Runner {
	return func(ctx context.Context, name string, args ...string) (string, error) {
		*asked = append([]string{name}, args...)
		return service.Exec(ctx, "/bin/sh", "-c", script)
	}
}

func TestManagerState(t *testing.T) {
	notFound := func(context.Context, string, ...string) (string, error) { return "", exec.ErrNotFound }
	for _, c := range []struct {
		p      service.Platform
		script string
		run    service.Runner
		want   string
		asked  string
	}{
		{service.Systemd, `printf 'LoadState=loaded\nUnitFileState=enabled\nActiveState=active\nSubState=running\n'`, nil,
			"enabled, active (running)", "systemctl --user show cac-tmux.service --property=LoadState,UnitFileState,ActiveState,SubState"},
		{service.Systemd, `printf 'LoadState=not-found\nActiveState=inactive\n'`, nil,
			"systemd does not know cac-tmux.service (run systemctl --user daemon-reload after installing)", ""},
		{service.Systemd, `echo 'Failed to connect to bus: No medium found' >&2; exit 1`, nil,
			"systemctl failed: Failed to connect to bus: No medium found", ""},
		{service.Systemd, "", notFound, "systemctl not found: the service's state is unknown", ""},
		{service.Launchd, `printf 'gui/501/com.github.cac-tmux = {\n\tstate = running\n\tlast exit code = 0\n}\n'`, nil,
			"loaded, state running, last exit code 0", "launchctl print gui/501/com.github.cac-tmux"},
		{service.Launchd, `echo 'Could not find service' >&2; exit 113`, nil, "not loaded", ""},
		{service.Launchd, "", notFound, "launchctl not found: the service's state is unknown", ""},
	} {
		var asked []string
		run := c.run
		if run == nil {
			run = sh(c.script, &asked)
		}
		if got := service.ManagerState(context.Background(), c.p, 501, run); got != c.want {
			t.Errorf("%s, %q: %q, want %q", c.p, c.script, got, c.want)
		}
		if c.asked != "" && strings.Join(asked, " ") != c.asked {
			t.Errorf("ran %q, want %q", asked, c.asked)
		}
	}
}
