package config

import (
	"bytes"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// document is the shape of the configuration file, as go-toml decodes it.
type document struct {
	Watch fileWatch `toml:"watch"`
}

// fileWatch is [watch] as written: durations are strings ("90s"); nil is a key not set.
type fileWatch struct {
	Interval    *string `toml:"interval"`
	Margin      *string `toml:"margin"`
	Message     *string `toml:"message"`
	NativeGrace *string `toml:"native_grace"`
	Stagger     *string `toml:"stagger"`
	MaxPerReset *int    `toml:"max_per_reset"`
	MaxAttempts *int    `toml:"max_attempts"`
	LogLevel    *string `toml:"log_level"`
}

// spot is where a key's value is in the file: its line and its text as written.
type spot struct {
	line int
	got  string
}

// decode decodes data into doc, in strict mode: an unknown table or key is an error. A
// mistake becomes an *Error with the line, and the key when the mistake is about one.
func decode(data []byte, doc *document) *Error {
	err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(doc)
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		return unknown(&strict.Errors[0])
	}
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return &Error{Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := de.Position()
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	key := []string(de.Key())
	name, inWatch := strings.CutPrefix(strings.Join(key, "."), "watch.")
	f := lookup(name)
	switch {
	case len(key) == 1 && key[0] == "watch":
		return &Error{Line: line, Msg: "watch must be one table: write [watch] once, with every setting under it"}
	case !inWatch || f == nil:
		return syntax(data, line, msg)
	case strings.HasPrefix(msg, "cannot decode TOML"):
		at, _ := locate(data)
		got := at["watch."+name].got
		return &Error{Line: line, Key: "watch." + name, Msg: "must be " + f.want + unquote(f, got), Got: got}
	case f.num != nil && (strings.Contains(msg, "too large") || strings.Contains(msg, "cannot be stored")):
		at, _ := locate(data)
		got := at["watch."+name].got
		return &Error{Line: line, Key: "watch." + name, Msg: outOfRange(f, got), Got: got}
	}
	return syntax(data, line, msg)
}

// syntax is the *Error of a line go-toml cannot parse. On a line that sets a known key it
// names the key, what its value must be and the value as written.
func syntax(data []byte, line int, msg string) *Error {
	e := &Error{Line: line, Msg: msg}
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return e
	}
	k, v, ok := strings.Cut(lines[line-1], "=")
	if !ok {
		return e
	}
	_, table := locate(data)
	key := strings.Join(append(table, strings.Split(strings.ReplaceAll(k, " ", ""), ".")...), ".")
	name, inWatch := strings.CutPrefix(key, "watch.")
	f := lookup(name)
	switch {
	case !inWatch || f == nil:
		return e
	case strings.HasSuffix(msg, "already defined"):
		return &Error{Line: line, Key: key, Msg: "duplicate key; keep one"}
	}
	return &Error{Line: line, Key: key, Msg: "must be " + f.want + "; " + msg, Got: strings.TrimSpace(strings.TrimSuffix(v, "\r"))}
}

// unquote is the hint for a number written as a string.
func unquote(f *field, got string) string {
	if s, err := strconv.Unquote(got); f.num != nil && err == nil {
		if _, err := strconv.Atoi(s); err == nil {
			return ", without quotes"
		}
	}
	return ""
}

// outOfRange says what is wrong with an integer too large for an int: the rule's words when
// the rule refuses it anyway.
func outOfRange(f *field, got string) string {
	w := Default().Watch
	*f.num(&w) = math.MaxInt
	if strings.HasPrefix(got, "-") {
		*f.num(&w) = math.MinInt
	}
	if msg := f.rule(&w); msg != "" {
		return msg
	}
	return "is too large"
}

// unknown is the *Error of a table or key that is not cac-tmux's.
func unknown(de *toml.DecodeError) *Error {
	line, _ := de.Position()
	key := []string(de.Key())
	full := strings.Join(key, ".")
	table := strings.HasSuffix(de.Error(), "missing table")
	switch {
	case table:
		return &Error{Line: line, Msg: "unknown table [" + full + "]; the known table is [watch]"}
	case len(key) == 1 && lookup(full) != nil:
		return &Error{Line: line, Key: full, Msg: "is outside any table; put it under [watch] or write watch." + full}
	case len(key) == 1:
		return &Error{Line: line, Key: full, Msg: "unknown key outside any table; settings go under [watch]"}
	case key[0] != "watch":
		return &Error{Line: line, Msg: "unknown table " + key[0] + " in the key " + full + "; the known table is [watch]"}
	}
	hint := ""
	if s := suggest(strings.Join(key[1:], ".")); s != "" {
		hint = " (did you mean " + s + "?)"
	}
	return &Error{Line: line, Key: full, Msg: "unknown key" + hint + "; the known keys of [watch] are " + strings.Join(names(), ", ")}
}

// apply puts the values of the file over w, then checks every rule. at says where each key
// is, for the errors.
func (fw *fileWatch) apply(w Watch, at map[string]spot) (Watch, *Error) {
	text := map[string]*string{"interval": fw.Interval, "margin": fw.Margin, "message": fw.Message,
		"native_grace": fw.NativeGrace, "stagger": fw.Stagger, "log_level": fw.LogLevel}
	ints := map[string]*int{"max_per_reset": fw.MaxPerReset, "max_attempts": fw.MaxAttempts}
	for i := range fields {
		f := &fields[i]
		s := text[f.name]
		switch {
		case f.num != nil && ints[f.name] != nil:
			*f.num(&w) = *ints[f.name]
		case s == nil:
		case f.dur != nil:
			d, err := time.ParseDuration(*s)
			if err != nil {
				where := at["watch."+f.name]
				return Watch{}, &Error{Line: where.line, Key: "watch." + f.name, Msg: "must be " + f.want, Got: where.got}
			}
			*f.dur(&w) = d
		default:
			*f.str(&w) = *s
		}
	}
	if err := w.Validate(); err != nil {
		e := err.(*Error)
		if where, ok := at[e.Key]; ok {
			e.Line, e.Got = where.line, where.got
		}
		return Watch{}, e
	}
	return w, nil
}

// locate finds where each key's value is in a document: "watch.margin" → its line and its
// text as written (without a trailing comment). In a document go-toml cannot parse, it finds
// the keys before the mistake; table is then the table the mistake is in.
func locate(data []byte) (at map[string]spot, table []string) {
	at = map[string]spot{}
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyOf(e.Key())
		case unstable.KeyValue:
			key := strings.Join(append(append([]string(nil), table...), keyOf(e.Key())...), ".")
			v := e.Value()
			got := string(p.Raw(v.Raw))
			if v.Raw.Length == 0 || v.Kind == unstable.InlineTable { // arrays and inline tables: all after the =
				_, got, _ = strings.Cut(string(p.Raw(e.Raw)), "=")
			}
			at[key] = spot{line: p.Shape(e.Raw).Start.Line, got: strings.TrimSpace(got)}
		}
	}
	return at, table
}

func keyOf(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
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
