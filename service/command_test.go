package service_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/service"
)

// command is a service command on a system of its own: env as the environment, no tmux on
// PATH, a manager that answers "active", the file at path.
func command(p service.Platform, path string, env map[string]string) (service.Command, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return service.Command{Platform: p, Path: path, Out: &out, Err: &errOut, System: service.System{
		Getenv:   func(k string) string { return env[k] },
		LookPath: func(string) (string, error) { return "", exec.ErrNotFound },
		Run: func(context.Context, string, ...string) (string, error) {
			return "UnitFileState=enabled\nActiveState=active\nSubState=running\n", nil
		},
		UID: 1000,
	}}, &out, &errOut
}

// executable is an executable file in a directory of its own that is no temporary build.
func executable(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "cac-tmux")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Resolve makes the binary and the socket path absolute, takes this program's executable
// when no binary is given, and refuses two servers and a binary that cannot run, naming the
// flag.
func TestResolve(t *testing.T) {
	home := t.TempDir()
	c, _, _ := command(service.Launchd, "", map[string]string{"HOME": home})
	s, err := c.Resolve(service.Spec{SocketPath: "rel/sock"})
	abs, _ := filepath.Abs("rel/sock")
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	if err != nil || s.SocketPath != abs || s.Binary != self || s.LogFile != home+"/Library/Logs/cac-tmux.log" || len(s.Env) == 0 {
		t.Errorf("Resolve = %+v, %v; want -S %s, this binary %s, the log in HOME, an environment", s, err, abs, self)
	}
	if _, err := c.Resolve(service.Spec{SocketName: "a", SocketPath: "/b"}); err != service.ErrTwoServers {
		t.Errorf("Resolve(-L and -S) = %v; want ErrTwoServers", err)
	}
	for _, bad := range []string{"/nonexistent/cac-tmux", t.TempDir()} {
		_, err := c.Resolve(service.Spec{Binary: bad})
		if !errors.Is(err, service.ErrNotExecutable) || err.Error() != "--binary "+bad+": not an executable file" {
			t.Errorf("Resolve(--binary %s) = %v; want ErrNotExecutable naming the flag", bad, err)
		}
	}
}

// A dry run writes the file to Out and nothing on disk; a binary under the temporary
// directory and a shell in another tmux server than the default one each get a warning.
func TestInstallDryRunWarns(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "tmux-1000", "other")
	env := map[string]string{"HOME": dir, "TMUX": other + ",1,0", "TMUX_TMPDIR": dir}
	c, out, errOut := command(service.Systemd, filepath.Join(dir, "unit"), env)
	c.DryRun = true
	bin := executable(t)
	if err := c.Install(service.Spec{Binary: bin}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"warning: " + bin + " looks like a temporary build",
		"warning: this shell runs in the tmux server " + other + ", but the service watches the default server (" + filepath.Join(dir, "tmux-1000", "default") + ")",
		"would write " + c.Path + " (nothing written)"} {
		if !strings.Contains(errOut.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if !service.Ours(out.Bytes()) {
		t.Errorf("stdout is not the unit:\n%s", out)
	}
	if _, err := os.Stat(c.Path); err == nil {
		t.Error("a dry run wrote the file")
	}
	errOut.Reset()
	if err := c.Install(service.Spec{Binary: bin, SocketPath: other}); err != nil || strings.Contains(errOut.String(), "this shell") {
		t.Errorf("with -S: %v, stderr %q; want no warning about the server", err, errOut)
	}
}

// Uninstall says what it removes, would remove, or that there is nothing; a foreign file is
// refused, dry run or not.
func TestUninstallSays(t *testing.T) {
	dir := t.TempDir()
	c, out, _ := command(service.Launchd, filepath.Join(dir, "agent.plist"), map[string]string{"HOME": dir})
	if err := c.Uninstall(); err != nil || out.String() != "nothing to remove: no "+c.Path+"\n" {
		t.Errorf("no file: %v, %q", err, out)
	}
	os.WriteFile(c.Path, []byte("<plist/>\n"), 0o644)
	for _, dry := range []bool{true, false} {
		c.DryRun = dry
		var foreign *service.ForeignError
		if err := c.Uninstall(); !errors.As(err, &foreign) {
			t.Errorf("foreign file, dry run %v: %v", dry, err)
		}
	}
	c.DryRun = false
	os.Remove(c.Path)
	if err := c.Install(service.Spec{Binary: executable(t)}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	c.DryRun = true
	if err := c.Uninstall(); err != nil || out.String() != "would remove "+c.Path+" (nothing removed)\n" {
		t.Errorf("dry run: %v, %q", err, out)
	}
	c.DryRun = false
	out.Reset()
	if err := c.Uninstall(); err != nil || !strings.HasPrefix(out.String(), "removed "+c.Path+"\n") {
		t.Errorf("uninstall: %v, %q", err, out)
	}
}

// Status: not installed, not ours, current for the server the file names, out of date with
// the lines that change; the manager's answer last, every time.
func TestStatusReport(t *testing.T) {
	dir := t.TempDir()
	c, out, _ := command(service.Systemd, filepath.Join(dir, "unit"), map[string]string{"HOME": dir})
	ctx := context.Background()
	bin := executable(t)
	check := func(name string, err error, wantErr string, want ...string) {
		t.Helper()
		if got := ""; err != nil {
			got = err.Error()
			if got != wantErr {
				t.Errorf("%s: error %q, want %q", name, got, wantErr)
			}
		} else if wantErr != "" {
			t.Errorf("%s: no error, want %q", name, wantErr)
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: no %q in\n%s", name, w, out)
			}
		}
		if !strings.HasSuffix(out.String(), "systemd: enabled, active (running)\n") {
			t.Errorf("%s: the manager's line is not last:\n%s", name, out)
		}
		out.Reset()
	}
	check("absent", c.Status(ctx, service.Spec{Binary: bin}), "service status: not installed", "file:    "+c.Path, "written: no")
	os.WriteFile(c.Path, []byte("[Service]\n"), 0o644)
	check("foreign", c.Status(ctx, service.Spec{Binary: bin}), "service status: "+c.Path+" is not cac-tmux's", "written: not by cac-tmux")
	os.Remove(c.Path)
	if err := c.Install(service.Spec{Binary: bin, SocketName: "work"}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	check("current", c.Status(ctx, service.Spec{Binary: bin}), "", "written: by cac-tmux, for -L work\n", "current: yes\n")
	moved := executable(t)
	check("moved", c.Status(ctx, service.Spec{Binary: moved}), "service status: the file is out of date",
		"current: no: cac-tmux service install would change these lines", "- ExecStart="+bin+" watch", "+ ExecStart="+moved+" watch")
}
