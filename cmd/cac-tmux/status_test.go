package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// status runs `cac-tmux status ARGS` in this process.
func status(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(append([]string{"status"}, args...), stdio{in: strings.NewReader(""), out: &out, err: &errOut})
	return code, out.String(), errOut.String()
}

// panes opens windows 1..n-1 beside main:0 on s and returns the n pane ids in window order.
func panes(t testing.TB, s *tmuxtest.Server, n int) []string {
	t.Helper()
	for i := 1; i < n; i++ {
		s.Tmux(t, "new-window", "-d", "-t", fmt.Sprintf("main:%d", i))
	}
	ids := strings.Fields(s.Tmux(t, "list-panes", "-s", "-t", "main", "-F", "#{pane_id}"))
	if len(ids) != n {
		t.Fatalf("panes = %q, want %d", ids, n)
	}
	return ids
}

// watched publishes this test's pid as the server's watcher (a live process), as a watcher does.
func watched(t testing.TB, s *tmuxtest.Server) {
	t.Helper()
	s.Tmux(t, "set-option", "-g", "@cac_watcher", strconv.Itoa(os.Getpid()))
}

// publish sets a pane's @cac_state and, when due is not zero, its @cac_due, as a watcher does.
func publish(t testing.TB, s *tmuxtest.Server, pane, state string, due time.Time) {
	t.Helper()
	args := []string{"set-option", "-p", "-t", pane, "@cac_state", state}
	if !due.IsZero() {
		args = append(args, ";", "set-option", "-p", "-t", pane, "@cac_due", due.Format(time.RFC3339))
	}
	s.Tmux(t, args...)
}

// TestStatus prints nothing with nothing paused, then the count and the soonest countdown for
// one and for several paused panes; a running pane, a state it does not know and a window
// linked into a second session do not change the count.
func TestStatus(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	ids := panes(t, s, 7)
	s.Tmux(t, "new-session", "-d", "-s", "other")
	s.Tmux(t, "link-window", "-s", "main:1", "-t", "other:5") // ids[1] is listed twice
	now := time.Now()
	check := func(what, want string) {
		t.Helper()
		code, out, errOut := status("-S", s.Socket)
		if code != 0 || out != want || errOut != "" {
			t.Errorf("%s: status = %d, stdout %q, stderr %q; want 0, %q, nothing", what, code, out, errOut, want)
		}
	}
	check("nothing paused", "")
	watched(t, s)
	publish(t, s, ids[0], "running", time.Time{}) // not paused, whatever published it
	publish(t, s, ids[6], "dozing", time.Time{})  // not a state: left out
	check("nothing paused", "")

	// Each due instant is 30 s past a whole minute, so the countdown's minutes hold for 30 s.
	publish(t, s, ids[1], "waiting", now.Add(2*time.Hour+10*time.Minute+30*time.Second))
	check("one paused", "⏸ 1 · 2h10m\n")
	publish(t, s, ids[2], "native", now.Add(time.Hour+12*time.Minute+30*time.Second))
	publish(t, s, ids[3], "held", time.Time{})
	publish(t, s, ids[4], "failed", time.Time{})
	publish(t, s, ids[5], "skipped", time.Time{})
	check("five paused", "⏸ 5 · 1h12m\n")
	publish(t, s, ids[2], "verifying", now.Add(-time.Minute))
	check("one overdue", "⏸ 5 · now\n")

	// No watcher: what was published is what the last one saw, and nothing is resumed.
	s.Tmux(t, "set-option", "-g", "@cac_watcher", "999999999") // a watcher killed: its pid runs no more
	check("a dead watcher's pid", "⏸ 5 · no watcher\n")
	s.Tmux(t, "set-option", "-gu", "@cac_watcher")
	check("no watcher", "⏸ 5 · no watcher\n")
	watched(t, s)

	code, out, errOut := status("-S", s.Socket, "--format",
		`{{.Count}} {{.Waiting}}/{{.Held}}/{{.Failed}} {{.Next}} {{.NextAt.Unix}}`)
	if want := fmt.Sprintf("5 2/2/1 now %d\n", now.Add(-time.Minute).Unix()); code != 0 || out != want || errOut != "" {
		t.Errorf("status --format = %d, %q, %q; want 0, %q, nothing", code, out, errOut, want)
	}
}

