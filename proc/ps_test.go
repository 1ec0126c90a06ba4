package proc

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// linuxPS is procps-ng 4.0.2 output for psArgs: tpgid -1 without a terminal, the day of month
// padded, kernel threads in brackets.
const linuxPS = `    1     0     1    -1 Ss   Fri Nov 20 22:53:55 2026 /sbin/init splash
    2     0     0    -1 S    Fri Nov 20 22:53:55 2026 [kthreadd]
  100     1   100   200 Ss   Fri Nov 20 22:54:00 2026 -bash
  200   100   200   200 S+   Fri Nov 20 22:54:10 2026 bash wrapper.sh
  201   200   200   200 Sl+  Thu Nov  5 09:04:11 2026 claude --resume
  300   100   300   200 T    Fri Nov 20 22:55:00 2026 /home/u/.local/bin/claude
  400     1   400   400 Ss+  Fri Nov 20 22:56:00 2026 -bash
  500     1   500   501 Ss   Fri Nov 20 22:57:00 2026 -bash
  501   500   501   501 Z+   Fri Nov 20 22:57:10 2026 [claude] <defunct>
  600     1   600   700 Ss   Fri Nov 20 22:58:00 2026 /bin/sh
  701     1   700   700 S+   Fri Nov 20 22:58:30 2026 node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js
`

// macPS is BSD ps output (macOS) for psArgs: tpgid 0 without a terminal, paths with spaces in
// args, the native binary started by its versioned path, and a pane's process (4500) that is
// still the tmux server's fork: its parent's args.
const macPS = `    1     0     1      0 Ss     Mon Jan  8 09:38:24 2024     /sbin/launchd
  612     1   612      0 S      Mon Jan  8 09:38:30 2024     /Applications/Visual Studio Code.app/Contents/MacOS/Electron --type=renderer
 4099     1  4099      0 Ss     Tue Jan  9 14:02:10 2024     tmux new -s work
 4100  4099  4100   4210 Ss     Tue Jan  9 14:02:11 2024     -zsh
 4210  4100  4210   4210 S+     Tue Jan  9 14:05:47 2024     /Users/me/.local/share/claude/versions/2.1.329 --resume
 4300  4099  4300   4300 Ss+    Tue Jan  9 14:06:00 2024     -zsh
 4400  4099  4400   4401 Ss     Tue Jan  9 14:07:00 2024     -zsh
 4401  4400  4401   4401 S+     Tue Jan  9 14:07:05 2024     node /opt/homebrew/bin/claude
 4500  4099  4500      0 S      Tue Jan  9 14:08:00 2024     tmux new -s work
`

func TestParsePS(t *testing.T) {
	tab, err := parsePS(macPS)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(tab.rows), 9; got != want {
		t.Fatalf("parsePS(macPS) has %d rows, want %d", got, want)
	}
	got := tab.rows[tab.byPID[612]]
	want := psRow{pid: 612, ppid: 1, pgid: 612, tpgid: 0, stat: "S", lstart: "Mon Jan 8 09:38:30 2024",
		args: "/Applications/Visual Studio Code.app/Contents/MacOS/Electron --type=renderer"}
	if got != want {
		t.Errorf("parsePS(macPS) row 612 = %+v, want %+v", got, want)
	}
	if got, want := tab.byParent[4099], []int{4100, 4300, 4400, 4500}; !slices.Equal(got, want) {
		t.Errorf("children of 4099 = %v, want %v", got, want)
	}

	tab, err = parsePS(linuxPS)
	if err != nil {
		t.Fatal(err)
	}
	got = tab.rows[tab.byPID[201]]
	want = psRow{pid: 201, ppid: 200, pgid: 200, tpgid: 200, stat: "Sl+", lstart: "Thu Nov 5 09:04:11 2026", args: "claude --resume"}
	if got != want {
		t.Errorf("parsePS(linuxPS) row 201 = %+v, want %+v", got, want)
	}

	// A header, a short line and garbage are skipped; the rest is kept.
	tab, err = parsePS("  PID  PPID  PGID TPGID STAT STARTED ARGS\n  12 1 12 12 S\n\nzzz\n" +
		"   7     1     7     7 R+   Sat Nov 21 01:02:03 2026 claude\r\n")
	if err != nil || len(tab.rows) != 1 || tab.rows[0].args != "claude" {
		t.Errorf("parsePS with junk = %+v, %v, want one row", tab, err)
	}
	for _, out := range []string{"", "\n", "ps: illegal option -- w\n",
		"1 0 1 -1 Ss Fri Nov 20 22:53 2026 init\n"} {
		if tab, err := parsePS(out); err == nil {
			t.Errorf("parsePS(%q) = %+v, want an error", out, tab)
		}
	}
}

