package accounts

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	got, err := Expand([]string{"~/.claude", "/srv/claude-work/", "~"}, "/home/me")
	want := []Account{{"~/.claude", "/home/me/.claude"}, {"/srv/claude-work/", "/srv/claude-work"}, {"~", "/home/me"}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Expand = %v, %v; want %v", got, err, want)
	}
	for _, tc := range []struct {
		dir, home, want string
	}{
		{"claude", "/home/me", "not an absolute path"},
		{"~/.claude", "", "HOME is not an absolute path"},
		{"~other/.claude", "/home/me", "not an absolute path"},
	} {
		if _, err := Expand([]string{tc.dir}, tc.home); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Expand(%q, home %q) = %v, want an error saying %q", tc.dir, tc.home, err, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	accts, err := Expand([]string{"~/.claude", "~/.claude-work", "/srv/a/claude-x", "/srv/b/claude-x"}, "/home/me")
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"2", "~/.claude-work", "/home/me/.claude-work", "/home/me/.claude-work/", ".claude-work", "claude-work"} {
		if a, err := resolve(accts, to, "/home/me"); err != nil || a != accts[1] {
			t.Errorf("resolve(%q) = %v, %v; want %v", to, a, err, accts[1])
		}
	}
	if a, err := resolve(accts, "claude", "/home/me"); err != nil || a != accts[0] {
		t.Errorf("resolve(claude) = %v, %v; want %v", a, err, accts[0])
	}
	for _, to := range []string{"0", "5", "claude-x", "/home/me/.claude-other", "other"} {
		if a, err := resolve(accts, to, "/home/me"); !errors.Is(err, errUnknown) {
			t.Errorf("resolve(%q) = %v, %v; want errUnknown", to, a, err)
		}
	}
}

// The accounts to switch between: two at least, each a directory Expand takes; a mistake
// names the key and what to set, in the file at path.
func TestConfigured(t *testing.T) {
	const path = "/home/me/.config/cac-tmux/config.toml"
	if got, err := Configured([]string{"~/.claude", "~/.claude-work"}, path, "/home/me"); err != nil || len(got) != 2 || got[1].Dir != "/home/me/.claude-work" {
		t.Errorf("Configured(two) = %v, %v; want both, expanded", got, err)
	}
	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{nil, `no accounts to switch between: set [accounts] dirs = ["~/.claude", "~/.claude-work"] (the Claude Code config directories of your accounts) in ` + path + "; nothing was done"},
		{[]string{"~/.claude"}, "no accounts to switch between: set [accounts] dirs"},
		{[]string{"~/.claude", "work"}, "accounts.dirs: expand work: not an absolute path"},
	} {
		if _, err := Configured(tc.dirs, path, "/home/me"); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Configured(%q) = %v, want %q", tc.dirs, err, tc.want)
		}
	}
}
