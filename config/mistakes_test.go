package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParseEveryMistake: a file with many mistakes gets every one of them, in file order,
// each with its line, key, what is wrong and the fix, as Errors of *Error.
func TestParseEveryMistake(t *testing.T) {
	data := "# mine\n[watch]\nmargin = \"soon\"\nmarign = \"2m\"\nmax_attempts = \"3\"\ninterval = \"50ms\"\n" +
		"[polcy]\nweekly = \"notify\"\n[policy]\nweekly = \"hold\"\n[panes]\ninclude = \"work*\"\n" +
		"[notify]\ndesktop = \"maybe\"\ntimeout = \"soon\"\nmin_gap = \"-1s\"\n"
	want := []string{
		`watch.margin: must be a duration like "90s" (cfg.toml line 3, got "soon")`,
		`watch.marign: unknown key (did you mean margin?); the known keys of [watch] are interval, margin, exact_margin, message, native_grace, stagger, max_per_reset, max_attempts, log_level (cfg.toml line 4)`,
		`watch.max_attempts: must be an integer like 3, without quotes (cfg.toml line 5, got "3")`,
		`watch.interval: must be at least 100ms (cfg.toml line 6, got "50ms")`,
		`unknown table [polcy] (did you mean [policy]?); the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 7)`,
		`policy.weekly: must be resume, notify or never (cfg.toml line 10, got "hold")`,
		`panes.include: must be an array of patterns like ["work*", "notes"] (cfg.toml line 12, got "work*")`,
		`notify.desktop: must be "auto", "on" or "off" (cfg.toml line 14, got "maybe")`,
		`notify.timeout: must be a duration like "10s" (cfg.toml line 15, got "soon")`,
		`notify.min_gap: must not be negative; "0s" turns it off (cfg.toml line 16, got "-1s")`,
	}
	c, err := parseNamed("cfg.toml", []byte(data))
	if err == nil || err.Error() != strings.Join(want, "\n") || !reflect.DeepEqual(c, Config{}) {
		t.Fatalf("parseNamed(%q) = %v\nwant\n%s", data, err, strings.Join(want, "\n"))
	}
	var es interface{ Unwrap() []error } // Errors
	if !errors.As(err, &es) || len(es.Unwrap()) != len(want) {
		t.Fatalf("parseNamed = %T, want Errors with %d mistakes", err, len(want))
	}
	var first *Error
	if !errors.As(err, &first) || first.Line != 3 || first.Key != "watch.margin" || first.Path != "cfg.toml" {
		t.Errorf("errors.As(*Error) = %#v, want the first mistake", first)
	}

	// A value its key refuses is not taken: [notify]'s rule does not see it, and the keys
	// after it are still read.
	_, err = parseNamed("f", []byte("[watch]\nmax_per_reset = -1\nstagger = 'x'\n[notify]\nurl = 1\nmax_per_hour = -2\n"))
	if w := `watch.max_per_reset: must not be negative; 0 means no cap (f line 2, got -1)` + "\n" +
		`watch.stagger: must be a duration like "90s" (f line 3, got 'x')` + "\n" +
		`notify.url: must be a URL like "https://ntfy.sh/my-topic" (f line 5, got 1)` + "\n" +
		`notify.max_per_hour: must not be negative; 0 means no cap (f line 6, got -2)`; err == nil || err.Error() != w {
		t.Errorf("parseNamed(keys then [notify]) = %v\nwant\n%s", err, w)
	}
}

// TestParseSyntaxStops: a file TOML cannot read is one mistake, whatever else is wrong in it.
func TestParseSyntaxStops(t *testing.T) {
	_, err := parseNamed("f", []byte("[watch]\nmargin = \"soon\"\nstagger = 1\n[x\n"))
	var es interface{ Unwrap() []error } // Errors
	if err == nil || err.Error() != `expected ']' to close table name (f line 4)` || !errors.As(err, &es) || len(es.Unwrap()) != 1 {
		t.Errorf("parseNamed(syntax error) = %v, want the one syntax error", err)
	}
}

// TestResolveEveryTableMistake: a table's rule names every key that breaks it, from the tmux
// options as from the file.
func TestResolveEveryTableMistake(t *testing.T) {
	_, err := Resolve(File{}, []Option{{"@cac-tmux-notify-desktop", "maybe"}, {"@cac-tmux-notify-timeout", "soon"}}, nil)
	want := `tmux option @cac-tmux-notify-desktop: must be "auto", "on" or "off" (got "maybe")` + "\n" +
		`tmux option @cac-tmux-notify-timeout: must be a duration like "10s" (got "soon")`
	if err == nil || err.Error() != want {
		t.Errorf("Resolve(two bad [notify] options) = %v\nwant\n%s", err, want)
	}
	c := Default()
	c.Notify.Desktop, c.Notify.Timeout = "maybe", time.Hour
	if err := c.validate(); err == nil || err.Error() != `notify.desktop: must be "auto", "on" or "off" (got "maybe")` {
		t.Errorf("validate() = %v, want the first mistake", err)
	}
	if c.Notify.Desktop != "maybe" || c.Notify.Timeout != time.Hour {
		t.Errorf("validate() changed its Config: %+v", c.Notify)
	}
}

