package table

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/watcher"
)

func TestFormatTable(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	nicosia, err := time.LoadLocation("Asia/Nicosia")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC).In(berlin)
	rows := []watcher.Row{
		{Pane: "%3", Target: "work:1.0", State: watcher.Waiting, Kind: "session", Reset: now.Add(90 * time.Minute).In(nicosia), Zone: "Asia/Nicosia", Due: now.Add(91 * time.Minute)},
		{Pane: "%12", Target: "a-very-long-session-name:3.1", State: watcher.Held, Kind: "weekly", Reset: now.Add(50 * time.Hour).UTC(), Zone: "UTC", Note: "a draft is in the input box; it is left alone"},
		{Pane: "%14", Target: "w:1.0", State: watcher.Waiting, Kind: "weekly", Reset: now.Add(76 * time.Hour).UTC(), Zone: "UTC", Due: now.Add(76*time.Hour + time.Minute)},
	}
	// Every reset shows in the screen's zone (now's, the user's), whatever zone Claude Code
	// printed it in, with the date when it is not today; a wait of days in days and hours.
	// A held pane shows no countdown: nothing will happen by itself.
	want := []string{
		"PANE  TARGET                        STATE    IN     RESET             KIND     NOTE",
		"%3    work:1.0                      waiting  1h31m  22:30 CET         session",
		"%12   a-very-long-session-name:3.1  held            Nov 22 23:00 CET  weekly   a draft is in the input box; it is left alone",
		"%14   w:1.0                         waiting  3d 4h  Nov 24 01:00 CET  weekly",
	}
	if got := Format(Cells(rows, now), 0); !slices.Equal(got, want) {
		t.Errorf("Format(no width) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Narrow: the note is cut, then columns are left out from the right; pane, target and
	// state stay.
	if got := Format(Cells(rows, now), 100); !strings.HasSuffix(got[2], "…") || !strings.Contains(got[2], "weekly") {
		t.Errorf("Format(width 100) row = %q, want the note cut with …", got[2])
	}
	if got := Format(Cells(rows, now), 60); strings.Contains(got[0], "KIND") || !strings.Contains(got[0], "STATE") {
		t.Errorf("Format(width 60) header = %q, want pane, target, state and no kind", got[0])
	}
	// Narrower still: the countdown outlasts the reset's zone name.
	if got := Format(Cells(rows, now), 52); !strings.Contains(got[1], "1h31m") || strings.Contains(got[0], "RESET") {
		t.Errorf("Format(width 52) = %q, want the countdown kept and the reset left out", got)
	}
	for _, width := range []int{200, 90, 60, 30} {
		for _, l := range Format(Cells(rows, now), width) {
			if n := len([]rune(l)); n > width {
				t.Errorf("Format(width %d) line %q is %d runes wide", width, l, n)
			}
		}
	}
}

func TestCountdown(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "now"}, {0, "now"}, {300 * time.Millisecond, "1s"}, {59 * time.Second, "59s"},
		{61 * time.Second, "1m01s"}, {time.Hour + 12*time.Minute + 30*time.Second, "1h12m"}, {23*time.Hour + 59*time.Minute, "23h59m"}, {24 * time.Hour, "1d 0h"}, {50 * time.Hour, "2d 2h"},
		{76*time.Hour + 30*time.Minute, "3d 4h"},
	} {
		if got := Countdown(tc.d); got != tc.want {
			t.Errorf("Countdown(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// Panes of two accounts: an ACCOUNT column, home shortened; an exact reset shows its seconds.
func TestCellsAccountsAndExactReset(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		t.Skip("no home directory to shorten")
	}
	now := time.Date(2026, 11, 20, 19, 0, 0, 0, time.UTC)
	reset := time.Date(2026, 11, 20, 19, 30, 17, 0, time.UTC)
	rows := []watcher.Row{
		{Pane: "%1", Target: "a:0.0", State: watcher.Waiting, Kind: "session", Reset: reset, Zone: "UTC", Source: watcher.SourceTranscript, Account: home + "/.claude", Due: reset.Add(5 * time.Second)},
		{Pane: "%2", Target: "b:0.0", State: watcher.Native, Kind: "session", Reset: reset.Truncate(time.Minute), Zone: "UTC", Source: watcher.SourceScreen, Account: "/srv/work"},
	}
	// The countdown to the due instant; to the reset where Claude Code's auto-continue goes.
	want := []string{
		"PANE  TARGET  STATE    IN      RESET         KIND     ACCOUNT    NOTE",
		"%1    a:0.0   waiting  30m22s  19:30:17 UTC  session  ~/.claude",
		"%2    b:0.0   native   30m00s  19:30 UTC     session  /srv/work",
	}
	if got := Format(Cells(rows, now), 0); !slices.Equal(got, want) {
		t.Errorf("Format =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rows[1].Account = rows[0].Account
	if got := Format(Cells(rows, now), 0); strings.Contains(got[0], "ACCOUNT") {
		t.Errorf("one account: header %q, want no ACCOUNT column", got[0])
	}
	for dir, want := range map[string]string{"": "-", "/home/u": "~", "/home/u/.claude": "~/.claude", "/home/uv/.claude": "/home/uv/.claude", "/srv/a": "/srv/a"} {
		if got := account(dir, "/home/u"); got != want {
			t.Errorf("account(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestPrintable: text anyone can set (an account path with an escape sequence that would
// retitle the terminal, a note with a TAB, bytes that are not UTF-8) reaches the terminal
// with "?" for each control character, through Format and Cut alike.
func TestPrintable(t *testing.T) {
	evil := "/home/u/\x1b]2;pwned\x07.claude\tx\x9b31m\xff"
	want := "/home/u/?]2;pwned?.claude?x?31m?"
	if got := Printable(evil); got != want {
		t.Errorf("Printable(%q) = %q, want %q", evil, got, want)
	}
	lines := Format([][]string{{"PANE", "ACCOUNT"}, {"%1", evil}}, 0)
	if len(lines) != 2 || strings.ContainsAny(lines[1], "\x1b\x07\t\x9b") || !strings.HasSuffix(lines[1], want) {
		t.Errorf("Format = %q, want the account as %q", lines, want)
	}
	if got := Cut(evil, 12); got != "/home/u/?]2…" {
		t.Errorf("Cut = %q", got)
	}
	if got := Printable("plain ✳ café"); got != "plain ✳ café" {
		t.Errorf("Printable changed printable text: %q", got)
	}
}

// Merge names each row by its server only when more than one server has rows, server by
// server in the order of their names; Cells then puts a SERVER column first.
func TestMergeServers(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	one := map[string][]watcher.Row{"work": {{Pane: "%1", Target: "a:0.0", State: watcher.Running}}, "empty": nil}
	if got := Merge(one); len(got) != 1 || got[0].Server != "" {
		t.Errorf("Merge of one server with rows = %+v, want its row unnamed", got)
	}
	if head := Cells(Merge(one), now)[0]; head[0] != "PANE" {
		t.Errorf("Cells of one server: head %q, want no SERVER column", head)
	}
	two := map[string][]watcher.Row{
		"work":    {{Pane: "%1", Target: "a:0.0", State: watcher.Waiting}, {Pane: "%2", Target: "a:1.0", State: watcher.Running}},
		"default": {{Pane: "%1", Target: "main:0.0", State: watcher.Held}},
	}
	got := Merge(two)
	var names []string
	for _, r := range got {
		names = append(names, r.Server+" "+r.Pane)
	}
	if want := []string{"default %1", "work %1", "work %2"}; !slices.Equal(names, want) {
		t.Errorf("Merge = %q, want %q", names, want)
	}
	cells := Cells(got, now)
	if cells[0][0] != "SERVER" || cells[1][0] != "default" || cells[2][1] != "%1" {
		t.Errorf("Cells = %q, want SERVER first", cells[:3])
	}
}

// Panes of two agents: an AGENT column after the state; panes of Claude Code alone (or rows
// that name no agent) keep the table they always had. At 80 columns the note gives way
// first.
func TestCellsAgent(t *testing.T) {
	now := time.Date(2026, 11, 20, 19, 0, 0, 0, time.UTC)
	reset := time.Date(2026, 11, 20, 19, 30, 0, 0, time.UTC)
	rows := []watcher.Row{
		{Pane: "%1", Target: "work:0.0", Agent: agent.Codex, State: watcher.Waiting, Kind: "usage", Reset: reset, Zone: "UTC", Due: reset.Add(time.Minute)},
		{Pane: "%2", Target: "notes:1.0", Agent: agent.Claude, State: watcher.Held, Kind: "weekly", Reset: reset.Add(72 * time.Hour), Zone: "UTC",
			Note: "a draft is in the input box; it is left alone"},
		{Pane: "%3", Target: "old:0.0", State: watcher.Running},
	}
	want := []string{
		"PANE  TARGET     STATE    AGENT   IN      RESET             KIND    NOTE",
		"%1    work:0.0   waiting  codex   31m00s  19:30 UTC         usage",
		"%2    notes:1.0  held     claude          Nov 23 19:30 UTC  weekly  a draft is …",
		"%3    old:0.0    running  claude          -",
	}
	if got := Format(Cells(rows, now), 80); !slices.Equal(got, want) {
		t.Errorf("Format(width 80) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	rows[0].Agent = agent.Claude
	if got := Format(Cells(rows, now), 0); strings.Contains(got[0], "AGENT") || strings.Contains(got[1], "claude") {
		t.Errorf("Claude Code alone: %q, want no AGENT column", got)
	}
}
