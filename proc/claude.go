package proc

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// explainClaude decides from one process's comm, argv and executable whether it is Claude Code,
// and says why, a "no" too (logs, doctor); resolve gives the real path of a path the process
// names, from its working directory (nil: taken as given). What runs decides, never a name:
// "exec -a claude cat", a shell script named "claude" and a wrapper whose Claude Code child is
// gone are not Claude Code. It is Claude Code (docs/claude-code.md, Which panes run Claude Code)
// when exe (/proc/PID/exe, or lsof's program text without /proc) is:
//   - Claude Code's native build: named "claude" or "claude.exe" (the npm platform package's
//     binary, an install's symlink target), or a version ("2.1.329", any suffix) under a
//     "claude" or ".claude" directory (~/.local/share/claude/versions/2.1.329);
//   - a JavaScript runtime (node, nodejs, bun) running Claude Code's npm package: an argument,
//     or the real path of its script, is inside "@anthropic-ai/claude-code"; or its comm and
//     whole argv read "claude", the title Claude Code's npm build sets on Linux ("exec -a" sets
//     argv[0] only, and a script's comm is its interpreter's). On macOS the title leaves comm
//     alone: without /proc the title stands for comm when the argument area was rewritten
//     (procArgs.retitled).
//
// With exe "" (not learned: another user's process, or gone) it is never Claude Code.
func explainClaude(comm string, argv []string, exe string, resolve func(string) string) (why string, ok bool) {
	if why, ok := isClaude(comm, argv, exe, resolve); ok {
		return why, true
	}
	return notClaude(comm, argv, exe), false
}

// notClaude is explainClaude's sentence for a "no".
func notClaude(comm string, argv []string, exe string) string {
	var arg0 string
	if len(argv) > 0 {
		arg0 = argv[0]
	}
	return fmt.Sprintf("comm %q, argv[0] %q, executable %q: not Claude Code", comm, arg0, exe)
}

// isClaude is explainClaude without the sentence for a "no", which Find does not need.
func isClaude(comm string, argv []string, exe string, resolve func(string) string) (why string, ok bool) {
	if exe == "" {
		return "", false
	}
	if resolve == nil {
		resolve = func(p string) string { return p }
	}
	exeBase := baseName(exe)
	switch {
	case isClaudeName(exeBase):
		return fmt.Sprintf("executable %q", exe), true
	case isVersion(exeBase) && hasClaudeDir(exe):
		return fmt.Sprintf("version-named executable under a claude directory: %q", exe), true
	}
	rt := runtimeName(exeBase)
	if rt == "" {
		return "", false
	}
	if arg, ok := claudePackage(argv, resolve); ok {
		return fmt.Sprintf("%s (%s) running %q", rt, exe, arg), true
	}
	if comm == "claude" && len(argv) == 1 && argv[0] == "claude" {
		return fmt.Sprintf("%s (%s) titled itself \"claude\" (comm and argv)", rt, exe), true
	}
	return "", false
}

// The one list of the names Claude Code runs under: its native build's (a versioned path's
// name is a version string, isVersion), and the JavaScript runtimes its npm package runs on.
var (
	claudeNames  = []string{"claude", "claude.exe"}
	runtimeNames = []string{"node", "nodejs", "bun"}
)

// Hint reports whether tmux's pane_current_command or pane_title suggests Claude Code: a
// command of Claude Code's names or its runtimes', or a version string like "2.1.329"; or a
// title starting with "✳" or a Braille spinner rune U+2800–U+28FF, or containing "Claude
// Code". It is a cheap pre-check, never proof.
func Hint(command, title string) bool {
	if isClaudeName(command) || IsRuntime(command) {
		return true
	}
	if isVersion(command) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(title)
	return r == '✳' || (r >= 0x2800 && r <= 0x28FF) || strings.Contains(title, "Claude Code")
}

// remoteShells are the commands of programs that run a shell on another host in the pane's
// terminal: Claude Code there draws in this pane, but its process is out of this host's reach.
var remoteShells = []string{"ssh", "autossh", "mosh-client", "et", "mosh"}

// RemoteShell reports whether tmux's pane_current_command is a program that runs a shell on
// another host (ssh, mosh, Eternal Terminal): with a title of Claude Code's (Hint), Claude
// Code runs on that host, where only a watcher of that host can resume it.
func RemoteShell(command string) bool { return slices.Contains(remoteShells, command) }

// CommandPattern is Hint's rule for a command as a regular expression (tmux's #{m/r:…}), for
// a server-side filter: Claude Code's names, its runtimes', and a version string.
func CommandPattern() string {
	var names []string
	for _, n := range slices.Concat(claudeNames, runtimeNames) {
		names = append(names, regexp.QuoteMeta(n))
	}
	return `^(` + strings.Join(names, "|") + `|[0-9]+\.[0-9]+\.[0-9]+.*)$`
}

// isClaudeName reports whether a command name is Claude Code's own.
func isClaudeName(s string) bool { return slices.Contains(claudeNames, s) }

// IsRuntime reports whether a command name is a JavaScript runtime Claude Code's npm package
// runs on: such a command runs much else too.
func IsRuntime(s string) bool { return slices.Contains(runtimeNames, s) }

// runtimeName returns the first of the names that is a JavaScript runtime Claude Code runs on.
func runtimeName(names ...string) string {
	for _, n := range names {
		if IsRuntime(n) {
			return n
		}
	}
	return ""
}

// claudePackage reports whether a runtime's argv runs Claude Code's npm package: an argument,
// or the real path of the script it runs, inside "@anthropic-ai/claude-code".
func claudePackage(argv []string, resolve func(string) string) (string, bool) {
	if len(argv) < 2 {
		return "", false
	}
	for _, a := range argv[1:] {
		if strings.Contains(a, claudeNPM) {
			return a, true
		}
	}
	if script := scriptArg(argv[1:]); script != "" {
		if real := resolve(script); strings.Contains(real, claudeNPM) {
			return script + " → " + real, true
		}
	}
	return "", false
}

// claudeNPM is the npm package Claude Code ships in.
const claudeNPM = "@anthropic-ai/claude-code"

// scriptArg is the script among a runtime's arguments: the first that is not an option or an
// option's value, "" when there is none.
func scriptArg(args []string) string {
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
		return a
	}
	return ""
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
