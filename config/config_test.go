package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// with returns Default().Watch changed by f.
func with(f func(w *Watch)) Watch {
	w := Default().Watch
	f(&w)
	return w
}

func TestDefault(t *testing.T) {
	want := Watch{
		Interval:    time.Second,
		Margin:      60 * time.Second,
		ExactMargin: 5 * time.Second,
		Message:     "continue",
		NativeGrace: 3 * time.Minute,
		Stagger:     5 * time.Second,
		MaxPerReset: 0,
		MaxAttempts: 3,
		LogLevel:    "info",
	}
	if got := Default().Watch; got != want {
		t.Errorf("Default().Watch = %+v, want %+v", got, want)
	}
	if err := Default().Watch.validate(); err != nil {
		t.Errorf("Default().Watch.validate() = %v, want nil", err)
	}
}

func TestKeys(t *testing.T) {
	want := []string{"watch.interval", "watch.margin", "watch.exact_margin", "watch.message", "watch.native_grace",
		"watch.stagger", "watch.max_per_reset", "watch.max_attempts", "watch.log_level",
		"policy.session", "policy.5-hour", "policy.weekly", "policy.opus", "policy.sonnet", "policy.model", "policy.usage",
		"policy.extra-usage", "policy.usage-credits", "policy.spending-cap", "policy.team", "policy.legacy",
		"policy.unknown", "policy.claude", "policy.codex", "policy.max_wait", "policy.untouched_after",
		"panes.include", "panes.exclude", "claude.enabled", "claude.message", "codex.enabled", "codex.message"}
	want = append(want, "notify.command", "notify.command_events", "notify.url", "notify.url_events", "notify.token_file",
		"notify.token_env", "notify.desktop", "notify.desktop_events", "notify.timeout", "notify.min_gap", "notify.max_per_hour",
		"servers.all", "servers.sockets", "hosts.names", "hosts.command", "hosts.timeout", "hosts.ssh",
		"phone.listen", "phone.public", "phone.url", "phone.link_ttl", "phone.screen", "phone.prompts", "phone.prompt_max",
		"accounts.dirs", "accounts.max_per_day", "accounts.auto")
	got := Keys()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Keys() = %q, want %q", got, want)
	}
	got[0] = "changed"
	if Keys()[0] != want[0] {
		t.Errorf("Keys() shares its slice with callers")
	}
	levels := acceptedLogLevels()
	if want := []string{"debug", "info", "warn", "error"}; !reflect.DeepEqual(levels, want) {
		t.Errorf("acceptedLogLevels() = %q, want %q", levels, want)
	}
	levels[0] = "trace"
	if err := with(func(w *Watch) { w.LogLevel = "trace" }).validate(); err == nil {
		t.Errorf("acceptedLogLevels() shares its slice with validate")
	}
}

