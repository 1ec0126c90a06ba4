package tmuxctl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// fieldName is the tmux variable a paneFields entry expands ("pane_id", "@cac_state", …), with
// its modifiers ("s/…/…/:") dropped, the name a lastCheck tests; "%MATCH%" for the
// pre-filter's placeholder.
func fieldName(f string) string {
	if f == "%MATCH%" {
		return f
	}
	if c, ok := strings.CutPrefix(f, "#{?"); ok {
		name, _, _ := strings.Cut(c, ",")
		return name
	}
	name := strings.TrimSuffix(strings.TrimPrefix(f, "#{"), "}")
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// values are the fields of one listing row by tmux variable name.
type values map[string]string

// paneValues are the fields of an ordinary row for pane %id.
func paneValues(id int) values {
	return values{
		"pane_id": "%" + strconv.Itoa(id), "pane_pid": strconv.Itoa(10000 + id), "window_id": "@" + strconv.Itoa(id/3),
		"window_index": strconv.Itoa(id / 3), "pane_index": strconv.Itoa(id % 3), "pane_width": "80", "pane_height": "24",
		"pane_dead": "0", "pane_in_mode": "0", "pane_input_off": "0", "pane_synchronized": "0", "pane_pipe": "0",
		"window_activity": "1795219800", "%MATCH%": "-1", "session_name": "main", "pane_current_command": "bash",
		"@cac_state": "", "@cac_reset": "", "@cac_due": "", "@cac_kind": "", "@cac_zone": "", "@cac_note": "", "@cac_source": "", "@cac_account": "", "@cac_agent": "", "@cac_request": "", "@cac_ignore": "", "@cac_message": "", "@cac_pipe": "",
		"pane_title": "✳ Claude Code",
	}
}

// row builds a listing row in the field order of the real format (paneFields) as a tmux that
// prints output raw would print it: free-text fields as freeText makes them. A field the test
// does not know is an error, so a change of the format cannot go unnoticed here.
func (v values) row() (string, error) {
	f := make([]string, len(paneFields))
	for i, pf := range paneFields {
		s, ok := v[fieldName(pf.format)]
		if !ok {
			return "", fmt.Errorf("the test has no value for list-panes field %q", pf.format)
		}
		switch {
		case strings.HasPrefix(pf.format, freeTextPrefix):
			s = served(s)
		case strings.HasPrefix(pf.format, markedTextPrefix):
			s = strings.ReplaceAll(marked(s), `\`, `\\`)
		}
		f[i] = s
	}
	return strings.Join(f, sep), nil
}

// freeTextPrefix starts every format freeText makes.
var freeTextPrefix = strings.TrimSuffix(freeText(""), "}")

// markedTextPrefix starts every format markedText makes.
var markedTextPrefix = strings.TrimSuffix(markedText(""), "}")

// marked is a value as a markedText field reads back: its control characters as DEL.
func marked(s string) string { return controlsAs(s, 0x7f) }

// served is what tmux makes of a value in freeText: control characters as "?", each
// backslash doubled.
func served(s string) string {
	return strings.ReplaceAll(cleaned(s), `\`, `\\`)
}

// cleaned is a value as a free-text field reads back: its control characters as "?".
func cleaned(s string) string { return controlsAs(s, '?') }

// controlsAs is s with each control character (0x01–0x1f) replaced by mark.
func controlsAs(s string, mark byte) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 0x01 && c <= 0x1f {
			b[i] = mark
		}
	}
	return string(b)
}

// visPrint is what tmux 3.4 (dollar) or 3.5 (not) prints of command output s:
// utf8_strvis(VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH), with tmux 3.4's "$" rule.
func visPrint(s string, dollar bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		_, n := utf8.DecodeRuneInString(s[i:])
		c := s[i]
		switch {
		case n > 1:
			b.WriteString(s[i : i+n])
		case c == '$' && dollar && i+1 < len(s) && dollarNamed(s[i+1]):
			b.WriteString(`\$`)
		case c >= 0x20 && c < 0x7f || c == '\t' || c == '\n':
			b.WriteByte(c)
		case strings.IndexByte("\r\b\a\v\f", c) >= 0:
			b.WriteString(`\` + string("rbavf"[strings.IndexByte("\r\b\a\v\f", c)]))
		case c == 0 && (i+1 == len(s) || !isOctal(s[i+1])):
			b.WriteString(`\0`)
		default:
			fmt.Fprintf(&b, `\%03o`, c)
		}
		i += n
	}
	return b.String()
}

func mustRow(tb testing.TB, v values) string {
	tb.Helper()
	r, err := v.row()
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// with returns a copy of v with some fields replaced (name, value, name, value, …).
func (v values) with(kv ...string) values {
	c := make(values, len(v))
	for k, x := range v {
		c[k] = x
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

// TestPaneFormatFieldsAreKnown: every field of the real format is one the row builder fills,
// and the format has as many fields as parsePanes expects.
func TestPaneFormatFieldsAreKnown(t *testing.T) {
	v := paneValues(1)
	seen := map[string]bool{}
	for _, pf := range paneFields[:len(paneFields)-1] { // the last is rowEnd, the pane ID again
		n := fieldName(pf.format)
		if _, ok := v[n]; !ok {
			t.Errorf("format field %q (%s) is unknown to the row builder", pf.format, n)
		}
		if seen[n] {
			t.Errorf("format field %s appears twice", n)
		}
		seen[n] = true
	}
	if len(seen) != len(v) {
		t.Errorf("the format has %d fields, the row builder fills %d", len(seen), len(v))
	}
	if n := strings.Count(paneFormat(Search{}), "pane_title}"); n != 1 || !strings.HasSuffix(paneFormat(Search{}), sep+freeText("pane_title")+sep+rowEnd.format) {
		t.Errorf("paneFormat does not end with the title field and the row's end: %q", paneFormat(Search{}))
	}
}

// TestParsePanes500 parses a listing of 500 panes, then the same listing with every row twice
// (windows linked into two sessions): 500 panes either way, in order, with their fields.
func TestParsePanes500(t *testing.T) {
	var rows, twice []string
	for i := range 500 {
		v := paneValues(i).with("pane_title", fmt.Sprintf("title %d -:- \x1f x", i), "@cac_note", strings.Repeat("n", i))
		r := mustRow(t, v)
		rows = append(rows, r)
		twice = append(twice, r, mustRow(t, v.with("session_name", "linked")))
	}
	for name, out := range map[string]string{"once": strings.Join(rows, "\n") + "\n", "twice": strings.Join(twice, "\n") + "\n"} {
		ps, err := parsePanes(out)
		if err != nil {
			t.Fatalf("%s: parsePanes error: %v", name, err)
		}
		if len(ps) != 500 {
			t.Fatalf("%s: parsePanes returned %d panes, want 500", name, len(ps))
		}
		for i, p := range ps {
			if p.ID != "%"+strconv.Itoa(i) || p.PID != 10000+i || p.WindowIndex != i/3 || p.PaneIndex != i%3 ||
				p.Session != "main" || p.Width != 80 || p.Height != 24 || p.Match != -1 || p.Command != "bash" ||
				p.Title != fmt.Sprintf("title %d -:- ? x", i) || p.Options.Note != strings.Repeat("n", i) {
				t.Fatalf("%s: pane %d = %+v", name, i, p)
			}
		}
	}
}

// seedRows are real-looking listing rows and broken ones for the fuzz corpus.
func seedRows(tb testing.TB) []string {
	v := paneValues(3)
	seeds := []string{
		"", "\n", "\n\n\n", sep, strings.Repeat(sep, len(paneFields)-1), strings.Repeat(sep, len(paneFields)+5),
		"%1", "no server running on /tmp/x\n",
		mustRow(tb, v), mustRow(tb, v) + "\n" + mustRow(tb, v.with("session_name", "other")) + "\n",
		mustRow(tb, v.with("pane_title", "a\x1fb\x1f\x1fc\td\x01e\x7f-:-f")),
		mustRow(tb, v.with("pane_title", "")),
		mustRow(tb, v.with("pane_title", "line1")) + "\nline2\n",
		mustRow(tb, v.with("session_name", "")),
		mustRow(tb, v.with("pane_current_command", "a\x1fb")),
		mustRow(tb, v.with("pane_current_command", "a\nb")),
		mustRow(tb, v.with("session_name", "odd_name_x y ünï✳")),
		mustRow(tb, v.with("pane_pid", "99999999999999999999999")),
		mustRow(tb, v.with("pane_pid", "-1", "pane_width", "-5", "pane_height", "0")),
		mustRow(tb, v.with("window_activity", "-9223372036854775808")),
		mustRow(tb, v.with("window_activity", "9223372036854775808")),
		mustRow(tb, v.with("window_activity", "")),
		mustRow(tb, v.with("%MATCH%", "")),
		mustRow(tb, v.with("%MATCH%", "+7")),
		mustRow(tb, v.with("pane_id", "")),
		mustRow(tb, v.with("pane_id", "%")),
		mustRow(tb, v.with("pane_id", "12")),
		mustRow(tb, v.with("pane_dead", "1", "pane_in_mode", "1", "pane_input_off", "1", "pane_synchronized", "1")),
		mustRow(tb, v.with("@cac_state", "waiting", "@cac_note", "x\x1fy")),
		strings.ReplaceAll(mustRow(tb, v), sep, "\t"),
		strings.ReplaceAll(mustRow(tb, v), sep, "_"),
		mustRow(tb, v) + "\r\n",
	}
	return seeds
}

// FuzzParsePanes: any input parses or fails without panicking, quickly; every pane has an ID
// starting with "%", no ID twice, at most one pane per line, and no field holds a newline.
func FuzzParsePanes(f *testing.F) {
	for _, s := range seedRows(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		start := time.Now()
		ps, err := parsePanes(out)
		if d := time.Since(start); d > time.Second {
			t.Errorf("parsePanes of %d bytes took %s", len(out), d)
		}
		if err != nil {
			if ps != nil {
				t.Errorf("parsePanes(%q) = %+v with error %v, want no panes", out, ps, err)
			}
			return
		}
		if lines := strings.Count(out, "\n") + 1; len(ps) > lines {
			t.Errorf("parsePanes(%q): %d panes from %d lines", out, len(ps), lines)
		}
		seen := map[string]bool{}
		for _, p := range ps {
			if p.ID == "" || p.ID[0] != '%' {
				t.Errorf("parsePanes(%q): pane with ID %q", out, p.ID)
			}
			if seen[p.ID] {
				t.Errorf("parsePanes(%q): ID %s twice", out, p.ID)
			}
			seen[p.ID] = true
			for _, s := range append([]string{p.ID, p.WindowID, p.Session, p.Command, p.Title}, p.Options.Values()...) {
				if strings.Contains(s, "\n") {
					t.Errorf("parsePanes(%q): a field of %s holds a newline: %q", out, p.ID, s)
				}
			}
		}
	})
}

// FuzzParsePanesRow builds a row in the real format from fuzzed fields, as each kind of tmux
// prints it (raw; escaped by tmux 3.4, with its "$" rule; escaped by tmux 3.5): it parses back
// to exactly those fields, free text with its control characters as "?", whatever the free
// text holds (a separator, "\037", a backslash, invalid UTF-8, a newline). No text can forge a
// field or a row.
func FuzzParsePanesRow(f *testing.F) {
	f.Add(7, 4242, 1, 0, 120, 40, true, int64(1795219800), 2, "main", "claude", "waiting", "a note", "✳ Claude Code")
	f.Add(0, -1, -1, -1, -1, -1, false, int64(-1), -1, "", "", "", "", "")
	f.Add(1<<62, 1<<62, 0, 0, 0, 0, false, int64(1)<<62, 0, "odd_name_x y", "a\x1fb", "x\ny", "", "t\x1f-:-\x01\t")
	f.Add(5, 1, 2, 3, 500, 200, false, int64(0), 200, "ünï✳ ü", "2.1.329", "", "n;o;t;e", "⠂ Claude Code\n%9")
	f.Add(5, 1, 2, 3, 500, 200, false, int64(0), 200, `a\037b`, `\`, `\\037`, `$HOME\$x`, "\\\x1f\xff\x7f\\0")
	f.Fuzz(func(t *testing.T, id, pid, wi, pi, w, h int, dead bool, act int64, match int,
		session, command, state, note, title string) {
		v := values{
			"pane_id": "%" + strconv.Itoa(id), "pane_pid": strconv.Itoa(pid), "window_id": "@" + strconv.Itoa(wi),
			"window_index": strconv.Itoa(wi), "pane_index": strconv.Itoa(pi), "pane_width": strconv.Itoa(w),
			"pane_height": strconv.Itoa(h), "pane_dead": map[bool]string{true: "1", false: "0"}[dead],
			"pane_in_mode": "0", "pane_input_off": "1", "pane_synchronized": "0", "pane_pipe": "1",
			"window_activity": strconv.FormatInt(act, 10), "%MATCH%": strconv.Itoa(match),
			"session_name": session, "pane_current_command": command,
			"@cac_state": state, "@cac_reset": "", "@cac_due": "", "@cac_kind": "session", "@cac_zone": "", "@cac_note": note, "@cac_source": "", "@cac_account": "", "@cac_agent": "",
			"@cac_request": "", "@cac_ignore": "", "@cac_message": "", "@cac_pipe": "42:" + note, "pane_title": title,
		}
		row, err := v.row()
		if err != nil {
			t.Fatal(err)
		}
		want := Pane{ID: "%" + strconv.Itoa(id), PID: pid, Session: cleaned(session), WindowIndex: wi, PaneIndex: pi,
			WindowID: "@" + strconv.Itoa(wi), Width: w, Height: h, Dead: dead, InputOff: true,
			WindowActivity: time.Unix(act, 0), Match: match, Command: cleaned(command), Pipe: true, PipeMark: cleaned(note), PipePID: 42,
			Options: Options{State: cleaned(state), Kind: "session", Note: cleaned(note)}, Title: cleaned(title)}
		for name, out := range map[string]string{"raw": row, "tmux 3.4": visPrint(row, true), "tmux 3.5": visPrint(row, false)} {
			ps, err := parsePanes(out + "\n")
			if err != nil {
				t.Fatalf("%s: parsePanes(%q) error: %v", name, out, err)
			}
			if len(ps) != 1 || ps[0] != want {
				t.Fatalf("%s: parsePanes(%q) = %+v, want [%+v]", name, out, ps, want)
			}
		}
	})
}

// FuzzClassify: any stderr maps to nil or one of the sentinel errors, and tmux's messages to
// theirs whatever surrounds them.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"", "no server running on /tmp/cx1/s\n", "error connecting to /tmp/x/s (No such file or directory)\n",
		"server exited unexpectedly\n", "can't find pane: %999\n", "can't find window: 7\n", "can't find session: x\n",
		"can't find client: /dev/pts/9\n", "no current client\n", "no client\n", "no current target\n", "unknown command: foo\n",
		"can't find pane: no server running", "\x00\xff", "ambiguous-target"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stderr string) {
		err := classify(stderr)
		switch err {
		case nil, ErrNoServer, ErrNoTarget, errNoClient, ErrNoSession:
		default:
			t.Fatalf("classify(%q) = %v, not a sentinel", stderr, err)
		}
		if err == nil && strings.Contains(stderr, "can't find pane") {
			t.Errorf("classify(%q) = nil, want ErrNoTarget", stderr)
		}
		e := &Error{Args: []string{"x"}, Stderr: stderr, Err: err}
		if err != nil && !errors.Is(e, err) {
			t.Errorf("Error{%v} does not wrap %v", stderr, err)
		}
		_ = e.Error()
	})
}
