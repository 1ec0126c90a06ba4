package proc

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cac-tmux/cac-tmux/agent"
)

// isCodex decides from one process's argv and executable whether it is Codex CLI's
// interactive TUI (SPEC §11, measured with 0.171.0); resolve gives the real path of a path the
// process names (nil: taken as given). What runs decides, never a name:
//   - the native binary, exe named "codex" or "codex.exe" (the npm platform package's
//     …/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex, a standalone
//     install, the daemon's own copy under $CODEX_HOME/packages) or "codex-" and its target
//     (a release binary, the Homebrew cask's: isCodexName), running the TUI: no
//     subcommand, or resume or fork (codexTUI). `codex exec`, `codex app-server` (the
//     daemon, which also runs in a session of its own) and the other subcommands are not
//     Codex sessions; argv not known is not one either.
//   - a JavaScript runtime running the npm package @openai/codex (its launcher bin/codex.js,
//     by an argument or the real path of its script) is the launcher: launcher is true and ok
//     false. The launcher starts the native binary as its child in the same foreground group
//     and waits for it; the child is the Codex process a pane's session follows (Find takes
//     the child, and a launcher without it is Found.Starting), so that one kind of process
//     (the native TUI, whose argv names a resumed thread) is the session on every install.
//
// With exe "" (not learned) it is never Codex.
func isCodex(argv []string, exe string, resolve func(string) string) (why string, ok, launcher bool) {
	if exe == "" || len(argv) == 0 {
		return "", false, false
	}
	if resolve == nil {
		resolve = func(p string) string { return p }
	}
	if isCodexName(baseName(exe)) {
		if sub, tui := codexTUI(argv[1:]); !tui {
			return fmt.Sprintf("Codex's executable %q running %q, not its interactive TUI", exe, sub), false, false
		}
		return fmt.Sprintf("Codex's executable %q", exe), true, false
	}
	rt := runtimeName(baseName(exe))
	if rt == "" {
		return "", false, false
	}
	script, ok := codexPackage(argv, resolve)
	if !ok {
		return "", false, false
	}
	rest := argv[slices.Index(argv[1:], script.arg)+2:]
	if sub, tui := codexTUI(rest); !tui {
		return fmt.Sprintf("%s (%s) running Codex's npm launcher %q for %q, not its interactive TUI", rt, exe, script.shown, sub), false, false
	}
	return fmt.Sprintf("%s (%s) running Codex's npm launcher %q, whose native codex child is not in the foreground (yet)", rt, exe, script.shown), false, true
}

// The names of Codex's native binary, and the npm package its launcher ships in.
var codexNames = []string{"codex", "codex.exe"}

const codexNPM = "@openai/codex"

// codexTargets end the name of Codex's native binary as its GitHub releases and the Homebrew
// cask ship it: "codex-" and a target triple (codex-x86_64-unknown-linux-musl,
// codex-aarch64-apple-darwin, whose cask links it as codex).
var codexTargets = []string{"-unknown-linux-musl", "-unknown-linux-gnu", "-apple-darwin", "-pc-windows-msvc.exe"}

// isCodexName reports whether an executable's name is Codex's native binary's.
func isCodexName(s string) bool {
	if slices.Contains(codexNames, s) {
		return true
	}
	rest, ok := strings.CutPrefix(s, "codex-")
	return ok && slices.ContainsFunc(codexTargets, func(t string) bool { return strings.HasSuffix(rest, t) })
}

// CodexHint reports whether tmux's pane_current_command suggests Codex CLI: its native
// binary's names (a release binary's, "codex-x86_64-unknown-linux-musl", cut to the 15
// bytes of a Linux comm), or a JavaScript runtime its npm launcher runs on (a pane running
// codex through npm shows "node"). It is a cheap pre-check, never proof.
func CodexHint(command string) bool {
	return slices.Contains(codexNames, command) || strings.HasPrefix(command, "codex-") || IsRuntime(command)
}

// CodexCommandPattern is CodexHint's rule as a regular expression (tmux's #{m/r:…}), for a
// server-side filter.
func CodexCommandPattern() string {
	var names []string
	for _, n := range slices.Concat(codexNames, runtimeNames) {
		names = append(names, regexp.QuoteMeta(n))
	}
	return `^(` + strings.Join(names, "|") + `|codex-.*)$`
}

// codexSubcommands are codex 0.171.0's subcommands (and aliases) that are not its interactive
// TUI; "resume" and "fork" open the TUI on a saved thread, and any other first argument is the
// TUI's first prompt.
var codexSubcommands = []string{"agents", "exec", "e", "review", "login", "logout", "mcp", "mcp-server",
	"plugin", "app-server", "remote-control", "completion", "update", "doctor", "sandbox", "debug",
	"apply", "a", "queue", "archive", "delete", "migrate-rollouts", "migrate-nfs-db", "unarchive",
	"cloud", "exec-server", "features", "help", "responses-api-proxy", "stdio-to-uds"}