// TestStatusOnlyHeld has no due instant to count down to: the count alone.
func TestStatusOnlyHeld(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	ids := panes(t, s, 2)
	watched(t, s)
	publish(t, s, ids[1], "held", time.Time{})
	if code, out, _ := status("-S", s.Socket); code != 0 || out != "⏸ 1\n" {
		t.Errorf("status = %d, %q; want 0, %q", code, out, "⏸ 1\n")
	}
	if code, out, _ := status("-S", s.Socket, "--format", `{{if not .Waiting}}✓{{end}}`); code != 0 || out != "✓\n" {
		t.Errorf("status --format = %d, %q; want 0, %q", code, out, "✓\n")
	}
}

// TestStatusNoServer prints nothing and exits 0: a status line never shows an error.
func TestStatusNoServer(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	for _, args := range [][]string{{"-S", none}, {"-L", "cac-status-none"}, {"-S", none, "--format", "✓{{.Count}}"}} {
		if code, out, errOut := status(args...); code != 0 || out != "" || errOut != "" {
			t.Errorf("status %q on no server = %d, %q, %q; want 0 and nothing at all", args, code, out, errOut)
		}
	}
}

func TestStatusUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--format", "{{.Nope}}"}, "status: --format: template: status:1:2: executing"},
		{[]string{"--format", "{{if .Count}}"}, "status: --format: template: status:1: unexpected EOF"},
		{[]string{"extra"}, `status: unexpected argument "extra"`},
	} {
		if code, out, errOut := status(tc.args...); code != 2 || out != "" || !strings.Contains(errOut, tc.err) {
			t.Errorf("status %q = %d, %q, %q; want 2 and an error with %q", tc.args, code, out, errOut, tc.err)
		}
	}
}

// TestStatusOneTmuxCall runs the built binary with a tmux on PATH that logs its arguments:
// one call, the server-side filtered listing.
func TestStatusOneTmuxCall(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	ids := panes(t, s, 3)
	watched(t, s)
	publish(t, s, ids[2], "waiting", time.Now().Add(time.Hour+30*time.Second))
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	wrapper := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$*\" >> '%s'\nexec '%s' \"$@\"\n", log, real)
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bins.cac, "status", "-S", s.Socket)
	cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.Output()
	if err != nil || string(out) != "⏸ 1 · 1h00m\n" {
		t.Fatalf("cac-tmux status = %q, %v; want %q", out, err, "⏸ 1 · 1h00m\n")
	}
	calls, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSuffix(string(calls), "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "-u -S "+s.Socket+" list-panes -a -f #{@cac_state} -F ") {
		t.Errorf("tmux calls = %q, want one list-panes -a -f #{@cac_state}", lines)
	}
}

// statusJob is what tmux makes of `#(cac-tmux status)` on s, a server with a persistent
// client (Connect) whose job output tmux keeps, once it shows a count ("⏸ …").
func statusJob(t *testing.T, s *tmuxtest.Server) string {
	t.Helper()
	job := "#(" + bins.cac + " status)"
	var got string
	tmuxtest.WaitFor(t, 10*time.Second, "the status job's output", func() bool {
		out, err := s.Client.Run(context.Background(), "display-message", "-p", job)
		got = out
		return err == nil && strings.HasPrefix(out, "⏸ ")
	})
	return got
}

