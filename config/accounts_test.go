package config

import (
	"slices"
	"strings"
	"testing"
)

// [accounts] from the file and from tmux options, with its rules: at least two directories,
// each absolute or under "~/", none twice; max_per_day from 0 to 20. Left out, switching is
// off (no directories) and the bound is 2 a day.
func TestParseAccounts(t *testing.T) {
	c, err := parseNamed("cfg.toml", []byte("[accounts]\ndirs = [\"~/.claude\", \"/srv/claude-work\"]\nmax_per_day = 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (Accounts{Dirs: []string{"~/.claude", "/srv/claude-work"}, MaxPerDay: 5}); !slices.Equal(c.Accounts.Dirs, want.Dirs) || c.Accounts.MaxPerDay != 5 {
		t.Errorf("parseNamed = %+v, want %+v", c.Accounts, want)
	}
	if d := Default().Accounts; d.Dirs != nil || d.MaxPerDay != DefaultMaxPerDay || DefaultMaxPerDay != 2 {
		t.Errorf("Default().Accounts = %+v, want no directories and max_per_day %d", d, DefaultMaxPerDay)
	}
	if c, err := parseNamed("cfg.toml", []byte("[accounts]\ndirs = []\n")); err != nil || c.Accounts.Dirs != nil {
		t.Errorf("an empty dirs = %+v, %v; want switching off", c.Accounts, err)
	}
	for _, tc := range []struct{ data, want string }{
		{"[accounts]\ndirs = [\"~/.claude\"]", `accounts.dirs: must name at least two directories, one per account, like ["~/.claude", "~/.claude-work"] (cfg.toml line 2, got ["~/.claude"])`},
		{"[accounts]\ndirs = [\"~/.claude\", \"claude-work\"]", `accounts.dirs: must hold absolute paths or paths under "~/" ("claude-work" is not) (cfg.toml line 2, got ["~/.claude", "claude-work"])`},
		{"[accounts]\ndirs = [\"~/.claude\", \"~me/.claude\"]", `accounts.dirs: must hold absolute paths or paths under "~/" ("~me/.claude" is not)`},
		{"[accounts]\ndirs = [\"~/.claude\", \"~/.claude/\"]", `accounts.dirs: must not name a directory twice ("~/.claude/" is)`},
		{"[accounts]\ndirs = \"~/.claude\"", `accounts.dirs: must be an array of at least two paths like ["~/.claude", "~/.claude-work"]`},
		{"[accounts]\nmax_per_day = 21", `accounts.max_per_day: must be from 0 to 20 (cfg.toml line 2, got 21)`},
		{"[accounts]\nmax_per_day = -1", `accounts.max_per_day: must be from 0 to 20 (cfg.toml line 2, got -1)`},
		{"[accounts]\nmax_per_day = \"2\"", `accounts.max_per_day: must be an integer like 2, without quotes`},
		{"[accounts]\ndir = [\"~/.claude\"]", `accounts.dir: unknown key`},
	} {
		if _, err := parseNamed("cfg.toml", []byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseNamed(%q) = %v\nwant %s", tc.data, err, tc.want)
		}
	}
	e, err := Resolve(File{}, []Option{{Name: "@cac-tmux-accounts-dirs", Value: "~/.claude, /srv/w"}, {Name: "@cac-tmux-accounts-max-per-day", Value: "0"}}, nil)
	if err != nil || !slices.Equal(e.Config.Accounts.Dirs, []string{"~/.claude", "/srv/w"}) || e.Config.Accounts.MaxPerDay != 0 {
		t.Errorf("Resolve(tmux options) = %+v, %v", e.Config.Accounts, err)
	}
	if _, err := Resolve(File{}, []Option{{Name: "@cac-tmux-accounts-dirs", Value: "relative, /srv/w"}}, nil); err == nil ||
		!strings.Contains(err.Error(), `must hold absolute paths or paths under "~/"`) {
		t.Errorf("Resolve(a relative directory as a tmux option) = %v, want the same rule", err)
	}
}

// The accounts a command line completes: those of the file that start with what was typed,
// as written; none from a file that cannot be read or holds a mistake.
func TestAccountsIn(t *testing.T) {
	path := writeFile(t, "[accounts]\ndirs = [\"~/.claude\", \"~/.claude-work\", \"/srv/claude\"]\n")
	if got := AccountsIn(path, "~/.claude-"); !slices.Equal(got, []string{"~/.claude-work"}) {
		t.Errorf("AccountsIn(~/.claude-) = %q", got)
	}
	if got := AccountsIn(path, ""); len(got) != 3 {
		t.Errorf("AccountsIn(\"\") = %q, want all three", got)
	}
	for _, bad := range []string{writeFile(t, "[accounts]\ndirs = \"~/.claude\"\n"), path + ".none"} {
		if got := AccountsIn(bad, ""); got != nil {
			t.Errorf("AccountsIn(%s) = %q, want none", bad, got)
		}
	}
}
