// Package accounts moves a stopped Claude Code session to another Claude Code account
// (`cac-tmux switch`, [accounts] auto). An account is one config directory (CLAUDE_CONFIG_DIR,
// else ~/.claude; docs/claude-code.md). Expand and Look read the accounts and how limited each
// is from its own transcripts; Switch gates, copies the transcript (copySession) and respawns
// the pane with the same Claude Code (program); Auto queues a switch for each stop it is told.
// It writes only the copy of one session's transcript, never over another, and removes nothing;
// it stops a process only by respawning its pane, after every gate.
package accounts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Account is one configured account.
type Account struct {
	// Name is the directory as configured ("~/.claude-work"): what people are shown.
	Name string
	// Dir is the config directory, "~" expanded and cleaned.
	Dir string
}

// Expand turns the configured directories (config.Accounts.Dirs) into accounts: "~" and a
// leading "~/" stand for home. Each must be absolute afterwards.
func Expand(dirs []string, home string) ([]Account, error) {
	var out []Account
	for _, d := range dirs {
		dir := d
		if d == "~" || strings.HasPrefix(d, "~/") {
			if !filepath.IsAbs(home) {
				return nil, fmt.Errorf("accounts: expand %s: HOME is not an absolute path", d)
			}
			dir = filepath.Join(home, strings.TrimPrefix(d, "~"))
		}
		if !filepath.IsAbs(dir) {
			return nil, fmt.Errorf("accounts: expand %s: not an absolute path", d)
		}
		out = append(out, Account{Name: d, Dir: filepath.Clean(dir)})
	}
	return out, nil
}

// Configured is the accounts to switch between: dirs ([accounts] dirs of the configuration
// file at path) expanded with home. Fewer than two, or a directory Expand refuses, is a
// mistake of the configuration, worded for the person who asked for the switch, and nothing
// is done (switching is opt-in).
func Configured(dirs []string, path, home string) ([]Account, error) {
	if len(dirs) < 2 {
		return nil, fmt.Errorf(`no accounts to switch between: set [accounts] dirs = ["~/.claude", "~/.claude-work"] (the Claude Code config directories of your accounts) in %s; nothing was done`, path)
	}
	accts, err := Expand(dirs, home)
	if err != nil {
		return nil, fmt.Errorf("accounts.dirs: %s", strings.TrimPrefix(err.Error(), "accounts: "))
	}
	return accts, nil
}

// errUnknown is a --to that names no configured account.
var errUnknown = errors.New("no such account")

// resolve finds the account that to names: its directory as configured or expanded, its
// 1-based position in the list, or the base name of its directory (".claude-work", or
// "claude-work" without the dot), which must then name one account only.
func resolve(accts []Account, to, home string) (Account, error) {
	if n, err := strconv.Atoi(to); err == nil {
		if n < 1 || n > len(accts) {
			return Account{}, fmt.Errorf("accounts: account %d: %w (there are %d)", n, errUnknown, len(accts))
		}
		return accts[n-1], nil
	}
	if e, err := Expand([]string{to}, home); err == nil {
		for _, a := range accts {
			if same(a.Dir, e[0].Dir) {
				return a, nil
			}
		}
	}
	var found []Account
	for _, a := range accts {
		base := filepath.Base(a.Dir)
		if base == to || strings.TrimPrefix(base, ".") == to {
			found = append(found, a)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Account{}, fmt.Errorf("accounts: account %q: %w", to, errUnknown)
	}
	return Account{}, fmt.Errorf("accounts: account %q: %w: it is the name of %d directories; give the whole path", to, errUnknown, len(found))
}

// same reports whether two config directories are one: the same path once cleaned, or the
// same directory on disk (a symlink to it, a second mount).
func same(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
