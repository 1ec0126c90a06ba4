// Package config holds the settings of cac-tmux: the built-in defaults, the strict reading of
// the configuration file and the validation that the command also applies to flag values.
//
// The file is a small, strict subset of TOML, so a real TOML file of this shape works and the
// parser needs no dependency:
//
//	# comment lines and trailing comments
//	[watch]
//	interval = "2s"        # durations are strings in Go's time.ParseDuration syntax
//	margin = "60s"
//	message = "continue"   # "basic" strings with escapes, or 'literal' strings
//	native_grace = "3m"
//	stagger = "5s"
//	max_per_reset = 0      # integers; 0 means no cap
//	max_attempts = 3
//	log_level = "info"     # debug, info, warn or error
//
// Dotted keys at the top level (watch.margin = "60s") are accepted too. Everything else is
// rejected with an *Error that says where the mistake is and how to fix it: unknown tables and
// keys, duplicates, wrong types, multi-line strings, arrays, inline tables, text after a value
// other than a comment, control characters and text that is not UTF-8.
//
// The package uses only the standard library; Load is its only I/O.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Watch holds the settings of `cac-tmux watch`.
type Watch struct {
	// Interval is the poll tick; at least MinInterval.
	Interval time.Duration
	// Margin is the wait after the reset instant before acting.
	Margin time.Duration
	// Message is the text typed into a pane to resume it: one line, not blank.
	Message string
	// NativeGrace is how long Claude Code's own auto-continue gets to fire first.
	NativeGrace time.Duration
	// Stagger separates panes that wake at the same reset.
	Stagger time.Duration
	// MaxPerReset caps how many panes wake per reset; 0 means no cap.
	MaxPerReset int
	// MaxAttempts is how many resumes are tried before a pane is marked failed, 1 to 100.
	MaxAttempts int
	// LogLevel is one of LogLevels().
	LogLevel string
}

// Config is the whole configuration file.
type Config struct{ Watch Watch }

// Limits of the validation.
const (
	// MinInterval is the shortest poll tick accepted.
	MinInterval = 100 * time.Millisecond
	// MaxAttempts is the largest max_attempts accepted.
	MaxAttempts = 100
	// MaxFileSize is the largest configuration file Load reads.
	MaxFileSize = 1 << 20
)

var logLevels = []string{"debug", "info", "warn", "error"}

// LogLevels returns the accepted values of log_level, from the most to the least verbose. The
// slice is the caller's to keep.
func LogLevels() []string { return append([]string(nil), logLevels...) }

// Default returns the built-in settings: 2s, 60s, "continue", 3m, 5s, 0, 3, "info".
func Default() Config {
	return Config{Watch: Watch{
		Interval:    2 * time.Second,
		Margin:      60 * time.Second,
		Message:     "continue",
		NativeGrace: 3 * time.Minute,
		Stagger:     5 * time.Second,
		MaxPerReset: 0,
		MaxAttempts: 3,
		LogLevel:    "info",
	}}
}

// Keys returns the full names of the known keys in file order, such as "watch.margin". The
// slice is the caller's to keep.
func Keys() []string {
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = "watch." + f.name
	}
	return keys
}

// Path returns the configuration file's path: $XDG_CONFIG_HOME/cac-tmux/config.toml, else
// $HOME/.config/cac-tmux/config.toml (an XDG_CONFIG_HOME that is not absolute is ignored, as the
// XDG spec says). It returns "" when HOME is empty too. It takes a getenv func, such as
// os.Getenv, so tests do not touch the real environment.
func Path(getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "cac-tmux", "config.toml")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "cac-tmux", "config.toml")
	}
	return ""
}

