package config

import (
	"strings"
	"testing"
)

// TestCheckInput: a text typed into Claude Code's input box (a resume message, a reply) never
// starts, after spaces, with "!" (a shell command) or "/" (a slash command); a resume message
// never starts with "-" either (claude's command line), while a typed reply may.
func TestCheckInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text       string
		input, msg string // in what CheckInput and CheckMessage say; "" when accepted
	}{
		{"continue", "", ""},
		{"!touch /tmp/x", `start with "!"`, `start with "!"`},
		{"  !ls", `start with "!"`, `start with "!"`},
		{"/login", `start with "/"`, `start with "/"`},
		{"\u3000/model", `start with "/"`, `start with "/"`},
		{"--version", "", `start with "-"`},
		{"  -p", "", `start with "-"`},
		{"- also the tests", "", `start with "-"`},
		{"go on! then /compact -- maybe", "", ""},
	} {
		for _, c := range []struct {
			name string
			rule func(string) string
			want string
		}{{"CheckInput", CheckInput, tc.input}, {"CheckMessage", CheckMessage, tc.msg}} {
			got := c.rule(tc.text)
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("%s(%q) = %q, want %q", c.name, tc.text, got, c.want)
			}
		}
	}
}