// TestStatusAsStatusJob lets tmux itself run `#(cac-tmux status)` as a status job (from
// the job's $TMUX, without -L or -S) and expand it, over a persistent client whose job
// output tmux keeps.
func TestStatusAsStatusJob(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 80, 24)
	s.Connect(t)
	ids := panes(t, s, 2)
	watched(t, s)
	publish(t, s, ids[1], "waiting", time.Now().Add(3*time.Hour+30*time.Second))
	if got := statusJob(t, s); got != "⏸ 1 · 3h00m\n" {
		t.Errorf("#(cac-tmux status) = %q, want %q", got, "⏸ 1 · 3h00m\n")
	}
}

// The pure-format segments the README shows: no process at all, only the pane options.
const (
	// every paused pane of the current window, in status-right
	windowSegment = `#{P:#{?#{@cac_state},⏸ ,}}`
	// every paused pane on the server, in status-right
	serverSegment = `#{S:#{W:#{P:#{?@cac_state,⏸,}}}}`
	// the state on a pane's border
	borderSegment = `#{?@cac_state,⏸ #{@cac_state} #{@cac_due},}`
)

// TestStatusFormatsInREADME expands the README's pure-format segments on a private tmux
// server, directly and as status-right (#{T:status-right}), so the README cannot lie.
func TestStatusFormatsInREADME(t *testing.T) {
	t.Parallel()
	readme := readFile(t, "../../README.md")
	for _, f := range []string{windowSegment, serverSegment, borderSegment} {
		if !strings.Contains(readme, f) {
			t.Errorf("README.md does not show the segment %s", f)
		}
	}
	s := tmuxtest.Start(t, 80, 24)
	s.Tmux(t, "split-window", "-d", "-t", "main:0")
	s.Tmux(t, "new-window", "-d", "-t", "main:1")
	ids := strings.Fields(s.Tmux(t, "list-panes", "-s", "-t", "main", "-F", "#{pane_id}")) // 0.0, 0.1, 1.0
	if len(ids) != 3 {
		t.Fatalf("panes = %q, want 3", ids)
	}
	display := func(target, format string) string {
		t.Helper()
		return strings.TrimSuffix(s.Tmux(t, "display-message", "-p", "-t", target, format), "\n")
	}
	if got := display("main:0", windowSegment); got != "" {
		t.Errorf("window segment with nothing paused = %q, want nothing", got)
	}
	due := "2026-11-21T01:31:00+02:00"
	publish(t, s, ids[1], "waiting", time.Date(2026, 11, 21, 1, 31, 0, 0, time.FixedZone("", 2*3600)))
	publish(t, s, ids[2], "held", time.Time{})
	for _, tc := range []struct{ target, format, want string }{
		{"main:0", windowSegment, "⏸ "},
		{"main:1", windowSegment, "⏸ "},
		{"main:0", serverSegment, "⏸⏸"},
		{ids[0], borderSegment, ""},
		{ids[1], borderSegment, "⏸ waiting " + due},
		{ids[2], borderSegment, "⏸ held "},
	} {
		if got := display(tc.target, tc.format); got != tc.want {
			t.Errorf("display -t %s %s = %q, want %q", tc.target, tc.format, got, tc.want)
		}
	}
	s.Tmux(t, "set-option", "-g", "status-right", windowSegment+"| "+serverSegment)
	if got, want := display("main:0", "#{T:status-right}"), "⏸ | ⏸⏸"; got != want {
		t.Errorf("status-right = %q, want %q", got, want)
	}
}

