package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/internal/golden"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// cacRun runs one command line in-process and returns its exit code, stdout and stderr.
func cacRun(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// TestConfigExample: the example is the golden file, and config check accepts it with every
// value its default, from its own lines.
func TestConfigExample(t *testing.T) {
	code, out, errOut := cacRun("config", "example")
	if code != 0 || errOut != "" {
		t.Fatalf("config example = %d, stderr %q", code, errOut)
	}
	golden.File(t, filepath.Join("testdata", "config-example.toml"), []byte(out))
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	code, check, errOut := cacRun("config", "check", "-S", filepath.Join(t.TempDir(), "none"), path)
	if code != 0 || errOut != "" {
		t.Fatalf("config check EXAMPLE = %d, stderr %q", code, errOut)
	}
	rows := settingRows(check)
	for _, s := range (config.Effective{Config: config.Default()}).Settings() {
		if r := rows[s.Key]; r[0] != s.Value || !strings.HasPrefix(r[1], "file "+path+":") {
			t.Errorf("config check EXAMPLE: %s = %q, want %s from the file", s.Key, r, s.Value)
		}
	}
	if len(rows) != len(config.Keys()) {
		t.Errorf("config check EXAMPLE printed %d settings, want %d:\n%s", len(rows), len(config.Keys()), check)
	}
	if code, _, errOut := cacRun("config", "example", "x"); code != 2 || !strings.Contains(errOut, `config example: unexpected argument "x"`) {
		t.Errorf("config example x = %d, %q", code, errOut)
	}
}

// TestConfigCheck runs config check on a private tmux server with options set, and without a
// server: every setting with its value and source, and every mistake with exit 2.
func TestConfigCheck(t *testing.T) {
	s := tmuxtest.Start(t, 80, 24)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.toml")
	write := func(data string) {
		if err := os.WriteFile(conf, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("[watch]\nmargin = \"90s\"\nstagger = \"9s\"\n[policy]\nweekly = \"notify\"\n")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-margin", "2m")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-panes-exclude", "scratch, tmp-*")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-key", "C") // the plugin's own: not a setting, not reported

	code, out, errOut := cacRun("config", "check", "-S", s.Socket, conf)
	if code != 0 || errOut != "" {
		t.Fatalf("config check = %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"file " + conf + ": read\n",
		"tmux options of server " + s.Socket + ": 2 set (@cac-tmux-margin, @cac-tmux-panes-exclude)\n\nKEY ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("config check output lacks %q:\n%s", want, out)
		}
	}
	rows := settingRows(out)
	for key, want := range map[string][2]string{
		"watch.interval": {`"1s"`, "default"},
		"watch.margin":   {`"2m"`, "tmux option @cac-tmux-margin"},
		"watch.stagger":  {`"9s"`, "file " + conf + ":3"},
		"policy.weekly":  {`"notify"`, "file " + conf + ":5"},
		"policy.opus":    {`"resume"`, "default"},
		"panes.exclude":  {`["scratch", "tmp-*"]`, "tmux option @cac-tmux-panes-exclude"},
	} {
		if rows[key] != want {
			t.Errorf("config check: %s = %q, want %q", key, rows[key], want)
		}
	}
	if len(rows) != len(config.Keys()) {
		t.Errorf("config check printed %d settings, want %d:\n%s", len(rows), len(config.Keys()), out)
	}

	// Mistakes in the file and in the options: all of them, exit 2, nothing on stdout.
	write("[watch]\nmargin = \"soon\"\n")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-stagger", "-1s")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-policy-weekley", "never")
	code, out, errOut = cacRun("config", "check", "-S", s.Socket, conf)
	want := `cac-tmux: config check: watch.margin: must be a duration like "90s" (` + conf + ` line 2, got "soon")` + "\n" +
		"tmux option @cac-tmux-policy-weekley: unknown option (did you mean @cac-tmux-policy-weekly?); rename it, or unset it with: tmux set-option -gu @cac-tmux-policy-weekley\n" +
		`tmux option @cac-tmux-stagger: must not be negative (got "-1s")` + "\n"
	if code != 2 || out != "" || errOut != want {
		t.Errorf("config check with mistakes = %d, stdout %q, stderr\n%s\nwant 2 and\n%s", code, out, errOut, want)
	}

	// No server: the file alone; the default file may be missing, a named one may not.
	none := filepath.Join(dir, "none")
	t.Setenv("XDG_CONFIG_HOME", dir)
	write("[watch]\nmessage = 'go on'\n")
	code, out, errOut = cacRun("config", "check", "-S", none)
	if code != 0 || errOut != "" || !strings.Contains(out, "tmux options: no server runs on server "+none+"; none read\n") ||
		!strings.Contains(out, "file "+filepath.Join(dir, "cac-tmux", "config.toml")+": none; the defaults apply") {
		t.Errorf("config check without a server or a default file = %d, stderr %q, stdout\n%s", code, errOut, out)
	}
	code, _, errOut = cacRun("config", "check", "-S", none, filepath.Join(dir, "missing.toml"))
	if code != 2 || !strings.Contains(errOut, "config check: "+filepath.Join(dir, "missing.toml")+" does not exist") {
		t.Errorf("config check MISSING = %d, %q", code, errOut)
	}
	// No tmux at all: the file alone, and doctor says what to install.
	t.Setenv("PATH", dir)
	code, out, errOut = cacRun("config", "check")
	if code != 0 || errOut != "" || !strings.Contains(out, "tmux options: tmux is not installed; none read\n") {
		t.Errorf("config check without tmux = %d, stderr %q, stdout\n%s", code, errOut, out)
	}
	code, out, _ = cacRun("doctor")
	if code != 1 || !strings.Contains(out, "PROBLEM tmux: tmux cannot be run: ") || !strings.Contains(out, "fix: install tmux 3.2 or later") ||
		!strings.Contains(out, "PROBLEM server: without tmux, no server can be asked\n          fix: install tmux (above)\n") {
		t.Errorf("doctor without tmux = %d:\n%s", code, out)
	}
	for _, args := range [][]string{{"config"}, {"config", "chek"}, {"config", "check", "a", "b"}} {
		if code, _, errOut := cacRun(args...); code != 2 || errOut == "" {
			t.Errorf("%q = %d, %q; want 2", args, code, errOut)
		}
	}
	if _, _, errOut := cacRun("config", "chek"); !strings.Contains(errOut, "did you mean check?") {
		t.Errorf("config chek: %q, want a suggestion", errOut)
	}
}

// TestConfigEveryMistake: config check lists every mistake of the file in file order, each
// with its line, key and fix, exit 2 and nothing on stdout; watch (the real binary) refuses the
// file with the same list and exit 2, having made nothing.
func TestConfigEveryMistake(t *testing.T) {
	dir := t.TempDir()
	conf, none := filepath.Join(dir, "config.toml"), filepath.Join(dir, "none")
	data := "[watch]\nmargin = \"soon\"\nmarign = \"2m\"\n[policy]\nweekly = \"hold\"\n[notify]\ndesktop = \"maybe\"\ntimeout = \"soon\"\n"
	if err := os.WriteFile(conf, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	mistakes := `watch.margin: must be a duration like "90s" (` + conf + ` line 2, got "soon")` + "\n" +
		`watch.marign: unknown key (did you mean margin?); the known keys of [watch] are interval, margin, exact_margin, message, native_grace, stagger, max_per_reset, max_attempts, log_level (` + conf + ` line 3)` + "\n" +
		`policy.weekly: must be resume, notify or never (` + conf + ` line 5, got "hold")` + "\n" +
		`notify.desktop: must be "auto", "on" or "off" (` + conf + ` line 7, got "maybe")` + "\n" +
		`notify.timeout: must be a duration like "10s" (` + conf + ` line 8, got "soon")` + "\n"
	code, out, errOut := cacRun("config", "check", "-S", none, conf)
	if want := "cac-tmux: config check: " + mistakes; code != 2 || out != "" || errOut != want {
		t.Errorf("config check with 5 mistakes = %d, stdout %q, stderr\n%s\nwant 2 and\n%s", code, out, errOut, want)
	}
	code, out, errOut = cacBin(t, dir, "watch", "-S", none, "--config", conf)
	if want := "cac-tmux: watch: " + mistakes; code != 2 || out != "" || errOut != want {
		t.Errorf("watch with 5 mistakes = %d, stdout %q, stderr\n%s\nwant 2 and\n%s", code, out, errOut, want)
	}
}

// TestConfigDanglingLink: a configuration file that is a symbolic link to nothing is an error
// naming the link, its target and the fix (exit 2), for the default file and a named one,
// in config check and in watch alike.
func TestConfigDanglingLink(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	def, target, none := filepath.Join(dir, "cac-tmux", "config.toml"), filepath.Join(dir, "dotfiles", "cac-tmux.toml"), filepath.Join(dir, "none")
	if err := os.MkdirAll(filepath.Dir(def), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, def); err != nil {
		t.Fatal(err)
	}
	want := "read " + def + ": it is a symbolic link to " + target + ", which does not exist; put the file there, point the link at your file (ln -sfn FILE " +
		def + "), or remove the link to run with the defaults (rm " + def + ")\n"
	for _, args := range [][]string{{"config", "check", "-S", none}, {"config", "check", "-S", none, def}} {
		if code, out, errOut := cacRun(args...); code != 2 || out != "" || errOut != "cac-tmux: config check: "+want {
			t.Errorf("%q with a dangling link = %d, stdout %q, stderr %q; want 2 and %q", args, code, out, errOut, want)
		}
	}
	for _, args := range [][]string{{"watch", "-S", none}, {"watch", "-S", none, "--config", def}} {
		if code, out, errOut := cacBin(t, dir, args...); code != 2 || out != "" || errOut != "cac-tmux: watch: "+want {
			t.Errorf("%q with a dangling link = %d, stdout %q, stderr %q; want 2 and %q", args, code, out, errOut, want)
		}
	}
	// Once the target is there, the link is read.
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("[watch]\nmargin = \"2m\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := cacRun("config", "check", "-S", none); code != 0 || errOut != "" || settingRows(out)["watch.margin"] != [2]string{`"2m"`, "file " + def + ":2"} {
		t.Errorf("config check with the link's target = %d, stderr %q, stdout\n%s", code, errOut, out)
	}
}

// cacBin runs the cac-tmux binary with its state and lock directories under dir, and checks
// that it made neither; one still running after 20 s (a watcher that took the file as fine)
// is killed and fails the test. It returns the exit code, stdout and stderr.
func cacBin(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	state, run := filepath.Join(dir, "state"), filepath.Join(dir, "run")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bins.cac, args...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "XDG_RUNTIME_DIR="+run)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if ctx.Err() != nil {
		t.Errorf("%q still ran after 20 s; stderr %q", args, errOut.String())
	} else if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s %q: %v", bins.cac, args, err)
	}
	for _, d := range []string{state, run} {
		if _, err := os.Lstat(d); err == nil {
			t.Errorf("%q made %s", args, d)
		}
	}
	return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
}

