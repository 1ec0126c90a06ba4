// Package table lays out the rows of supervised panes for people: the live table of watch,
// list, the popup and the status line share its cells, columns and countdowns.
package table

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/printable"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// columns are the columns of `watch` and `list`, in order; the note is last and gives way
// first when the terminal is narrow, then the columns from the right, so the countdown (IN)
// outlasts the reset's zone name. ACCOUNT is shown only when the rows span more than one
// account (Claude Code config directory), before the note; AGENT only when a row is not
// Claude Code's (so a table of Claude Code panes alone reads as it always did), after the
// state.
var columns = []string{"PANE", "TARGET", "STATE", "IN", "RESET", "KIND", "NOTE"}

// Merge joins the rows of several tmux servers, by the servers' names, into one list:
// server by server in the order of their names, each server's rows in their order. Each row
// is named by its server (Row.Server) when more than one server has rows; with one, the rows
// are as they were.
func Merge(byServer map[string][]watcher.Row) []watcher.Row {
	names := make([]string, 0, len(byServer))
	for name, rows := range byServer {
		if len(rows) > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []watcher.Row
	for _, name := range names {
		for _, r := range byServer[name] {
			if len(names) > 1 {
				r.Server = name
			}
			out = append(out, r)
		}
	}
	return out
}

// Cells formats rows as the cells of columns at now, every time in now's zone (the user's,
// one for the whole screen). A SERVER column comes first when a row is named by its server
// (Merge).
func Cells(rows []watcher.Row, now time.Time) [][]string {
	accounts := map[string]bool{}
	for _, r := range rows {
		accounts[r.Account] = true
	}
	many := len(accounts) > 1
	home, _ := os.UserHomeDir()
	head := columns
	if many {
		head = slices.Insert(slices.Clone(columns), len(columns)-1, "ACCOUNT")
	}
	agents := slices.ContainsFunc(rows, func(r watcher.Row) bool { return agentOf(r) != agent.Claude })
	if agents {
		head = slices.Insert(slices.Clone(head), 3, "AGENT")
	}
	named := slices.ContainsFunc(rows, func(r watcher.Row) bool { return r.Server != "" })
	if named {
		head = append([]string{"SERVER"}, head...)
	}
	cells := make([][]string, 0, len(rows)+1)
	cells = append(cells, head)
	for _, r := range rows {
		row := []string{r.Pane, r.Target, string(r.State), in(r, now), resetText(r.Reset, r.Source == watcher.SourceTranscript, now), r.Kind}
		if agents {
			row = slices.Insert(row, 3, string(agentOf(r)))
		}
		if named {
			row = append([]string{Printable(r.Server)}, row...)
		}
		if many {
			row = append(row, account(r.Account, home))
		}
		cells = append(cells, append(row, r.Note))
	}
	return cells
}

// agentOf is the agent of r; a row that names none (written before there was a second
// agent) is Claude Code's.
func agentOf(r watcher.Row) agent.Name {
	if r.Agent == "" {
		return agent.Claude
	}
	return r.Agent
}

// AnyAgent names every agent for people, as a pane of any of them: "Claude Code or Codex".
func AnyAgent() string {
	names := agent.Names()
	titles := make([]string, len(names))
	for i, n := range names {
		titles[i] = n.Title()
	}
	return strings.Join(titles, " or ")
}

// in is the countdown a row shows: to its due instant when the watcher will act, to the reset
// when Claude Code's own auto-continue will; "" when nothing will happen by itself (held,
// failed, skipped, capped, a reset not known): a countdown there would never fire.
func in(r watcher.Row, now time.Time) string {
	switch {
	case !r.Due.IsZero():
		return Countdown(r.Due.Sub(now))
	case r.State == watcher.Native && r.Reset.After(now):
		return Countdown(r.Reset.Sub(now))
	}
	return ""
}

// account shows a config directory short: under home as "~/…", "-" when unknown.
func account(dir, home string) string {
	switch {
	case dir == "":
		return "-"
	case home != "" && dir == home:
		return "~"
	case home != "" && strings.HasPrefix(dir, strings.TrimSuffix(home, "/")+"/"):
		return "~" + dir[len(strings.TrimSuffix(home, "/")):]
	}
	return dir
}

// resetText shows a reset in the zone of now, the one zone of the screen (the user's): "19:30
// EET", with the date when it is not today there, so a weekly reset days away is not read as
// today's, and the seconds when the reset is exact (Claude Code's transcript gave it). The zone
// Claude Code printed is not shown: rows printed in different zones would switch zones on one
// screen.
func resetText(t time.Time, exact bool, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	layout := "15:04"
	if exact {
		layout = "15:04:05"
	}
	return watcher.When(t, layout+" MST", now)
}

// Countdown shows how long until an instant: "3d 4h", "1h12m", "4m05s", "now"; a day or more
// in days and hours, so a weekly wait reads "3d 4h", not "76h00m".
func Countdown(d time.Duration) string {
	switch {
	case d <= 0:
		return "now"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()+0.999))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd %dh", int(d.Hours())/24, int(d.Hours())%24)
}

// Format lays out cells in columns two spaces apart, each line at most width runes
// (0: no limit): the last column is cut with "…", and columns that do not fit at all are left
// out from the right.
func Format(cells [][]string, width int) []string {
	if len(cells) == 0 {
		return nil
	}
	cells = printableCells(cells)
	n := len(cells[0])
	widths := make([]int, n)
	for _, row := range cells {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	// Keep as many columns as fit, at least the first three (pane, target, state); the last
	// one (the note) stays while ten runes of it fit, and is cut.
	keep, total := n, 0
	for i, w := range widths {
		if i == n-1 {
			w = min(w, 10)
		}
		if width > 0 && i >= 3 && total+w > width {
			keep = i
			break
		}
		total += w + 2
	}
	lines := make([]string, 0, len(cells))
	for _, row := range cells {
		var b strings.Builder
		for i := range keep {
			c := row[i]
			if i < keep-1 {
				c += strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2)
			}
			b.WriteString(c)
		}
		lines = append(lines, Cut(strings.TrimRight(b.String(), " "), width))
	}
	return lines
}

// Printable is s as it may reach a terminal, in one line (printable.Line): each control
// character (an escape sequence's ESC, a TAB, C1 codes) and each byte that is not UTF-8 as "?".
// Cells hold text that anyone can set (an account's path, a session name, a note): unfiltered,
// an escape sequence in one would retitle or redraw the user's terminal.
func Printable(s string) string { return printable.Line(s) }

func printableCells(cells [][]string) [][]string {
	out := make([][]string, len(cells))
	for i, row := range cells {
		out[i] = make([]string, len(row))
		for j, c := range row {
			out[i][j] = Printable(c)
		}
	}
	return out
}

// Cut shortens s to width runes, ending in "…" when it was longer (0: no limit), each
// control character as "?" (Printable).
func Cut(s string, width int) string {
	s = Printable(s)
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:max(width-1, 0)]) + "…"
}
