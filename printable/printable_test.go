package printable

import "testing"

func TestLineAndText(t *testing.T) {
	for _, c := range []struct{ in, line, text string }{
		{"plain · ünïcode ⏸", "plain · ünïcode ⏸", "plain · ünïcode ⏸"},
		{"a\x1b]2;pwned\x07b", "a?]2;pwned?b", "a?]2;pwned?b"},
		{"\x1b]52;c;aGk=\x07\x1b[2J", "?]52;c;aGk=??[2J", "?]52;c;aGk=??[2J"},
		{"one\ttwo\nthree\r\n", "one?two?three??", "one\ttwo\nthree\n"},
		{"over\rwritten", "over?written", "over?written"},
		{"c1 \u009b31m, bad \xff\xfe", "c1 ?31m, bad ??", "c1 ?31m, bad ??"},
	} {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Text(c.in); got != c.text {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 panes"}, {1, "1 pane"}, {2, "2 panes"}, {12, "12 panes"}} {
		if got := Count(tc.n, "pane"); got != tc.want {
			t.Errorf("Count(%d, pane) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
