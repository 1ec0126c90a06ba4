package config

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// spot is where a key's value is in the file: its line, the offset of its key (the order of
// keys on one line) and its text as written.
type spot struct {
	line, off int
	got       string
}

// parse reads a file over Default(): go-toml decodes it (a syntax error stops there, and is
// the one mistake), then every key is checked against the registry (tables) and every table
// against its own rule. It returns every mistake in file order (by line, then key), or the
// line of each key the file sets.
func parse(data []byte) (Config, map[string]int, Errors) {
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return Config{}, nil, Errors{{Line: 1, Msg: "the file is UTF-16 text; save it as UTF-8"}}
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return Config{}, nil, Errors{decodeError(data, err)}
	}
	r := reader{c: Default(), lines: map[string]int{}}
	r.at, r.headers, _ = locate(data)
	r.table(doc, nil)
	for _, e := range checkTables(&r.c) { // every key has a valid value or its default here
		e.Line, e.Got = r.at[e.Key].line, cmp.Or(r.at[e.Key].got, e.Got)
		r.fail(e)
	}
	if len(r.errs) > 0 {
		slices.SortStableFunc(r.errs, func(a, b *Error) int { // the same line: by key, as written
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(r.at[a.Key].off, r.at[b.Key].off),
				cmp.Compare(a.Key, b.Key), cmp.Compare(a.Msg, b.Msg))
		})
		return Config{}, nil, r.errs
	}
	return r.c, r.lines, nil
}

// reader walks a decoded file.
type reader struct {
	c       Config
	lines   map[string]int
	at      map[string]spot // each key's value
	headers map[string]int  // each [table] and [[table]] header's line
	errs    Errors
}

// table reads the keys of m, the table at path (nil: the top of the file).
func (r *reader) table(m map[string]any, path []string) {
	t := lookupTable(strings.Join(path, "."))
	for k, v := range m {
		p := append(path[:len(path):len(path)], k)
		full := strings.Join(p, ".")
		_, isMap := v.(map[string]any)
		_, header := r.headers[full]
		switch {
		case header && lookupTable(full) == nil && !hasTableUnder(full): // [policy.weekly]
			r.fail(r.unknown(t, p, true))
		case t != nil && t.key(k) != nil:
			r.value(t.key(k), v, full)
		case lookupTable(full) != nil && isMap:
			r.table(v.(map[string]any), p)
		case lookupTable(full) != nil:
			r.fail(&Error{Line: r.line(full), Msg: full + " must be one table: write [" + full + "] once, with every setting under it"})
		case isMap && hasTableUnder(full):
			r.table(v.(map[string]any), p)
		default:
			r.fail(r.unknown(t, p, isMap))
		}
	}
}

// value reads one key's value and checks its rule.
func (r *reader) value(s setting, v any, full string) {
	where := r.at[full]
	if hint, ok := s.fromTOML(&r.c, v); !ok {
		r.fail(&Error{Line: where.line, Key: full, Msg: "must be " + s.base().want + hint, Got: where.got})
		return
	}
	if msg := s.check(&r.c); msg != "" {
		r.fail(&Error{Line: where.line, Key: full, Msg: msg, Got: where.got})
		def := Default()
		s.copyTo(&r.c, &def) // the tables' rules see the default, not a value already refused
		return
	}
	r.lines[full] = where.line
}

func (r *reader) fail(e *Error) { r.errs = append(r.errs, e) }

// line is where the key or table full is: its value, its header, or the first key under it
// (a table made by dotted keys or an inline table).
func (r *reader) line(full string) int {
	if s, ok := r.at[full]; ok {
		return s.line
	}
	if l, ok := r.headers[full]; ok {
		return l
	}
	return r.at[r.firstUnder(full)].line
}

// firstUnder is the key under the table full that comes first in the file.
func (r *reader) firstUnder(full string) string {
	first := ""
	for k, s := range r.at {
		if strings.HasPrefix(k, full+".") && (first == "" || s.line < r.at[first].line || s.line == r.at[first].line && k < first) {
			first = k
		}
	}
	return first
}

// hasTableUnder reports whether a known table's name starts with prefix and a dot ("notify"
// for a table [notify.hook]).
func hasTableUnder(prefix string) bool {
	for _, t := range tables {
		if strings.HasPrefix(t.name, prefix+".") {
			return true
		}
	}
	return false
}

