package config

import (
	"path/filepath"
	"strings"
)

// Accounts is [accounts]: the Claude Code accounts `cac-tmux switch` may move a stopped
// session between. Each account is one Claude Code config directory (its
// CLAUDE_CONFIG_DIR, docs/claude-code.md). Switching is opt-in: with fewer than two
// directories nothing is ever moved.
type Accounts struct {
	// Dirs are the accounts' config directories as written ("~/.claude", "~/.claude-work");
	// "~" stands for $HOME and is expanded where they are used (package accounts), so the
	// file reads the same on every host.
	Dirs []string
	// MaxPerDay bounds the switches of one session within 24 hours: a session that keeps
	// hitting limits is not bounced between accounts forever. 0 allows none.
	MaxPerDay int
	// Auto makes the watcher switch a session that stops to a free account by itself, as
	// `cac-tmux switch PANE` does; off, only that command switches.
	Auto bool
}

// AccountsIn are the accounts of the configuration file at path ([accounts] dirs, as
// written) that start with prefix, for the completion of a command line; none when the file
// cannot be read or holds a mistake.
func AccountsIn(path, prefix string) []string {
	f, err := ReadFile(path)
	if err != nil {
		return nil
	}
	e, err := Resolve(f, nil, nil)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range e.Config.Accounts.Dirs {
		if strings.HasPrefix(d, prefix) {
			out = append(out, d)
		}
	}
	return out
}

// Limits of [accounts].
const (
	maxSwitchesPerDay = 20
	// DefaultMaxPerDay is accounts.max_per_day when the file does not set it.
	DefaultMaxPerDay = 2
)

// defaultAccounts is [accounts] when the file does not set it: no accounts, so nothing is
// switched (opt-in).
func defaultAccounts() Accounts { return Accounts{MaxPerDay: DefaultMaxPerDay} }

// accountsTable is [accounts].
var accountsTable = table{name: "accounts", help: []string{
	"The Claude Code accounts `cac-tmux switch PANE` may move a stopped session between: each",
	"is a config directory (its CLAUDE_CONFIG_DIR). Nothing is switched unless two are set."}, keys: []setting{
	newKey(meta{table: "accounts", name: "dirs", want: `an array of at least two paths like ["~/.claude", "~/.claude-work"]`,
		help: "the accounts' Claude Code config directories (\"~\" is $HOME); empty: switch is off"},
		listKind, func(c *Config) *[]string { return &c.Accounts.Dirs }, checkAccountDirs),
	newKey(meta{table: "accounts", name: "max_per_day", want: "an integer like 2",
		help: "switches of one session within 24 hours at most (0 to 20; 0: none)"},
		intKind, func(c *Config) *int { return &c.Accounts.MaxPerDay }, func(n int) string {
			if n < 0 || n > maxSwitchesPerDay {
				return "must be from 0 to 20"
			}
			return ""
		}),
	newKey(meta{table: "accounts", name: "auto", want: "true or false",
		help: "the watcher switches a session that stops to a free account by itself (as cac-tmux switch; max_per_day bounds it)"},
		boolKind, func(c *Config) *bool { return &c.Accounts.Auto }, nil),
}, check: func(c *Config) (key, msg, got string) {
	if c.Accounts.Auto && len(c.Accounts.Dirs) < 2 {
		return "accounts.auto", `needs accounts.dirs, the accounts to switch between, like ["~/.claude", "~/.claude-work"]`, "true"
	}
	return "", "", ""
}}

// checkAccountDirs is the rule of accounts.dirs: none (switching off), or at least two
// different directories, each absolute or under "~/" (one account alone has nowhere to
// switch to; a relative path would depend on where cac-tmux was started).
func checkAccountDirs(dirs []string) string {
	if len(dirs) == 1 {
		return `must name at least two directories, one per account, like ["~/.claude", "~/.claude-work"]`
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if d != "~" && !strings.HasPrefix(d, "~/") && !filepath.IsAbs(d) {
			return "must hold absolute paths or paths under \"~/\" (" + tomlString(d) + " is not)"
		}
		clean := filepath.Clean(d)
		if seen[clean] {
			return "must not name a directory twice (" + tomlString(d) + " is)"
		}
		seen[clean] = true
	}
	return ""
}
