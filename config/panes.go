package config

import (
	"fmt"
	"path"
	"strings"
)

// Panes selects the panes the watcher supervises by the name of their tmux session. Patterns
// are path.Match globs matched against the whole name: `*` matches any text without a "/",
// `?` one character, `[a-z]` a class, and `\` quotes the next character ("notes\*").
type Panes struct {
	// Include, when not empty, limits the watcher to the sessions that match one of its
	// patterns; empty: every session.
	Include []string
	// Exclude leaves out the sessions that match one of its patterns, even when included.
	Exclude []string
}

// allows reports whether the panes of the session named session are supervised: not excluded,
// and included (an empty Include includes every session). Exclude wins.
func (p Panes) allows(session string) bool {
	ok, _ := p.Match(session)
	return ok
}

// Match is allows with the reason of a "no": `session "scratch" matches panes.exclude
// "scratch*"`, or `session "x" matches none of panes.include "work*", "notes"`.
func (p Panes) Match(session string) (ok bool, why string) {
	if g := firstMatch(p.Exclude, session); g != "" {
		return false, fmt.Sprintf("session %q matches panes.exclude %q", session, g)
	}
	if len(p.Include) > 0 && firstMatch(p.Include, session) == "" {
		q := make([]string, len(p.Include))
		for i, g := range p.Include {
			q[i] = fmt.Sprintf("%q", g)
		}
		return false, fmt.Sprintf("session %q matches none of panes.include %s", session, strings.Join(q, ", "))
	}
	return true, ""
}

// firstMatch is the first of globs that matches name, "" when none does. A malformed pattern
// (which the rule of the key refuses) matches nothing.
func firstMatch(globs []string, name string) string {
	for _, g := range globs {
		if ok, err := path.Match(g, name); ok && err == nil {
			return g
		}
	}
	return ""
}

// checkGlobs is the rule of include and exclude: every pattern not empty and well formed.
func checkGlobs(globs []string) string {
	for _, g := range globs {
		if g == "" {
			return `must not hold an empty pattern (it matches no session); remove it, or write "*" for every session`
		}
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Sprintf("%s is not a valid pattern: %s", tomlString(g), globFix(g))
		}
	}
	return ""
}

// globFix says what is wrong with a malformed pattern and how to fix it.
func globFix(g string) string {
	switch {
	case strings.HasSuffix(g, `\`) && !strings.HasSuffix(g, `\\`):
		return `it ends with a \ that quotes nothing; remove it, or write \\ for a \`
	case strings.Contains(g, "[]") || strings.Contains(g, "[^]"):
		return `a [] class is empty; put the characters to match between the brackets, or write \[ for a [`
	case strings.LastIndexByte(g, '[') > strings.LastIndexByte(g, ']'):
		return `a [ opens a class that no ] closes; close it, or write \[ for a [`
	}
	return `see the pattern syntax: * any text, ? one character, [a-z] a class, \ quotes the next character`
}

// panesTable is [panes].
var panesTable = table{name: "panes", help: []string{
	"Which panes are supervised, by the name of their tmux session: globs matched against the",
	"whole name (* any text without a /, ? one character, [a-z] a class, \\ quotes the next",
	"character). A pane whose session matches an exclude pattern is left out, even when included."}, keys: []setting{
	newKey(meta{table: "panes", name: "include", want: `an array of patterns like ["work*", "notes"]`,
		help: "only the sessions that match one of these; empty: every session"},
		listKind, func(c *Config) *[]string { return &c.Panes.Include }, checkGlobs),
	newKey(meta{table: "panes", name: "exclude", want: `an array of patterns like ["scratch", "tmp-*"]`,
		help: "the sessions left out, even when included"},
		listKind, func(c *Config) *[]string { return &c.Panes.Exclude }, checkGlobs),
}}
