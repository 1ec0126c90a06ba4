//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/demo/simclaude"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// binary is fakecodex built once by TestMain under the name of the real one's executable.
var binary string

func TestMain(m *testing.M) {
	tmuxtest.MainBuilding(m, func(dir string) error {
		binary = filepath.Join(dir, "codex")
		return tmuxtest.GoBuild(binary, ".")
	})
}

const pane = "main" // the only pane of the test server

// patience bounds every wait: generous, since a loaded machine can be slow and a passing test
// never waits for it.
const patience = 10 * time.Second

// fc is one fakecodex running in a private tmux server.
type fc struct {
	s              *tmuxtest.Server
	dir, log, home string
}

// start runs fakecodex with args in a width x 36 pane of a private server, in a directory of
// its own, with CODEX_HOME and TZ=Europe/Berlin.
func start(t *testing.T, width int, args ...string) *fc {
	t.Helper()
	dir := t.TempDir()
	f := &fc{dir: dir, log: filepath.Join(dir, "log"), home: filepath.Join(dir, "home")}
	cmd := fmt.Sprintf("cd '%s' && exec env CODEX_HOME='%s' TZ=Europe/Berlin '%s' --log '%s' %s", dir, f.home, binary, f.log, strings.Join(args, " "))
	f.s = tmuxtest.Start(t, width, 36, "sh", "-c", cmd)
	return f
}

// capture is the pane as the watcher captures Codex panes: joined, SGR escapes kept.
func (f *fc) capture() string {
	out, _ := f.s.Client.Run(context.Background(), "capture-pane", "-p", "-J", "-e", "-t", pane)
	return out
}

// screen waits until the captured pane satisfies cond and returns it.
func (f *fc) screen(t *testing.T, what string, cond func(screen string) bool) string {
	t.Helper()
	var screen string
	tmuxtest.WaitFor(t, patience, what, func() bool {
		screen = f.capture()
		return cond(screen)
	})
	return screen
}

