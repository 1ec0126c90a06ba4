// Package config holds the settings of cac-tmux: where each user-facing default comes from, the
// rules every value must follow (the command applies the same rules to its flags) and the
// strict reading of the configuration file.
//
// The file is TOML, decoded by github.com/pelletier/go-toml/v2 in strict mode:
//
//	[watch]
//	interval = "1s"        # durations are strings in Go's time.ParseDuration syntax
//	margin = "60s"
//	message = "continue"
//	native_grace = "3m"
//	stagger = "5s"
//	max_per_reset = 0      # integers; 0 means no cap
//	max_attempts = 3
//	log_level = "info"     # debug, info, warn or error
//
// Any TOML syntax is accepted (dotted keys such as watch.margin = "60s", literal and
// multi-line strings, hexadecimal integers). Unknown tables and keys, duplicates, values of
// the wrong type and values that break a rule are rejected with an *Error that names the key,
// the line and the fix.
package config

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cac-tmux/cac-tmux/scheduler"
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

// Default returns the built-in settings: 2s, 60s, "continue", 3m, 5s, 0, 3, "info". The
// interval, the message and the log level are written here only (the command's flags and the
// watcher take them from here); the schedule's are the scheduler's own (scheduler.Default).
func Default() Config {
	d := scheduler.Default
	return Config{Watch: Watch{
		Interval:    time.Second,
		Margin:      d.Margin,
		Message:     "continue",
		NativeGrace: d.NativeGrace,
		Stagger:     d.Stagger,
		MaxPerReset: d.MaxPerReset,
		MaxAttempts: d.MaxAttempts,
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
	if e.Err != nil {
		return strings.Join(nonEmpty("config: "+e.Msg, e.Path), " ") + ": " + e.Err.Error()
	}
	var b strings.Builder
	b.WriteString("config: ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	where := e.Path
	if e.Line > 0 {
		where = strings.Join(nonEmpty(where, "line "+strconv.Itoa(e.Line)), " ")
	}
	if e.Got != "" {
		where = strings.Join(nonEmpty(where, "got "+Shorten(e.Got)), ", ")
	}
	if where != "" {
		b.WriteString(" (" + where + ")")
	}
	return b.String()
}

// Unwrap returns the cause of a failure to read the file.
func (e *Error) Unwrap() error { return e.Err }

// Shorten is an offending value as an error message shows it: control characters escaped,
// cut after 60 characters.
func Shorten(got string) string {
	if strings.ContainsFunc(got, unicode.IsControl) {
		var b strings.Builder
		for _, r := range got {
			if q := strconv.QuoteRune(r); unicode.IsControl(r) {
				b.WriteString(q[1 : len(q)-1])
			} else {
				b.WriteRune(r)
			}
		}
		got = b.String()
	}
	if utf8.RuneCountInString(got) > maxGot {
		return string([]rune(got)[:maxGot-3]) + "..."
	}
	return got
}

// nonEmpty returns the strings of s that are not empty.
func nonEmpty(s ...string) []string {
	return slices.DeleteFunc(s, func(x string) bool { return x == "" })
}

// Validate checks every setting of w by its rule (Check). It returns nil or the *Error of the
// first key in file order that breaks its rule.
func (w Watch) Validate() error {
	for _, f := range fields {
		if err := w.Check(f.name); err != nil {
			return err
		}
	}
	return nil
}

// Check applies the rule of one key of [watch] ("margin") to its value in w, the rule that
// applies to the file and to the flag of the same name alike. It returns nil or an *Error
// with Key ("watch.margin"), Msg and Got (the value as it would be written in the file) set,
// and no Path or Line; a name that is not a key of [watch] is an *Error too.
func (w Watch) Check(name string) error {
	f := lookup(name)
	if f == nil {
		return &Error{Key: "watch." + name, Msg: "unknown key; the known keys of [watch] are " + strings.Join(names(), ", ")}
	}
	if msg := f.rule(&w); msg != "" {
		return &Error{Key: "watch." + f.name, Msg: msg, Got: f.format(&w)}
	}
	return nil
}

// field is one key of [watch]: where its value goes, what it must be and its rule. Exactly
// one of dur, num and str is set.
type field struct {
	name string
	want string // what the value must be, after "must be "
	dur  func(*Watch) *time.Duration
	num  func(*Watch) *int
	str  func(*Watch) *string
	rule func(*Watch) string // what is wrong with the value and the fix, "" when nothing
}

const wantDuration = `a duration like "90s"`

// fields are the keys of [watch] in file order.
var fields = []field{
	{name: "interval", want: wantDuration, dur: func(w *Watch) *time.Duration { return &w.Interval },
		rule: func(w *Watch) string { return atLeast(w.Interval, MinInterval) }},
	{name: "margin", want: wantDuration, dur: func(w *Watch) *time.Duration { return &w.Margin },
		rule: func(w *Watch) string { return notNegative(w.Margin) }},
	{name: "message", want: `a string like "continue"`, str: func(w *Watch) *string { return &w.Message },
		rule: func(w *Watch) string { return checkMessage(w.Message) }},
	{name: "native_grace", want: wantDuration, dur: func(w *Watch) *time.Duration { return &w.NativeGrace },
		rule: func(w *Watch) string { return notNegative(w.NativeGrace) }},
	{name: "stagger", want: wantDuration, dur: func(w *Watch) *time.Duration { return &w.Stagger },
		rule: func(w *Watch) string { return notNegative(w.Stagger) }},
	{name: "max_per_reset", want: "an integer like 2", num: func(w *Watch) *int { return &w.MaxPerReset },
		rule: func(w *Watch) string {
			if w.MaxPerReset < 0 {
				return "must not be negative; 0 means no cap"
			}
			return ""
		}},
	{name: "max_attempts", want: "an integer like 3", num: func(w *Watch) *int { return &w.MaxAttempts },
		rule: func(w *Watch) string {
			if w.MaxAttempts < 1 || w.MaxAttempts > MaxAttempts {
				return "must be from 1 to 100"
			}
			return ""
		}},
	{name: "log_level", want: `one of "debug", "info", "warn", "error"`, str: func(w *Watch) *string { return &w.LogLevel },
		rule: func(w *Watch) string {
			for _, l := range logLevels {
				if w.LogLevel == l {
					return ""
				}
			}
			return "must be one of debug, info, warn, error"
		}},
}

func atLeast(d, least time.Duration) string {
	if d < least {
		return "must be at least " + least.String()
	}
	return ""
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
// start is accepted. On error it returns a zero Config and an *Error.
func Parse(name string, data []byte) (Config, error) {
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return Config{}, &Error{Path: name, Line: 1, Msg: "the file is UTF-16 text; save it as UTF-8"}
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var doc document
	if err := decode(data, &doc); err != nil {
		err.Path = name
		return Config{}, err
	}
	at, _ := locate(data)
	w, err := doc.Watch.apply(Default().Watch, at)
	if err != nil {
		err.Path = name
		return Config{}, err
	}
	return Config{Watch: w}, nil
}
