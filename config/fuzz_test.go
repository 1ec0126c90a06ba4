package config

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds Parse arbitrary files, seeded with good and broken ones. It must never
// panic; a file it accepts must validate (every table), and a file it refuses gets an *Error that names a
// line of the file (or none) and says what is wrong.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"",
		"[watch]\ninterval = \"2s\"\nmargin = \"60s\"\nmessage = \"continue\"\nnative_grace = \"3m\"\nstagger = \"5s\"\nmax_per_reset = 0\nmax_attempts = 3\nlog_level = \"info\"\n",
		"\uFEFF# c\r\n[ watch ] # t\r\nmessage = 'a\\b' # x\r\n",
		"watch.margin = \"1m\"\nwatch.max_per_reset = 0x_1\n",
		"[watch]\nmessage = \"\\u00e9\\U0001F600\\\"\\\\\"\n",
		"[watch]\nmessage = \"\\uD800\\q\n",
		"[watch]\nmargin = [1, 2]\nstagger = { a = 1 }\n",
		"[[watch]]\n[wach]\n[watch.x]\n\"k\" = 1\n",
		"[watch]\nmax_attempts = -99999999999999999999\n",
		"\xff\xfe\x00\x00",
		"[watch]\nmessage = \"\"\"a\"\"\"\n",
		"[policy]\nweekly = \"notify\"\n5-hour = 'never'\nmax_wait = \"12h\"\n",
		"policy = { opus = \"resume\", x = 1 }\n[panes]\ninclude = [\"work*\", \"[a-\"]\n",
		"[panes]\nexclude = [\n\"a\", # c\n]\n[panes.x]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseNamed("f", data)
		if err == nil {
			if verr := c.validate(); verr != nil {
				t.Fatalf("parseNamed(%q) = %+v, nil, but validate() = %v", data, c, verr)
			}
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("parseNamed(%q) = %T %v, want *Error", data, err, err)
		}
		lines := strings.Count(string(data), "\n") + 1
		if e.Msg == "" || e.Path != "f" || e.Line < 0 || e.Line > lines || !strings.Contains(e.Error(), e.Msg) {
			t.Fatalf("parseNamed(%q) = %#v, want a message and a line from 0 to %d", data, e, lines)
		}
	})
}
