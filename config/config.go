// Package config holds the settings of cac-tmux: the default of each one, the rule every value
// must follow, the strict reading of the configuration file, and the precedence of the four
// places a setting can come from (Resolve): flags > tmux options > file > defaults.
//
// Every setting is one key of one table, defined once in a registry (keys.go): its default
// comes from Default, its rule applies to the file, to a tmux option @cac-tmux-… and to a
// flag of `cac-tmux watch` alike (KeyFlags: the flags of the keys that have one, whose texts
// Resolve reads), and Example writes the commented file of every key from it.
//
// The file is TOML, decoded by github.com/pelletier/go-toml/v2:
//
//	[watch]
//	interval = "1s"        # durations are strings in Go's time.ParseDuration syntax
//	margin = "1m"
//	message = "continue"
//	native_grace = "3m"
//	stagger = "5s"
//	max_per_reset = 0      # integers; 0 means no cap
//	max_attempts = 3
//	log_level = "info"     # debug, info, warn or error
//
//	[policy]
//	weekly = "notify"      # one key per kind of limit: resume, notify or never
//	max_wait = "12h"       # a reset further away is held and notified; "0" means no limit
//
//	[panes]
//	include = ["work*"]    # globs on the session name (path.Match); empty: every session
//	exclude = ["scratch"]  # a session matching one is left out, even when included
//
// Any TOML syntax is accepted (dotted keys such as watch.margin = "60s", inline tables,
// literal and multi-line strings, hexadecimal integers). Unknown tables and keys, duplicates,
// values of the wrong type and values that break a rule are rejected, every one of them: Errors,
// in file order, each an *Error that names the key, the line and the fix. A symbolic link to
// nothing is not taken for a missing file.
package config

import (
	"errors"
	"fmt"
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

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/scheduler"
)

// Watch holds the settings of `cac-tmux watch`.
type Watch struct {
	// Interval is the poll tick; at least minInterval.
	Interval time.Duration
	// Margin is the wait after the reset instant before acting.
	Margin time.Duration
	// ExactMargin replaces Margin for a reset known to the second (from the transcript).
	ExactMargin time.Duration
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
	// LogLevel is one of acceptedLogLevels().
	LogLevel string
}

// Config is the whole configuration: one field per table of the file.
type Config struct {
	Watch    Watch
	Servers  Servers
	Policy   Policy
	Panes    Panes
	Notify   notify.Settings
	Hosts    Hosts
	Phone    Phone
	Accounts Accounts
	// Agents are [claude] and [codex]: each agent's settings, by agent (AgentSettings).
	Agents map[agent.Name]agent.Settings
}

// Limits of the validation.
const (
	// minInterval is the shortest poll tick accepted.
	minInterval = 100 * time.Millisecond
	// maxAttempts is the largest max_attempts accepted.
	maxAttempts = 100
	// maxFileSize is the largest configuration file ReadFile reads.
	maxFileSize = 1 << 20
)

var logLevels = []string{"debug", "info", "warn", "error"}

// acceptedLogLevels returns the accepted values of log_level, from the most to the least
// verbose. The slice is the caller's to keep.
func acceptedLogLevels() []string { return append([]string(nil), logLevels...) }

// Default returns the built-in settings: [watch] 1s, 60s, "continue", 3m, 5s, 0, 3, "info";
// [policy] every kind and agent resumed and no max_wait; [panes] every session; every agent on. The interval, the
// message, the log level, the policy and the panes are written here only (the command's flags
// and the watcher take them from here); the schedule's are the scheduler's own
// (scheduler.Default). Each call returns a Config of its own (Policy.Actions is a new map).
func Default() Config {
	d := scheduler.Default
	return Config{
		Watch: Watch{
			Interval:    time.Second,
			Margin:      d.Margin,
			ExactMargin: d.ExactMargin,
			Message:     "continue",
			NativeGrace: d.NativeGrace,
			Stagger:     d.Stagger,
			MaxPerReset: d.MaxPerReset,
			MaxAttempts: d.MaxAttempts,
			LogLevel:    "info",
		},
		Policy:   defaultPolicy(),
		Notify:   notify.Default(),
		Hosts:    Hosts{Command: "cac-tmux", Timeout: 10 * time.Second, SSH: []string{"ssh"}},
		Phone:    defaultPhone(),
		Accounts: defaultAccounts(),
		Agents:   defaultAgents(),
	}
}