// entries are the log's reads and states, in order.
func (f *fc) entries(t *testing.T) []simclaude.Entry {
	b, err := os.ReadFile(f.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []simclaude.Entry
	for _, l := range strings.Split(string(b), "\n") {
		if e, ok := simclaude.ParseLine(l); ok {
			out = append(out, e)
		}
	}
	return out
}

func (f *fc) states(t *testing.T) []string {
	var out []string
	for _, e := range f.entries(t) {
		if e.State != "" {
			out = append(out, e.State)
		}
	}
	return out
}

func (f *fc) reads(t *testing.T) []string {
	var out []string
	for _, e := range f.entries(t) {
		if e.State == "" {
			out = append(out, e.Read)
		}
	}
	return out
}

// tmux runs one tmux command line (commands separated by ";") on the server.
func (f *fc) tmux(t *testing.T, args ...string) { f.s.Tmux(t, args...) }

// read waits until the simulator has logged reads that end with want, and returns when the
// last of them came.
func (f *fc) read(t *testing.T, want ...string) time.Time {
	t.Helper()
	var at time.Time
	tmuxtest.WaitFor(t, patience, fmt.Sprintf("fakecodex to read %q", want), func() bool {
		var reads []simclaude.Entry
		for _, e := range f.entries(t) {
			if e.State == "" {
				reads = append(reads, e)
			}
		}
		if len(reads) < len(want) {
			return false
		}
		reads = reads[len(reads)-len(want):]
		for i, e := range reads {
			if e.Read != want[i] {
				return false
			}
		}
		at = reads[len(reads)-1].At
		return true
	})
	return at
}

// typeThenEnter types text, waits until the simulator has read it and 500 ms more (past a
// paste burst's window), then presses Enter alone, as the watcher does in Codex.
func (f *fc) typeThenEnter(t *testing.T, text string) {
	t.Helper()
	f.tmux(t, "send-keys", "-t", pane, "-l", text)
	typed := f.read(t, text)
	after(t, typed, 500*time.Millisecond)
	f.tmux(t, "send-keys", "-t", pane, "Enter")
}

func (f *fc) waitState(t *testing.T, name string) {
	t.Helper()
	tmuxtest.WaitFor(t, patience, "state "+name, func() bool { return slices.Contains(f.states(t), name) })
}

// after waits until d has passed since at, on the real clock (the simulator's).
func after(t *testing.T, at time.Time, d time.Duration) {
	t.Helper()
	tmuxtest.WaitFor(t, patience+d, fmt.Sprintf("%s after %s", d, at.Format(time.StampMilli)), func() bool { return time.Since(at) > d })
}

// red is a stop's first row: red (SGR 38;5;1), whatever other SGR tmux writes between.
var red = regexp.MustCompile(`\x1b\[38;5;1m(?:\x1b\[[0-9;]*m)*■ You’ve hit your usage limit\.`)

// placeholder is the composer's placeholder, dim (SGR 2): a draft is not.
var placeholder = regexp.MustCompile(`\x1b\[(?:[0-9]+;)*2(?:;[0-9]+)*m(?:\x1b\[[0-9;]*m)*Ask Codex to do anything`)

// plain is a screen's text without its SGR escapes and trailing spaces (tmux 3.2a pads lines).
func plain(screen string) string {
	return tmuxtest.TrimLines(regexp.MustCompile(`\x1b\[[0-9;]*m`).ReplaceAllString(screen, ""))
}

const (
	menuTitle = "Approaching rate limits"
)

// TestStopMenuEscAndPasteBurst: the stop is drawn in red, wrapped at the pane's width, its
// reset in the daemon's zone, with the menu over the composer; Esc closes it, leaving the dim
// placeholder; the text and Enter in one tmux command make a newline in the composer, not a
// submit; the text, a pause, then Enter submit it: before the reset, a second identical stop
// and no menu.
func TestStopMenuEscAndPasteBurst(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(2 * time.Hour).Truncate(time.Minute)
	f := start(t, 80, "--reset", reset.Format(time.RFC3339), "--zone", "America/New_York")
	printed := reset.In(mustZone(t, "America/New_York")).Format("3:04 PM")
	screen := f.screen(t, "the stop and the menu", func(s string) bool { return strings.Contains(s, menuTitle) })
	if !red.MatchString(screen) || !strings.Contains(plain(screen), "\nat "+printed+".\n") ||
		placeholder.MatchString(screen) || !strings.Contains(plain(screen), "› 1. Switch to gpt-6-luna") {
		t.Fatalf("want the red stop wrapped at 80 columns, the reset %s (New York), the menu over the composer:\n%s", printed, screen)
	}
	f.tmux(t, "send-keys", "-t", pane, "Escape")
	f.waitState(t, "menu-escaped")
	f.screen(t, "the empty composer", func(s string) bool { return placeholder.MatchString(s) && !strings.Contains(s, menuTitle) })

	f.tmux(t, "send-keys", "-t", pane, "-l", "continue", ";", "send-keys", "-t", pane, "Enter")
	f.read(t, "continue\r")
	f.waitState(t, "pasted-enter")
	screen = f.screen(t, "the draft with its newline", func(s string) bool { return strings.Contains(s, "continue") && !placeholder.MatchString(s) })
	if len(red.FindAllString(screen, -1)) != 1 {
		t.Fatalf("text and Enter in one command submitted the prompt:\n%s", screen)
	}
	f.tmux(t, "send-keys", "-t", pane, "C-u")
	f.read(t, "\x15")
	f.typeThenEnter(t, "continue")
	f.waitState(t, "limited-again")
	screen = f.screen(t, "a second stop", func(s string) bool { return len(red.FindAllString(s, -1)) == 2 })
	if strings.Contains(screen, menuTitle) || !placeholder.MatchString(screen) {
		t.Errorf("a second stop opened the menu or hid the composer:\n%s", screen)
	}
	if got, want := f.states(t), []string{"stop", "menu-escaped", "pasted-enter", "limited-again"}; !slices.Equal(got, want) {
		t.Errorf("states %q, want %q", got, want)
	}
	if got, want := f.reads(t), []string{"\x1b", "continue\r", "\x15", "continue", "\r"}; !slices.Equal(got, want) {
		t.Errorf("reads %q, want %q", got, want)
	}
}

// TestResumeAfterTheResetAndRecords: a prompt submitted after the reset starts a turn
// ("Working") that ends with a reply; the rollout holds what the real daemon writes:
// session_meta with the cwd, the stop's token_count (resets_at) and task_complete
// (usage_limit_exceeded), then the resumed turn's task_complete without error; daemon.pid
// names a live stand-in daemon in the daemon's zone.
func TestResumeAfterTheResetAndRecords(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(2 * time.Second).Truncate(time.Second)
	f := start(t, 120, "--records", "--menu=false", "--turn", "1s", "--reset", reset.Format(time.RFC3339), "--zone", "Asia/Tokyo")
	f.screen(t, "the stop", func(s string) bool { return red.MatchString(s) && placeholder.MatchString(s) })
	daemon := checkDaemon(t, f.home)
	after(t, reset, 100*time.Millisecond)
	f.typeThenEnter(t, "continue")
	f.waitState(t, "resumed")
	f.waitState(t, "turn-done")
	screen := f.screen(t, "the reply", func(s string) bool {
		return strings.Contains(plain(s), "\n• ok\n") && strings.Contains(s, "Worked for")
	})
	if strings.Contains(screen, "Working") || strings.Contains(screen, "5h limit") {
		t.Errorf("after the turn: still working, or the status line of a limit that lifted:\n%s", screen)
	}
	rows := rollout(t, f.home, reset.In(mustZone(t, "Asia/Tokyo")))
	checkRollout(t, rows, reset, f.dir)
	if got, want := f.states(t), []string{"stop", "resumed", "turn-done"}; !slices.Equal(got, want) {
		t.Errorf("states %q, want %q", got, want)
	}
	f.s.KillServer(t)
	tmuxtest.WaitFor(t, patience, "the stand-in daemon to end with the simulator", func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", daemon))
		return err != nil
	})
}

