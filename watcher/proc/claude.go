package proc

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// IsClaude decides from one process's comm, argv and exe path (exe may be "" when unreadable)
// whether it is Claude Code, and says why (for a "no" too, for logs and doctor). It is Claude Code
// when (SPEC §4.7):
//   - base(argv[0]) or comm is "claude" or "claude.exe" (npm install on Linux, which sets its
//     process title; the native install started through its "claude" symlink);
//   - comm, base(argv[0]) or base(exe) is a version string ("2.1.329", any suffix) and exe or
//     argv[0] has a "claude" (or ".claude") directory component: the native binary started by its
//     versioned path, e.g. ~/.local/share/claude/versions/2.1.329;
//   - comm, base(argv[0]) or base(exe) is node, nodejs or bun, and an argument contains
//     "@anthropic-ai/claude-code" or the script it runs is named "claude" ("node
//     /usr/local/bin/claude": the npm install on macOS, where the title is not set).
//
// Anything else (a shell, vim, "node server.js", "less claude.md", "grep claude") is not.
func IsClaude(comm string, argv []string, exe string) (why string, ok bool) {
	if why, ok := isClaude(comm, argv, exe); ok {
		return why, true
	}
	var arg0 string
	if len(argv) > 0 {
		arg0 = argv[0]
	}
	return fmt.Sprintf("comm %q, argv[0] %q: not Claude Code", comm, arg0), false
}

// isClaude is IsClaude without the sentence for a "no", which Find does not need.
func isClaude(comm string, argv []string, exe string) (why string, ok bool) {
	var arg0 string
	if len(argv) > 0 {
		arg0 = argv[0]
	}
	base0, exeBase := baseName(arg0), baseName(exe)
	switch {
	case isClaudeName(base0):
		return fmt.Sprintf("argv[0] %q", arg0), true
	case isClaudeName(comm):
		return fmt.Sprintf("comm %q", comm), true
	}
	if isVersion(comm) || isVersion(base0) || isVersion(exeBase) {
		switch {
		case hasClaudeDir(exe):
			return fmt.Sprintf("version-named binary under a claude directory: exe %q", exe), true
		case hasClaudeDir(arg0):
			return fmt.Sprintf("version-named binary under a claude directory: argv[0] %q", arg0), true
		}
	}
	if rt := runtimeName(comm, base0, exeBase); rt != "" {
		if arg, ok := claudeScript(argv); ok {
			return fmt.Sprintf("%s running %q", rt, arg), true
		}
	}
	return "", false
}

// Hint reports whether tmux's pane_current_command or pane_title suggests Claude Code:
// command claude, claude.exe, node, or a version string like "2.1.329"; or a title starting with
// "✳" or a Braille spinner rune U+2800–U+28FF, or containing "Claude Code". It is a cheap
// pre-check, never proof.
func Hint(command, title string) bool {
	switch command {
	case "claude", "claude.exe", "node":
		return true
	}
	if isVersion(command) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(title)
	return r == '✳' || (r >= 0x2800 && r <= 0x28FF) || strings.Contains(title, "Claude Code")
}

// isClaudeName reports whether a command name is Claude Code's own.
func isClaudeName(s string) bool { return s == "claude" || s == "claude.exe" }

// runtimeName returns the first of the names that is a JavaScript runtime Claude Code runs on.
func runtimeName(names ...string) string {
	for _, n := range names {
		switch n {
		case "node", "nodejs", "bun":
			return n
		}
	}
	return ""
}

// claudeScript reports whether a runtime's argv runs Claude Code: an argument containing the npm
// package name, or a script (the first argument that is not an option) named "claude". Only the
// script counts for the name, so that "node server.js claude" is not taken for Claude Code.
func claudeScript(argv []string) (string, bool) {
	if len(argv) < 2 {
		return "", false
	}
	for _, a := range argv[1:] {
		if strings.Contains(a, "@anthropic-ai/claude-code") {
			return a, true
		}
	}
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "run" && i == 0: // bun run SCRIPT
			continue
		case a == "-r" || a == "--require" || a == "--import" || a == "--loader" ||
			a == "--experimental-loader" || a == "-C" || a == "--conditions":
			i++ // the option's value is a separate argument
			continue
		case strings.HasPrefix(a, "-"):
			continue
		}
		if isClaudeName(baseName(a)) {
			return a, true
		}
		return "", false
	}
	return "", false
}

// isVersion reports whether s starts with digits.digits.digits ("2.1.329", "1.0.0-beta",
// "2.1.329 (deleted)"): the name of the native binary in its versions directory.
func isVersion(s string) bool {
	i := 0
	for part := 0; part < 3; part++ {
		if part > 0 {
			if i >= len(s) || s[i] != '.' {
				return false
			}
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return true
}

// hasClaudeDir reports whether a path has a directory component "claude" or ".claude" (the
// last component, the file itself, does not count).
func hasClaudeDir(p string) bool {
	for {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return false
		}
		if c := p[:i]; c == "claude" || c == ".claude" {
			return true
		}
		p = p[i+1:]
	}
}

// baseName is path.Base without its special cases: the text after the last '/', "" for "".
func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
