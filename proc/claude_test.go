package proc

import (
	"regexp"
	"strings"
	"testing"
)

func TestIsClaude(t *testing.T) {
	const native = "/home/u/.local/share/claude/versions/2.1.329"
	const npmPkg = "/root/.cache/cac-tmux/real-claude/2.1.330/package/claude" // seen with 2.1.330
	const cliJS = "/usr/local/lib/node_modules/@anthropic-ai/claude-code/cli.js"
	// The npm install's bin link, as the kernel would resolve it.
	resolve := func(p string) string {
		if p == "/usr/local/bin/claude" || p == "/opt/homebrew/bin/claude" {
			return cliJS
		}
		return p
	}
	tests := []struct {
		comm string
		argv []string
		exe  string
		want bool
		why  string // a part of the reason, for a few
	}{
		// The executable is Claude Code's native build.
		{"claude", []string{"claude"}, native, true, "version-named executable under a claude directory"},
		{"claude", []string{npmPkg}, npmPkg, true, `executable "` + npmPkg + `"`},
		{"2.1.329", []string{native}, native, true, "version-named"},
		{"2.1.329", []string{"2.1.329"}, native, true, "executable"},
		{"1.0.0-beta.1", []string{"x"}, "/opt/claude/versions/1.0.0-beta.1", true, "executable"},
		{"2.0.5", []string{"2.0.5"}, "/home/u/.claude/local/2.0.5", true, "executable"},
		// A runtime running the npm package.
		{"node", []string{"node", cliJS}, "/usr/bin/node", true, "node (/usr/bin/node) running"},
		{"node", []string{"node", "/usr/local/bin/claude"}, "/usr/local/bin/node", true, cliJS},
		{"node", []string{"node", "--max-old-space-size=4096", "/opt/homebrew/bin/claude", "--resume"}, "/usr/bin/node", true, cliJS},
		{"claude", []string{"claude"}, "/usr/bin/node", true, "titled itself"}, // npm on Linux: process.title
		{"MainThread", []string{"x"}, "/usr/bin/node", false, ""},              // runtime by exe, but no script
		{"MainThread", []string{"x", "@anthropic-ai/claude-code/cli.js"}, "/usr/bin/node", true, "node"},
		// Names that are not what runs.
		{"cat", []string{"claude"}, "/usr/bin/cat", false, ""},                                  // exec -a claude cat
		{"node", []string{"claude"}, "/usr/bin/node", false, ""},                                // exec -a claude node
		{"claude", []string{"/bin/bash", "/home/u/bin/claude"}, "/usr/bin/bash", false, ""},     // a script named claude
		{"claude", []string{"/bin/sh", "./claude", "--resume"}, "/usr/bin/dash", false, ""},     // run from its directory
		{"claude", []string{"/usr/bin/node", "/home/u/bin/claude"}, "/usr/bin/node", false, ""}, // a node script named claude
		{"claude", []string{"claude", "x"}, "/usr/bin/node", false, ""},                         // titled, but argv not rewritten
		{"claude", []string{"claude"}, "/usr/bin/python3", false, ""},
		// Not Claude Code.
		{"bash", []string{"-bash"}, "/usr/bin/bash", false, ""},
		{"zsh", []string{"zsh"}, "/bin/zsh", false, ""},
		{"vim", []string{"vim", "claude.md"}, "/usr/bin/vim", false, ""},
		{"vim", []string{"vim", native}, "/usr/bin/vim", false, ""},
		{"node", []string{"node", "server.js"}, "/usr/bin/node", false, ""},
		{"node", []string{"node", "server.js", "claude"}, "/usr/bin/node", false, ""},
		{"node", []string{"node"}, "/usr/bin/node", false, ""},
		{"less", []string{"less", "claude.md"}, "/usr/bin/less", false, ""},
		{"grep", []string{"grep", "claude"}, "/usr/bin/grep", false, ""},
		{"grep", []string{"grep", "-r", "@anthropic-ai/claude-code", "."}, "/usr/bin/grep", false, ""},
		{"sleep", []string{"sleep", "600"}, "/usr/bin/sleep", false, ""},
		{"claude-monitor", []string{"claude-monitor"}, "/usr/local/bin/claude-monitor", false, ""},
		{"2.1.329", []string{"./2.1.329"}, "/home/u/build/2.1.329", false, ""}, // no claude directory
		{"python3", []string{"python3", "/home/u/claude/tool.py"}, "/usr/bin/python3", false, ""},
		// Without the executable (another user's process): never, whatever the names say
		// (a fallback by names would pass "exec -a claude cat").
		{"claude", []string{"claude", "--resume"}, "", false, ""},
		{"claude", nil, "", false, ""},
		{"claude.exe", nil, "", false, ""},
		{"init", []string{"/mnt/c/Users/u/AppData/claude.exe"}, "", false, ""},
		{"", []string{"/usr/local/bin/claude", "-c"}, "", false, ""},
		{"2.1.329", []string{"/Users/me/.local/share/claude/versions/2.1.329", "--resume"}, "", false, ""},
		{"", []string{"/usr/local/bin/node", "/usr/local/bin/claude"}, "", false, ""},
		{"nodejs", []string{"nodejs", "-r", "ts-node/register", "/usr/bin/claude"}, "", false, ""},
		{"bun", []string{"bun", "run", "/home/u/.bun/bin/claude"}, "", false, ""},
		{"node", []string{"node", cliJS}, "", false, ""},
		{"1.2", []string{"/opt/claude/1.2"}, "", false, ""}, // not digits.digits.digits
		{"", nil, "", false, ""},
	}
	for _, tt := range tests {
		why, got := explainClaude(tt.comm, tt.argv, tt.exe, resolve)
		if got != tt.want {
			t.Errorf("explainClaude(%q, %q, %q) = %v, want %v (why %q)", tt.comm, tt.argv, tt.exe, got, tt.want, why)
			continue
		}
		if why == "" {
			t.Errorf("explainClaude(%q, %q, %q) gives no reason", tt.comm, tt.argv, tt.exe)
		}
		if !strings.Contains(why, tt.why) {
			t.Errorf("explainClaude(%q, %q, %q) why = %q, want it to contain %q", tt.comm, tt.argv, tt.exe, why, tt.why)
		}
	}
}