// codexValued are the options of codex 0.171.0 that take a value as the next argument.
var codexValued = []string{"-c", "--config", "--enable", "--disable", "--remote", "--remote-auth-token-env",
	"-i", "--image", "-m", "--model", "--local-provider", "-p", "--profile", "-s", "--sandbox",
	"-C", "--cd", "--add-dir", "-a", "--ask-for-approval"}

// codexTUI reads codex's arguments (argv without argv[0]): tui is false for a subcommand that
// is not the TUI, named in sub, and for --help and --version, which print and exit.
func codexTUI(args []string) (sub string, tui bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", true // the rest is the first prompt
		case a == "-h" || a == "--help" || a == "-V" || a == "--version":
			return a, false
		case slices.Contains(codexValued, a):
			i++
		case strings.HasPrefix(a, "-"):
		case slices.Contains(codexSubcommands, a):
			return a, false
		default:
			return a, true // resume, fork, or a first prompt
		}
	}
	return "", true
}

// CodexArgs is what the arguments of a Codex TUI say about its session.
type CodexArgs struct {
	// Thread is the thread `codex resume THREAD` reopens: a UUID, "" when argv names none
	// (a new thread, resume --last or the picker, fork).
	Thread string
	// Dir is the directory given with -C/--cd (as given, maybe relative to the process's
	// working directory), "" when none: the thread's cwd.
	Dir string
	// NoDaemon: --no-daemon, the TUI runs its own app server (no daemon: its own zone).
	NoDaemon bool
}

// ParseCodexArgs reads CodexArgs from a Codex TUI's argv (argv[0] first).
func ParseCodexArgs(argv []string) CodexArgs {
	var c CodexArgs
	if len(argv) == 0 {
		return c
	}
	args, sub := argv[1:], ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if name, val, ok := strings.Cut(a, "="); ok && (name == "--cd") {
			c.Dir = val
			continue
		}
		switch {
		case a == "--":
			return c
		case a == "-C" || a == "--cd":
			if i+1 < len(args) {
				c.Dir = args[i+1]
			}
			i++
		case a == "--no-daemon":
			c.NoDaemon = true
		case slices.Contains(codexValued, a):
			i++
		case strings.HasPrefix(a, "-"):
		case sub == "":
			sub = a
			if sub != "resume" {
				return c // a first prompt, or fork: a thread of its own
			}
		case isUUID(a):
			c.Thread = a
			return c
		default:
			return c
		}
	}
	return c
}

// isUUID reports whether s is a UUID in its text form (Codex's thread ids).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range []byte(s) {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// scriptShown is an argument of a runtime that runs a package, and how a sentence shows it.
type scriptShown struct{ arg, shown string }

// codexPackage reports whether a runtime's argv runs Codex's npm package: an argument, or the
// real path of the script it runs, inside "@openai/codex" (a path component: the SDK,
// @openai/codex-sdk, is another program).
func codexPackage(argv []string, resolve func(string) string) (scriptShown, bool) {
	if len(argv) < 2 {
		return scriptShown{}, false
	}
	script := scriptArg(argv[1:])
	if script == "" {
		return scriptShown{}, false
	}
	if inPackage(script, codexNPM) {
		return scriptShown{script, script}, true
	}
	if real := resolve(script); inPackage(real, codexNPM) {
		return scriptShown{script, script + " → " + real}, true
	}
	return scriptShown{}, false
}

// inPackage reports whether path p has the npm package pkg ("@scope/name") as consecutive
// components.
func inPackage(p, pkg string) bool {
	return strings.Contains("/"+p+"/", "/"+pkg+"/")
}

// decide is the rule of Find for one process: Claude Code (explainClaude's rule, unchanged),
// else Codex (isCodex). launcher says the process is Codex's npm launcher, whose native child
// Find looks for below it; why is the sentence for a "yes", or for a "no" that isCodex
// explains ("" otherwise: notClaude's sentence).
func decide(comm string, argv []string, exe string, resolve func(string) string) (name agent.Name, why string, ok, launcher bool) {
	if why, ok := isClaude(comm, argv, exe, resolve); ok {
		return agent.Claude, why, true, false
	}
	why, ok, launcher = isCodex(argv, exe, resolve)
	if ok {
		return agent.Codex, why, true, false
	}
	return "", why, false, launcher
}

// rejected is the sentence for a process decide did not take: isCodex's when it had one
// (Codex not as a TUI, its launcher), else notClaude's, Claude Code's wording unchanged.
func rejected(why, comm string, argv []string, exe string) string {
	if why != "" {
		return why
	}
	return notClaude(comm, argv, exe)
}
