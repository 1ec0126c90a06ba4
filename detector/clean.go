package detector

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// CleanScreen turns a capture with escapes (capture-pane -e, a terminal log) into the plain
// text capture-pane -p prints, which is what Detect reads. Escape strings (OSC titles and OSC 8
// hyperlinks, DCS, APC, PM, SOS) are removed first, whole: ansi.Strip (charmbracelet/x/ansi
// v0.11) ends them at any 0x9C byte, which is also inside UTF-8 text such as the "✳" of Claude
// Code's titles. Then ansi.Strip removes CSI (SGR colours, cursor moves) and the rest; CRLF
// becomes LF.
func CleanScreen(raw string) string {
	if strings.Contains(raw, "\x1b") {
		raw = escapeString.ReplaceAllString(raw, "")
		raw = ansi.Strip(raw)
	}
	return strings.ReplaceAll(raw, "\r\n", "\n")
}

// escapeString is an OSC, DCS, SOS, PM or APC string ended by BEL or ST (ESC \).
var escapeString = regexp.MustCompile(`\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)`)
