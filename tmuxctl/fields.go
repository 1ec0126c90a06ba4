package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// How fields come back from tmux, on every version from 3.2a to 3.8.
//
// A format's fields are joined by sep, a control character, and a row ends at a newline. tmux
// 3.2a, 3.3a and 3.6 onwards print command output as it is. tmux 3.4 and 3.5 print it through
// strvis(VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH), over exec and control mode alike (capture-pane
// excepted): sep arrives as the four characters `\037`, other control bytes and invalid UTF-8
// as `\ooo` or C-style escapes (`\a`, `\b`, …), and on 3.4 a "$" before a letter, "_" or "{"
// as `\$`, while a backslash is not doubled and tab and newline go through. A title reading
// `\037` would then be taken for a separator.
//
// So a free-text field is written by freeText: its control characters (sep and newline among
// them) become "?" and each backslash is doubled, on the server's side. A backslash that is
// not doubled is then always the server's own escape, on any version: splitRow reads both
// forms exactly, and no text of a pane, a session or an option can forge a field or a row. The
// escaping need not be known to read a row; Client.escaping probes it for doctor.

// sep separates format fields.
const sep = "\x1f"

// freeText is the format of a tmux variable whose value is free text (a title, a session or
// command name, an option anyone can set): control characters as "?", backslashes doubled.
func freeText(name string) string { return textWith(name, "?") }

// markedText is freeText for a value that is checked before it is used (@cac_message, typed
// into a pane): its control characters become DEL (0x7f), a control character itself but
// neither the separator nor a newline, so that the check refuses the value instead of taking
// "?" for what the user wrote (a TAB would otherwise be typed as "?").
func markedText(name string) string { return textWith(name, "\x7f") }

// textWith is the format of variable name with each control character replaced by mark and
// each backslash doubled, on the server's side.
func textWith(name, mark string) string {
	return `#{s/[` + "\x01-\x1f" + `]/` + mark + `/;s/\\/\0\0/:` + name + `}`
}

// splitRow reads one row of fields joined by sep, printed raw or escaped (see above), whose
// free-text fields were written by freeText, and returns the fields. A backslash escape tmux
// does not make is an error.
func splitRow(row string) ([]string, error) {
	var fields []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		c := row[i]
		if c == '\\' {
			var n int
			var err error
			c, n, err = unescape(row[i+1:])
			if err != nil {
				return nil, fmt.Errorf("byte %d: %w", i, err)
			}
			i += n
		}
		if c == sep[0] {
			fields = append(fields, b.String())
			b.Reset()
			continue
		}
		b.WriteByte(c)
	}
	return append(fields, b.String()), nil
}

// unescape reads the escape after a backslash: the byte it stands for and how many bytes of
// rest it took.
func unescape(rest string) (byte, int, error) {
	if rest == "" {
		return 0, 0, fmt.Errorf("a backslash ends the row")
	}
	if len(rest) >= 3 && isOctal(rest[0]) && isOctal(rest[1]) && isOctal(rest[2]) && rest[0] <= '3' {
		return (rest[0]-'0')<<6 | (rest[1]-'0')<<3 | (rest[2] - '0'), 3, nil
	}
	if i := strings.IndexByte(`\$nrbavtfs0`, rest[0]); i >= 0 {
		return "\\$\n\r\b\a\v\t\f \x00"[i], 1, nil
	}
	return 0, 0, fmt.Errorf("unknown escape \\%c", rest[0])
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// display expands formats on the server (display-message -p, with -t target unless target is
// ""), each format a free-text field (freeText), and returns their values, read exactly on
// every tmux version. Names are tmux variables or options ("pane_id", "@cac_state").
func (c *Client) display(ctx context.Context, target string, names ...string) ([]string, error) {
	formats := make([]string, len(names), len(names)+1)
	for i, n := range names {
		formats[i] = freeText(n)
	}
	formats = append(formats, lastCheck("pid")) // empty when cut short: see rowEnd
	args := []string{"display-message", "-p"}
	if target != "" {
		args = append(args, "-t", target)
	}
	args = append(args, strings.Join(formats, sep))
	return onceMore(func() ([]string, error) {
		out, err := c.Run(ctx, args...)
		if err != nil {
			return nil, err
		}
		f, err := splitFields(out, len(formats), "display-message")
		if err != nil {
			return nil, err
		}
		if f[len(names)] == "" {
			return nil, fmt.Errorf("tmuxctl: display-message: %w: %q", errCutShort, out)
		}
		return f[:len(names)], nil
	})
}

// errCutShort is a row that tmux cut short. tmux 3.7 and later stop expanding the nested
// parts of a format once it has taken 100 ms (FORMAT_TIME_LIMIT, a loaded server), while the
// plain variables around them still expand: a search's pattern comes out empty (so it matches
// line 1), a substitution is skipped (free text comes out unescaped), a condition's value
// empty (measured on 3.7c and next-3.8, with a search that took about a second).
var errCutShort = errors.New("cut short by tmux's time limit on a format (a loaded server)")

// lastCheck is the format of variable name expanded through a condition, for the last field
// of a row: tmux skips that nested expansion once its time limit was reached anywhere before
// it, so the field is empty exactly when the row was cut short (3.7c, next-3.8; earlier
// versions have no limit).
func lastCheck(name string) string { return "#{?" + name + ",#{" + name + "},}" }

// onceMore runs ask, and once more when tmux cut its output short (errCutShort): the limit is
// per format, reached only while the server is loaded, and a watcher's listing would
// otherwise fail for the whole tick.
func onceMore[T any](ask func() (T, error)) (T, error) {
	v, err := ask()
	if errors.Is(err, errCutShort) {
		return ask()
	}
	return v, err
}

// splitFields reads the one row of a command's output that should hold n fields.
func splitFields(out string, n int, command string) ([]string, error) {
	row := strings.TrimSuffix(out, "\n")
	f, err := splitRow(row)
	if err != nil {
		return nil, fmt.Errorf("tmuxctl: %s: %w: %q", command, err, row)
	}
	if len(f) != n {
		return nil, fmt.Errorf("tmuxctl: %s: %d fields, want %d: %q", command, len(f), n, row)
	}
	return f, nil
}

// Escaping is how a server prints the output of its commands.
type Escaping int

const (
	// Raw: as it is (tmux 3.2a, 3.3a, 3.6 and later).
	Raw Escaping = iota
	// Vis: through strvis, control characters as octal escapes (tmux 3.4 and 3.5).
	Vis
)

func (e Escaping) String() string {
	if e == Vis {
		return "escaped (strvis)"
	}
	return "raw"
}

// escaping probes how the server prints command output: it prints sep and reads it back.
// Reading fields does not depend on it (splitRow reads both); doctor reports it.
func (c *Client) escaping(ctx context.Context) (Escaping, error) {
	out, err := c.Run(ctx, "display-message", "-p", sep)
	switch row := strings.TrimSuffix(out, "\n"); {
	case err != nil:
		return Raw, err
	case row == sep:
		return Raw, nil
	case row == `\037`:
		return Vis, nil
	default:
		return Raw, fmt.Errorf("tmuxctl: display-message: a field separator printed as %q", row)
	}
}