// BenchmarkStatus runs the whole status command against a private server of 24 panes with
// 0, 1 and 20 of them paused: its one tmux call alone, the command in this process (cobra,
// the tmux call, the template), and the built binary, which is what tmux runs every
// status-interval
// (go test ./cmd/cac-tmux -run '^$' -bench Status).
func BenchmarkStatus(b *testing.B) {
	for _, paused := range []int{0, 1, 20} {
		s := tmuxtest.Start(b, 80, 24)
		ids := panes(b, s, 24)
		watched(b, s)
		due := time.Now().Add(time.Hour)
		for i := range paused {
			publish(b, s, ids[i], "waiting", due.Add(time.Duration(i)*time.Minute))
		}
		want := ""
		if paused > 0 {
			want = fmt.Sprintf("⏸ %d · 59m", paused)
		}
		b.Run(fmt.Sprintf("paused=%d/tmux-call", paused), func(b *testing.B) {
			for b.Loop() {
				if ps, err := s.Client.PausedPanes(context.Background()); err != nil || len(ps) != paused {
					b.Fatalf("PausedPanes = %d panes, %v; want %d", len(ps), err, paused)
				}
			}
		})
		b.Run(fmt.Sprintf("paused=%d/in-process", paused), func(b *testing.B) {
			for b.Loop() {
				if code, out, errOut := status("-S", s.Socket); code != 0 || !strings.HasPrefix(out, want) || errOut != "" {
					b.Fatalf("status = %d, %q, %q; want %q", code, out, errOut, want)
				}
			}
		})
		b.Run(fmt.Sprintf("paused=%d/binary", paused), func(b *testing.B) {
			for b.Loop() {
				out, err := exec.Command(bins.cac, "status", "-S", s.Socket).Output()
				if err != nil || !strings.HasPrefix(string(out), want) {
					b.Fatalf("cac-tmux status = %q, %v; want %q", out, err, want)
				}
			}
		})
	}
}

// Inside tmux ($TMUX), status covers the server it runs for, not the user's other servers:
// a server whose own watcher waits on a pane shows its countdown, not the paused pane of
// another server nobody watches; --all-servers, and outside tmux, count every server. The
// same through tmux itself: `#(cac-tmux status)` run by the server as a status job, whose
// environment has that server's $TMUX (tmux 3.2a to next-3.8 alike).
func TestStatusCoversItsOwnServer(t *testing.T) {
	t.Parallel()
	tmp, dir := tmuxtest.UserTmux(t)
	own := tmuxtest.StartAt(t, filepath.Join(dir, "own"), 80, 24)
	ids := panes(t, own, 2)
	watched(t, own)
	publish(t, own, ids[1], "waiting", time.Now().Add(time.Hour+30*time.Second))
	other := tmuxtest.StartAt(t, filepath.Join(dir, "other"), 80, 24)
	publish(t, other, panes(t, other, 1)[0], "held", time.Time{})

	tmuxEnv := "TMUX=" + own.Socket + ",1,0"
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{tmuxEnv}, nil, "⏸ 1 · 1h00m\n"},
		{[]string{tmuxEnv}, []string{"--all-servers"}, "⏸ 2 · no watcher\n"},
		{nil, nil, "⏸ 2 · no watcher\n"},
	} {
		cmd := exec.Command(bins.cac, append([]string{"status"}, tc.args...)...)
		cmd.Env = append(append(os.Environ(), "TMUX_TMPDIR="+tmp), tc.env...)
		if out, err := cmd.Output(); err != nil || string(out) != tc.want {
			t.Errorf("status %q with %q = %q, %v; want %q", tc.args, tc.env, out, err, tc.want)
		}
	}

	own.Connect(t)
	own.Tmux(t, "set-environment", "-g", "TMUX_TMPDIR", tmp) // the job's user servers are own and other
	if got := statusJob(t, own); got != "⏸ 1 · 1h00m\n" {
		t.Errorf("#(cac-tmux status) = %q, want %q: the server it runs for alone", got, "⏸ 1 · 1h00m\n")
	}
}

// --all-servers with -L or -S names two scopes at once: a usage error.
func TestStatusAllServersAndOne(t *testing.T) {
	code, out, errOut := status("--all-servers", "-L", "x")
	if code != 2 || out != "" || !strings.Contains(errOut, "--all-servers: not with -L or -S") {
		t.Errorf("status --all-servers -L x = %d, %q, %q; want 2 and the usage error", code, out, errOut)
	}
}