// Load reads the file at path over Default(). A missing file (or an empty path) is not an
// error: it returns Default() and found=false. Any other problem returns an *Error and a zero
// Config; found then reports whether the file exists.
func Load(path string) (c Config, found bool, err error) {
	if path == "" {
		return Default(), false, nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), false, nil
	}
	if err != nil {
		return Config{}, false, readError(path, err)
	}
	if !fi.Mode().IsRegular() && !fi.IsDir() { // a directory fails below, with the system's words
		return Config{}, true, &Error{Path: path, Msg: "read", Err: errors.New("not a regular file")}
	}
	f, err := os.Open(path)
	if err != nil {
		return Config{}, true, readError(path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return Config{}, true, readError(path, err)
	}
	if len(data) > MaxFileSize {
		return Config{}, true, &Error{Path: path, Msg: "file is larger than 1 MiB; check that the path names the configuration file"}
	}
	c, err = Parse(path, data)
	return c, true, err
}

// readError is the *Error of a failure to read path. The cause loses its *fs.PathError
// wrapper, which would repeat the path; errors.Is still sees the system error.
func readError(path string, err error) *Error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{Path: path, Msg: "read", Err: err}
}

// Error is a configuration mistake: where it is and how to fix it.
type Error struct {
	Path string // file name ("" when not from a file)
	Line int    // 1-based, 0 when not about one line
	Key  string // "watch.margin", "" when not about a key
	Msg  string // what is wrong and the fix, e.g. `must be a duration like "90s"`
	Got  string // the offending text as written, "" when none
	// Err is the cause when the file could not be read (Msg is then "read"), nil for a
	// mistake in its text.
	Err error
}

// maxGot is how many characters of Got Error shows.
const maxGot = 60

// Error reads like `config: watch.margin: must be a duration like "90s" (FILE line 4, got
// "soon")`; without a key, `config: MSG (FILE line 2)`; a failure to read the file reads
// `config: read FILE: CAUSE`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	if e.Err != nil {
		b.WriteString(e.Msg)
		if e.Path != "" {
			b.WriteString(" " + e.Path)
		}
		b.WriteString(": " + e.Err.Error())
		return b.String()
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	where := e.Path
	if e.Line > 0 {
		if where != "" {
			where += " "
		}
		where += "line " + strconv.Itoa(e.Line)
	}
	if e.Got != "" {
		got := e.Got
		if utf8.RuneCountInString(got) > maxGot {
			got = string([]rune(got)[:maxGot-3]) + "..."
		}
		if where != "" {
			where += ", "
		}
		where += "got " + got
	}
	if where != "" {
		b.WriteString(" (" + where + ")")
	}
	return b.String()
}

// Unwrap returns the cause of a failure to read the file.
func (e *Error) Unwrap() error { return e.Err }

// Validate checks w against the rules of the file, so flag values get the same ones. It
// returns nil or an *Error with Key, Msg and Got (the value as it would be written in the
// file) set, and no Path or Line.
func (w Watch) Validate() error {
	for _, f := range fields {
		if msg := f.check(&w); msg != "" {
			return &Error{Key: "watch." + f.name, Msg: msg, Got: f.format(&w)}
		}
	}
	return nil
}

// field is one key of [watch]: where its value goes and what it must be. Exactly one of dur,
// num and str is set.
type field struct {
	name  string
	want  string // what the value must be, after "must be "
	dur   func(*Watch) *time.Duration
	num   func(*Watch) *int
	str   func(*Watch) *string
	check func(*Watch) string // the problem with the value, "" when none
}

const wantDuration = `a duration like "90s"`