// settingRows reads the table of config check: key → value and source.
func settingRows(out string) map[string][2]string {
	rows := map[string][2]string{}
	for _, line := range strings.Split(out, "\n") {
		f := regexp.MustCompile(`  +`).Split(line, 3)
		if len(f) == 3 && strings.Contains(f[0], ".") {
			rows[f[0]] = [2]string{f[1], f[2]}
		}
	}
	return rows
}

// TestPrecedence: flags > tmux options > file > defaults for watch, with a real private tmux
// server for the options; each value says where it came from.
func TestPrecedence(t *testing.T) {
	s := tmuxtest.Start(t, 80, 24)
	conf := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(conf, []byte("[watch]\ninterval = \"3s\"\nmargin = \"10s\"\nmessage = \"file\"\nstagger = \"7s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Tmux(t, "set-option", "-g", "@cac-tmux-margin", "20s")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-message", "tmux")
	s.Tmux(t, "set-option", "-g", "@cac-tmux-interval", "4s")
	o, err := parseWatch([]string{"-S", s.Socket, "--config", conf, "--message", "flag"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, src  string
		got, want any
	}{
		{"watch.message", "flag --message", cfgOf(o).Message, "flag"},
		{"watch.margin", "tmux option @cac-tmux-margin", cfgOf(o).Schedule.Margin, 20 * time.Second},
		{"watch.interval", "tmux option @cac-tmux-interval", cfgOf(o).Interval, 4 * time.Second},
		{"watch.stagger", "file " + conf + ":5", cfgOf(o).Schedule.Stagger, 7 * time.Second},
		{"watch.max_attempts", "default", cfgOf(o).Schedule.MaxAttempts, config.Default().Watch.MaxAttempts},
	} {
		if tc.got != tc.want || o.loaded.Sources[tc.key].String() != tc.src {
			t.Errorf("%s = %v from %s, want %v from %s", tc.key, tc.got, o.loaded.Sources[tc.key], tc.want, tc.src)
		}
	}
	// A tmux option that breaks its rule is refused even when a flag sets the same key: every
	// source is checked.
	s.Tmux(t, "set-option", "-g", "@cac-tmux-margin", "-5s")
	if _, err := parseWatch([]string{"-S", s.Socket, "--config", conf, "--margin", "1s"}); err == nil ||
		!strings.Contains(err.Error(), `tmux option @cac-tmux-margin: must not be negative (got "-5s")`) || exitCode(err) != 2 {
		t.Errorf("watch with a bad tmux option = %v, want exit 2 naming the option", err)
	}
}
