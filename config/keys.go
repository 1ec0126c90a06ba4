package config

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A table of the file ([watch]) and its keys, in file order. Adding a table is a field of
// Config, its default in Default, a table variable with its keys (see panesTable) and one
// entry in tables; a key is one call of newKey (or accessKey); a new type of value is one
// kind. Its tmux options, its flag (KeyFlags), Example, `config check` and the errors follow.
type table struct {
	name string
	help []string // comment lines above the table in Example
	keys []setting
	// check, when set, is a rule over the whole table, checked once every key has its value
	// and passed its own rule (a rule between keys: "at most one of token_file and
	// token_env"): "" or the key it is about, what is wrong and the fix, and the value as
	// written in the file.
	check func(c *Config) (key, msg, got string)
}

// checkTables applies the tables' own rules (table.check) to c and returns the *Error of
// every mistake, with Key, Msg and Got, table by table in file order. A rule names one key at
// a time, so it is applied again with each key it named at its default (in a copy of c) until
// it names none: every key that breaks it is listed, by the one rule. A key named again, or
// a mistake about no key of the table, ends its table's list.
func checkTables(c *Config) []*Error {
	work, def := *c, Default() // a setter replaces a value (a map is copied first): c stays as it is
	var errs []*Error
	for _, t := range tables {
		named := map[string]bool{}
		for t.check != nil {
			key, msg, got := t.check(&work)
			if msg == "" || named[key] {
				break
			}
			errs = append(errs, &Error{Key: key, Msg: msg, Got: got})
			s := lookupKey(key)
			if s == nil {
				break
			}
			named[key] = true
			s.copyTo(&work, &def)
		}
	}
	return errs
}

// tables are the tables of the file, in file order.
var tables = slices.Concat([]*table{&watchTable, &policyTable, &panesTable}, agentTables(),
	[]*table{&notifyTable, &serversTable, &hostsTable, &phoneTable, &accountsTable})

// setting is one key of a table, whatever the type of its value.
type setting interface {
	base() *meta
	// fromTOML sets the key in c from a value go-toml decoded; ok=false for a value of
	// another type, with a hint to add to "must be WANT" ("", or ", without quotes").
	fromTOML(c *Config, v any) (hint string, ok bool)
	// fromText sets the key in c from the text of a tmux option or a flag; "" or what is
	// wrong with it.
	fromText(c *Config, s string) string
	copyTo(dst, src *Config)
	// format is the value in c as it is written in the file.
	format(c *Config) string
	// text is the value in c as a flag or a tmux option gives it: what fromText reads back.
	text(c *Config) string
	// typeName names the type of the value in the help of a flag: "duration".
	typeName() string
	// check is the key's rule on its value in c: "" or what is wrong and the fix.
	check(c *Config) string
	// outOfRange is what is wrong with an integer too large for an int (negative: too
	// small): the rule's words when the rule refuses it anyway.
	outOfRange(neg bool) string
}

// meta is what every key has, whatever its type.
type meta struct {
	table, name string
	want        string // what the value must be, after "must be "
	help        string // what it does, one line: in Example, `config check` and its flag's help
	// flag is the flag of `cac-tmux watch` that sets it ("--margin"), "" when none: watch
	// defines it from KeyFlags, with help and the default, so this is all a new flag takes.
	flag string
}

func (m *meta) base() *meta { return m }

// key is the full name of the key: "watch.margin".
func (m *meta) key() string { return m.table + "." + m.name }

// kind is a type of value: how it is read from a decoded TOML value and from text, and
// written back.
type kind[T any] struct {
	name     string // in the help of a flag: "duration", "string", "int", "strings"
	fromTOML func(v any) (T, bool)
	// fromText reads a flag or a tmux option; errRange for an integer out of range.
	fromText func(s string) (T, error)
	text     func(T) string // the value as fromText reads it: a flag's default
	format   func(T) string
	hint     func(v any) string // nil: no hint for a value of another type
}

// field is a key whose value is a T.
type field[T any] struct {
	meta
	kind *kind[T]
	get  func(*Config) T
	set  func(*Config, T)
	rule func(T) string // nil: every value of the type is valid
}