// unknown is the *Error of a key or table that is not cac-tmux's: p is its path, t the known
// table it is in (nil: none), isMap whether it is a table.
func (r *reader) unknown(t *table, p []string, isMap bool) *Error {
	full := strings.Join(p, ".")
	_, header := r.headers[full]
	switch {
	case isMap && header:
		return &Error{Line: r.headers[full], Msg: "unknown table [" + full + "]" + didYouMean(suggestTable(full), "[", "]") + "; the known tables are " + tableNames()}
	case isMap && t == nil:
		key := r.firstUnder(full)
		return &Error{Line: r.at[key].line, Msg: "unknown table " + full + " in the key " + key + didYouMean(suggestTable(full), "", "") + "; the known tables are " + tableNames()}
	case isMap: // a dotted key under a known table: name its first key
		key := r.firstUnder(full)
		return &Error{Line: r.at[key].line, Key: key, Msg: "unknown key; the known keys of [" + t.name + "] are " + strings.Join(t.names(), ", ")}
	case t == nil && len(p) == 1:
		if in := tablesWith(full); len(in) > 0 {
			return &Error{Line: r.line(full), Key: full, Msg: "is outside any table; put it under [" + in[0] + "] or write " + in[0] + "." + full}
		}
		return &Error{Line: r.line(full), Key: full, Msg: "unknown key outside any table; settings go under " + tableNames()}
	case t == nil:
		return &Error{Line: r.line(full), Msg: "unknown table " + strings.Join(p[:len(p)-1], ".") + " in the key " + full + "; the known tables are " + tableNames()}
	}
	return &Error{Line: r.line(full), Key: full, Msg: "unknown key" + didYouMean(suggestKey(t, p[len(p)-1]), "", "") +
		"; the known keys of [" + t.name + "] are " + strings.Join(t.names(), ", ")}
}

func didYouMean(s, before, after string) string {
	if s == "" {
		return ""
	}
	return " (did you mean " + before + s + after + "?)"
}

// tablesWith are the tables that have a key named name.
func tablesWith(name string) []string {
	var in []string
	for _, t := range tables {
		if t.key(name) != nil {
			in = append(in, t.name)
		}
	}
	return in
}

// decodeError is the *Error of a file go-toml cannot decode.
func decodeError(data []byte, err error) *Error {
	var de *toml.DecodeError
	if !errors.As(err, &de) {
		return &Error{Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	line, _ := de.Position()
	msg := strings.TrimPrefix(de.Error(), "toml: ")
	if full := strings.Join(de.Key(), "."); lookupTable(full) != nil && strings.Contains(msg, "already exists") {
		return &Error{Line: line, Msg: full + " must be one table: write [" + full + "] once, with every setting under it"}
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
	_, _, table := locate(data)
	key := strings.Join(append(table, strings.Split(strings.ReplaceAll(k, " ", ""), ".")...), ".")
	s := lookupKey(key)
	got := strings.TrimSpace(strings.TrimSuffix(v, "\r"))
	switch {
	case s == nil:
		return e
	case strings.HasSuffix(msg, "already defined"):
		return &Error{Line: line, Key: key, Msg: "duplicate key; keep one"}
	case strings.Contains(msg, "too large"):
		return &Error{Line: line, Key: key, Msg: s.outOfRange(strings.HasPrefix(got, "-")), Got: got}
	}
	return &Error{Line: line, Key: key, Msg: "must be " + s.base().want + "; " + msg, Got: got}
}

// locate finds where each key's value is in a document: "watch.margin" → its line and its
// text as written (without a trailing comment), the keys of inline tables included; and the
// line of each table header. In a document go-toml cannot parse, it finds what is before the
// mistake; table is then the table the mistake is in.
func locate(data []byte) (at map[string]spot, headers map[string]int, table []string) {
	at, headers = map[string]spot{}, map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyOf(e.Key())
			it := e.Key()
			it.Next() // a header's own Raw is empty: its first key part's is where it is
			headers[strings.Join(table, ".")] = p.Shape(it.Node().Raw).Start.Line
		case unstable.KeyValue:
			locateValue(&p, e, p.Shape(e.Raw).Start.Line, table, at)
		}
	}
	return at, headers, table
}

// locateValue records a key-value e under the table path, and the keys of an inline table
// value, all on line (the line of the expression).
func locateValue(p *unstable.Parser, e *unstable.Node, line int, path []string, at map[string]spot) {
	key := append(slices.Clone(path), keyOf(e.Key())...)
	v := e.Value()
	got := string(p.Raw(v.Raw))
	if v.Raw.Length == 0 || v.Kind == unstable.InlineTable { // arrays and inline tables: all after the =
		_, got, _ = strings.Cut(string(p.Raw(e.Raw)), "=")
	}
	it := e.Key()
	it.Next()
	at[strings.Join(key, ".")] = spot{line: line, off: p.Shape(it.Node().Raw).Start.Offset, got: strings.TrimSpace(got)}
	if v.Kind == unstable.InlineTable {
		for it := v.Children(); it.Next(); {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				locateValue(p, kv, line, key, at)
			}
		}
	}
}

func keyOf(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// suggestKey returns the key of t closest to name, or "" when none is close.
func suggestKey(t *table, name string) string {
	if t == &policyTable {
		if k := suggestKind(name); k != "" {
			return k
		}
	}
	return closest(name, t.names())
}

// suggestTable returns the known table closest to name, or "" when none is close.
func suggestTable(name string) string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.name
	}
	return closest(name, names)
}

// closest returns the candidate closest to s (case, "-" and "_" aside) within two edits, or
// "" when none is.
func closest(s string, candidates []string) string {
	if len(s) > 30 {
		return ""
	}
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "-", "_") }
	best, bestD := "", 3
	for _, c := range candidates {
		if d := distance(norm(s), norm(c)); d < bestD {
			best, bestD = c, d
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
