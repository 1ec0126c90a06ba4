package tmuxctl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// UserOption is a global user option of a server: its name, with the "@", and its value.
type UserOption struct{ Name, Value string }

// UserOptions lists, in one tmux call, the global session user options (`set-option -g
// @NAME VALUE`) whose names start with prefix, in tmux's order (by name). tmux has no
// listing of some options only, so it lists them all (`show-options -g`, a few dozen lines)
// and keeps those; see parseUserOptions for how the values are read.
func (c *Client) UserOptions(ctx context.Context, prefix string) ([]UserOption, error) {
	out, err := c.Run(ctx, "show-options", "-g")
	if err != nil {
		return nil, err
	}
	return parseUserOptions(out, prefix)
}

// parseUserOptions reads the user options whose names start with prefix out of what
// `show-options -g` prints. tmux 3.3a prints one option per line, "NAME VALUE", the value
// escaped by its args_escape, so that a line holds one whole value:
//   - an empty value is a pair of single quotes;
//   - a value with a space or one of #';${}% is in double quotes, with \" and \$ inside;
//     otherwise a value with a " is in single quotes;
//   - inside and outside quotes, \\ is a backslash, \n \t \r \a \b \v \f those control
//     characters and \ooo (octal) any other byte that is not printable UTF-8;
//   - a value of one special character, and a ~ at the start, get a backslash before them
//     (\~, \#, \").
//
// tmux 3.4 prints that line through strvis once more (see fields.go): control characters are
// escaped already, but a "$" before a letter, "_" or "{" gets a second backslash. Every such
// "$" of a value has one of its own (it is always in double quotes, \$), so one backslash
// before it is dropped on every version: "\$" and "$" read the same.
//
// A user option whose name holds a space (set-option -g '@a b' x) cannot be told from its
// value: its name is read up to the first space. A line that breaks these rules is an error
// naming it.
func parseUserOptions(out, prefix string) ([]UserOption, error) {
	var opts []UserOption
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		if !strings.HasPrefix(line, "@") || !strings.HasPrefix(line, prefix) {
			continue
		}
		name, raw, _ := strings.Cut(line, " ")
		value, err := unescapeOption(dropDollarEscape(raw))
		if err != nil {
			return nil, fmt.Errorf("tmuxctl: show-options line %q: %w", line, err)
		}
		opts = append(opts, UserOption{Name: name, Value: value})
	}
	return opts, nil
}

// dropDollarEscape drops the backslash before each "$" followed by a letter, "_" or "{".
func dropDollarEscape(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+2 < len(raw) && raw[i+1] == '$' && dollarNamed(raw[i+2]) {
			continue
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

// dollarNamed reports whether c after a "$" makes tmux 3.4's strvis escape that "$".
func dollarNamed(c byte) bool {
	return c == '_' || c == '{' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

// unescapeOption reads a value as show-options prints it (parseUserOptions).
func unescapeOption(raw string) (string, error) {
	if raw == "''" {
		return "", nil
	}
	if len(raw) >= 2 && (raw[0] == '"' || raw[0] == '\'') && raw[len(raw)-1] == raw[0] {
		raw = raw[1 : len(raw)-1]
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			b.WriteByte(raw[i])
			continue
		}
		i++
		if i == len(raw) {
			return "", fmt.Errorf("a \\ ends the value")
		}
		switch c := raw[i]; {
		case c >= '0' && c <= '7':
			n := 1
			for n < 3 && i+n < len(raw) && raw[i+n] >= '0' && raw[i+n] <= '7' {
				n++
			}
			v, err := strconv.ParseUint(raw[i:i+n], 8, 8)
			if err != nil {
				return "", fmt.Errorf("octal escape \\%s is not a byte", raw[i:i+n])
			}
			b.WriteByte(byte(v))
			i += n - 1
		case strings.IndexByte("ntrabvf", c) >= 0:
			b.WriteByte("\n\t\r\a\b\v\f"[strings.IndexByte("ntrabvf", c)])
		default:
			b.WriteByte(c) // \\ \" \$ \~ \# and a quoted special character
		}
	}
	return b.String(), nil
}

// Version is the version of the tmux binary (`tmux -V`: "tmux 3.3a"), which may differ from
// a running server's (ServerInfo). It runs tmux as its own process even when c is connected.
func (c *Client) Version(ctx context.Context) (string, error) {
	out, err := c.exec(ctx, "-V")
	return strings.TrimSpace(out), err
}

// ServerInfo is what a running server says about itself.
type ServerInfo struct {
	Version string // "3.3a"
	PID     int    // the server process
	Socket  string // its socket's path
}

// ServerInfo asks the server its version, pid and socket (one display-message).
func (c *Client) ServerInfo(ctx context.Context) (ServerInfo, error) {
	f, err := c.display(ctx, "", "version", "pid", "socket_path")
	if err != nil {
		return ServerInfo{}, err
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		return ServerInfo{}, fmt.Errorf("tmuxctl: display-message: pid %q is not a number", f[1])
	}
	return ServerInfo{Version: f[0], PID: pid, Socket: f[2]}, nil
}
