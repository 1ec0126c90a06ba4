package tmuxctl_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// bigRow is row r (1-based) of the 500-column screen TestHugePane draws: "R001abc…|".
func bigRow(r int) string {
	b := []byte(fmt.Sprintf("R%03d", r))
	for i := len(b); i < 499; i++ {
		b = append(b, byte('a'+i%26))
	}
	return string(append(b, '|'))
}

// TestHugePane: a 500×200 pane filled with text is listed at its size and captured whole:
// 200 rows of 500 columns each.
func TestHugePane(t *testing.T) {
	t.Parallel()
	eachTransport(t, testHugePane)
}

func testHugePane(t *testing.T, control bool) {
	t.Parallel()
	// awk draws the rows, the last without a newline so that nothing scrolls, then cat keeps
	// the pane open without printing anything.
	script := `awk 'BEGIN { for (r = 1; r <= 200; r++) { l = sprintf("R%03d", r);
		for (i = length(l); i < 499; i++) l = l sprintf("%c", 97 + i % 26);
		printf "%s|%s", l, (r < 200 ? "\n" : "") } }'; exec cat`
	s := start(t, control, 500, 200, "sh", "-c", script)
	ctx := context.Background()
	panes, err := s.Client.ListPanes(ctx, tmuxctl.Search{})
	if err != nil {
		t.Fatal(err)
	}
	if len(panes) != 1 || panes[0].Width != 500 || panes[0].Height != 200 {
		t.Fatalf("ListPanes = %+v, want one 500x200 pane", panes)
	}
	id := panes[0].ID
	s.WaitScreen(t, id, bigRow(200))
	out, err := s.Client.Capture(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(rows) != 200 {
		t.Fatalf("Capture returned %d rows, want 200", len(rows))
	}
	for i, got := range rows {
		if want := bigRow(i + 1); got != want {
			t.Fatalf("Capture row %d = %q (%d columns), want %q (500 columns)", i+1, got, len(got), want)
		}
	}
	// The pre-filter searches the whole big screen too (the last row is row 200).
	panes, err = s.Client.ListPanes(ctx, tmuxctl.Search{Pattern: "^R200"})
	if err != nil || len(panes) != 1 || panes[0].Match != 200 {
		t.Errorf("ListPanes(search ^R200) = %+v, %v; want Match 200", panes, err)
	}
}

// chain runs tmux commands in one call, separated by ";" arguments.
func chain(t *testing.T, s *tmuxtest.Server, cmds [][]string) {
	t.Helper()
	var args []string
	for i, c := range cmds {
		if i > 0 {
			args = append(args, ";")
		}
		args = append(args, c...)
	}
	s.Tmux(t, args...)
}

// TestManyPanes: 300 panes in 100 windows, and 10 of those windows linked into a second
// session, which tmux lists twice: ListPanes returns each pane exactly once.
func TestManyPanes(t *testing.T) {
	t.Parallel()
	eachTransport(t, testManyPanes)
}

func testManyPanes(t *testing.T, control bool) {
	t.Parallel()
	s := start(t, control, 200, 60, "exec cat")
	ctx := context.Background()
	// Five windows per call, each pane running cat (one process) rather than a login shell: 99 windows in
	// one call took more than the 5 s call timeout on a loaded 2-core machine, where a pane
	// can take 150 ms to make.
	const batch = 5
	var cmds [][]string
	for lo := 0; lo < 100; lo += batch {
		cmds = cmds[:0]
		for w := max(lo, 1); w < lo+batch; w++ {
			cmds = append(cmds, []string{"new-window", "-d", "-t", fmt.Sprintf("main:%d", w), "exec cat"})
		}
		chain(t, s, cmds)
	}
	for lo := 0; lo < 100; lo += batch {
		cmds = cmds[:0]
		for w := lo; w < lo+batch; w++ {
			cmds = append(cmds, []string{"split-window", "-d", "-t", fmt.Sprintf("main:%d", w), "exec cat"},
				[]string{"split-window", "-d", "-h", "-t", fmt.Sprintf("main:%d", w), "exec cat"})
		}
		chain(t, s, cmds)
	}
	s.Tmux(t, "new-session", "-d", "-s", "other", "-x", "200", "-y", "60", "exec cat")
	cmds = cmds[:0]
	for w := 1; w <= 10; w++ {
		cmds = append(cmds, []string{"link-window", "-s", fmt.Sprintf("main:%d", w), "-t", fmt.Sprintf("other:%d", 10+w)})
	}
	chain(t, s, cmds)

	raw := strings.Fields(s.Tmux(t, "list-panes", "-a", "-F", "#{pane_id}"))
	if len(raw) != 331 {
		t.Fatalf("tmux lists %d pane rows, want 331 (301 panes, 30 of them twice)", len(raw))
	}
	unique := map[string]bool{}
	for _, id := range raw {
		unique[id] = true
	}
	if len(unique) != 301 {
		t.Fatalf("tmux lists %d distinct panes, want 301", len(unique))
	}
	for _, search := range []tmuxctl.Search{{}, {Pattern: "hit your .*limit"}, {Pattern: "x", Commands: "^(claude)$"}} {
		start := time.Now()
		panes, err := s.Client.ListPanes(ctx, search)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("ListPanes(%+v) of 301 panes: %s", search, time.Since(start))
		seen := map[string]int{}
		for _, p := range panes {
			seen[p.ID]++
			if !unique[p.ID] || p.PID <= 0 || p.Width <= 0 || p.Height <= 0 {
				t.Errorf("ListPanes(%+v): unexpected pane %+v", search, p)
			}
			if p.Match > 0 {
				t.Errorf("ListPanes(%+v): pane %s matches", search, p.ID)
			}
		}
		for id := range unique {
			if seen[id] != 1 {
				t.Errorf("ListPanes(%+v) lists %s %d times, want once", search, id, seen[id])
			}
		}
		if len(panes) != 301 {
			t.Errorf("ListPanes(%+v) = %d panes, want 301", search, len(panes))
		}
	}
	// A pane of a linked window is found by its ID.
	linked := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", "other:15.1", "#{pane_id}"))
	if info, err := s.Client.PaneInfo(ctx, linked); err != nil || info.ID != linked {
		t.Errorf("PaneInfo(%s) of a linked window = %+v, %v", linked, info, err)
	}
}

// TestOddSessionNames: sessions whose names tmux rewrites (".", ":" before 3.7), escapes
// (control characters, before 3.7, which refuses them) or keeps (spaces, unicode, "%9", "-x",
// "0", backslashes, "\037" as text) list with the name tmux stores, whether the server prints
// its output raw or escaped (3.4, 3.5); their panes are found by ID, by Target() where the
// name makes a target, and their options round-trip.
func TestOddSessionNames(t *testing.T) {
	t.Parallel()
	eachTransport(t, testOddSessionNames)
}

func testOddSessionNames(t *testing.T, control bool) {
	t.Parallel()
	s := start(t, control, 80, 24)
	ctx := context.Background()
	c := s.Client
	names := []string{".", "a.b:c d", "with space", "ünï✳ ü", "%9", "-x", "0", "'q\"", `back\slash`, `a\037b`,
		`\\`, "$HOME", "ctl\x01x\x1fy\nz", "tab\tx", "-:-", "long " + strings.Repeat("ñ", 100)}
	made := 1 // main
	for _, n := range names {
		if _, err := c.Run(ctx, "new-session", "-d", "-s", n, "-x", "80", "-y", "24"); err != nil {
			// tmux 3.7 refuses a name that is not printable UTF-8; the others store it escaped.
			if !strings.ContainsAny(n, "\x01\x1f\n\t") || !strings.Contains(err.Error(), "invalid session name") {
				t.Errorf("new-session -s %q: %v", n, err)
			}
			continue
		}
		made++
	}
	panes, err := c.ListPanes(ctx, tmuxctl.Search{})
	if err != nil {
		t.Fatal(err)
	}
	if len(panes) != made {
		t.Fatalf("ListPanes = %d panes, want %d: %+v", len(panes), made, panes)
	}
	for _, p := range panes {
		if !storedName(t, s, p.ID, p.Session) {
			t.Errorf("pane %s: Session %q is not the name tmux stores for it", p.ID, p.Session)
		}
		info, err := c.PaneInfo(ctx, p.ID)
		if err != nil || info.ID != p.ID || info.Session != p.Session {
			t.Errorf("PaneInfo(%s) = %+v, %v; want session %q", p.ID, info, err, p.Session)
		}
		if !strings.ContainsAny(p.Session, ".:") && !strings.HasPrefix(p.Session, "$") {
			// A name with "." or ":" (kept since tmux 3.7) does not make a target, nor one
			// that starts with "$" (a session ID).
			out, err := c.Run(ctx, "display-message", "-p", "-t", p.Target(), "#{pane_id}")
			if got := strings.TrimSpace(out); err != nil || got != p.ID {
				t.Errorf("target %q resolves to %q, %v; want %s", p.Target(), got, err, p.ID)
			}
		}
		o := tmuxctl.Options{State: "waiting", Kind: "session", Note: "in " + p.Session}
		if err := c.SetPaneOptions(ctx, p.ID, tmuxctl.OptionNames, o.Values()); err != nil {
			t.Errorf("SetPaneOptions(%s of %q): %v", p.ID, p.Session, err)
		}
		if got, err := c.PaneOption(ctx, p.ID, "@cac_note"); err != nil || got != o.Note {
			t.Errorf("PaneOption(%s, @cac_note) = %q, %v; want %q", p.ID, got, err, o.Note)
		}
	}
	panes, err = c.ListPanes(ctx, tmuxctl.Search{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range panes {
		if want := (tmuxctl.Options{State: "waiting", Kind: "session", Note: "in " + p.Session}); p.Options != want {
			t.Errorf("pane %s of %q: Options = %+v, want %+v", p.ID, p.Session, p.Options, want)
		}
	}
}

// storedName asks the server whether name is the name of pane's session, comparing them on
// the server's side, so that the answer does not go through the output escaping under test:
// name is set as an option by argv, and #{==:…} compares.
func storedName(t *testing.T, s *tmuxtest.Server, pane, name string) bool {
	t.Helper()
	s.Tmux(t, "set-option", "-p", "-t", pane, "@want", name)
	return s.Tmux(t, "display-message", "-p", "-t", pane, "#{==:#{session_name},#{@want}}") == "1\n"
}

// TestOddTitlesAndCommands: pane titles set with control characters, the separator, tabs,
// newlines and "-:-" (by an escape sequence and by select-pane -T), and a program whose
// argv[0] holds the separator, a newline and a tab, never break the listing: every row keeps
// its own fields, and the rows after them are intact.
func TestOddTitlesAndCommands(t *testing.T) {
	t.Parallel()
	eachTransport(t, testOddTitlesAndCommands)
}

func testOddTitlesAndCommands(t *testing.T, control bool) {
	t.Parallel()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("no sleep: %v", err)
	}
	// A program named with the separator, a newline and a tab (pane_current_command is its
	// argv[0]'s base name, as tmux reads it from /proc).
	odd := filepath.Join(t.TempDir(), "c\x1fm\nd\te")
	if err := os.Symlink(sleep, odd); err != nil {
		t.Fatal(err)
	}
	// Every other pane runs cat, exec'd by tmux itself (two words: no shell between; tmux 3.7
	// lists the program's name before the fork runs it, so a shell that has yet to exec it
	// would show "sh" at the next look), not a login shell: a shell's profile runs programs
	// (Debian's root .profile runs mesg), so its command would change between two listings.
	// Window 0: a title by escape sequence with a tab, the separator, "-:-", a newline and ^A.
	s := start(t, control, 80, 24, "sh", "-c", `printf '\033]2;A\tB\037C-:-D\nE\001F\033\\'; exec cat`)
	ctx := context.Background()
	c := s.Client
	for i := 1; i <= 4; i++ {
		s.Tmux(t, "new-window", "-d", "-t", fmt.Sprintf("main:%d", i), "cat", "-")
	}
	s.Tmux(t, "new-window", "-d", "-t", "main:5", odd, "1000")
	s.Tmux(t, "new-window", "-d", "-t", "main:6", "cat", "-")
	ids := map[int]string{}
	for w := 0; w <= 6; w++ {
		ids[w] = strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", fmt.Sprintf("main:%d.0", w), "#{pane_id}"))
		s.Tmux(t, "set-option", "-p", "-t", ids[w], "@cac_state", fmt.Sprintf("state-%d", w))
	}

	// Window 1: select-pane -T with control characters (tmux 3.3a refuses such a title).
	s.Tmux(t, "select-pane", "-t", ids[1], "-T", "x\x1fy\nz\tw")
	// Window 2: a title of separators and row breakers' look-alikes.
	s.Tmux(t, "select-pane", "-t", ids[2], "-T", "-:- %9 @9 ✳ a;b -:-")
	// Window 3: an empty title.
	s.Tmux(t, "select-pane", "-t", ids[3], "-T", "")
	// Window 4: a long title.
	long := strings.Repeat("⠂-:-", 300)
	s.Tmux(t, "select-pane", "-t", ids[4], "-T", long)

	var panes []tmuxctl.Pane
	var lastErr error
	tmuxtest.WaitFor(t, 5*time.Second, "the escape-sequence title and every pane's program", func() bool {
		panes, lastErr = c.ListPanes(ctx, tmuxctl.Search{Pattern: "limit"})
		if lastErr != nil {
			t.Logf("ListPanes: %v", lastErr)
			return false
		}
		// Until a pane's program has run exec, its command is the server's or sh.
		for _, p := range panes {
			if p.ID != ids[5] && p.Command != "cat" {
				return false
			}
		}
		by := byID(panes)
		// Until the odd program has run exec, tmux names the pane by its command line as
		// typed, its control characters escaped as text (c\037m\nd\te; CI on 3.5a listed that
		// once): wait for the name read from the running process.
		return strings.Contains(by[ids[0]].Title, "-:-") && (by[ids[5]].Command == "c?m?d?e" || emptyCommand(t, s, ids[5]))
	})
	if len(panes) != 7 {
		t.Fatalf("ListPanes = %d panes, want 7: %+v", len(panes), panes)
	}
	for i, p := range panes {
		if p.ID != ids[i] || p.WindowIndex != i || p.PaneIndex != 0 || p.Session != "main" ||
			p.Width != 80 || p.Height != 24 || p.PID <= 0 || p.Match != 0 || p.Dead || p.InMode ||
			p.Options != (tmuxctl.Options{State: fmt.Sprintf("state-%d", i)}) {
			t.Errorf("ListPanes()[%d] = %+v, want pane %s of main:%d with @cac_state state-%d", i, p, ids[i], i, i)
		}
		if strings.ContainsAny(p.Title, "\n\x01") || strings.ContainsAny(p.Command, "\n\x1f") {
			t.Errorf("pane %s: title %q or command %q holds a control character", p.ID, p.Title, p.Command)
		}
	}
	if got := panes[0].Title; got != "ABC-:-DEF" {
		t.Errorf("escape-sequence title = %q, want %q (control characters dropped)", got, "ABC-:-DEF")
	}
	if got := panes[2].Title; got != "-:- %9 @9 ✳ a;b -:-" {
		t.Errorf("select-pane -T title = %q", got)
	}
	if got := panes[3].Title; got != "" {
		t.Errorf("empty title = %q", got)
	}
	if got := panes[4].Title; got != long {
		t.Errorf("long title = %q (%d bytes), want %d bytes", got, len(got), len(long))
	}
	if got := panes[5].Command; got != "c?m?d?e" && !(got == "" && emptyCommand(t, s, ids[5])) {
		// tmux 3.7 and later print nothing for a name with a control character.
		t.Errorf("command of the oddly named program = %q, want %q (control characters as ?)", got, "c?m?d?e")
	}
	if got := panes[6].Command; got != "cat" {
		t.Errorf("command of the pane after the odd one = %q, want cat", got)
	}
	// The same rows through PaneInfo.
	for i, id := range ids {
		info, err := c.PaneInfo(ctx, id)
		if err != nil || info.ID != id || info.Title != panes[i].Title || info.Command != panes[i].Command {
			t.Errorf("PaneInfo(%s) = %+v, %v; want the listing's row %+v", id, info, err, panes[i])
		}
	}

	// An option set by someone else to text with a newline and the separator does not break
	// the listing either.
	s.Tmux(t, "set-option", "-p", "-t", ids[1], "@cac_note", "line1\nline2\x1fx")
	panes, err = c.ListPanes(ctx, tmuxctl.Search{})
	if err != nil {
		t.Fatalf("ListPanes with a note holding a newline: %v", err)
	}
	if len(panes) != 7 || panes[1].Options.Note != "line1?line2?x" || panes[1].Options.State != "state-1" || panes[2].Options.State != "state-2" {
		t.Errorf("ListPanes with a note holding a newline = %+v", panes)
	}
}

// emptyCommand reports whether the server's pane_current_command of pane is empty (tmux 3.7
// and later, for a name with a control character), asked on the server's side.
func emptyCommand(t *testing.T, s *tmuxtest.Server, pane string) bool {
	t.Helper()
	return s.Tmux(t, "display-message", "-p", "-t", pane, "#{==:#{pane_current_command},}") == "1\n"
}

func byID(panes []tmuxctl.Pane) map[string]tmuxctl.Pane {
	m := map[string]tmuxctl.Pane{}
	for _, p := range panes {
		m[p.ID] = p
	}
	return m
}

// TestMessageKeepsControlCharacters: a @cac_message holding a control character (a TAB, an
// escape) reads back with a control character in its place, so that the watcher's check
// refuses it rather than typing "?" for it; the other options read
// with "?" as before.
func TestMessageKeepsControlCharacters(t *testing.T) {
	t.Parallel()
	eachTransport(t, func(t *testing.T, control bool) {
		s := start(t, control, 80, 24)
		ctx := context.Background()
		s.Tmux(t, "set-option", "-p", "-t", "%0", tmuxctl.MessageOption, "go\ton\x1b[31m")
		s.Tmux(t, "set-option", "-p", "-t", "%0", "@cac_note", "a\tb")
		panes, err := s.Client.ListPanes(ctx, tmuxctl.Search{})
		if err != nil || len(panes) != 1 {
			t.Fatalf("ListPanes = %+v, %v", panes, err)
		}
		if got := panes[0].Message; got != "go\x7fon\x7f[31m" || config.CheckMessage(got) == "" {
			t.Errorf("Message = %q, want each control character as DEL, refused by config.CheckMessage", got)
		}
		if got := panes[0].Options.Note; got != "a?b" {
			t.Errorf("Note = %q, want a?b", got)
		}
		if info, err := s.Client.PaneInfo(ctx, "%0"); err != nil || info.Message != panes[0].Message {
			t.Errorf("PaneInfo = %+v, %v; want the listing's message", info, err)
		}
	})
}

// TestCutShort: a row that tmux cuts short at its time limit on a format (tmux 3.7 and later,
// 100 ms; here a search whose regular expression backtracks for about a second over a
// screen of "a") is never read. Cut short, a search's pattern comes out empty and matches line
// 1 of any screen, and free text comes out unescaped (a note's backslash read as an escape):
// ListPanes fails with "cut short", after its second try, rather than report either. A server
// with no limit searches in full, finds nothing and reads the note as set.
func TestCutShort(t *testing.T) {
	t.Parallel()
	eachTransport(t, testCutShort)
}

func testCutShort(t *testing.T, control bool) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24, `awk 'BEGIN { for (i = 0; i < 20; i++) { s = ""; for (j = 0; j < 30; j++) s = s "a"; print s } }'; exec cat`)
	// The search runs in full where tmux has no limit (about 0.5 s idle, over 5 s on a loaded
	// CI machine): a minute for each call, set before the control client is dialed, as it
	// keeps a copy of its Client.
	s.Client.Timeout = time.Minute
	if control {
		s.Connect(t)
	}
	s.WaitScreen(t, "main:0.0", strings.Repeat("a", 30)+"\n")
	const note = `x\by` // a backslash, which freeText doubles
	s.Tmux(t, "set-option", "-p", "-t", "%0", "@cac_note", note)
	ctx := context.Background()
	panes, err := s.Client.ListPanes(ctx, tmuxctl.Search{Pattern: `(a*)(a*)\1\2b`})
	switch {
	case err != nil && !strings.Contains(err.Error(), "cut short"):
		t.Fatalf("ListPanes(a slow search) error = %v, want none or cut short", err)
	case err == nil && (len(panes) != 1 || panes[0].Match != 0 || panes[0].Options.Note != note):
		t.Fatalf("ListPanes(a slow search) = %+v, want one pane, no match and note %q", panes, note)
	}
	t.Logf("ListPanes(a slow search): %d panes, %v", len(panes), err)
	if _, err := s.Client.PaneInfo(ctx, "%0"); err != nil {
		t.Errorf("PaneInfo(%%0) = %v, want no error (no search, not cut short)", err)
	}
}
