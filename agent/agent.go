// Package agent names the coding agents cac-tmux supervises. A name is the one word every
// surface shows (list, --json, the popup, notifications, the state file) and the key of an
// agent's settings; what differs between agents (their executables, screens, records and
// typing) is given to the engine as values keyed by it.
package agent

import (
	"fmt"
	"slices"
	"strings"
)

// Name names one agent.
type Name string

// The agents cac-tmux knows.
const (
	// Claude is Anthropic's Claude Code.
	Claude Name = "claude"
	// Codex is OpenAI's Codex CLI.
	Codex Name = "codex"
)

// names are the known agents in the order surfaces list them.
var names = []Name{Claude, Codex}

// Names returns every known agent; the slice is the caller's to keep.
func Names() []Name { return slices.Clone(names) }

// Parse reads a name as published (pane options, the state file, the configuration); ""
// is Claude, which every record written before there was a second agent is about.
func Parse(s string) (Name, error) {
	if s == "" {
		return Claude, nil
	}
	if n := Name(s); slices.Contains(names, n) {
		return n, nil
	}
	list := make([]string, len(names))
	for i, n := range names {
		list[i] = string(n)
	}
	return "", fmt.Errorf("agent: parse %q: not an agent (%s)", s, strings.Join(list, ", "))
}

// Title is the agent's name for people.
func (n Name) Title() string {
	switch n {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex"
	}
	return string(n)
}

// Settings are what the configuration says of one agent.
type Settings struct {
	// Off: no pane of the agent is supervised (listed, typed into or told about).
	Off bool
	// Message is typed to resume a session of the agent; "" is the watch's message.
	Message string
}

// For is the agent of that name as the engine sees it; Claude Code for a name it does not
// know (Parse reads every stored name strictly, so that is only the zero Name).
func For(n Name) Agent {
	if n == Codex {
		return CodexCLI()
	}
	return ClaudeCode()
}