// psProcs is what lsof tells of the processes of linuxPS and macPS.
var psProcs = map[int]lsofFake{
	1: {exe: "/sbin/init"}, 100: {exe: "/usr/bin/bash"}, 200: {exe: "/usr/bin/bash"},
	201: {exe: nativeExe, comm: "claude"}, 300: {exe: nativeExe}, 400: {exe: "/usr/bin/bash"},
	500: {exe: "/usr/bin/bash"}, 600: {exe: "/usr/bin/dash", comm: "sh"}, 701: {exe: "/usr/bin/node"},
	612:  {exe: "/Applications/Visual Studio Code.app/Contents/MacOS/Electron"},
	4100: {exe: "/bin/zsh"}, 4210: {exe: "/Users/me/.local/share/claude/versions/2.1.329"},
	4300: {exe: "/bin/zsh"}, 4400: {exe: "/bin/zsh"}, 4401: {exe: "/opt/homebrew/Cellar/node/22.1.0/bin/node"},
	4500: {exe: "/opt/homebrew/bin/tmux"},
}

// TestFindPS: the walk over a listing and the decision by the executable lsof gives.
func TestFindPS(t *testing.T) {
	tests := []struct {
		listing string
		pane    int
		wantPID int // 0: not Claude Code
		wantHow string
	}{
		{linuxPS, 100, 201, noProcSource + ": pid 201 at depth 1"}, // wrapper; the stopped claude 300 is not it
		{linuxPS, 400, 0, ""}, // shell at the prompt
		{linuxPS, 500, 0, ""}, // zombie
		{linuxPS, 600, 701, "(leader gone): pid 701: node (/usr/bin/node) running"},
		{linuxPS, 1, 0, ""},   // no terminal
		{linuxPS, 999, 0, ""}, // gone
		{macPS, 4100, 4210, `foreground group 4210 of pane pid 4100` + noProcSource + `: version-named executable under a claude directory: "/Users/me/.local/share/claude/versions/2.1.329"`},
		{macPS, 4300, 0, ""},
		// node running the npm bin link: its real path is not inside the package here (no
		// such file), so not Claude Code; on the Mac it resolves into the package.
		{macPS, 4400, 0, ""},
		{macPS, 612, 0, ""},
		{macPS, 4500, 0, ""}, // tmux's fork, before it runs the pane's program: Starting
	}
	for _, tt := range tests {
		f := fakeTools(tt.listing, psProcs)
		got, ok, err := f.Find(context.Background(), tt.pane)
		if err != nil {
			t.Errorf("Find(%d) error: %v", tt.pane, err)
			continue
		}
		if tt.wantPID == 0 {
			if starting := tt.pane == 4500; ok || got.Starting != starting {
				t.Errorf("Find(%d) = %+v, %v, want not Claude Code, Starting %v", tt.pane, got, ok, starting)
			}
			continue
		}
		if !ok || got.PID != tt.wantPID || !strings.HasPrefix(got.Start, "lstart:") || !strings.Contains(got.How, tt.wantHow) {
			t.Errorf("Find(%d) = %+v, %v, want pid %d, an lstart and How containing %q", tt.pane, got, ok, tt.wantPID, tt.wantHow)
		}
	}
}

func TestAlivePS(t *testing.T) {
	calls := 0
	f := &Finder{procRoot: "/nonexistent", ps: func(context.Context) (string, error) { calls++; return linuxPS, nil }}
	ctx := context.Background()
	tests := []struct {
		id   Identity
		want bool
	}{
		{Identity{201, "lstart:Thu Nov 5 09:04:11 2026"}, true},
		{Identity{201, "lstart:Thu Nov 5 09:04:12 2026"}, false},  // pid reused
		{Identity{501, "lstart:Fri Nov 20 22:57:10 2026"}, false}, // zombie
		{Identity{999, "lstart:Fri Nov 20 22:57:10 2026"}, false}, // gone
	}
	for _, tt := range tests {
		got, err := f.alive(ctx, tt.id)
		if err != nil || got != tt.want {
			t.Errorf("alive(%+v) = %v, %v, want %v", tt.id, got, err, tt.want)
		}
	}
	if calls != len(tests) {
		t.Errorf("ps ran %d times for %d calls", calls, len(tests))
	}
	f.ps = func(context.Context) (string, error) { return "", errors.New("no ps") }
	if got, err := f.alive(ctx, Identity{201, "lstart:Thu Nov 5 09:04:11 2026"}); err == nil {
		t.Errorf("alive with failing ps = %v, nil, want an error", got)
	}
}

// TestRealPS runs the real ps with psArgs and parses it: this process must be in it, with the
// start that ps gives on a second run.
func TestRealPS(t *testing.T) {
	f := &Finder{}
	// ps -A took over 5 s (the bound without a deadline) on 2 cores running two tmux
	// versions' tests at once (make -j2 test-matrix): the test gives it longer.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := f.runPS(ctx)
	if err != nil {
		t.Skipf("no ps: %v", err)
	}
	tab, err := parsePS(out)
	if err != nil {
		t.Fatal(err)
	}
	i, ok := tab.byPID[os.Getpid()]
	if !ok {
		t.Fatalf("this process (pid %d) is not in ps output:\n%s", os.Getpid(), out)
	}
	id := Identity{PID: os.Getpid(), Start: lstartPrefix + tab.rows[i].lstart}
	if alive, err := f.alive(ctx, id); err != nil || !alive {
		t.Errorf("alive(%+v) = %v, %v, want true", id, alive, err)
	}
}
