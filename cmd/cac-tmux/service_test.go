package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/service"
)

// cli runs one cac-tmux command line and returns its exit code, stdout and stderr.
func cli(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// serviceHome points HOME and XDG_CONFIG_HOME at a fresh directory and returns where the
// systemd unit goes.
func serviceHome(t *testing.T) (home, unit string) {
	home = t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "cfg"))
	t.Setenv("TMUX", "")
	return home, filepath.Join(home, "cfg", "systemd", "user", "cac-tmux.service")
}

func TestServiceDryRun(t *testing.T) {
	home, unit := serviceHome(t)
	code, out, errOut := cli("service", "install", "--dry-run", "--platform", "systemd", "-L", "my work", "--binary", bins.cac)
	if code != 0 || !strings.Contains(errOut, "would write "+unit+" (nothing written)") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := "\nExecStart=" + bins.cac + ` watch --log-format console -L "my work"` + "\n"; !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	if !service.Ours([]byte(out)) || !strings.HasSuffix(out, "WantedBy=default.target\n") {
		t.Errorf("stdout is not the whole unit:\n%s", out)
	}
	code, out, _ = cli("service", "install", "--dry-run", "--platform", "launchd", "-S", "rel/sock", "--binary", bins.cac)
	abs, _ := filepath.Abs("rel/sock")
	if code != 0 || !strings.Contains(out, "<string>"+abs+"</string>") || !strings.Contains(out, home+"/Library/Logs/cac-tmux.log") {
		t.Errorf("launchd dry run: exit %d\n%s", code, out)
	}
	if ents, _ := os.ReadDir(home); len(ents) != 0 {
		t.Errorf("a dry run wrote %d entries in HOME", len(ents))
	}
}

// TestServiceLifecycle: install, status, reinstall, a moved binary, another server,
// uninstall.
func TestServiceLifecycle(t *testing.T) {
	_, unit := serviceHome(t)
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)

	code, out, errOut := cli("service", "install", "--platform", "systemd")
	if code != 0 || !strings.HasPrefix(out, "wrote "+unit+"\n") ||
		!strings.Contains(out, "systemctl --user daemon-reload && systemctl --user enable --now cac-tmux.service") {
		t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "warning: "+self+" looks like a temporary build") {
		t.Errorf("no warning that the test binary is temporary: %q", errOut)
	}
	b, _ := os.ReadFile(unit)
	if !strings.Contains(string(b), "\nExecStart="+self+" watch --log-format console\n") {
		t.Errorf("the unit does not run this binary (%s):\n%s", self, b)
	}
	expect(t, []string{"service", "status", "--platform", "systemd"}, 0, "current: yes", "written: by cac-tmux, for the default server", "\nsystemd: ")
	expect(t, []string{"service", "install", "--platform", "systemd"}, 0, "already up to date: "+unit)

	// The binary moved: status says what install would change.
	expect(t, []string{"service", "status", "--platform", "systemd", "--binary", bins.cac}, 1,
		"current: no", "- ExecStart="+self+" watch", "+ ExecStart="+bins.cac+" watch")

	// Another server: status reads it from the file.
	expect(t, []string{"service", "install", "--platform", "systemd", "-L", "work"}, 0, "updated "+unit, "systemctl --user restart cac-tmux.service")
	expect(t, []string{"service", "status", "--platform", "systemd"}, 0, "written: by cac-tmux, for -L work", "current: yes")

	expect(t, []string{"service", "uninstall", "--platform", "systemd", "--dry-run"}, 0, "would remove "+unit)
	expect(t, []string{"service", "uninstall", "--platform", "systemd"}, 0, "removed "+unit, "systemctl --user daemon-reload")
	if _, err := os.Stat(unit); err == nil {
		t.Error("the unit is still there")
	}
	expect(t, []string{"service", "uninstall", "--platform", "systemd"}, 0, "nothing to remove")
	expect(t, []string{"service", "status", "--platform", "systemd"}, 1, "written: no")
}