// TestMenuKeysThatChangeSettings: 1 or Enter on the highlighted row switches the model
// (logged as harm), 3 hides the reminders for good (harm), 2 keeps the model.
func TestMenuKeysThatChangeSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key    string
		states []string
	}{
		{"1", []string{"stop", "model-switched", "harm"}},
		{"Enter", []string{"stop", "model-switched", "harm"}},
		{"3", []string{"stop", "menu-never-show", "harm"}},
		{"2", []string{"stop", "menu-kept"}},
	} {
		t.Run(tc.key, func(t *testing.T) {
			t.Parallel()
			f := start(t, 120, "--plan", "pro")
			f.screen(t, "the menu", func(s string) bool {
				return strings.Contains(s, menuTitle) && strings.Contains(plain(s), "Visit https://chatgpt.com/settings/usage to purchase more credits")
			})
			f.tmux(t, "send-keys", "-t", pane, tc.key)
			f.waitState(t, tc.states[len(tc.states)-1])
			if got := f.states(t); !slices.Equal(got, tc.states) {
				t.Errorf("states %q, want %q", got, tc.states)
			}
			f.screen(t, "the composer", func(s string) bool { return !strings.Contains(s, menuTitle) && placeholder.MatchString(s) })
		})
	}
}

// TestDraftAndIdle: --draft leaves text in the composer, drawn as typed (not dim); an idle
// session replies to a prompt and draws no stop.
func TestDraftAndIdle(t *testing.T) {
	t.Parallel()
	f := start(t, 120, "--menu=false", "--draft", "'half a thought'")
	screen := f.screen(t, "the draft", func(s string) bool { return strings.Contains(s, "half a thought") })
	if placeholder.MatchString(screen) || strings.Contains(screen, "for shortcuts") {
		t.Errorf("a draft must hide the placeholder and the shortcuts line:\n%s", screen)
	}
	g := start(t, 120, "--scenario", "idle", "--turn", "0s")
	g.screen(t, "an idle composer", func(s string) bool { return placeholder.MatchString(s) })
	g.tmux(t, "send-keys", "-t", pane, "-l", "hi")
	typed := g.read(t, "hi")
	after(t, typed, 200*time.Millisecond)
	g.tmux(t, "send-keys", "-t", pane, "Enter")
	g.waitState(t, "turn-done")
	if screen := g.capture(); red.MatchString(screen) {
		t.Errorf("an idle session drew a stop:\n%s", screen)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// row is one line of a rollout, as far as the tests read it.
type row struct {
	Type    string `json:"type"`
	Payload struct {
		Type       string `json:"type"`
		Cwd        string `json:"cwd"`
		Role       string `json:"role"`
		LastAgent  any    `json:"last_agent_message"`
		RateLimits *struct {
			Primary struct {
				UsedPercent float64 `json:"used_percent"`
				ResetsAt    int64   `json:"resets_at"`
			} `json:"primary"`
		} `json:"rate_limits"`
		Error *struct {
			Message       string `json:"message"`
			CodexErrorInf string `json:"codex_error_info"`
		} `json:"error"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"payload"`
}

// rollout reads the session's one rollout, whose name must carry the daemon-local date and
// time of day of the session's start.
func rollout(t *testing.T, home string, local time.Time) []row {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(paths) != 1 || !strings.HasPrefix(filepath.Base(paths[0]), "rollout-"+local.Format("2006-01-02T")) ||
		!strings.Contains(paths[0], local.Format("/2006/01/02/")) {
		t.Fatalf("rollouts %q, want one named in Tokyo's date (%s)", paths, local.Format("2006-01-02"))
	}
	file, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var rows []row
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("rollout line %q: %v", sc.Text(), err)
		}
		rows = append(rows, r)
	}
	return rows
}

func checkRollout(t *testing.T, rows []row, reset time.Time, cwd string) {
	t.Helper()
	var kinds, prompts []string
	for _, r := range rows {
		kinds = append(kinds, r.Type+"/"+r.Payload.Type)
		if r.Payload.Role == "user" {
			prompts = append(prompts, r.Payload.Content[0].Text)
		}
	}
	if len(rows) == 0 || rows[0].Type != "session_meta" || rows[0].Payload.Cwd != cwd {
		t.Fatalf("the rollout must start with session_meta and the cwd %s: %q", cwd, kinds)
	}
	if !slices.Equal(prompts, []string{"hello", "continue"}) {
		t.Errorf("user messages %q, want hello, continue", prompts)
	}
	var stop, done bool
	for i, r := range rows {
		switch p := r.Payload; {
		case p.Type == "task_complete" && p.Error != nil:
			lim := rows[i-1].Payload.RateLimits
			stop = p.Error.CodexErrorInf == "usage_limit_exceeded" && strings.HasPrefix(p.Error.Message, "You’ve hit your usage limit.") &&
				rows[i-1].Payload.Type == "token_count" && lim != nil && lim.Primary.ResetsAt == reset.Unix() && lim.Primary.UsedPercent == 100
		case p.Type == "task_complete":
			done = stop && p.LastAgent == "ok"
		}
	}
	if !stop || !done {
		t.Errorf("want the stop (token_count resets_at %d, task_complete usage_limit_exceeded), then a task_complete without error: %q", reset.Unix(), kinds)
	}
}

// checkDaemon reads daemon.pid: a live process in a session of its own, TZ set to the daemon's
// zone; it returns its pid.
func checkDaemon(t *testing.T, home string) int {
	t.Helper()
	var entry struct {
		Pid              int    `json:"pid"`
		ProcessStartTime string `json:"processStartTime"`
		ProcessIdentity  struct {
			BootID     string `json:"bootId"`
			StartTicks int64  `json:"startTicks"`
		} `json:"processIdentity"`
		ExecutableIdentity struct {
			Digest []int `json:"digest"`
		} `json:"executableIdentity"`
	}
	b, err := os.ReadFile(filepath.Join(home, "app-server-daemon", "daemon.pid"))
	if err == nil {
		err = json.Unmarshal(b, &entry)
	}
	env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", entry.Pid))
	if err != nil || entry.Pid == 0 || entry.ProcessIdentity.StartTicks == 0 || len(entry.ExecutableIdentity.Digest) != 32 ||
		!strings.Contains("\x00"+string(env), "\x00TZ=Asia/Tokyo\x00") {
		t.Fatalf("daemon.pid %s (%v): want a live daemon with TZ=Asia/Tokyo", b, err)
	}
	return entry.Pid
}

// TestIdleLimitAt: an idle session submits "keep going" at --limit-at by itself, refused by a
// stop with the menu over the composer (the instant a harness chooses for a limit), and a
// prompt typed after the reset resumes it.
func TestIdleLimitAt(t *testing.T) {
	t.Parallel()
	hit := time.Now().Add(500 * time.Millisecond)
	reset := time.Now().Add(3 * time.Second).Truncate(time.Second)
	f := start(t, 120, "--scenario", "idle", "--limit-at", hit.Format(time.RFC3339Nano), "--reset", reset.Format(time.RFC3339))
	f.waitState(t, "limited")
	screen := f.screen(t, "the stop and the menu", func(s string) bool { return strings.Contains(s, menuTitle) })
	if !red.MatchString(screen) || !strings.Contains(plain(screen), "› keep going") {
		t.Fatalf("want the prompt keep going refused by the red stop:\n%s", screen)
	}
	f.tmux(t, "send-keys", "-t", pane, "Escape")
	f.waitState(t, "menu-escaped")
	after(t, reset, 100*time.Millisecond)
	f.typeThenEnter(t, "continue")
	f.waitState(t, "resumed")
	if got, want := f.states(t), []string{"idle", "limited", "menu-escaped", "resumed"}; !slices.Equal(got[:min(len(got), 4)], want) {
		t.Errorf("states %q, want %q first", got, want)
	}
}
