package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

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
	// none matches and -1 when the pane was not searched (no pre-filter, or its command is
	// not one the search is limited to).
	Match   int
	Command string // pane_current_command: argv[0] of the foreground process group, control characters as "?" (empty on tmux 3.7 when it holds one)
	// Options are cac-tmux's pane user options (@cac_state, …), "" when unset.
	Options Options
	// Request is the pane option @cac_request: an action a command hands to the running
	// watcher ("resume NONCE"), "" when none.
	Request string
	// Ignore and Message are the user's pane options @cac_ignore and @cac_message as set,
	// "" when unset: control characters as "?" in Ignore, as DEL in Message (which the
	// watcher checks, config.CheckMessage, before typing it).
	Ignore, Message string
	// Pipe says the pane's output is piped (pipe-pane); PipeMark and PipePID are what the pane
	// option marking a pipe of a watcher's says (pipes.go): the FIFO's path ("" when unset)
	// and the pane's pid when it was piped.
	Pipe     bool
	PipeMark string
	PipePID  int
	Title    string // pane_title, free text: last
	// Watcher is the global WatcherOption (a running watcher's pid) as PausedPanes reads it;
	// "" elsewhere.
	Watcher string
}

// Options are the pane user options cac-tmux publishes on a supervised pane (docs/tmux.md,
// Pane options).
// Reset and Due are RFC3339 instants; Zone is the IANA zone the reset was printed in.
// Source says where Reset comes from ("screen" or "transcript"); Account is the claude
// process's config directory, which stands for its account; Agent names the agent that runs
// in the pane (agent.Name: claude, codex).
type Options struct {
	State, Reset, Due, Kind, Zone, Note, Source, Account, Agent string
}

// Values returns the options in OptionNames order.
func (o Options) Values() []string {
	v := make([]string, len(OptionNames))
	for i := range v {
		v[i] = *o.field(i)
	}
	return v
}

// Target is "session:window.pane" for people; tmux commands take the pane ID instead.
func (p Pane) Target() string {
	return fmt.Sprintf("%s:%d.%d", p.Session, p.WindowIndex, p.PaneIndex)
}

// Search is ListPanes' server-side pre-filter (#{C/ri:…}, tmux 3.2+).
type Search struct {
	// Pattern is a POSIX extended regular expression searched case-insensitively in each
	// visible row of a pane; "" searches nothing. Rows are searched one at a time, so a
	// phrase wrapped across rows does not match: it is a cheap pre-filter, not the detector.
	Pattern string
	// Commands, when set, limits the search to panes whose pane_current_command matches this
	// regular expression (the others report Match -1), so the server does not search every
	// shell and editor on each tick.
	Commands string
	// Since, when set, limits the search further to panes whose window showed activity at or
	// after Since (window_activity has 1 s resolution); the others report Match Quiet. The
	// search compiles its regular expressions for every pane it visits (tmux 3.3a), so a
	// server of quiet panes answers a listing several times faster this way.
	Since time.Time
	// Piped, when set, says that every pane the caller watches has the client's output pipe
	// (Pane.PipeMark is Client.PipeMark): where the pipes are the server's output signal
	// (tmux 3.2a to 3.7, pipes.go), a listing of changes with nothing piped since may be
	// skipped, as with tmux 3.8's signal.
	Piped bool
}

// Match values of a pane the search did not look at.
const (
	notSearched = -1 // no search, or the pane's command is not one searched
	Quiet       = -2 // its window showed no activity since Search.Since
)

// paneField is one field of the ListPanes format: the tmux format, the name errors give it,
// and where its value goes in a Pane.
type paneField struct {
	format, name string
	set          func(p *Pane, v string) error
}

// paneFields are the format of ListPanes, parsed field by field into a Pane by name: ids and
// numbers first, free text last, written by freeText.
var paneFields = append([]paneField{
	text("#{pane_id}", func(p *Pane) *string { return &p.ID }),
	number("pane_pid", func(p *Pane) *int { return &p.PID }),
	text("#{window_id}", func(p *Pane) *string { return &p.WindowID }),
	number("window_index", func(p *Pane) *int { return &p.WindowIndex }),
	number("pane_index", func(p *Pane) *int { return &p.PaneIndex }),
	number("pane_width", func(p *Pane) *int { return &p.Width }),
	number("pane_height", func(p *Pane) *int { return &p.Height }),
	flag("pane_dead", func(p *Pane) *bool { return &p.Dead }),
	flag("pane_in_mode", func(p *Pane) *bool { return &p.InMode }),
	flag("pane_input_off", func(p *Pane) *bool { return &p.InputOff }),
	flag("pane_synchronized", func(p *Pane) *bool { return &p.Synced }),
	flag("pane_pipe", func(p *Pane) *bool { return &p.Pipe }),
	{"#{window_activity}", "window_activity", func(p *Pane, v string) error {
		t, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return errors.New("not a number")
		}
		p.WindowActivity = time.Unix(t, 0)
		return nil
	}},
	{"%MATCH%", "the pre-filter's match", func(p *Pane, v string) (err error) {
		if p.Match, err = strconv.Atoi(v); err != nil {
			return errors.New("not a number")
		}
		return nil
	}},
	text(freeText("session_name"), func(p *Pane) *string { return &p.Session }),
	text(freeText("pane_current_command"), func(p *Pane) *string { return &p.Command }),
}, append(optionFields(),
	text(freeText(RequestOption), func(p *Pane) *string { return &p.Request }),
	text(freeText(ignoreOption), func(p *Pane) *string { return &p.Ignore }),
	text(markedText(messageOption), func(p *Pane) *string { return &p.Message }),
	pipeMarkField,
	text(freeText("pane_title"), func(p *Pane) *string { return &p.Title }),
	rowEnd)...)