// expect runs args and checks the exit code and that stdout and stderr hold each of subs.
func expect(t *testing.T, args []string, code int, subs ...string) {
	t.Helper()
	got, out, errOut := cli(args...)
	for _, s := range subs {
		if !strings.Contains(out+errOut, s) {
			t.Errorf("cac-tmux %q: no %q in\n%s%s", args, s, out, errOut)
		}
	}
	if got != code {
		t.Errorf("cac-tmux %q: exit %d, want %d\n%s%s", args, got, code, out, errOut)
	}
}

// TestServiceForeignFile: a unit cac-tmux did not write is not overwritten nor removed.
func TestServiceForeignFile(t *testing.T) {
	_, unit := serviceHome(t)
	os.MkdirAll(filepath.Dir(unit), 0o755)
	mine := "[Service]\nExecStart=/usr/bin/mine\n"
	os.WriteFile(unit, []byte(mine), 0o644)
	expect(t, []string{"service", "install", "--platform", "systemd", "--binary", bins.cac}, 1,
		"cac-tmux: service: "+unit+" exists and was not written by cac-tmux", "move it away or remove it")
	expect(t, []string{"service", "uninstall", "--platform", "systemd"}, 1, "was not written by cac-tmux", "left alone")
	expect(t, []string{"service", "uninstall", "--platform", "systemd", "--dry-run"}, 1, "was not written by cac-tmux")
	expect(t, []string{"service", "status", "--platform", "systemd"}, 1, "written: not by cac-tmux")
	if b, _ := os.ReadFile(unit); string(b) != mine {
		t.Errorf("the foreign unit was changed:\n%s", b)
	}
}

func TestServiceLaunchd(t *testing.T) {
	home, _ := serviceHome(t)
	plist := filepath.Join(home, "Library", "LaunchAgents", "com.github.cac-tmux.plist")
	expect(t, []string{"service", "install", "--platform", "launchd", "--binary", bins.cac}, 0,
		"wrote "+plist, "launchctl bootstrap gui/$(id -u) "+plist, "Its log: "+home+"/Library/Logs/cac-tmux.log")
	expect(t, []string{"service", "uninstall", "--platform", "launchd"}, 0, "removed "+plist, "launchctl bootout gui/$(id -u)/com.github.cac-tmux")
}

func TestServiceUsage(t *testing.T) {
	serviceHome(t)
	expect(t, []string{"service", "install", "--platform", "upstart"}, 2, `service install: --platform: must be systemd or launchd (got "upstart")`)
	expect(t, []string{"service", "install", "--platform", "systemd", "-L", "a", "-S", "/b"}, 2, "service install: give -L NAME or -S PATH, not both")
	expect(t, []string{"service", "install", "--platform", "systemd", "--binary", "/nonexistent/cac-tmux"}, 2,
		"service install: --binary /nonexistent/cac-tmux: not an executable file")
	expect(t, []string{"service", "install", "extra"}, 2, `service install: unexpected argument "extra"`)
	expect(t, []string{"service", "instal"}, 2, `service: unknown command "instal"; did you mean install?`)
	expect(t, []string{"service"}, 2, "service: a command is needed")
}

// TestServiceTmuxWarning: installing from inside a tmux server that is not the default one
// warns that the service watches the default server.
func TestServiceTmuxWarning(t *testing.T) {
	serviceHome(t)
	other := filepath.Join(t.TempDir(), "other")
	t.Setenv("TMUX", other+",123,0")
	expect(t, []string{"service", "install", "--dry-run", "--platform", "systemd", "--binary", bins.cac}, 0,
		"warning: this shell runs in the tmux server "+other, "cac-tmux service install -S "+other)
	_, _, errOut := cli("service", "install", "--dry-run", "--platform", "systemd", "--binary", bins.cac, "-S", other)
	if strings.Contains(errOut, "warning: this shell") {
		t.Errorf("warned with -S given: %q", errOut)
	}
}