// fields are the keys of [watch] in file order.
var fields = []field{
	{name: "interval", want: wantDuration,
		dur: func(w *Watch) *time.Duration { return &w.Interval },
		check: func(w *Watch) string {
			if w.Interval < MinInterval {
				return "must be at least 100ms"
			}
			return ""
		}},
	{name: "margin", want: wantDuration,
		dur:   func(w *Watch) *time.Duration { return &w.Margin },
		check: func(w *Watch) string { return notNegative(w.Margin) }},
	{name: "message", want: `a string like "continue"`,
		str:   func(w *Watch) *string { return &w.Message },
		check: func(w *Watch) string { return checkMessage(w.Message) }},
	{name: "native_grace", want: wantDuration,
		dur:   func(w *Watch) *time.Duration { return &w.NativeGrace },
		check: func(w *Watch) string { return notNegative(w.NativeGrace) }},
	{name: "stagger", want: wantDuration,
		dur:   func(w *Watch) *time.Duration { return &w.Stagger },
		check: func(w *Watch) string { return notNegative(w.Stagger) }},
	{name: "max_per_reset", want: "an integer like 2",
		num: func(w *Watch) *int { return &w.MaxPerReset },
		check: func(w *Watch) string {
			if w.MaxPerReset < 0 {
				return "must not be negative; 0 means no cap"
			}
			return ""
		}},
	{name: "max_attempts", want: "an integer like 3",
		num: func(w *Watch) *int { return &w.MaxAttempts },
		check: func(w *Watch) string {
			if w.MaxAttempts < 1 || w.MaxAttempts > MaxAttempts {
				return "must be from 1 to 100"
			}
			return ""
		}},
	{name: "log_level", want: `one of "debug", "info", "warn", "error"`,
		str: func(w *Watch) *string { return &w.LogLevel },
		check: func(w *Watch) string {
			for _, l := range logLevels {
				if w.LogLevel == l {
					return ""
				}
			}
			return "must be one of debug, info, warn, error"
		}},
}

func notNegative(d time.Duration) string {
	if d < 0 {
		return "must not be negative"
	}
	return ""
}

func checkMessage(m string) string {
	switch {
	case strings.TrimSpace(m) == "":
		return `must not be blank; it is the text typed to resume, like "continue"`
	case !utf8.ValidString(m):
		return "must be UTF-8 text"
	case strings.ContainsAny(m, "\n\r\u0085\u2028\u2029"):
		return "must be one line"
	case strings.ContainsFunc(m, unicode.IsControl):
		return "must not contain control characters"
	}
	return ""
}

// format returns f's value in w as it would be written in the file.
func (f *field) format(w *Watch) string {
	switch {
	case f.dur != nil:
		return strconv.Quote(f.dur(w).String())
	case f.num != nil:
		return strconv.Itoa(*f.num(w))
	default:
		return strconv.Quote(*f.str(w))
	}
}

func lookup(name string) *field {
	for i := range fields {
		if fields[i].name == name {
			return &fields[i]
		}
	}
	return nil
}

// Parse parses data (named name in errors) over Default(). A UTF-8 byte order mark at the
// start and CRLF line endings are accepted. On error it returns a zero Config and an *Error.
func Parse(name string, data []byte) (Config, error) {
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return Config{}, &Error{Path: name, Line: 1, Msg: "the file is UTF-16 text; save it as UTF-8"}
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !utf8.Valid(data) {
		n := 1 + bytes.Count(data[:invalidAt(data)], []byte("\n"))
		return Config{}, &Error{Path: name, Line: n, Msg: "the file is not UTF-8 text; save it as UTF-8"}
	}
	p := &parser{name: name, w: Default().Watch, seen: map[string]int{}, raw: map[string]string{}}
	n := 0
	for len(data) > 0 || n == 0 {
		n++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if err := p.line(n, string(line)); err != nil {
			return Config{}, err
		}
	}
	if err := p.w.Validate(); err != nil {
		e := err.(*Error)
		k := strings.TrimPrefix(e.Key, "watch.")
		e.Path, e.Line = name, p.seen[k]
		if raw, ok := p.raw[k]; ok {
			e.Got = raw
		}
		return Config{}, e
	}
	return Config{Watch: p.w}, nil
}

// invalidAt returns the offset of the first byte of data that is not valid UTF-8.
func invalidAt(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}

type parser struct {
	name       string
	w          Watch
	seen       map[string]int    // key of [watch] → line it was set on
	raw        map[string]string // key of [watch] → its value as written
	inWatch    bool              // after the [watch] header
	tableLine  int               // line of the [watch] header
	dottedLine int               // line of the first top-level watch.KEY
}

func (p *parser) err(n int, key, got, format string, args ...any) *Error {
	return &Error{Path: p.name, Line: n, Key: key, Msg: fmt.Sprintf(format, args...), Got: got}
}