// newKey is a key of a table: where its value is in a Config (at) and its rule.
func newKey[T any](m meta, k *kind[T], at func(*Config) *T, rule func(T) string) setting {
	return accessKey(m, k, func(c *Config) T { return *at(c) }, func(c *Config, v T) { *at(c) = v }, rule)
}

// accessKey is a key whose value is read and written by get and set (a value in a map).
func accessKey[T any](m meta, k *kind[T], get func(*Config) T, set func(*Config, T), rule func(T) string) setting {
	return &field[T]{meta: m, kind: k, get: get, set: set, rule: rule}
}

func (f *field[T]) fromTOML(c *Config, v any) (string, bool) {
	x, ok := f.kind.fromTOML(v)
	if !ok {
		if f.kind.hint != nil {
			return f.kind.hint(v), false
		}
		return "", false
	}
	f.set(c, x)
	return "", true
}

func (f *field[T]) fromText(c *Config, s string) string {
	x, err := f.kind.fromText(s)
	switch {
	case errors.Is(err, errRange):
		return f.outOfRange(strings.HasPrefix(strings.TrimSpace(s), "-"))
	case err != nil:
		return "must be " + f.want
	}
	f.set(c, x)
	return ""
}

func (f *field[T]) copyTo(dst, src *Config) { f.set(dst, f.get(src)) }

func (f *field[T]) format(c *Config) string { return f.kind.format(f.get(c)) }

func (f *field[T]) text(c *Config) string { return f.kind.text(f.get(c)) }

func (f *field[T]) typeName() string { return f.kind.name }

func (f *field[T]) check(c *Config) string {
	if f.rule == nil {
		return ""
	}
	return f.rule(f.get(c))
}

func (f *field[T]) outOfRange(neg bool) string {
	huge := math.MaxInt
	if neg {
		huge = math.MinInt
	}
	if v, ok := any(huge).(T); ok && f.rule != nil {
		if msg := f.rule(v); msg != "" {
			return msg
		}
	}
	return "is too large"
}

// errRange is an integer out of an int's range.
var errRange = errors.New("out of range")

// The kinds of value.
var (
	durationKind = &kind[time.Duration]{
		name: "duration",
		fromTOML: func(v any) (time.Duration, bool) {
			s, ok := v.(string)
			if !ok {
				return 0, false
			}
			d, err := time.ParseDuration(s)
			return d, err == nil
		},
		fromText: time.ParseDuration,
		text:     formatDuration,
		format:   func(d time.Duration) string { return tomlString(formatDuration(d)) },
	}
	intKind = &kind[int]{
		name: "int",
		fromTOML: func(v any) (int, bool) {
			n, ok := v.(int64)
			return int(n), ok && n >= math.MinInt && n <= math.MaxInt
		},
		fromText: func(s string) (int, error) {
			n, err := strconv.Atoi(s)
			if errors.Is(err, strconv.ErrRange) {
				return 0, errRange
			}
			return n, err
		},
		text:   strconv.Itoa,
		format: strconv.Itoa,
		hint: func(v any) string {
			if s, ok := v.(string); ok {
				if _, err := strconv.Atoi(s); err == nil {
					return ", without quotes"
				}
			}
			return ""
		},
	}
	textKind = &kind[string]{
		name:     "string",
		fromTOML: func(v any) (string, bool) { s, ok := v.(string); return s, ok },
		fromText: func(s string) (string, error) { return s, nil },
		text:     func(s string) string { return s },
		format:   tomlString,
	}
	boolKind = &kind[bool]{
		name:     "bool",
		fromTOML: func(v any) (bool, bool) { b, ok := v.(bool); return b, ok },
		fromText: strconv.ParseBool,
		text:     strconv.FormatBool,
		format:   strconv.FormatBool,
		hint: func(v any) string {
			if s, ok := v.(string); ok && (s == "true" || s == "false") {
				return ", without quotes"
			}
			return ""
		},
	}
	// listKind is an array of strings in the file and a comma-separated list in text
	// ("work*, notes": spaces around an item are dropped, and so are empty items). An empty
	// list is nil.
	listKind = &kind[[]string]{
		name: "strings",
		fromTOML: func(v any) ([]string, bool) {
			a, ok := v.([]any)
			if !ok {
				return nil, false
			}
			var l []string
			for _, x := range a {
				s, ok := x.(string)
				if !ok {
					return nil, false
				}
				l = append(l, s)
			}
			return l, true
		},
		fromText: func(s string) ([]string, error) {
			var l []string
			for item := range strings.SplitSeq(s, ",") {
				if item = strings.TrimSpace(item); item != "" {
					l = append(l, item)
				}
			}
			return l, nil
		},
		text: func(l []string) string { return strings.Join(l, ", ") },
		format: func(l []string) string {
			q := make([]string, len(l))
			for i, s := range l {
				q[i] = tomlString(s)
			}
			return "[" + strings.Join(q, ", ") + "]"
		},
	}
)