func TestParse(t *testing.T) {
	full := `# cac-tmux
[watch]
interval = "500ms"
margin = "90s"
exact_margin = "2s"
message = "go on"
native_grace = "0s"
stagger = "1m30s"
max_per_reset = 4
max_attempts = 100
log_level = "debug"
`
	fullWant := Watch{
		Interval:    500 * time.Millisecond,
		Margin:      90 * time.Second,
		ExactMargin: 2 * time.Second,
		Message:     "go on",
		NativeGrace: 0,
		Stagger:     90 * time.Second,
		MaxPerReset: 4,
		MaxAttempts: 100,
		LogLevel:    "debug",
	}
	for _, tc := range []struct {
		data string
		want Watch
	}{
		{"", Default().Watch},
		{"\n\n   \n\t\n", Default().Watch},
		{"# only a comment\n[watch]\n# nothing set\n", Default().Watch},
		{full, fullWant},
		{strings.ReplaceAll(full, "\n", "\r\n"), fullWant}, // CRLF
		{"\uFEFF" + full, fullWant},                        // UTF-8 byte order mark
		{strings.TrimSuffix(full, "\n"), fullWant},         // no final newline
		{"[watch]\ninterval = \"3s\"", with(func(w *Watch) { w.Interval = 3 * time.Second })},
		{"[watch]\nmargin = \"0\"", with(func(w *Watch) { w.Margin = 0 })},
		{"[watch]\nmargin = \"1h2m3.5s\"", with(func(w *Watch) { w.Margin = time.Hour + 2*time.Minute + 3500*time.Millisecond })},
		{"[watch]\nnative_grace = \"10m\"", with(func(w *Watch) { w.NativeGrace = 10 * time.Minute })},
		{"[watch]\nstagger = \"0s\"", with(func(w *Watch) { w.Stagger = 0 })},
		{"[watch]\nmax_per_reset = 2", with(func(w *Watch) { w.MaxPerReset = 2 })},
		{"[watch]\nmax_per_reset = +1_000", with(func(w *Watch) { w.MaxPerReset = 1000 })},
		{"[watch]\nmax_per_reset = 0x1F", with(func(w *Watch) { w.MaxPerReset = 31 })},
		{"[watch]\nmax_per_reset = 0o17", with(func(w *Watch) { w.MaxPerReset = 15 })},
		{"[watch]\nmax_per_reset = 0b101", with(func(w *Watch) { w.MaxPerReset = 5 })},
		{"[watch]\nmax_per_reset = -0", with(func(w *Watch) { w.MaxPerReset = 0 })},
		{"[watch]\nmax_attempts = 1", with(func(w *Watch) { w.MaxAttempts = 1 })},
		{"[watch]\nlog_level = \"warn\"", with(func(w *Watch) { w.LogLevel = "warn" })},
		{"[watch]\nlog_level = 'error'", with(func(w *Watch) { w.LogLevel = "error" })},
		// comments and blanks
		{"  # indented comment\n[watch] # the table\n\tmargin = \"2m\" # trailing # comment\n",
			with(func(w *Watch) { w.Margin = 2 * time.Minute })},
		{"[watch]\nmessage = \"go # on\" # a # in a string is not a comment",
			with(func(w *Watch) { w.Message = "go # on" })},
		{"[ watch ]\nmargin=\"2m\"\nmessage\t=\t'x'\t", with(func(w *Watch) { w.Margin, w.Message = 2*time.Minute, "x" })},
		// escapes in basic strings
		{`[watch]` + "\n" + `message = "say \"go\" \\ caf\u00e9 \U0001F600"`,
			with(func(w *Watch) { w.Message = `say "go" \ café 😀` })},
		{`[watch]` + "\n" + `log_level = "\u0069nfo"`, with(func(w *Watch) { w.LogLevel = "info" })},
		// literal strings: no escapes
		{`[watch]` + "\n" + `message = 'C:\path "quoted" \n'`,
			with(func(w *Watch) { w.Message = `C:\path "quoted" \n` })},
		// dotted keys at the top level
		{"watch.margin = \"2m\"\nwatch . stagger = \"1s\"\n", with(func(w *Watch) { w.Margin, w.Stagger = 2*time.Minute, time.Second })},
		// non-ASCII text in comments
		{"# café ⏸\n[watch] # ☕\n", Default().Watch},
		// TOML the old hand-written subset refused: quoted keys, multi-line strings
		{"[\"watch\"]\n\"margin\" = \"2m\"", with(func(w *Watch) { w.Margin = 2 * time.Minute })},
		{"[watch]\nmessage = \"\"\"go\"\"\"", with(func(w *Watch) { w.Message = "go" })},
		{"[watch]\nmessage = '''go'''", with(func(w *Watch) { w.Message = "go" })},
	} {
		got, err := parseNamed("cfg.toml", []byte(tc.data))
		if err != nil || got.Watch != tc.want {
			t.Errorf("parseNamed(%q) = %+v, %v, want %+v, nil", tc.data, got.Watch, err, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		data string
		want string
	}{
		// wrong values
		{"[watch]\n\n\nmargin = \"soon\"\n", `watch.margin: must be a duration like "90s" (cfg.toml line 4, got "soon")`},
		{"[watch]\nmargin = 60", `watch.margin: must be a duration like "90s" (cfg.toml line 2, got 60)`},
		{"[watch]\nmargin = 60s", `watch.margin: must be a duration like "90s"; strings must be quoted (cfg.toml line 2, got 60s)`},
		{"[watch]\ninterval = true", `watch.interval: must be a duration like "90s" (cfg.toml line 2, got true)`},
		{"[watch]\nstagger = 1.5", `watch.stagger: must be a duration like "90s" (cfg.toml line 2, got 1.5)`},
		{"[watch]\nnative_grace = ''", `watch.native_grace: must be a duration like "90s" (cfg.toml line 2, got '')`},
		{"[watch]\nmax_attempts = \"3\"", `watch.max_attempts: must be an integer like 3, without quotes (cfg.toml line 2, got "3")`},
		{"[watch]\nmax_attempts = \"three\"", `watch.max_attempts: must be an integer like 3 (cfg.toml line 2, got "three")`},
		{"[watch]\nmax_attempts = 3.0", `watch.max_attempts: must be an integer like 3 (cfg.toml line 2, got 3.0)`},
		{"[watch]\nmax_attempts = 03", `watch.max_attempts: must be an integer like 3; integers cannot have leading zeroes (cfg.toml line 2, got 03)`},
		{"[watch]\nmax_attempts = 1__0", `watch.max_attempts: must be an integer like 3; number must have at least one digit between underscores (cfg.toml line 2, got 1__0)`},
		{"[watch]\nmax_per_reset = 0x", `watch.max_per_reset: must be an integer like 2; radix prefix must be followed by at least one digit (cfg.toml line 2, got 0x)`},
		{"[watch]\nmax_per_reset = 0b12", `watch.max_per_reset: must be an integer like 2; expected newline but got U+0032 '2' (cfg.toml line 2, got 0b12)`},
		{"[watch]\nmessage = continue", `watch.message: must be a string like "continue"; unexpected character U+0063 'c' at start of value (cfg.toml line 2, got continue)`},
		{"[watch]\nlog_level = info", `watch.log_level: must be one of "debug", "info", "warn", "error"; expected newline but got U+006F 'o' (cfg.toml line 2, got info)`},
		{"[watch]\nmargin =", `watch.margin: must be a duration like "90s"; expected value, not end of input (cfg.toml line 2)`},
		{"[watch]\nmargin = # later", `watch.margin: must be a duration like "90s"; unexpected character U+0023 '#' at start of value (cfg.toml line 2, got # later)`},
		// validation, with the value as written
		{"[watch]\ninterval = \"50ms\"", `watch.interval: must be at least 100ms (cfg.toml line 2, got "50ms")`},
		{"[watch]\ninterval = \"0\"", `watch.interval: must be at least 100ms (cfg.toml line 2, got "0")`},
		{"[watch]\nmargin = \"-1s\"", `watch.margin: must not be negative (cfg.toml line 2, got "-1s")`},
		{"[watch]\nnative_grace = '-3m'", `watch.native_grace: must not be negative (cfg.toml line 2, got '-3m')`},
		{"[watch]\nstagger = \"-5s\"", `watch.stagger: must not be negative (cfg.toml line 2, got "-5s")`},
		{"[watch]\nmax_per_reset = -1", `watch.max_per_reset: must not be negative; 0 means no cap (cfg.toml line 2, got -1)`},
		{"[watch]\nmax_per_reset = 99999999999999999999", `watch.max_per_reset: is too large (cfg.toml line 2, got 99999999999999999999)`},
		{"[watch]\nmax_per_reset = -99999999999999999999", `watch.max_per_reset: must not be negative; 0 means no cap (cfg.toml line 2, got -99999999999999999999)`},
		{"[watch]\nmax_attempts = 0", `watch.max_attempts: must be from 1 to 100 (cfg.toml line 2, got 0)`},
		{"[watch]\nmax_attempts = 101", `watch.max_attempts: must be from 1 to 100 (cfg.toml line 2, got 101)`},
		{"[watch]\nmax_attempts = 99999999999999999999", `watch.max_attempts: must be from 1 to 100 (cfg.toml line 2, got 99999999999999999999)`},
		{"[watch]\nmessage = \"  \"", `watch.message: must not be blank; it is the text typed to resume, like "continue" (cfg.toml line 2, got "  ")`},
		{"[watch]\nmessage = ''", `watch.message: must not be blank; it is the text typed to resume, like "continue" (cfg.toml line 2, got '')`},
		{`[watch]` + "\n" + `message = "go\non"`, `watch.message: must be one line (cfg.toml line 2, got "go\non")`},
		{`[watch]` + "\n" + `message = "go\ton"`, `watch.message: must not contain control characters (cfg.toml line 2, got "go\ton")`},
		{`[watch]` + "\n" + `message = "go\u007f"`, `watch.message: must not contain control characters (cfg.toml line 2, got "go\u007f")`},
		{`[watch]` + "\n" + `message = "\u009b2J"`, `watch.message: must not contain control characters (cfg.toml line 2, got "\u009b2J")`},
		{"[watch]\nlog_level = \"verbose\"", `watch.log_level: must be one of debug, info, warn, error (cfg.toml line 2, got "verbose")`},
		{"[watch]\nlog_level = \"INFO\"", `watch.log_level: must be one of debug, info, warn, error (cfg.toml line 2, got "INFO")`},
		// tables
		{"# c\n[wach]\n", `unknown table [wach] (did you mean [watch]?); the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 2)`},
		{"[watch.sub]", `unknown table [watch.sub]; the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 1)`},
		{"[watch]\nmargin = \"2m\"\n[watch]\n", `watch must be one table: write [watch] once, with every setting under it (cfg.toml line 3)`},
		{"[[watch]]", `watch must be one table: write [watch] once, with every setting under it (cfg.toml line 1)`},
		{"[]", `invalid character at start of key: U+005D ']' (cfg.toml line 1)`},
		{"[watch", `expected ']' to close table name (cfg.toml line 1)`},
		{"[watch] x", `expected newline but got U+0078 'x' (cfg.toml line 1)`},
		{"watch.margin = \"2m\"\n[watch]\n", `watch must be one table: write [watch] once, with every setting under it (cfg.toml line 2)`},
		// keys
		{"[watch]\nmarign = \"2m\"", `watch.marign: unknown key (did you mean margin?); the known keys of [watch] are interval, margin, exact_margin, message, native_grace, stagger, max_per_reset, max_attempts, log_level (cfg.toml line 2)`},
		{"[watch]\nmax-attempts = 3", `watch.max-attempts: unknown key (did you mean max_attempts?); the known keys of [watch] are interval, margin, exact_margin, message, native_grace, stagger, max_per_reset, max_attempts, log_level (cfg.toml line 2)`},
		{"[watch]\ncolour = \"red\"", `watch.colour: unknown key; the known keys of [watch] are interval, margin, exact_margin, message, native_grace, stagger, max_per_reset, max_attempts, log_level (cfg.toml line 2)`},
		{"[watch]\nwatch.margin = \"2m\"", `watch.watch.margin: unknown key; the known keys of [watch] are interval, margin, exact_margin, message, native_grace, stagger, max_per_reset, max_attempts, log_level (cfg.toml line 2)`},
		{"watch.colour = 1", `watch.colour: unknown key; the known keys of [watch] are interval, margin, exact_margin, message, native_grace, stagger, max_per_reset, max_attempts, log_level (cfg.toml line 1)`},
		{"margin = \"2m\"\n[watch]", `margin: is outside any table; put it under [watch] or write watch.margin (cfg.toml line 1)`},
		{"colour = 1", `colour: unknown key outside any table; settings go under [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 1)`},
		{"wach.margin = \"2m\"", `unknown table wach in the key wach.margin (did you mean watch?); the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 1)`},
		{"[watch]\nmargin = \"2m\"\nmargin = \"3m\"", `watch.margin: duplicate key; keep one (cfg.toml line 3)`},
		{"watch.margin = \"2m\"\nwatch.margin = \"3m\"", `watch.margin: duplicate key; keep one (cfg.toml line 2)`},
		{"[watch]\nmargin \"2m\"", `expected '=' after key (cfg.toml line 2)`},
		{"[watch]\n= \"2m\"", `invalid character at start of key: U+003D '=' (cfg.toml line 2)`},
		{"[watch]\nwatch. = 1", `invalid character at start of key: U+003D '=' (cfg.toml line 2)`},
		{"[watch]\nmärgin = 1", `expected '=' after key (cfg.toml line 2)`},
		// strings
		{"[watch]\nmessage = \"go on", `watch.message: must be a string like "continue"; unterminated basic string (cfg.toml line 2, got "go on)`},
		{"[watch]\nmessage = \"go on\\\"  ", `watch.message: must be a string like "continue"; unterminated basic string (cfg.toml line 2, got "go on\")`},
		{"[watch]\nmessage = \"go on\\", `watch.message: must be a string like "continue"; need a character after \ (cfg.toml line 2, got "go on\)`},
		{"[watch]\nmessage = 'go on", `watch.message: must be a string like "continue"; unterminated literal string (cfg.toml line 2, got 'go on)`},
		{`[watch]` + "\n" + `message = "go\q"`, `watch.message: must be a string like "continue"; invalid escape character U+0071 'q' (cfg.toml line 2, got "go\q")`},
		{`[watch]` + "\n" + `message = "go\é"`, `watch.message: must be a string like "continue"; invalid escape character U+00C3 'Ã' (cfg.toml line 2, got "go\é")`},
		{`[watch]` + "\n" + `message = "go\u12g4"`, `watch.message: must be a string like "continue"; invalid hexadecimal digit in unicode escape sequence (cfg.toml line 2, got "go\u12g4")`},
		{`[watch]` + "\n" + `message = "go\u12"`, `watch.message: must be a string like "continue"; unicode escape sequence is too short (cfg.toml line 2, got "go\u12")`},
		{`[watch]` + "\n" + `message = "\uD800"`, `watch.message: must be a string like "continue"; escape sequence is not a valid unicode code point (cfg.toml line 2, got "\uD800")`},
		{`[watch]` + "\n" + `message = "\U00110000"`, `watch.message: must be a string like "continue"; escape sequence is not a valid unicode code point (cfg.toml line 2, got "\U00110000")`},
		// arrays, inline tables, trailing text
		{"[watch]\nmessage = [\"a\", \"b\"]", `watch.message: must be a string like "continue" (cfg.toml line 2, got ["a", "b"])`},
		{"[watch]\nmargin = { s = 1 }", `watch.margin: must be a duration like "90s" (cfg.toml line 2, got { s = 1 })`},
		{"[watch]\nmargin = \"2m\" \"3m\"", `watch.margin: must be a duration like "90s"; expected newline but got U+0022 '"' (cfg.toml line 2, got "2m" "3m")`},
		{"[watch]\nmax_attempts = 3 4 # x", `watch.max_attempts: must be an integer like 3; expected newline but got U+0034 '4' (cfg.toml line 2, got 3 4 # x)`},
		{"[watch]\nmessage = 'a'b", `watch.message: must be a string like "continue"; expected newline but got U+0062 'b' (cfg.toml line 2, got 'a'b)`},
		// bytes
		{"[watch]\n# caf\xe9\n", `invalid UTF-8 character in comment (cfg.toml line 2)`},
		{"\xff\xfe[\x00w\x00", `the file is UTF-16 text; save it as UTF-8 (cfg.toml line 1)`},
		{"[watch]\nmargin = \"2m\"\x00", `watch.margin: must be a duration like "90s"; expected newline but got U+0000 (cfg.toml line 2, got "2m"\x00)`},
		{"[watch]\rmargin = \"2m\"", `expected newline but got U+000D (cfg.toml line 1)`},
		{"[watch]\nmessage = \"a\x1bb\"", `watch.message: must be a string like "continue"; basic strings cannot have control characters (cfg.toml line 2, got "a\x1bb")`},
		{"# \x7f\n", `control characters are not allowed in comments (cfg.toml line 1)`},
		{"\uFEFF\uFEFF[watch]", `invalid character at start of key: U+00EF 'ï' (cfg.toml line 1)`},
		// an integer is not a duration, even 0; the document must be a table of tables
		{"[watch]\nmargin = 0", `watch.margin: must be a duration like "90s" (cfg.toml line 2, got 0)`},
		{"watch = 1", `watch must be one table: write [watch] once, with every setting under it (cfg.toml line 1)`},
		{"[watch]\nmargin = \"1m\"\n[other]\nx = 1", `unknown table [other]; the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 3)`},
		{"[watch.sub]\nx = 1", `unknown table [watch.sub]; the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 1)`},
		{"[watch]\nmargin = \"" + strings.Repeat("x", 100) + "\"", `watch.margin: must be a duration like "90s" (cfg.toml line 2, got "` + strings.Repeat("x", 56) + `...)`},
		// a long offending text is cut
		{"[watch]\nmessage = " + strings.Repeat("x", 100), `watch.message: must be a string like "continue"; unexpected character U+0078 'x' at start of value (cfg.toml line 2, got ` + strings.Repeat("x", 57) + `...)`},
	} {
		_, err := parseNamed("cfg.toml", []byte(tc.data))
		var got string
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("parseNamed(%q) = %v\nwant %v", tc.data, got, tc.want)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Errorf("parseNamed(%q) = %T, want *Error", tc.data, err)
		}
	}
}

func TestParseErrorFields(t *testing.T) {
	_, err := parseNamed("", []byte("[watch]\n\n\nmargin = \"soon\" # when?\r\n"))
	want := &Error{Line: 4, Key: "watch.margin", Msg: `must be a duration like "90s"`, Got: `"soon"`}
	var got *Error
	if !errors.As(err, &got) || !reflect.DeepEqual(got, want) {
		t.Fatalf("parseNamed(...) = %#v, want %#v", err, want)
	}
	if s, w := got.Error(), `watch.margin: must be a duration like "90s" (line 4, got "soon")`; s != w {
		t.Errorf("Error() = %s, want %s", s, w)
	}
}

func TestErrorString(t *testing.T) {
	cause := syscall.EACCES
	for _, tc := range []struct {
		err  Error
		want string
	}{
		{Error{Path: "/home/u/.config/cac-tmux/config.toml", Line: 4, Key: "watch.margin", Msg: `must be a duration like "90s"`, Got: `"soon"`},
			`watch.margin: must be a duration like "90s" (/home/u/.config/cac-tmux/config.toml line 4, got "soon")`},
		{Error{Line: 4, Key: "watch.margin", Msg: `must be a duration like "90s"`, Got: `"soon"`},
			`watch.margin: must be a duration like "90s" (line 4, got "soon")`},
		{Error{Path: "FILE", Line: 2, Msg: "unknown table [wach]; the known table is [watch]"},
			`unknown table [wach]; the known table is [watch] (FILE line 2)`},
		{Error{Key: "watch.margin", Option: "@cac-tmux-margin", Msg: "must not be negative", Got: `"-1s"`},
			`tmux option @cac-tmux-margin: must not be negative (got "-1s")`},
		{Error{Key: "watch.margin", flag: "--margin", Msg: "must not be negative", Got: `"-1s"`},
			`--margin: must not be negative (got "-1s")`},
		{Error{Key: "watch.margin", Msg: "must not be negative", Got: `"-5s"`},
			`watch.margin: must not be negative (got "-5s")`},
		{Error{Path: "FILE", Msg: "file is larger than 1 MiB"}, `file is larger than 1 MiB (FILE)`},
		{Error{Path: "FILE", Got: "x", Msg: "m"}, `m (FILE, got x)`},
		{Error{Msg: "m"}, `m`},
		{Error{Path: "FILE", Msg: "read", Err: cause}, `read FILE: permission denied`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("(%#v).Error() = %s, want %s", tc.err, got, tc.want)
		}
	}
	e := &Error{Path: "FILE", Msg: "read", Err: cause}
	if !errors.Is(e, fs.ErrPermission) {
		t.Errorf("errors.Is(%v, fs.ErrPermission) = false, want true", e)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		w    Watch
		want string // "" for valid
	}{
		{Default().Watch, ""},
		{with(func(w *Watch) { w.Interval = minInterval }), ""},
		{with(func(w *Watch) { w.Interval = 99 * time.Millisecond }), `watch.interval: must be at least 100ms (got "99ms")`},
		{with(func(w *Watch) { w.Margin = 0; w.NativeGrace = 0; w.Stagger = 0 }), ""},
		{with(func(w *Watch) { w.Margin = -5 * time.Second }), `watch.margin: must not be negative (got "-5s")`},
		{with(func(w *Watch) { w.NativeGrace = -time.Minute }), `watch.native_grace: must not be negative (got "-1m")`},
		{with(func(w *Watch) { w.Stagger = -1 }), `watch.stagger: must not be negative (got "-1ns")`},
		{with(func(w *Watch) { w.MaxPerReset = -2 }), `watch.max_per_reset: must not be negative; 0 means no cap (got -2)`},
		{with(func(w *Watch) { w.MaxPerReset = 1 << 40 }), ""},
		{with(func(w *Watch) { w.MaxAttempts = 0 }), `watch.max_attempts: must be from 1 to 100 (got 0)`},
		{with(func(w *Watch) { w.MaxAttempts = 100 }), ""},
		{with(func(w *Watch) { w.MaxAttempts = 101 }), `watch.max_attempts: must be from 1 to 100 (got 101)`},
		{with(func(w *Watch) { w.Message = "" }), `watch.message: must not be blank; it is the text typed to resume, like "continue" (got "")`},
		{with(func(w *Watch) { w.Message = " \t\u00a0" }), `watch.message: must not be blank; it is the text typed to resume, like "continue" (got " \t\u00a0")`},
		{with(func(w *Watch) { w.Message = "go\r" }), `watch.message: must be one line (got "go\r")`},
		{with(func(w *Watch) { w.Message = "go\u2028on" }), `watch.message: must be one line (got "go\u2028on")`},
		{with(func(w *Watch) { w.Message = "go\x00" }), `watch.message: must not contain control characters (got "go\u0000")`},
		{with(func(w *Watch) { w.Message = "go\x1b[2J" }), `watch.message: must not contain control characters (got "go\u001b[2J")`},
		{with(func(w *Watch) { w.Message = "caf\xe9" }), `watch.message: must be UTF-8 text (got "caf\xe9")`},
		{with(func(w *Watch) { w.Message = "  keep going, café ☕ " }), ""},
		{with(func(w *Watch) { w.Message = "--version" }), `watch.message: must not start with "-" (claude would read it as an option); write it as words, like "continue" (got "--version")`},
		{with(func(w *Watch) { w.Message = " -p go" }), `watch.message: must not start with "-" (claude would read it as an option); write it as words, like "continue" (got " -p go")`},
		{with(func(w *Watch) { w.Message = "!rm -rf ~" }), `watch.message: must not start with "!" (Claude Code would run the rest as a shell command); write it as words, like "continue" (got "!rm -rf ~")`},
		{with(func(w *Watch) { w.Message = "\u00a0 !sh" }), `watch.message: must not start with "!" (Claude Code would run the rest as a shell command); write it as words, like "continue" (got "\u00a0 !sh")`},
		{with(func(w *Watch) { w.Message = "/login" }), `watch.message: must not start with "/" (Claude Code would run it as a slash command); write it as words, like "continue" (got "/login")`},
		{with(func(w *Watch) { w.Message = "go on -- with /this, and that!" }), ""},
		{with(func(w *Watch) { w.LogLevel = "" }), `watch.log_level: must be one of debug, info, warn, error (got "")`},
		{with(func(w *Watch) { w.LogLevel = "warning" }), `watch.log_level: must be one of debug, info, warn, error (got "warning")`},
		{with(func(w *Watch) { w.Interval = 0; w.LogLevel = "x" }), `watch.interval: must be at least 100ms (got "0s")`}, // the first in file order
	} {
		err := tc.w.validate()
		var got string
		if err != nil {
			got = err.Error()
			var e *Error
			if !errors.As(err, &e) || e.Path != "" || e.Line != 0 || e.Key == "" {
				t.Errorf("(%+v).validate() = %#v, want an *Error with Key and no Path or Line", tc.w, err)
			}
		}
		if got != tc.want {
			t.Errorf("(%+v).validate() = %v, want %v", tc.w, got, tc.want)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	bad := filepath.Join(dir, "bad.toml")
	big := filepath.Join(dir, "big.toml")
	for name, data := range map[string]string{
		good: "[watch]\nmargin = \"2m\"\n",
		bad:  "[watch]\n\n\nmargin = \"soon\"\n",
		big:  strings.Repeat("#\n", maxFileSize/2+1),
	} {
		if err := os.WriteFile(name, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	got, found, err := load(good)
	if want := with(func(w *Watch) { w.Margin = 2 * time.Minute }); got.Watch != want || !found || err != nil {
		t.Errorf("load(%s) = %+v, %v, %v, want %+v, true, nil", good, got.Watch, found, err, want)
	}

	for _, path := range []string{filepath.Join(dir, "missing.toml"), filepath.Join(dir, "no", "such", "dir", "config.toml"), ""} {
		got, found, err := load(path)
		if !reflect.DeepEqual(got, Default()) || found || err != nil {
			t.Errorf("load(%q) = %+v, %v, %v, want Default(), false, nil", path, got, found, err)
		}
	}

	for _, tc := range []struct {
		path  string
		found bool
		want  string
	}{
		{bad, true, `watch.margin: must be a duration like "90s" (` + bad + ` line 4, got "soon")`},
		{dir, true, `read ` + dir + `: is a directory`},
		{big, true, `file is larger than 1 MiB; check that the path names the configuration file (` + big + `)`},
		{filepath.Join(good, "config.toml"), false, `read ` + filepath.Join(good, "config.toml") + `: not a directory`},
	} {
		got, found, err := load(tc.path)
		var e *Error
		if err == nil || err.Error() != tc.want || found != tc.found || !reflect.DeepEqual(got, Config{}) || !errors.As(err, &e) {
			t.Errorf("load(%s) = %+v, %v, %v, want zero, %v, %s", tc.path, got, found, err, tc.found, tc.want)
		}
	}
	if _, _, err := load(dir); !errors.Is(err, syscall.EISDIR) {
		t.Errorf("load(%s) = %v, want an error wrapping EISDIR", dir, err)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		want := `read ` + fifo + `: not a regular file`
		if _, found, err := load(fifo); err == nil || err.Error() != want || !found {
			t.Errorf("load(%s) = %v, %v, want true, %s", fifo, found, err, want)
		}
	}
}

func TestPath(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/xdg", "HOME": "/home/u"}, "/xdg/cac-tmux/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "/xdg/", "HOME": "/home/u"}, "/xdg/cac-tmux/config.toml"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.config/cac-tmux/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "", "HOME": "/home/u"}, "/home/u/.config/cac-tmux/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "relative/dir", "HOME": "/home/u"}, "/home/u/.config/cac-tmux/config.toml"},
		{map[string]string{"XDG_CONFIG_HOME": "/xdg"}, "/xdg/cac-tmux/config.toml"},
		{map[string]string{}, ""},
	} {
		getenv := func(k string) string { return tc.env[k] }
		if got := Path(getenv); got != tc.want {
			t.Errorf("Path(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}