// rowEnd ends every row: the pane ID again, through lastCheck, so that a row tmux cut short
// at its time limit on a format (errCutShort) is not read: its search could read as a match
// and its free text unescaped. (A plain #{pane_id} here still expanded in a row cut short.)
var rowEnd = paneField{lastCheck("pane_id"), "the row's end", func(p *Pane, v string) error {
	if v != p.ID {
		return errCutShort
	}
	return nil
}}

// cutShort says whether a row that ends with rowEnd (every row parseRows reads) was cut short:
// that field is empty, so the row ends with the separator, printed raw or escaped (3.4, 3.5).
// It is asked before the row is split, since a row cut short may not split (its free text
// unescaped).
func cutShort(row string) bool { return strings.HasSuffix(row, sep) || strings.HasSuffix(row, `\037`) }

func text(format string, at func(*Pane) *string) paneField {
	return paneField{format, format, func(p *Pane, v string) error { *at(p) = v; return nil }}
}

func number(name string, at func(*Pane) *int) paneField {
	return paneField{"#{" + name + "}", name, func(p *Pane, v string) (err error) {
		if *at(p), err = strconv.Atoi(v); err != nil {
			return errors.New("not a number")
		}
		return nil
	}}
}

func flag(name string, at func(*Pane) *bool) paneField {
	return paneField{"#{" + name + "}", name, func(p *Pane, v string) error {
		if v != "0" && v != "1" {
			return errors.New("not 0 or 1")
		}
		*at(p) = v == "1"
		return nil
	}}
}

// optionFields are the fields of the pane options, in OptionNames order.
func optionFields() []paneField {
	f := make([]paneField, len(OptionNames))
	for i, n := range OptionNames {
		f[i] = text(freeText(n), func(p *Pane) *string { return p.Options.field(i) })
	}
	return f
}

// field is the option of OptionNames[i].
func (o *Options) field(i int) *string {
	return []*string{&o.State, &o.Reset, &o.Due, &o.Kind, &o.Zone, &o.Note, &o.Source, &o.Account, &o.Agent}[i]
}

// paneFormat returns the list-panes format for a search.
func paneFormat(s Search) string {
	match := "-1"
	switch {
	case s.Pattern != "" && s.Commands != "":
		match = "#{?#{m/r:" + s.Commands + ",#{pane_current_command}},#{C/ri:" + s.Pattern + "},-1}"
	case s.Pattern != "":
		match = "#{C/ri:" + s.Pattern + "}"
	}
	if s.Pattern != "" && !s.Since.IsZero() {
		match = "#{?#{e|>=:#{window_activity}," + strconv.FormatInt(s.Since.Unix(), 10) + "}," + match + ",-2}"
	}
	return strings.Replace(formatOf(paneFields), "%MATCH%", match, 1)
}

// ListPanes lists every pane on the server once (`list-panes -a`), deduplicated by pane ID:
// a window linked into several sessions is listed once per session.
func (c *Client) ListPanes(ctx context.Context, s Search) ([]Pane, error) {
	return c.listRows(ctx, parsePanes, "list-panes", "-a", "-F", paneFormat(s))
}

// listRows runs a list-panes command line and reads its rows with parse, once more if tmux
// cut them short (onceMore).
func (c *Client) listRows(ctx context.Context, parse func(string) ([]Pane, error), args ...string) ([]Pane, error) {
	return onceMore(func() ([]Pane, error) {
		out, err := c.Run(ctx, args...)
		if err != nil {
			return nil, err
		}
		return parse(out)
	})
}