// TestReadFileDanglingLink: a configuration path that is a symbolic link to nothing, or
// under a directory that is, is an error naming the link, its target and the fix; a link
// that leads somewhere is followed, and a path simply absent is no file.
func TestReadFileDanglingLink(t *testing.T) {
	dir := t.TempDir()
	link := func(target, name string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fix := func(what, name, link string) string {
		return "put the " + what + " there, point the link at your " + what + " (ln -sfn " + name + " " + link +
			"), or remove the link to run with the defaults (rm " + link + ")"
	}
	abs := link(filepath.Join(dir, "dotfiles", "cac-tmux.toml"), "abs.toml")
	rel := link("dotfiles/rel.toml", "rel.toml")
	chain := link("abs.toml", "chain.toml")
	linkedDir := link(filepath.Join(dir, "gone"), "linked-dir")
	under := filepath.Join(linkedDir, "config.toml")
	spaced := link("nowhere", "my config.toml")
	for _, tc := range []struct {
		path  string
		found bool
		want  string
	}{
		{abs, true, "read " + abs + ": it is a symbolic link to " + filepath.Join(dir, "dotfiles", "cac-tmux.toml") +
			", which does not exist; " + fix("file", "FILE", abs)},
		{rel, true, "read " + rel + ": it is a symbolic link to " + filepath.Join(dir, "dotfiles", "rel.toml") +
			", which does not exist; " + fix("file", "FILE", rel)},
		{chain, true, "read " + chain + ": it is a symbolic link to " + filepath.Join(dir, "dotfiles", "cac-tmux.toml") +
			", which does not exist; " + fix("file", "FILE", chain)},
		{under, false, "read " + under + ": " + linkedDir + " is a symbolic link to " + filepath.Join(dir, "gone") +
			", which does not exist; " + fix("directory", "DIR", linkedDir)},
		{spaced, true, "read " + spaced + ": it is a symbolic link to " + filepath.Join(dir, "nowhere") +
			", which does not exist; " + fix("file", "FILE", "'"+spaced+"'")},
	} {
		f, err := ReadFile(tc.path)
		var e *Error
		if err == nil || err.Error() != tc.want || f.Found != tc.found || !reflect.DeepEqual(f.config, Config{}) || !errors.As(err, &e) {
			t.Errorf("ReadFile(%s) = %+v, %v\nwant found %v and %s", tc.path, f, err, tc.found, tc.want)
		}
		if errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile(%s) = %v: a dangling link is not a missing file", tc.path, err)
		}
		if _, found, err := load(tc.path); err == nil || found != tc.found {
			t.Errorf("load(%s) = %v, %v, want the error", tc.path, found, err)
		}
	}

	// A link that leads to a file is read; under a link that leads to a directory, an absent
	// file is no file.
	if err := os.MkdirAll(filepath.Join(dir, "dotfiles"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dotfiles", "cac-tmux.toml"), []byte("[watch]\nmargin = \"2m\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{abs, chain} {
		if f, err := ReadFile(p); err != nil || !f.Found || f.lines["watch.margin"] != 2 {
			t.Errorf("ReadFile(%s) = %+v, %v, want the file it leads to", p, f, err)
		}
	}
	toDir := link("dotfiles", "to-dir")
	for _, p := range []string{filepath.Join(toDir, "config.toml"), filepath.Join(dir, "absent", "config.toml"), filepath.Join(dir, "absent.toml")} {
		if f, err := ReadFile(p); err != nil || f.Found || !reflect.DeepEqual(f.config, Default()) {
			t.Errorf("ReadFile(%s) = %+v, %v, want no file and the defaults", p, f, err)
		}
	}
}

// TestResolveNotifyWithOthers: a [notify] option that breaks its key's rule is listed with the
// mistakes of the other tables' options.
func TestResolveNotifyWithOthers(t *testing.T) {
	_, err := Resolve(File{}, []Option{{"@cac-tmux-margin", "x"}, {"@cac-tmux-notify-desktop", "maybe"}}, nil)
	want := `tmux option @cac-tmux-margin: must be a duration like "90s" (got "x")` + "\n" +
		`tmux option @cac-tmux-notify-desktop: must be "auto", "on" or "off" (got "maybe")`
	if err == nil || err.Error() != want {
		t.Errorf("Resolve = %v\nwant\n%s", err, want)
	}
}