// line parses line n, without its line ending.
func (p *parser) line(n int, s string) error {
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f {
			return p.err(n, "", "", "control character %U is not allowed; remove it (in a string, write an escape such as \\t)", r)
		}
	}
	sc := &scanner{s: s}
	sc.skipWS()
	switch {
	case sc.eol() || sc.peek() == '#':
		return nil
	case sc.peek() == '[':
		return p.table(n, sc)
	default:
		return p.keyValue(n, sc)
	}
}

// table parses a table header.
func (p *parser) table(n int, sc *scanner) error {
	line := strings.TrimSpace(sc.s)
	sc.i++
	if sc.peek() == '[' {
		return p.err(n, "", line, "arrays of tables are not supported; write [watch] once")
	}
	parts, problem := sc.key(true)
	if problem != "" {
		return p.err(n, "", line, "%s", problem)
	}
	sc.skipWS()
	if sc.peek() != ']' {
		return p.err(n, "", line, "expected ] after the table name")
	}
	sc.i++
	name := strings.Join(parts, ".")
	switch {
	case name != "watch":
		return p.err(n, "", "", "unknown table [%s]; the known table is [watch]", name)
	case p.tableLine > 0:
		return p.err(n, "", "", "duplicate table [watch], first on line %d; merge the two", p.tableLine)
	case p.dottedLine > 0:
		return p.err(n, "", "", "table [watch] comes after the dotted key on line %d; write every setting under [watch] or every one as watch.KEY", p.dottedLine)
	}
	if rest := sc.rest(); rest != "" {
		return p.err(n, "", rest, "unexpected text after [watch]; only a # comment may follow")
	}
	p.inWatch, p.tableLine = true, n
	return nil
}

// keyValue parses a line key = value.
func (p *parser) keyValue(n int, sc *scanner) error {
	line := strings.TrimSpace(sc.s)
	parts, problem := sc.key(false)
	if problem != "" {
		return p.err(n, "", line, "%s", problem)
	}
	sc.skipWS()
	if sc.peek() != '=' {
		return p.err(n, "", line, "expected = after the key %s", strings.Join(parts, "."))
	}
	sc.i++
	f, key, err := p.resolve(n, parts)
	if err != nil {
		return err
	}
	sc.skipWS()
	start := sc.i
	v, err := p.value(n, key, f, sc)
	if err != nil {
		return err
	}
	raw := sc.s[start:sc.i]
	if err := p.set(n, key, f, v, raw); err != nil {
		return err
	}
	if rest := sc.rest(); rest != "" {
		return p.err(n, key, rest, "unexpected text after the value; only a # comment may follow")
	}
	p.seen[f.name], p.raw[f.name] = n, raw
	if !p.inWatch && p.dottedLine == 0 {
		p.dottedLine = n
	}
	return nil
}

// resolve finds the field of a key and checks that it is set once.
func (p *parser) resolve(n int, parts []string) (*field, string, error) {
	full := strings.Join(parts, ".")
	if !p.inWatch {
		switch {
		case len(parts) == 1 && lookup(parts[0]) != nil:
			return nil, "", p.err(n, full, "", "is outside any table; put it under [watch] or write watch.%s", full)
		case len(parts) == 1:
			return nil, "", p.err(n, full, "", "unknown key outside any table; settings go under [watch]")
		case parts[0] != "watch":
			return nil, "", p.err(n, "", "", "unknown table %s in the key %s; the known table is [watch]", parts[0], full)
		}
		parts = parts[1:]
	} else {
		full = "watch." + full
	}
	var f *field
	if len(parts) == 1 {
		f = lookup(parts[0])
	}
	if f == nil {
		hint := ""
		if s := suggest(strings.Join(parts, ".")); s != "" {
			hint = " (did you mean " + s + "?)"
		}
		return nil, "", p.err(n, full, "", "unknown key%s; the known keys of [watch] are %s", hint, strings.Join(names(), ", "))
	}
	if first := p.seen[f.name]; first > 0 {
		return nil, "", p.err(n, full, "", "duplicate key, first set on line %d; keep one", first)
	}
	return f, full, nil
}

