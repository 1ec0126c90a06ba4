package accounts

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// fakeProc makes a /proc entry for pid 7 under dir: exe a link to exe, cmdline and environ
// as given, cwd a link to cwd.
func fakeProc(t *testing.T, dir, exe, cmdline, environ, cwd string) {
	t.Helper()
	p := filepath.Join(dir, "7")
	os.RemoveAll(p)
	write(t, filepath.Join(p, "cmdline"), cmdline)
	write(t, filepath.Join(p, "environ"), environ)
	if err := os.Symlink(exe, filepath.Join(p, "exe")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(cwd, filepath.Join(p, "cwd")); err != nil {
		t.Fatal(err)
	}
}

func TestProgram(t *testing.T) {
	root := t.TempDir()
	fake := filepath.Join(root, "proc")
	bin := filepath.Join(root, "bin")
	write(t, filepath.Join(bin, "claude"), "#!/usr/bin/env node\n")
	if err := os.Chmod(filepath.Join(bin, "claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(bin, "not-exec", "claude"), "")
	cli := filepath.Join(root, "lib", "node_modules", "@anthropic-ai", "claude-code", "cli.js")
	write(t, cli, "")
	path := "PATH=" + filepath.Join(bin, "not-exec") + ":relative:" + bin + "\x00"
	old := procDir
	procDir = fake
	t.Cleanup(func() { procDir = old })
	for _, tc := range []struct {
		name, exe, cmdline, environ string
		want                        []string
	}{
		{"native", "/home/me/.local/share/claude/versions/2.1.332", "claude\x00--model\x00opus\x00", path,
			[]string{"/home/me/.local/share/claude/versions/2.1.332"}},
		{"npm, its script in argv", "/usr/bin/node", "node\x00--no-warnings\x00" + cli + "\x00fix the bug\x00", path, []string{"/usr/bin/node", cli}},
		{"npm, its script relative", "/usr/bin/node", "node\x00lib/node_modules/@anthropic-ai/claude-code/cli.js\x00", path, []string{"/usr/bin/node", cli}},
		{"npm, title rewrote argv", "/usr/bin/node", "claude\x00\x00\x00", "HOME=/h\x00" + path, []string{filepath.Join(bin, "claude")}},
		{"updated away", "/home/me/.local/share/claude/versions/2.1.330 (deleted)", "claude\x00", path, []string{filepath.Join(bin, "claude")}},
	} {
		fakeProc(t, fake, tc.exe, tc.cmdline, tc.environ, root)
		if got, err := program(7); err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%s: program = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	fakeProc(t, fake, "/usr/bin/node", "claude\x00", "PATH=/nowhere\x00", root)
	if got, err := program(7); !errors.Is(err, errNoProgram) {
		t.Errorf("npm with no claude on its PATH: program = %q, %v; want errNoProgram", got, err)
	}
	if got, err := program(8); !errors.Is(err, errNoProgram) {
		t.Errorf("no such process: program = %q, %v; want errNoProgram", got, err)
	}
}

func TestProgramOfARealProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := program(os.Getpid()); err != nil || !slices.Equal(got, []string{exe}) {
		t.Errorf("program(this test) = %q, %v; want [%s]", got, err, exe)
	}
}