// Keys returns the full names of the known keys, table by table in file order, such as
// "watch.margin". The slice is the caller's to keep.
func Keys() []string {
	var keys []string
	for _, t := range tables {
		for _, s := range t.keys {
			keys = append(keys, s.base().key())
		}
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

// load reads the file at path over Default(), as ReadFile does. A missing file (or an empty
// path) is not an error: it returns Default() and found=false. Any other problem returns the
// error of ReadFile and a zero Config; found then reports whether the file exists.
func load(path string) (c Config, found bool, err error) {
	f, err := ReadFile(path)
	if err != nil {
		return Config{}, f.Found, err
	}
	return f.config, f.Found, nil
}

// File is a configuration file as read: its settings over the defaults and where each key it
// sets is.
type File struct {
	Path   string
	Found  bool // false: no file at Path (or no Path); config is then Default()
	config Config
	// lines is the line of each key the file sets, by full key ("watch.margin").
	lines map[string]int
}

// ReadFile reads the file at path over Default(). A missing file (or an empty path) is not an
// error: it returns Default() and Found=false. A symbolic link whose target does not exist
// (the path itself or a directory on its way) is not a missing file: it is an *Error that names
// the link, its target and the fix, as is a file that cannot be read. Mistakes in the text
// are Errors: every one, in file order. On error the File has only Path and Found.
func ReadFile(path string) (File, error) {
	f := File{Path: path, config: Default()}
	if path == "" {
		return f, nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if link, target := danglingLink(path); link != "" {
			return File{Path: path, Found: link == path}, danglingError(path, link, target)
		}
		return f, nil
	}
	f.config = Config{}
	if err != nil {
		return f, readError(path, err)
	}
	f.Found = true
	if !fi.Mode().IsRegular() && !fi.IsDir() { // a directory fails below, with the system's words
		return f, &Error{Path: path, Msg: "read", Err: errors.New("not a regular file")}
	}
	data, err := readAll(path)
	if err != nil {
		return f, err
	}
	c, lines, errs := parse(data)
	if errs != nil {
		errs.setPath(path)
		return f, errs
	}
	f.config, f.lines = c, lines
	return f, nil
}

// readAll reads the file at path, at most maxFileSize bytes of it.
func readAll(path string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, readError(path, err)
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxFileSize+1))
	if err != nil {
		return nil, readError(path, err)
	}
	if len(data) > maxFileSize {
		return nil, &Error{Path: path, Msg: "file is larger than 1 MiB; check that the path names the configuration file"}
	}
	return data, nil
}

// danglingLink finds, for a path that does not exist, the symbolic link on its way whose
// target does not exist: the path itself, or a directory above it (a dotfiles directory
// linked as a whole). It returns the link and its final target (links to links followed),
// or "" when there is none and the path is simply absent.
func danglingLink(path string) (link, target string) {
	for p := path; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.Mode()&fs.ModeSymlink != 0:
			if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
				return "", "" // the link leads somewhere: the path is missing below it
			}
			return p, linkTarget(p)
		case err == nil, !errors.Is(err, fs.ErrNotExist), filepath.Dir(p) == p:
			return "", "" // not a link, a failure other than absence, or the root: simply absent
		}
	}
}

// linkTarget is where the symbolic link p leads in the end, as an absolute path when p's
// target is relative; links to links are followed (at most 40, as the kernel does).
func linkTarget(p string) string {
	for range 40 {
		t, err := os.Readlink(p)
		if err != nil {
			return p
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p
		}
	}
	return p
}

// danglingError is the *Error of the file at path when the symbolic link link (path itself or
// a directory above it) leads to target, which does not exist.
func danglingError(path, link, target string) *Error {
	subject, what, name := link+" is", "directory", "DIR"
	if link == path {
		subject, what, name = "it is", "file", "FILE"
	}
	return &Error{Path: path, Msg: "read", Err: fmt.Errorf(
		"%s a symbolic link to %s, which does not exist; put the %s there, point the link at your %s (ln -sfn %s %s), or remove the link to run with the defaults (rm %s)",
		subject, target, what, what, name, shellWord(link), shellWord(link))}
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
	// Option is the tmux option the value came from ("@cac-tmux-margin"), flag the flag
	// ("--margin"); "" when the value is not from one.
	Option, flag string
	Msg          string // what is wrong and the fix, e.g. `must be a duration like "90s"`
	Got          string // the offending text as written, "" when none
	// Err is the cause when the file could not be read (Msg is then "read"), nil for a
	// mistake in its text.
	Err error
}

// maxGot is how many characters of Got Error shows.
const maxGot = 60

// Error is a mistake of the user's, worded for people (it is a usage error: exit 2), with no
// package name: `watch.margin: must be a duration like "90s" (FILE line 4, got "soon")`;
// without a key, `MSG (FILE line 2)`; a failure to read the file reads `read FILE: CAUSE`. A
// value from a tmux option or a flag is named by it instead of its key: `tmux option
// @cac-tmux-margin: must not be negative (got "-1s")`, `--margin: …`.
func (e *Error) Error() string {
	if e.Err != nil {
		return strings.Join(nonEmpty(e.Msg, e.Path), " ") + ": " + e.Err.Error()
	}
	var b strings.Builder
	switch {
	case e.Option != "":
		b.WriteString("tmux option " + e.Option + ": ")
	case e.flag != "":
		b.WriteString(e.flag + ": ")
	case e.Key != "":
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	where := e.Path
	if e.Line > 0 {
		where = strings.Join(nonEmpty(where, "line "+strconv.Itoa(e.Line)), " ")
	}
	if e.Got != "" {
		where = strings.Join(nonEmpty(where, "got "+shorten(e.Got)), ", ")
	}
	if where != "" {
		b.WriteString(" (" + where + ")")
	}
	return b.String()
}

// Unwrap returns the cause of a failure to read the file.
func (e *Error) Unwrap() error { return e.Err }

// shorten is an offending value as an error message shows it: control characters escaped,
// cut after 60 characters.
func shorten(got string) string {
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

// Errors are the mistakes of one configuration file, each an *Error, in file order. Error
// writes one a line.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns each mistake, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	errs := make([]error, len(es))
	for i, e := range es {
		errs[i] = e
	}
	return errs
}

func (es Errors) setPath(path string) {
	for _, e := range es {
		e.Path = path
	}
}

// parseNamed parses data (named name in errors) over Default(). A UTF-8 byte order mark at the
// start is accepted. On error it returns a zero Config and Errors: every mistake, in file
// order (a syntax error stops the reading, and is the one mistake).
func parseNamed(name string, data []byte) (Config, error) {
	c, _, errs := parse(data)
	if errs != nil {
		errs.setPath(name)
		return Config{}, errs
	}
	return c, nil
}