// PaneInfo returns the listing row of one pane (without a search), or an error wrapping
// ErrNoTarget when the pane is gone. It lists the pane's window (`list-panes -t %N`): tmux
// 3.3a's display-message prints empty fields for a missing pane instead of failing.
func (c *Client) PaneInfo(ctx context.Context, pane string) (Pane, error) {
	ps, err := c.listRows(ctx, parsePanes, "list-panes", "-t", pane, "-F", paneFormat(Search{}))
	if err != nil {
		return Pane{}, err
	}
	for _, p := range ps {
		if p.ID == pane {
			return p, nil
		}
	}
	return Pane{}, &Error{Args: []string{"list-panes", "-t", pane}, Stderr: "can't find pane: " + pane, Err: ErrNoTarget}
}

// parsePanes parses ListPanes output. A row that does not have the fields it needs is an
// error naming the row; free-text fields (session, command, title) may hold anything.
func parsePanes(out string) ([]Pane, error) {
	return parseRows(out, paneFields, true)
}

// parseRows parses the rows of a `list-panes -F` listing whose format is fields joined by
// sep, deduplicated by pane ID (the first field) when dedupe is set.
func parseRows(out string, fields []paneField, dedupe bool) ([]Pane, error) {
	var panes []Pane
	seen := map[string]bool{}
	for n, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		if cutShort(line) {
			return nil, fmt.Errorf("tmuxctl: list-panes row %d: %w: %q", n+1, errCutShort, line)
		}
		f, err := splitRow(line)
		if err != nil {
			return nil, fmt.Errorf("tmuxctl: list-panes row %d: %w: %q", n+1, err, line)
		}
		if len(f) != len(fields) {
			return nil, fmt.Errorf("tmuxctl: list-panes row %d: %d fields, want %d: %q", n+1, len(f), len(fields), line)
		}
		var p Pane
		for i, pf := range fields {
			if err := pf.set(&p, f[i]); err != nil {
				return nil, fmt.Errorf("tmuxctl: list-panes row %d: %s %q: %w: %q", n+1, pf.name, f[i], err, line)
			}
		}
		if !strings.HasPrefix(p.ID, "%") {
			return nil, fmt.Errorf("tmuxctl: list-panes row %d: pane id %q does not start with %%", n+1, p.ID)
		}
		if dedupe && seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		panes = append(panes, p)
	}
	return panes, nil
}

// pausedFields are the format of PausedPanes: the pane ID, then the options it needs, cleaned,
// and the global WatcherOption.
var pausedFields = []paneField{
	text("#{pane_id}", func(p *Pane) *string { return &p.ID }),
	text(freeText(stateOption), func(p *Pane) *string { return &p.Options.State }),
	text(freeText(dueOption), func(p *Pane) *string { return &p.Options.Due }),
	text(freeText(WatcherOption), func(p *Pane) *string { return &p.Watcher }),
	rowEnd,
}

// pausedFilter is PausedPanes' server-side filter (`list-panes -f`): the panes that carry
// @cac_state, which a watcher sets on every pane that is not running.
const pausedFilter = "#{@cac_state}"

// formatOf is the format of fields, joined by sep.
func formatOf(fields []paneField) string {
	formats := make([]string, len(fields))
	for i, pf := range fields {
		formats[i] = pf.format
	}
	return strings.Join(formats, sep)
}

// PausedPanes lists, in one tmux call, the panes on which a watcher published a state
// (`list-panes -a -f '#{@cac_state}'`: tmux filters on its side, so the answer is as small as
// the number of paused panes), deduplicated by pane ID. Each Pane has only its ID,
// Options.State, Options.Due and Watcher; the other fields are zero. It is what `cac-tmux status`
// asks on every status-interval of every client, so it asks for nothing more.
func (c *Client) PausedPanes(ctx context.Context) ([]Pane, error) {
	return c.listRows(ctx, parsePaused, "list-panes", "-a", "-f", pausedFilter, "-F", formatOf(pausedFields))
}

// parsePaused parses PausedPanes output, like parsePanes.
func parsePaused(out string) ([]Pane, error) {
	return parseRows(out, pausedFields, true)
}

// AttachedClient is one attached tmux client.
type AttachedClient struct {
	Name    string // client_name, the -c target of display-popup
	session string
	tty     string
}

// Clients lists the attached clients that show a terminal: control-mode clients (a
// watcher's connection, iTerm2's) are left out, since they cannot show a popup.
func (c *Client) Clients(ctx context.Context) ([]AttachedClient, error) {
	out, err := c.Run(ctx, "list-clients", "-F", strings.Join([]string{"#{client_control_mode}", freeText("client_name"), freeText("client_tty"), freeText("session_name")}, sep))
	if err != nil {
		return nil, err
	}
	var cs []AttachedClient
	for line := range strings.Lines(out) {
		f, err := splitFields(line, 4, "list-clients")
		if err != nil {
			return nil, err
		}
		if f[0] == "1" {
			continue
		}
		cs = append(cs, AttachedClient{Name: f[1], tty: f[2], session: f[3]})
	}
	return cs, nil
}
