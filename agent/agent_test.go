package agent

import "testing"

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Name
		ok   bool
	}{{"", Claude, true}, {"claude", Claude, true}, {"codex", Codex, true}, {"Codex", "", false}, {"gemini", "", false}} {
		got, err := Parse(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("Parse(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
	for _, n := range Names() {
		if got, err := Parse(string(n)); err != nil || got != n {
			t.Errorf("Parse(%q) = %q, %v: every name must read back", n, got, err)
		}
	}
}

func TestTitle(t *testing.T) {
	if Claude.Title() != "Claude Code" || Codex.Title() != "Codex" {
		t.Errorf("titles: %q, %q", Claude.Title(), Codex.Title())
	}
}
