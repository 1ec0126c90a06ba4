package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// The TPM plugin file cac-tmux.tmux, run into private tmux servers as TPM runs it (the file
// executed with $TMUX pointing at the server: here through run-shell).

// plugin returns the absolute path of the plugin file.
func plugin(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../cac-tmux.tmux")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("plugin file %s: %v, mode %v; want an executable file", p, err, fi)
	}
	return p
}

// pluginServer starts a private server whose PATH (the environment of run-shell, of status
// jobs and of popups) is dirs, then the directory of tmux, then /usr/bin:/bin.
func pluginServer(t *testing.T, width int, dirs ...string) *tmuxtest.Server {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	s := tmuxtest.Start(t, width, 24)
	path := strings.Join(append(dirs, filepath.Dir(tmux), "/usr/bin", "/bin"), ":")
	s.Tmux(t, "set-environment", "-g", "PATH", path)
	return s
}

// runPlugin runs the plugin file in the server, as TPM does. run-shell returns when the
// script ends, after its own tmux calls: on a loaded machine that takes longer than one call.
func runPlugin(t *testing.T, s *tmuxtest.Server) {
	t.Helper()
	c := *s.Client
	c.Timeout = tmuxtest.Scale(30 * time.Second)
	if _, err := c.Run(context.Background(), "run-shell", plugin(t)); err != nil {
		t.Fatal(err)
	}
}

// binding is the line of `list-keys -T prefix` that binds key, "" when none does. The whole
// table is listed: tmux 3.7 shows `list-keys -T prefix KEY` as a message on a client instead
// of printing it.
func binding(t *testing.T, s *tmuxtest.Server, key string) string {
	t.Helper()
	for line := range strings.Lines(s.Tmux(t, "list-keys", "-T", "prefix")) {
		if f := strings.Fields(line); len(f) > 3 && f[3] == key {
			return line
		}
	}
	return ""
}

