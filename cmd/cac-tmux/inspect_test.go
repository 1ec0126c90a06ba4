package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/golden"
)

// inspect runs `cac-tmux inspect ARGS` in process with stdin in and returns the exit code,
// stdout and stderr.
func inspect(in string, inTTY bool, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(append([]string{"inspect"}, args...), stdio{in: strings.NewReader(in), out: &out, err: &errOut, inTTY: inTTY})
	return code, out.String(), errOut.String()
}

func goldenCases(t *testing.T) []golden.Case {
	t.Helper()
	cases, err := golden.Read(golden.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// goldenCase is the shared screen whose file name starts with prefix (e.g. "pos-20-").
func goldenCase(t *testing.T, prefix string) golden.Case {
	t.Helper()
	for _, c := range goldenCases(t) {
		if strings.HasPrefix(c.File, prefix) {
			return c
		}
	}
	t.Fatalf("no shared screen named %s*", prefix)
	return golden.Case{}
}

// goldenArgs are the flags that make inspect see c as the golden test sees it.
func goldenArgs(c golden.Case) []string {
	return []string{"--json", "--now", c.Now.Format(time.RFC3339), "--tz", golden.HostZone}
}

func wantCode(limited bool) int {
	if limited {
		return 0
	}
	return 1
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInspectGolden runs every shared screen through `inspect --json` with the capture
// instant and host zone of its EXPECT.tsv row: the exit code and `limited` must match the row,
// and `reset` must be the row's exact instant when it is known, else null.
func TestInspectGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.File, func(t *testing.T) {
			args := append(goldenArgs(c), c.Path)
			code, out, errOut := inspect("", true, args...)
			if want := wantCode(c.Limited); code != want {
				t.Errorf("inspect(%v) exit = %d, want %d (stderr: %q)", args, code, want, errOut)
			}
			if errOut != "" {
				t.Errorf("inspect(%v) stderr = %q, want empty", args, errOut)
			}
			var fields map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &fields); err != nil {
				t.Fatalf("inspect(%v) stdout is not one JSON object: %v\n%s", args, err, out)
			}
			for _, k := range []string{"limited", "reset"} {
				if _, ok := fields[k]; !ok {
					t.Fatalf("inspect(%v) JSON has no %q field:\n%s", args, k, out)
				}
			}
			var got struct {
				Limited bool    `json:"limited"`
				Reset   *string `json:"reset"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("inspect(%v) JSON: %v\n%s", args, err, out)
			}
			if got.Limited != c.Limited {
				t.Errorf("inspect(%v) limited = %v, want %v", args, got.Limited, c.Limited)
			}
			switch {
			case c.Limited && c.Known:
				if got.Reset == nil {
					t.Fatalf("inspect(%v) reset = null, want %s", args, c.Reset.Format(time.RFC3339))
				}
				at, err := time.Parse(time.RFC3339, *got.Reset)
				if err != nil {
					t.Fatalf("inspect(%v) reset = %q, not RFC3339: %v", args, *got.Reset, err)
				}
				if !at.Equal(c.Reset) {
					t.Errorf("inspect(%v) reset = %s, want %s", args, *got.Reset, c.Reset.Format(time.RFC3339))
				}
			case got.Reset != nil:
				t.Errorf("inspect(%v) reset = %q, want null (limited %v, reset %q)", args, *got.Reset, c.Limited, c.Note)
			}
		})
	}
}

// TestInspectEscapes checks that captures taken from a real tmux with `capture-pane -e -p -J`
// (detector/testdata/escapes, see its README.md; detector.CleanScreen's tests check the text)
// give exactly the verdict of the plain screens: every JSON field, the human explanation and
// the exit code.
func TestInspectEscapes(t *testing.T) {
	tests := []struct {
		fixture string
		limited bool
	}{
		{"pos-13-v2.1.112-menu-dialog", true},
		{"pos-16-v2.1.250-session-limit-autocontinue-armed", true},
		{"pos-20-v2.1.329-weekly-date-menu", true},
		{"neg-02-v2.1.112-assistant-quotes-limit-line", false},
		{"neg-05-v2.0.76-exited-shell-prompt", false},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			c := goldenCase(t, tt.fixture)
			ansi := filepath.Join("..", "..", "detector", "testdata", "escapes", tt.fixture+".ansi")
			if raw := readFile(t, ansi); !strings.Contains(raw, "\x1b[") {
				t.Fatalf("%s has no escape sequences: regenerate it (its README.md)", ansi)
			}
			for _, asJSON := range []bool{true, false} {
				args := []string{"--now", c.Now.Format(time.RFC3339), "--tz", golden.HostZone}
				if asJSON {
					args = append(args, "--json")
				}
				plainCode, want, _ := inspect("", true, append(args, c.Path)...)
				if w := wantCode(tt.limited); plainCode != w {
					t.Fatalf("inspect(%v) on the plain screen exit = %d, want %d", append(args, c.Path), plainCode, w)
				}
				code, got, errOut := inspect("", true, append(args, ansi)...)
				if code != plainCode {
					t.Errorf("inspect(%v) exit = %d, want %d (stderr: %q)", append(args, ansi), code, plainCode, errOut)
				}
				if got != want {
					t.Errorf("inspect(%v) =\n%s\nwant (as for %s)\n%s", append(args, ansi), got, c.File, want)
				}
			}
		})
	}
}

// TestInspectRawTerminal feeds raw terminal logs of plain screens (OSC titles, OSC 8
// hyperlinks around a URL or path, cursor CSIs, CRLF) on stdin: the verdict must be exactly
// that of the plain screen. (detector.CleanScreen's tests clean the same logs.)
func TestInspectRawTerminal(t *testing.T) {
	tests := []struct {
		fixture string
		limited bool
		links   [][2]string // text on screen, URL it links to
	}{
		{"pos-12-v2.1.48-after-esc-no-hint", true, [][2]string{
			{"https://docs.anthropic.com/en/do…", "https://docs.anthropic.com/en/docs/claude-code/setup"},
		}},
		{"pos-18-v2.1.329-5hour-armed-fullscreen", true, [][2]string{
			{"https://code.claude.com/docs/en/permission-modes", "https://code.claude.com/docs/en/permission-modes"},
			{"~/src/tidewater", "file://devbox/home/user/src/tidewater"},
		}},
		{"neg-05-v2.0.76-exited-shell-prompt", false, [][2]string{
			{"~/proj", "file://devbox/home/user/proj"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			c := goldenCase(t, tt.fixture)
			plain := readFile(t, c.Path)
			raw := golden.RawTerminalLog(t, plain, tt.links)
			for _, seq := range []string{"\x1b]0;", "\x1b]8;;", "\x1b[2K", "\r\n"} {
				if !strings.Contains(raw, seq) {
					t.Fatalf("raw log of %s lacks %q", c.File, seq)
				}
			}
			args := goldenArgs(c)
			plainCode, want, _ := inspect("", true, append(args, c.Path)...)
			if w := wantCode(tt.limited); plainCode != w {
				t.Fatalf("inspect(%v) on the plain screen exit = %d, want %d", append(args, c.Path), plainCode, w)
			}
			code, got, errOut := inspect(raw, false, append(args, "-")...)
			if code != plainCode {
				t.Errorf("inspect(%v) on the raw log exit = %d, want %d (stderr: %q)", append(args, "-"), code, plainCode, errOut)
			}
			if got != want {
				t.Errorf("inspect(%v) on the raw log =\n%s\nwant (as for %s)\n%s", append(args, "-"), got, c.File, want)
			}
		})
	}
}

// TestInspectUsageErrors checks the command-line errors: exit 2, nothing on stdout, and a
// message on stderr that names the problem.
func TestInspectUsageErrors(t *testing.T) {
	screen := goldenCase(t, "pos-13-").Path
	missing := filepath.Join(t.TempDir(), "no-such-screen.txt")
	tests := []struct {
		name  string
		args  []string
		inTTY bool
		want  []string // substrings of stderr
	}{
		{"missing file", []string{missing}, true, []string{missing, "no such file"}},
		{"two files", []string{screen, screen}, true, []string{"one FILE at most", "got 2"}},
		{"bad --now", []string{"--now", "2026-11-20 23:00", screen}, true, []string{"--now", "RFC3339", `"2026-11-20 23:00"`}},
		{"--now without zone", []string{"--now", "2026-11-20T23:00:00", screen}, true, []string{"--now", "RFC3339"}},
		{"bad --tz", []string{"--tz", "Mars/Olympus", screen}, true, []string{"--tz", `"Mars/Olympus"`, "IANA"}},
		{"bad --agent", []string{"--agent", "gemini", screen}, true, []string{"--agent", "claude or codex", `"gemini"`}},
		{"unknown flag", []string{"--bogus", screen}, true, []string{"unknown flag", "--bogus"}},
		{"no FILE on a terminal", nil, true, []string{"no input", "FILE"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := inspect("", tt.inTTY, tt.args...)
			if code != 2 {
				t.Errorf("inspect(%v) exit = %d, want 2", tt.args, code)
			}
			if out != "" {
				t.Errorf("inspect(%v) stdout = %q, want empty", tt.args, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("inspect(%v) stderr = %q, want it to contain %q", tt.args, errOut, w)
				}
			}
		})
	}
}

// TestInspectCodex: a Codex screen (captured with its escapes) is read as Codex's with
// --agent codex: its stop, its reset in the daemon's zone (--tz) and Esc as its menu's key.
func TestInspectCodex(t *testing.T) {
	screen := filepath.Join("..", "..", "detector", "testdata", "codex-screens", "codex-stop-menu-first-80.txt")
	code, out, errOut := inspect("", true, "--agent", "codex", "--tz", "America/New_York", "--now", "2026-11-28T13:03:10Z", screen)
	if code != 0 || !strings.Contains(out, "limited:   yes") || !strings.Contains(out, "10:10 EST (America/New_York)") || !strings.Contains(out, "Esc closes it") {
		t.Errorf("inspect --agent codex: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := inspect("", true, "--tz", "America/New_York", screen); code != 1 {
		t.Errorf("the same screen read as Claude Code's: exit %d, want 1 (not limited)\n%s", code, out)
	}
}

// TestInspectHelp: --help succeeds and describes the flags.
func TestInspectHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}} {
		code, out, errOut := inspect("", true, args...)
		if code != 0 {
			t.Errorf("inspect(%v) exit = %d, want 0", args, code)
		}
		help := out + errOut
		for _, w := range []string{"Usage: cac-tmux inspect", "--now", "--tz", "--json"} {
			if !strings.Contains(help, w) {
				t.Errorf("inspect(%v) help = %q, want it to contain %q", args, help, w)
			}
		}
	}
}

// TestInspectStdin: with no FILE and stdin not a terminal, and with "-", inspect reads the
// screen from stdin and decides as it does for the file.
func TestInspectStdin(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		file    []string // nothing or "-"
		inTTY   bool
		code    int
	}{
		{"no FILE, piped, limited", "pos-13-", nil, false, 0},
		{"no FILE, piped, not limited", "neg-02-", nil, false, 1},
		{"dash, piped, limited", "pos-20-", []string{"-"}, false, 0},
		{"dash, piped, not limited", "neg-05-", []string{"-"}, false, 1},
		{"dash, terminal", "pos-16-", []string{"-"}, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := goldenCase(t, tt.fixture)
			args := append(goldenArgs(c), tt.file...)
			code, got, errOut := inspect(readFile(t, c.Path), tt.inTTY, args...)
			if code != tt.code {
				t.Errorf("inspect(%v) exit = %d, want %d (stderr: %q)", args, code, tt.code, errOut)
			}
			_, want, _ := inspect("", true, append(goldenArgs(c), c.Path)...)
			if got != want {
				t.Errorf("inspect(%v) with %s on stdin =\n%s\nwant (as for the file)\n%s", args, c.File, got, want)
			}
		})
	}
}

// field is the text after "name:" on the first line of a human explanation that starts so.
func field(out, name string) (string, bool) {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// TestInspectHuman checks the explanation printed without --json for limited screens: the
// decision, the matched message, the kind and the reset in the zone the message printed (or
// the --tz zone when it prints none).
func TestInspectHuman(t *testing.T) {
	tests := []struct {
		fixture string
		message string
		kind    string
		reset   string
	}{
		{"pos-20-", "You've hit your weekly limit · resets Nov 23, 11pm (Europe/Berlin)", "weekly", "Mon 2026-11-23 23:00 CET (Europe/Berlin)"},
		{"pos-29-", "5-hour limit reached · resets 2pm (Pacific/Auckland) · /upgrade to Max 20x or turn on /extra-usage", "5-hour", "Sat 2026-11-21 14:00 NZDT (Pacific/Auckland)"},
		{"pos-05-", "Session limit reached ∙ resets 12:50am", "session", "Sat 2026-11-21 00:50 CET (Europe/Berlin)"},
		{"pos-31-", "Limit reached – contact an admin to keep working", "team", "unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			c := goldenCase(t, tt.fixture)
			args := []string{"--now", c.Now.Format(time.RFC3339), "--tz", golden.HostZone, c.Path}
			code, out, errOut := inspect("", true, args...)
			if code != 0 {
				t.Errorf("inspect(%v) exit = %d, want 0 (stderr: %q)", args, code, errOut)
			}
			for _, f := range []struct{ name, want string }{
				{"limited", "yes"},
				{"message", tt.message},
				{"kind", tt.kind},
				{"reset", tt.reset},
			} {
				got, ok := field(out, f.name)
				if !ok {
					t.Errorf("inspect(%v) prints no %q line:\n%s", args, f.name, out)
					continue
				}
				if !strings.HasPrefix(got, f.want) {
					t.Errorf("inspect(%v) %s = %q, want %q", args, f.name, got, f.want)
				}
			}
		})
	}
}
