package tmuxctl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// sep separates format fields: a byte no tmux field can contain (tmux 3.3a strips control
// characters from titles), so a title like "a-:-b" or "x\ty" cannot shift the fields.
const sep = "\x1f"

// Pane is one row of `list-panes -a`.
type Pane struct {
	ID          string // "%12"
	PID         int    // pane_pid: the process tmux started in the pane
	Session     string
	WindowIndex int
	PaneIndex   int
	WindowID    string // "@3"
	Width       int
	Height      int
	Dead        bool
	InMode      bool // copy mode or another mode: keys would go to the mode
	InputOff    bool // select-pane -d: keys are dropped
	Synced      bool // synchronize-panes: keys reach every pane of the window
	// WindowActivity is the last activity in the pane's window (1 s resolution).
	WindowActivity time.Time
	// Match is the 1-based row of the first visible line matching the pre-filter, 0 when
	// none (or when no pre-filter was given).
	Match   int
	Command string // pane_current_command: argv[0] of the foreground process group
	State   string // the pane option @cac_state, "" when unset
	Title   string // pane_title, free text: last
}

// Target is "session:window.pane" for people; tmux commands take the pane ID instead.
func (p Pane) Target() string {
	return fmt.Sprintf("%s:%d.%d", p.Session, p.WindowIndex, p.PaneIndex)
}

// paneFields are the format of ListPanes: ids and numbers first, free text last.
var paneFields = []string{
	"#{pane_id}", "#{pane_pid}", "#{window_id}", "#{window_index}", "#{pane_index}",
	"#{pane_width}", "#{pane_height}", "#{pane_dead}", "#{pane_in_mode}", "#{pane_input_off}",
	"#{pane_synchronized}", "#{window_activity}", "%MATCH%",
	"#{session_name}", "#{pane_current_command}", "#{@cac_state}", "#{pane_title}",
}

// PaneFormat returns the list-panes format; filter is a regular expression searched
// case-insensitively in every pane's visible screen by the server (#{C/ri:…}), "" for none.
// Rows are searched one at a time, so it is a cheap pre-filter, not the detector.
func PaneFormat(filter string) string {
	match := "0"
	if filter != "" {
		match = "#{C/ri:" + filter + "}"
	}
	f := strings.Join(paneFields, sep)
	return strings.Replace(f, "%MATCH%", match, 1)
}

// ListPanes lists every pane on the server once (`list-panes -a`), deduplicated by pane ID:
// a window linked into several sessions is listed once per session.
func (c *Client) ListPanes(ctx context.Context, filter string) ([]Pane, error) {
	out, err := c.Run(ctx, "list-panes", "-a", "-F", PaneFormat(filter))
	if err != nil {
		return nil, err
	}
	return ParsePanes(out)
}

// ParsePanes parses ListPanes output. A row that does not have the fields it needs is an
// error naming the row; free-text fields (session, command, title) may hold anything.
func ParsePanes(out string) ([]Pane, error) {
	var panes []Pane
	seen := map[string]bool{}
	for n, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, sep, len(paneFields))
		if len(f) != len(paneFields) {
			return nil, fmt.Errorf("tmuxctl: list-panes row %d: %d fields, want %d: %q", n+1, len(f), len(paneFields), line)
		}
		var p Pane
		var err error
		ints := []struct {
			dst *int
			s   string
		}{{&p.PID, f[1]}, {&p.WindowIndex, f[3]}, {&p.PaneIndex, f[4]}, {&p.Width, f[5]}, {&p.Height, f[6]}, {&p.Match, f[12]}}
		for _, x := range ints {
			if *x.dst, err = strconv.Atoi(x.s); err != nil {
				return nil, fmt.Errorf("tmuxctl: list-panes row %d: %q is not a number: %q", n+1, x.s, line)
			}
		}
		act, err := strconv.ParseInt(f[11], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("tmuxctl: list-panes row %d: window_activity %q is not a number", n+1, f[11])
		}
		if !strings.HasPrefix(f[0], "%") {
			return nil, fmt.Errorf("tmuxctl: list-panes row %d: pane id %q does not start with %%", n+1, f[0])
		}
		p.ID, p.WindowID = f[0], f[2]
		p.Dead, p.InMode, p.InputOff, p.Synced = f[7] == "1", f[8] == "1", f[9] == "1", f[10] == "1"
		p.WindowActivity = time.Unix(act, 0)
		p.Session, p.Command, p.State, p.Title = f[13], f[14], f[15], f[16]
		if seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		panes = append(panes, p)
	}
	return panes, nil
}

// AttachedClient is one attached tmux client.
type AttachedClient struct {
	Name    string // client_name, the -c target of display-popup
	Session string
	TTY     string
}

// Clients lists the attached clients.
func (c *Client) Clients(ctx context.Context) ([]AttachedClient, error) {
	out, err := c.Run(ctx, "list-clients", "-F", strings.Join([]string{"#{client_name}", "#{client_tty}", "#{session_name}"}, sep))
	if err != nil {
		return nil, err
	}
	var cs []AttachedClient
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.SplitN(line, sep, 3)
		if len(f) != 3 {
			continue
		}
		cs = append(cs, AttachedClient{Name: f[0], TTY: f[1], Session: f[2]})
	}
	return cs, nil
}