// fakeBin writes a cac-tmux that records its arguments in dir/args and returns dir.
func fakeBin(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + filepath.Join(dir, "args") + "'\n"
	if err := os.WriteFile(filepath.Join(dir, "cac-tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// attachClient starts an outer private server whose pane runs a client attached to s, so that
// keys reach s through the outer pane and the client's screen is read with capture-pane. It
// returns the outer server and the client's name on s.
func attachClient(t *testing.T, s *tmuxtest.Server, width int) (outer *tmuxtest.Server, client string) {
	t.Helper()
	outer = tmuxtest.Start(t, width, 24, "env", "-u", "TMUX", "tmux", "-S", s.Socket, "attach", "-t", "main")
	tmuxtest.WaitFor(t, 5*time.Second, "a client attached to the server under test", func() bool {
		cs, err := s.Client.Clients(context.Background())
		if err == nil && len(cs) == 1 {
			client = cs[0].Name
		}
		return client != ""
	})
	return outer, client
}

// TestPluginKeyOpensPopup presses prefix + C in a real client: the popup runs exactly
// `cac-tmux popup --client NAME` with that client's name; @cac-tmux-key moves the binding.
func TestPluginKeyOpensPopup(t *testing.T) {
	t.Parallel()
	bin := fakeBin(t)
	s := pluginServer(t, 80, bin)
	runPlugin(t, s)
	keys := binding(t, s, "C")
	if !strings.Contains(keys, `display-popup -E -w 80% -h 60% \"cac-tmux popup --client '#{client_name}'\"`) {
		t.Errorf("prefix C = %q, want the popup", keys)
	}
	outer, client := attachClient(t, s, 80)
	outer.Tmux(t, "send-keys", "-t", "main", "C-b", "C")
	want := "popup --client " + client + "\n"
	var got []byte
	tmuxtest.WaitFor(t, 5*time.Second, "the popup command", func() bool {
		got, _ = os.ReadFile(filepath.Join(bin, "args"))
		return len(got) > 0
	})
	if string(got) != want {
		t.Errorf("the popup ran cac-tmux %q, want %q", got, want)
	}

	s.Tmux(t, "set-option", "-g", "@cac-tmux-key", "M-c")
	runPlugin(t, s)
	if keys := binding(t, s, "M-c"); !strings.Contains(keys, "cac-tmux popup --client") {
		t.Errorf("prefix M-c = %q, want the popup", keys)
	}
	if out := s.Tmux(t, "show-option", "-gv", "status-right"); strings.Contains(out, "cac-tmux") {
		t.Errorf("status-right = %q without @cac-tmux-status on, want it untouched", out)
	}
}

// TestPluginStatusOnce appends the status segment to status-right once, however often the
// plugin runs (a reload of tmux.conf runs it again).
func TestPluginStatusOnce(t *testing.T) {
	t.Parallel()
	s := pluginServer(t, 80, fakeBin(t))
	before := strings.TrimSuffix(s.Tmux(t, "show-option", "-gv", "status-right"), "\n")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-status", "on")
	runPlugin(t, s)
	runPlugin(t, s)
	got := strings.TrimSuffix(s.Tmux(t, "show-option", "-gv", "status-right"), "\n")
	if want := before + " #(cac-tmux status)"; got != want {
		t.Errorf("status-right after two runs = %q, want %q", got, want)
	}
	if got := s.Tmux(t, "show-option", "-gv", "status-right-length"); got != "56\n" {
		t.Errorf("status-right-length = %q, want 56 (40 and room for the segment)", got)
	}
}

// TestPluginNoBinary shows the attached client how to install cac-tmux, and binds nothing
// (prefix C stays tmux's customize-mode), when the binary is not on PATH, and when @cac-tmux-bin names no executable.
func TestPluginNoBinary(t *testing.T) {
	t.Parallel()
	s := pluginServer(t, 250)
	s.Tmux(t, "set-option", "-g", "@cac-tmux-status", "on")
	outer, _ := attachClient(t, s, 250)
	for _, tc := range []struct{ bin, where string }{
		{"", "on the tmux server's PATH"},
		{"/nonexistent/cac-tmux", "at /nonexistent/cac-tmux (@cac-tmux-bin)"},
	} {
		if tc.bin != "" {
			s.Tmux(t, "set-option", "-g", "@cac-tmux-bin", tc.bin)
		}
		runPlugin(t, s)
		want := "cac-tmux: no cac-tmux binary " + tc.where + "; install it with: go install github.com/cac-tmux/cac-tmux/cmd/cac-tmux@latest (or make build)"
		outer.WaitScreen(t, "main", want)
		outer.Tmux(t, "send-keys", "-t", "main", "Escape") // the message stays until a key
		// The key must have reached the client before the next message, or it clears that one.
		tmuxtest.WaitFor(t, 10*time.Second, "the message dismissed", func() bool {
			screen, err := outer.Client.Capture(context.Background(), "main")
			return err == nil && !strings.Contains(screen, "cac-tmux: no cac-tmux binary")
		})
		if keys := binding(t, s, "C"); strings.Contains(keys, "cac-tmux") {
			t.Errorf("prefix C is bound without a binary: %q", keys)
		}
		if out := s.Tmux(t, "show-option", "-gv", "status-right"); strings.Contains(out, "cac-tmux") {
			t.Errorf("status-right = %q without a binary, want it untouched", out)
		}
	}
}

// TestPluginAutostart starts a watcher in the session _cac-tmux when none runs, and not again
// when one does: by that session, or by a live @cac_watcher pid (a watcher run elsewhere).
func TestPluginAutostart(t *testing.T) {
	t.Parallel()
	s := pluginServer(t, 80, filepath.Dir(bins.cac))
	s.Tmux(t, "set-option", "-g", "@cac-tmux-autostart", "on")
	s.Tmux(t, "set-option", "-g", "@cac_watcher", "999999999") // a dead pid: no watcher
	runPlugin(t, s)
	tmuxtest.WaitFor(t, 10*time.Second, "the started watcher's @cac_watcher", func() bool {
		pid, err := s.Client.GlobalOption(context.Background(), "@cac_watcher")
		return err == nil && pid != "" && pid != "999999999"
	})
	runPlugin(t, s)
	if got := s.Tmux(t, "list-panes", "-s", "-t", "=_cac-tmux", "-F", "#{pane_current_command}"); got != "cac-tmux\n" {
		t.Errorf("panes of _cac-tmux after a second run = %q, want one watcher", got)
	}

	other := pluginServer(t, 80, filepath.Dir(bins.cac))
	other.Tmux(t, "set-option", "-g", "@cac-tmux-autostart", "on")
	other.Tmux(t, "set-option", "-g", "@cac_watcher", strconv.Itoa(os.Getpid())) // alive
	runPlugin(t, other)
	if out, err := other.Client.Run(context.Background(), "has-session", "-t", "=_cac-tmux"); err == nil {
		t.Errorf("a watcher was started beside a running one: %q", out)
	}
}

// readmeBinding is the README's tmux.conf line for users without TPM.
const readmeBinding = `bind-key C run-shell -C "display-popup -E -w 80% -h 60% \"cac-tmux popup --client '#{client_name}'\""`

// TestPluginREADMEBinding: the README's plain tmux.conf line binds what the plugin binds.
func TestPluginREADMEBinding(t *testing.T) {
	t.Parallel()
	if !strings.Contains(readFile(t, "../../README.md"), readmeBinding+"\n") {
		t.Fatalf("README.md does not show the binding %s", readmeBinding)
	}
	conf := filepath.Join(t.TempDir(), "tmux.conf")
	if err := os.WriteFile(conf, []byte(readmeBinding+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := tmuxtest.Start(t, 80, 24)
	plain.Tmux(t, "source-file", conf)
	withPlugin := pluginServer(t, 80, fakeBin(t))
	runPlugin(t, withPlugin)
	got, want := binding(t, plain, "C"), binding(t, withPlugin, "C")
	if got != want || !strings.Contains(got, "cac-tmux popup") {
		t.Errorf("the README's line binds %q, the plugin %q", got, want)
	}
}