func TestHint(t *testing.T) {
	tests := []struct {
		command, title string
		want           bool
	}{
		{"claude", "", true},
		{"claude.exe", "bash", true},
		{"node", "", true},
		{"2.1.329", "", true},
		{"1.0.0-beta", "", true},
		{"bash", "✳ Claude Code", true},
		{"bash", "✳ Fix the login bug", true},
		{"bash", "⠐ Compacting conversation", true},
		{"bash", "\u2800", true},
		{"bash", "\u28ff x", true},
		{"zsh", "my Claude Code session", true},
		{"bash", "", false},
		{"zsh", "user@host: ~/src", false},
		{"vim", "claude.md (~/src) - VIM", false},
		{"nodejs", "", true}, // the runtimes the server-side filter lets through (one list for both)
		{"bun", "", true},
		{"nodejsx", "", false},
		{"2.1", "", false},
		{"bash", "x ✳", false},
		{"bash", "\u2900 arrows", false},
	}
	for _, tt := range tests {
		if got := Hint(tt.command, tt.title); got != tt.want {
			t.Errorf("Hint(%q, %q) = %v, want %v", tt.command, tt.title, got, tt.want)
		}
	}
}

func TestIsVersion(t *testing.T) {
	tests := []struct {
		s    string
		want bool
	}{
		{"2.1.329", true},
		{"10.20.30", true},
		{"1.0.0-beta.1", true},
		{"2.1.329 (deleted)", true},
		{"2.1", false},
		{"2..1", false},
		{"v2.1.3", false},
		{"2.1.", false},
		{"", false},
		{"claude", false},
	}
	for _, tt := range tests {
		if got := isVersion(tt.s); got != tt.want {
			t.Errorf("isVersion(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}

// CommandPattern is Hint's rule for the command, as tmux's filter reads it.
func TestCommandPattern(t *testing.T) {
	re := regexp.MustCompile(CommandPattern())
	for _, c := range []string{"claude", "claude.exe", "node", "nodejs", "bun", "2.1.329", "1.0.0-beta", "bash", "claudex", "2.1", "vim", "node.exe", ""} {
		if got, want := re.MatchString(c), Hint(c, ""); got != want {
			t.Errorf("CommandPattern matches %q: %v, Hint: %v", c, got, want)
		}
	}
}
