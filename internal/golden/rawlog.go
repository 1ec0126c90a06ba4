package golden

import (
	"strings"
	"testing"
)

// RawTerminalLog turns a plain screen into what a terminal log of it looks like: a window
// title (OSC 0, BEL-terminated) first and another (ST-terminated) half-way, the cursor hidden
// and shown, every line erased and started at column 1 (ESC[2K ESC[1G, which change nothing
// visible there), each link text (links[i][0]) wrapped in an OSC 8 hyperlink to links[i][1],
// and CRLF line ends. detector.CleanScreen and `cac-tmux inspect` are tested on such logs.
func RawTerminalLog(t testing.TB, plain string, links [][2]string) string {
	t.Helper()
	for _, l := range links {
		if !strings.Contains(plain, l[0]) {
			t.Fatalf("link text %q is not on the screen", l[0])
		}
		plain = strings.ReplaceAll(plain, l[0], "\x1b]8;;"+l[1]+"\x1b\\"+l[0]+"\x1b]8;;\x1b\\")
	}
	lines := strings.Split(strings.TrimSuffix(plain, "\n"), "\n")
	var b strings.Builder
	b.WriteString("\x1b]0;✳ Claude Code\x07\x1b[?25l")
	for i, line := range lines {
		b.WriteString("\x1b[2K\x1b[1G" + line + "\r\n")
		if i == len(lines)/2 {
			b.WriteString("\x1b]0;✳ Claude Code · resets 12:50am\x1b\\")
		}
	}
	b.WriteString("\x1b[?25h")
	return b.String()
}