// formatDuration writes d as time.Duration.String does, without the zero units at its end:
// "1m" for 1m0s, "1h" for 1h0m0s, "0s" for 0.
func formatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// tomlString writes s as a TOML basic string: quotes and backslashes escaped, and every
// character that is not printable as \uXXXX (a byte that is not UTF-8 as \xNN, which TOML
// cannot hold: such a value never comes from a file, only from a flag or a tmux option, and
// is only ever shown in an error).
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x` + leftPad(strconv.FormatUint(uint64(s[0]), 16), 2))
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r > 0xffff && !strconv.IsPrint(r):
			b.WriteString(`\U` + leftPad(strconv.FormatUint(uint64(r), 16), 8))
		case !strconv.IsPrint(r):
			b.WriteString(`\u` + leftPad(strconv.FormatUint(uint64(r), 16), 4))
		default:
			b.WriteRune(r)
		}
		s = s[size:]
	}
	b.WriteByte('"')
	return b.String()
}

func leftPad(s string, n int) string { return strings.Repeat("0", max(n-len(s), 0)) + s }

// watchTable is [watch]: the settings of `cac-tmux watch`.
var watchTable = table{name: "watch", help: []string{"How `cac-tmux watch` looks at the panes and resumes them."}, keys: []setting{
	watchKey("interval", wantDuration, "time between two looks at the tmux server (at least 100ms)", "--interval",
		durationKind, func(w *Watch) *time.Duration { return &w.Interval }, func(d time.Duration) string { return atLeast(d, minInterval) }),
	watchKey("margin", wantDuration, "wait after the reset instant before resuming (the printed reset is truncated to the minute)", "--margin",
		durationKind, func(w *Watch) *time.Duration { return &w.Margin }, notNegative),
	watchKey("exact_margin", wantDuration, "wait after a reset Claude Code's transcript gives to the second, instead of margin", "",
		durationKind, func(w *Watch) *time.Duration { return &w.ExactMargin }, notNegative),
	watchKey("message", `a string like "continue"`, "what is typed into a stopped session (one line; Enter is sent separately)", "--message",
		textKind, func(w *Watch) *string { return &w.Message }, CheckMessage),
	watchKey("native_grace", wantDuration, "extra wait while Claude Code's own auto-continue is armed, so that it fires first", "",
		durationKind, func(w *Watch) *time.Duration { return &w.NativeGrace }, notNegative),
	watchKey("stagger", wantDuration, "time between two panes that wake at the same reset", "",
		durationKind, func(w *Watch) *time.Duration { return &w.Stagger }, notNegative),
	watchKey("max_per_reset", "an integer like 2", "how many panes wake per reset at most; 0: no cap", "",
		intKind, func(w *Watch) *int { return &w.MaxPerReset }, func(n int) string {
			if n < 0 {
				return "must not be negative; 0 means no cap"
			}
			return ""
		}),
	watchKey("max_attempts", "an integer like 3", "resumes tried before a pane is marked failed (1 to 100)", "",
		intKind, func(w *Watch) *int { return &w.MaxAttempts }, func(n int) string {
			if n < 1 || n > maxAttempts {
				return "must be from 1 to 100"
			}
			return ""
		}),
	watchKey("log_level", `one of "debug", "info", "warn", "error"`, "debug, info, warn or error (pane text is logged at debug only)", "--log-level",
		textKind, func(w *Watch) *string { return &w.LogLevel }, func(l string) string {
			if slices.Contains(logLevels, l) {
				return ""
			}
			return "must be one of debug, info, warn, error"
		}),
}}

// watchKey is a key of [watch].
func watchKey[T any](name, want, help, flag string, k *kind[T], at func(*Watch) *T, rule func(T) string) setting {
	return newKey(meta{table: "watch", name: name, want: want, help: help, flag: flag}, k,
		func(c *Config) *T { return at(&c.Watch) }, rule)
}

const wantDuration = `a duration like "90s"`

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

// CheckMessage is the rule of a resume message (watch.message, a pane's @cac_message): "" when m
// follows it, else what is wrong and how to write it instead. It is typed into Claude Code's
// input box (CheckInput), and `cac-tmux switch` also gives it to claude as its first prompt on
// the command line, after "--"; a leading "-" is refused all the same, so that no message is
// ever read as an option (`--version` left the switched pane a shell).
func CheckMessage(m string) string {
	if msg := CheckInput(m); msg != "" {
		return msg
	}
	if strings.HasPrefix(strings.TrimLeftFunc(m, unicode.IsSpace), "-") {
		return `must not start with "-" (claude would read it as an option); write it as words, like "continue"`
	}
	return ""
}

// CheckInput is the rule of a text typed into Claude Code's input box as a prompt (the resume
// message, a reply from the phone): "" when m follows it, else what is wrong. It is one line
// (a newline would submit what precedes it at once) of UTF-8 text without control characters
// (an escape would be read as keys), not blank, and it does not start, after spaces, with "!"
// or "/": typed first into the box, "!" runs the rest as a shell command without asking, and
// "/" runs a slash command, typed or as claude's first prompt on its command line (Claude
// Code 2.1.332: `claude --resume ID -- /cost` shows the costs).
func CheckInput(m string) string {
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
	switch strings.TrimLeftFunc(m, unicode.IsSpace)[0] {
	case '!':
		return `must not start with "!" (Claude Code would run the rest as a shell command); write it as words, like "continue"`
	case '/':
		return `must not start with "/" (Claude Code would run it as a slash command); write it as words, like "continue"`
	}
	return ""
}

// validate checks every key of c by its rule, then each table's rule between its keys. It
// returns nil or the *Error of the first key in file order that breaks its rule (Key, Msg and
// Got set, no Path or Line).
func (c Config) validate() error {
	for _, t := range tables {
		for _, s := range t.keys {
			if msg := s.check(&c); msg != "" {
				return &Error{Key: s.base().key(), Msg: msg, Got: s.format(&c)}
			}
		}
	}
	if errs := checkTables(&c); len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// validate checks every setting of w by its rule. It returns nil or the *Error of the first
// key in file order that breaks its rule (Key, Msg and Got set, no Path or Line).
func (w Watch) validate() error {
	c := Config{Watch: w}
	for _, s := range watchTable.keys {
		if msg := s.check(&c); msg != "" {
			return &Error{Key: s.base().key(), Msg: msg, Got: s.format(&c)}
		}
	}
	return nil
}

// key is the key of t named name, nil when there is none.
func (t *table) key(name string) setting {
	for _, s := range t.keys {
		if s.base().name == name {
			return s
		}
	}
	return nil
}

func (t *table) names() []string {
	n := make([]string, len(t.keys))
	for i, s := range t.keys {
		n[i] = s.base().name
	}
	return n
}

// lookupTable is the table named name ("watch"), nil when there is none.
func lookupTable(name string) *table {
	for _, t := range tables {
		if t.name == name {
			return t
		}
	}
	return nil
}

// lookupKey is the key of full name key ("watch.margin"), nil when there is none.
func lookupKey(key string) setting {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return nil
	}
	if t := lookupTable(key[:i]); t != nil {
		return t.key(key[i+1:])
	}
	return nil
}

// tableNames are the known tables as written in the file: "[watch], [policy], [panes]".
func tableNames() string {
	n := make([]string, len(tables))
	for i, t := range tables {
		n[i] = "[" + t.name + "]"
	}
	return strings.Join(n, ", ")
}