func names() []string {
	s := make([]string, len(fields))
	for i, f := range fields {
		s[i] = f.name
	}
	return s
}

// suggest returns the known key closest to k, or "" when none is close.
func suggest(k string) string {
	if len(k) > 20 {
		return ""
	}
	k = strings.ReplaceAll(strings.ToLower(k), "-", "_")
	best, bestD := "", 3
	for _, f := range fields {
		if d := distance(k, f.name); d < bestD {
			best, bestD = f.name, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// value is a parsed value: a string (decoded) or a bare token.
type value struct {
	quoted bool
	text   string
}

// value parses the value after "=", leaving sc after it.
func (p *parser) value(n int, key string, f *field, sc *scanner) (value, error) {
	rest := strings.TrimRight(sc.s[sc.i:], " \t")
	switch c := sc.peek(); {
	case sc.eol() || c == '#':
		return value{}, p.err(n, key, "", "has no value; it must be %s", f.want)
	case strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''"):
		return value{}, p.err(n, key, rest, "multi-line strings are not supported; write the value on one line")
	case c == '[':
		return value{}, p.err(n, key, rest, "arrays are not supported; write one value, %s", f.want)
	case c == '{':
		return value{}, p.err(n, key, rest, "inline tables are not supported; write one value, %s", f.want)
	case c == '\'':
		end := strings.IndexByte(sc.s[sc.i+1:], '\'')
		if end < 0 {
			return value{}, p.err(n, key, rest, "unterminated string; end it with ' on the same line")
		}
		v := value{quoted: true, text: sc.s[sc.i+1 : sc.i+1+end]}
		sc.i += end + 2
		return v, nil
	case c == '"':
		return p.basic(n, key, sc)
	default:
		start := sc.i
		for !sc.eol() && !isWS(sc.peek()) && sc.peek() != '#' {
			sc.i++
		}
		return value{text: sc.s[start:sc.i]}, nil
	}
}

// basic parses a basic string: "..." with escapes.
func (p *parser) basic(n int, key string, sc *scanner) (value, error) {
	s, start := sc.s, sc.i
	var b strings.Builder
	i := start + 1
	for {
		if i >= len(s) {
			return value{}, p.err(n, key, strings.TrimRight(s[start:], " \t"), `unterminated string; end it with " on the same line`)
		}
		c := s[i]
		switch {
		case c == '"':
			sc.i = i + 1
			return value{quoted: true, text: b.String()}, nil
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return value{}, p.err(n, key, strings.TrimRight(s[start:], " \t"), `unterminated string; end it with " on the same line`)
		}
		switch e := s[i+1]; e {
		case 'b', 't', 'n', 'f', 'r', '"', '\\':
			b.WriteByte("\b\t\n\f\r\"\\"[strings.IndexByte(`btnfr"\`, e)])
			i += 2
		case 'u', 'U':
			size := 4
			if e == 'U' {
				size = 8
			}
			hex := s[i+2 : min(i+2+size, len(s))]
			if len(hex) < size || strings.IndexFunc(hex, notHex) >= 0 {
				return value{}, p.err(n, key, s[i:i+2]+hex, `invalid escape; write \u with 4 hex digits or \U with 8`)
			}
			r, _ := strconv.ParseUint(hex, 16, 32)
			if r > unicode.MaxRune || r >= 0xD800 && r <= 0xDFFF {
				return value{}, p.err(n, key, s[i:i+2]+hex, "invalid escape; it is not a Unicode character")
			}
			b.WriteRune(rune(r))
			i += 2 + size
		default:
			_, size := utf8.DecodeRuneInString(s[i+1:])
			return value{}, p.err(n, key, s[i:i+1+size], `invalid escape; use \" \\ \b \t \n \f \r \uXXXX or \UXXXXXXXX`)
		}
	}
}

func notHex(r rune) bool {
	return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F')
}

// set converts v to f's type and stores it. Range checks are left to Validate.
func (p *parser) set(n int, key string, f *field, v value, raw string) error {
	switch {
	case f.dur != nil:
		d, err := time.ParseDuration(v.text)
		if !v.quoted || err != nil {
			return p.err(n, key, raw, "must be %s", f.want)
		}
		*f.dur(&p.w) = d
	case f.num != nil:
		if v.quoted {
			if _, err := parseInt(v.text); err == nil {
				return p.err(n, key, raw, "must be %s, without quotes", f.want)
			}
			return p.err(n, key, raw, "must be %s", f.want)
		}
		i, err := parseInt(v.text)
		if errors.Is(err, strconv.ErrRange) {
			w := p.w
			*f.num(&w) = i
			if msg := f.check(&w); msg != "" {
				return p.err(n, key, raw, "%s", msg)
			}
			return p.err(n, key, raw, "is too large")
		}
		if err != nil {
			return p.err(n, key, raw, "must be %s", f.want)
		}
		*f.num(&p.w) = i
	default:
		if !v.quoted {
			return p.err(n, key, raw, "must be %s", f.want)
		}
		*f.str(&p.w) = v.text
	}
	return nil
}

// parseInt parses a TOML integer: decimal with an optional sign and no leading zeros, or 0x,
// 0o or 0b with digits; an underscore may stand between two digits. Out of range, it returns
// the nearest int and an error wrapping strconv.ErrRange.
func parseInt(t string) (int, error) {
	digits, base, sign := t, 10, ""
	if strings.HasPrefix(digits, "+") || strings.HasPrefix(digits, "-") {
		sign, digits = digits[:1], digits[1:]
	}
	if len(digits) > 2 && digits[0] == '0' && sign == "" {
		switch digits[1] {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 10 {
			digits = digits[2:]
		}
	}
	if digits == "" || digits[0] == '_' || digits[len(digits)-1] == '_' || strings.Contains(digits, "__") ||
		base == 10 && len(digits) > 1 && digits[0] == '0' {
		return 0, strconv.ErrSyntax
	}
	clean := strings.ReplaceAll(digits, "_", "")
	for _, c := range clean {
		if d := strings.IndexRune("0123456789abcdef", unicode.ToLower(c)); d < 0 || d >= base {
			return 0, strconv.ErrSyntax
		}
	}
	i, err := strconv.ParseInt(sign+clean, base, 0)
	if errors.Is(err, strconv.ErrRange) {
		if sign == "-" {
			return math.MinInt, err
		}
		return math.MaxInt, err
	}
	return int(i), err
}

// scanner walks one line.
type scanner struct {
	s string
	i int
}

func (sc *scanner) eol() bool { return sc.i >= len(sc.s) }

func (sc *scanner) peek() byte {
	if sc.eol() {
		return 0
	}
	return sc.s[sc.i]
}

func isWS(c byte) bool { return c == ' ' || c == '\t' }

func (sc *scanner) skipWS() {
	for !sc.eol() && isWS(sc.peek()) {
		sc.i++
	}
}

// rest returns what follows on the line other than blanks and a comment, "" when nothing.
func (sc *scanner) rest() string {
	sc.skipWS()
	if sc.eol() || sc.peek() == '#' {
		return ""
	}
	return strings.TrimRight(sc.s[sc.i:], " \t")
}

func isBare(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// key reads a dotted key of bare keys, with optional blanks around the dots. problem is what
// is wrong with it, "" when nothing.
func (sc *scanner) key(table bool) (parts []string, problem string) {
	for {
		sc.skipWS()
		if c := sc.peek(); c == '"' || c == '\'' {
			return nil, "quoted keys are not supported; write the key without quotes"
		}
		start := sc.i
		for !sc.eol() && isBare(sc.peek()) {
			sc.i++
		}
		if sc.i == start {
			switch {
			case len(parts) > 0:
				return nil, "expected a key after the dot; keys are letters, digits, _ and -"
			case table:
				return nil, "expected a table name like [watch]"
			}
			return nil, `expected a setting like margin = "60s" or a table like [watch]; keys are letters, digits, _ and -`
		}
		parts = append(parts, sc.s[start:sc.i])
		sc.skipWS()
		if sc.peek() != '.' {
			return parts, ""
		}
		sc.i++
	}
}
