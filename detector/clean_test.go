package detector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/internal/golden"
)

// readText reads a test file.
func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// plainScreen is the shared screen named name (testdata/escapes names the same ones).
func plainScreen(t *testing.T, name string) string {
	t.Helper()
	return readText(t, filepath.Join(golden.Dir(), name+".txt"))
}

// TestCleanScreenCaptures checks that captures taken from a real tmux with `capture-pane -e -p
// -J` (testdata/escapes, see its README.md) come out as the plain screens, line for line.
func TestCleanScreenCaptures(t *testing.T) {
	for _, name := range []string{
		"pos-13-v2.1.112-menu-dialog",
		"pos-16-v2.1.250-session-limit-autocontinue-armed",
		"pos-20-v2.1.329-weekly-date-menu",
		"neg-02-v2.1.112-assistant-quotes-limit-line",
		"neg-05-v2.0.76-exited-shell-prompt",
	} {
		t.Run(name, func(t *testing.T) {
			capture := filepath.Join("testdata", "escapes", name+".ansi")
			raw := readText(t, capture)
			if !strings.Contains(raw, "\x1b[") {
				t.Fatalf("%s has no escape sequences: regenerate it (testdata/escapes/README.md)", capture)
			}
			// The capture is the whole 45-row pane: the screen, then blank rows.
			if diff := firstDiff(strings.TrimRight(CleanScreen(raw), "\n"), strings.TrimRight(plainScreen(t, name), "\n")); diff != "" {
				t.Errorf("CleanScreen(%s) differs from the plain screen: %s", capture, diff)
			}
		})
	}
}

// firstDiff describes the first line where got and want differ, or is "" when they are equal.
func firstDiff(got, want string) string {
	if got == want {
		return ""
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; ; i++ {
		switch {
		case i >= len(g):
			return fmt.Sprintf("line %d missing, want %q", i+1, w[i])
		case i >= len(w):
			return fmt.Sprintf("extra line %d %q", i+1, g[i])
		case g[i] != w[i]:
			return fmt.Sprintf("line %d = %q, want %q", i+1, g[i], w[i])
		}
	}
}

// TestCleanScreenRawTerminal cleans raw terminal logs of plain screens (OSC titles, OSC 8
// hyperlinks around a URL or path, cursor CSIs, CRLF): each must come out as the plain screen.
func TestCleanScreenRawTerminal(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links [][2]string // text on screen, URL it links to
	}{
		{"pos-12-v2.1.48-after-esc-no-hint", [][2]string{
			{"https://docs.anthropic.com/en/do…", "https://docs.anthropic.com/en/docs/claude-code/setup"},
		}},
		{"pos-18-v2.1.329-5hour-armed-fullscreen", [][2]string{
			{"https://code.claude.com/docs/en/permission-modes", "https://code.claude.com/docs/en/permission-modes"},
			{"~/src/tidewater", "file://devbox/home/user/src/tidewater"},
		}},
		{"neg-05-v2.0.76-exited-shell-prompt", [][2]string{
			{"~/proj", "file://devbox/home/user/proj"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain := plainScreen(t, tc.name)
			raw := golden.RawTerminalLog(t, plain, tc.links)
			for _, seq := range []string{"\x1b]0;", "\x1b]8;;", "\x1b[2K", "\r\n"} {
				if !strings.Contains(raw, seq) {
					t.Fatalf("raw log of %s lacks %q", tc.name, seq)
				}
			}
			if diff := firstDiff(CleanScreen(raw), plain); diff != "" {
				t.Errorf("CleanScreen(raw log of %s) differs from the plain screen: %s", tc.name, diff)
			}
		})
	}
}
