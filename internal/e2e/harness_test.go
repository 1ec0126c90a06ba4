//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/scheduler"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// The harness: the mock API, a real Claude Code in a pane of a private tmux server, and
// `cac-tmux watch` as its own process, each owned by one test and ended with it.

const (
	defaultVersion = "2.1.332"
	margin         = 5 * time.Second // the watcher's --margin
	reply          = "e2e reply from the mock"
	oauthToken     = "sk-ant-oat01-mock-token-not-real"
	zone           = "America/New_York"
)

// binDir holds the binaries built for this run (TestMain removes it).
var binDir string

func TestMain(m *testing.M) {
	cleanup := tmuxtest.Isolate() // no tmux call of this process can reach the default server
	dir, err := os.MkdirTemp("", "cace2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	cleanup()
	os.Exit(code)
}

// tools are what every case runs.
type tools struct {
	cac, mock, claude string
	skip              string // why the test cannot run on this machine
	err               error
}

var setup = sync.OnceValue(func() tools {
	shared := sharedDir()
	mockDir := filepath.Join(shared, "tools", "mockapi")
	if _, err := os.Stat(mockDir); err != nil {
		return tools{skip: fmt.Sprintf("e2e: no mock API at %s (clone shared/ beside the repository or set CAC_SHARED): %v", mockDir, err)}
	}
	version := os.Getenv("CAC_CLAUDE_VERSION")
	if version == "" {
		version = defaultVersion
	}
	tl := tools{mock: filepath.Join(binDir, "mockapi")}
	out, err := exec.Command("bash", filepath.Join(shared, "tools", "real-claude.sh"), version).Output()
	tl.claude = strings.TrimSpace(string(out))
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
		}
		return tools{skip: fmt.Sprintf("e2e: no real Claude Code %s (real-claude.sh needs npm and the npm registry the first time): %v", version, err)}
	}
	if fi, err := os.Stat(tl.claude); err != nil || fi.Mode()&0o111 == 0 {
		return tools{skip: fmt.Sprintf("e2e: real-claude.sh %s printed %q, not an executable: %v", version, tl.claude, err)}
	}
	if tl.cac, err = buildCac(); err != nil {
		return tools{err: err}
	}
	build := exec.Command(goTool(), "build", "-o", tl.mock, ".")
	build.Dir = mockDir
	if b, err := build.CombinedOutput(); err != nil {
		return tools{err: fmt.Errorf("e2e: build %s: %w\n%s", mockDir, err, b)}
	}
	return tl
})

// sharedDir is the shared/ checkout: $CAC_SHARED, else ../shared beside the repository.
func sharedDir() string {
	if dir := os.Getenv("CAC_SHARED"); dir != "" {
		return dir
	}
	dir, _ := filepath.Abs("../../../shared")
	return dir
}

// buildCac builds cac-tmux once for every case, Claude Code's and Codex's.
var buildCac = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "cac-tmux")
	if err := tmuxtest.GoBuild(bin, "../../cmd/cac-tmux"); err != nil {
		return "", fmt.Errorf("e2e: build cac-tmux: %w", err)
	}
	return bin, nil
})

// need returns the tools, or skips (nothing to run against) or fails (a build broke) t.
func need(t *testing.T) tools {
	t.Helper()
	tl := setup()
	ready(t, tl.skip, tl.err)
	return tl
}

// ready skips t with skip, else fails it with err, when either is set.
func ready(t *testing.T, skip string, err error) {
	t.Helper()
	if skip != "" {
		t.Skip(skip)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil { // go test puts $GOROOT/bin first in PATH
		return p
	}
	return "go"
}

// deadline is now plus d stretched by $CAC_TEST_SLOW.
func deadline(d time.Duration) time.Time { return time.Now().Add(tmuxtest.Scale(d)) }

// ---- the mock API

type mock struct {
	url, log string
}

// request is one line of the mock's request log.
type request struct {
	UnixMS int64  `json:"unix_ms"`
	Path   string `json:"path"`
	Tools  int    `json:"num_tools"`
	Tail   string `json:"last_user_tail"`
	Answer string `json:"answer"`
}

func (r request) at() time.Time { return time.UnixMilli(r.UnixMS) }

// startMock starts a mock API of its own on a free loopback port, with its own log; it is
// killed when t ends. A port taken between the pick and the start is picked again.
func startMock(t *testing.T, bin string) *mock {
	t.Helper()
	var err error
	for range 5 {
		var m *mock
		if m, err = tryMock(t, bin); err == nil {
			return m
		}
	}
	t.Fatal(err)
	return nil
}

func tryMock(t *testing.T, bin string) (*mock, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("e2e: pick port: %w", err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	m := &mock{url: "http://" + addr, log: filepath.Join(dir, "mock.jsonl")}
	out, err := os.Create(filepath.Join(dir, "mock.out"))
	if err != nil {
		return nil, fmt.Errorf("e2e: mock output: %w", err)
	}
	cmd := exec.Command(bin, "-addr", addr, "-log", m.log, "-quiet", "-state", `{"text":"`+reply+`"}`)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("e2e: start mock %s: %w", addr, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); out.Close(); close(done) }()
	stop := func() { cmd.Process.Kill(); <-done }
	for end := deadline(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		select {
		case <-done:
			b, _ := os.ReadFile(out.Name())
			return nil, fmt.Errorf("e2e: start mock %s: exited: %s", addr, b)
		default:
		}
		if resp, err := http.Get(m.url + "/_mock/state"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return m, nil
			}
		}
		if time.Now().After(end) {
			stop()
			return nil, fmt.Errorf("e2e: start mock %s: no answer", addr)
		}
	}
}

// limit makes the mock answer every message with a 5-hour limit that lifts at reset.
func (m *mock) limit(t *testing.T, reset time.Time) {
	t.Helper()
	m.set(t, map[string]any{"mode": "limit", "claim": "five_hour", "reset": reset.Unix(), "auto_ok_after_reset": true})
}

// set merges fields into the mock's state (see the mock's README).
func (m *mock) set(t *testing.T, fields map[string]any) {
	t.Helper()
	body, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(m.url+"/_mock/state", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("e2e: post mock state: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("e2e: post mock state: %s", resp.Status)
	}
}

// requests returns the messages the mock answered (a line being written is left out).
func (m *mock) requests(t *testing.T) []request {
	t.Helper()
	b, err := os.ReadFile(m.log)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("e2e: read mock log: %v", err)
	}
	var out []request
	// bytes.Lines, not a bufio.Scanner: a line logs the request's body, about 61 KB with
	// Claude Code 2.1.332 and growing with the conversation, and a Scanner stops for good at
	// its first line over 64 KB, hiding every later request.
	for line := range bytes.Lines(b) {
		var r request
		if json.Unmarshal(line, &r) == nil && strings.HasPrefix(r.Path, "/v1/messages") && r.Answer != "count_tokens" {
			out = append(out, r)
		}
	}
	return out
}

// typed returns the messages whose last user text is text.
func (m *mock) typed(t *testing.T, text string) []request {
	var out []request
	for _, r := range m.requests(t) {
		if r.Tail == text {
			out = append(out, r)
		}
	}
	return out
}

// ---- the real Claude Code in a private tmux server

// session is one real Claude Code in pane %N of its own tmux server.
type session struct {
	srv  *tmuxtest.Server
	pane string
	home string // Claude Code's HOME: its records are under home/.claude
	// shell is true when the pane runs a shell and claude is started by typing (claude);
	// pids are the claude processes started so, waited for at the end.
	shell bool
	pids  []string
}

// settings is how a case sets Claude Code up.
type settings struct {
	vim          bool // editorMode "vim" in .claude.json
	autoContinue bool // false: autoContinueAtUsageLimit false in settings.json (the options menu opens)
	// prefill turns on the server flags (cached in .claude.json) under which Claude Code
	// 2.1.330+ puts "continue" into the input box itself at a five-hour limit
	// (docs/claude-code.md, Changes in 2.1.331 and 2.1.332): see prefillFlags. With it Claude Code runs on a Max 20x tier, where no options menu opens
	// by itself (the stop shows "Press ⏎ to continue after reset" and the box "continue");
	// with menu too, on a Max 5x tier, the menu opens as well and the box holds "continue"
	// once its Stop row closes it.
	prefill, menu bool
	// shell: the pane runs an interactive bash with Claude Code's environment, and claude is
	// started by typing (session.claude), so that it can be quit and reopened (claude -c) in
	// the same pane. startClaude then starts claude once.
	shell bool
}

// prefillFlags are the cached server flags behind the prefilled continue, as Claude Code
// 2.1.332 reads them (its GrowthBook client, w(flag, default)):
//   - tengu_vellum_anchor on: the limit line gains "Press ⏎ to continue after reset" and the
//     input box gets "continue" (the render condition ends in w("tengu_vellum_anchor",!1));
//   - tengu_marble_heron off: the options menu's "Wait here" row, and with it the menu's
//     opening by itself on a tier without an upgrade row (Max 20x), are off, so the menu,
//     which takes precedence, stays shut.
//
// Claude Code reads cached flags from .claude.json's cachedGrowthBookFeatures only while its
// GrowthBook client is enabled, which DISABLE_TELEMETRY and
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC turn off; CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF=1
// lets it read the disk cache anyway (and still fetch nothing).
const prefillFlags = `"cachedGrowthBookFeatures":{"tengu_vellum_anchor":true,"tengu_marble_heron":false},`

// startClaude starts the real Claude Code as the mockapi README says: its own HOME with
// onboarding done and the work directory trusted, env -i, the mock's URL and OAuth token. It
// returns once the prompt is drawn.
func startClaude(t *testing.T, claude string, m *mock, s settings) *session {
	t.Helper()
	home := t.TempDir()
	work := filepath.Join(home, "work")
	version := filepath.Base(filepath.Dir(filepath.Dir(claude)))
	extra := ""
	if s.vim {
		extra += `"editorMode":"vim",`
	}
	tier, env := "default_claude_max_5x", ""
	if s.prefill {
		extra += prefillFlags
		env = "CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF=1 "
		if !s.menu {
			tier = "default_claude_max_20x"
		}
	}
	cfg := fmt.Sprintf(`{"numStartups":5,"autoUpdates":false,"hasCompletedOnboarding":true,"lastOnboardingVersion":%q,"lastReleaseNotesSeen":%q,"theme":"dark",%s"projects":{%q:{"allowedTools":[],"hasTrustDialogAccepted":true,"hasCompletedProjectOnboarding":true,"projectOnboardingSeenCount":5}}}`,
		version, version, extra, work)
	userSettings := `{"theme":"dark"}`
	if !s.autoContinue {
		userSettings = `{"theme":"dark","autoContinueAtUsageLimit":false}`
	}
	for name, text := range map[string]string{work + "/.keep": "", home + "/.claude.json": cfg, home + "/.claude/settings.json": userSettings} {
		if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// In a shell pane, $C is claude's path and the shell's prompt is "$ ".
	run := `"$4"`
	if s.shell {
		run = `C="$4" PS1='$ ' /bin/bash --norc --noprofile -i`
	}
	script := `cd "$1" && exec env -i HOME="$2" PATH=/usr/bin:/bin TERM=xterm-256color LANG=C.UTF-8 TZ=` + zone + ` ` +
		`TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ANTHROPIC_BASE_URL="$3" CLAUDE_CODE_OAUTH_TOKEN=` + oauthToken + ` ` +
		`CLAUDE_CODE_SUBSCRIPTION_TYPE=max CLAUDE_CODE_RATE_LIMIT_TIER=` + tier + ` ` + env +
		`DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 ` + run
	c := &session{home: home, shell: s.shell}
	t.Cleanup(func() { // after the server is killed: claude writes into HOME until it ends
		end := deadline(15 * time.Second)
		for _, pid := range c.pids {
			for ; time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				if _, err := os.Stat("/proc/" + pid); err != nil {
					break
				}
			}
		}
	})
	c.srv = tmuxtest.Start(t, 120, 40, "sh", "-c", script, "sh", work, home, m.url, claude)
	c.pane = strings.TrimSpace(c.srv.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_id}"))
	if s.shell {
		c.claude(t)
		return c
	}
	c.pids = append(c.pids, strings.TrimSpace(c.srv.Tmux(t, "display-message", "-p", "-t", c.pane, "#{pane_pid}")))
	c.wait(t, time.Minute, "the prompt", func(s string) bool { return strings.Contains(s, "❯") })
	return c
}

// claude starts claude with args in a shell pane (settings.shell) and waits for its prompt.
func (c *session) claude(t *testing.T, args ...string) {
	t.Helper()
	if !c.shell {
		t.Fatal("e2e: claude: the pane runs claude itself, not a shell")
	}
	shell := strings.TrimSpace(c.srv.Tmux(t, "display-message", "-p", "-t", c.pane, "#{pane_pid}"))
	c.wait(t, 30*time.Second, "the shell's prompt", func(s string) bool { return strings.HasSuffix(strings.TrimRight(s, "\n "), "$") })
	c.srv.Tmux(t, "send-keys", "-t", c.pane, "-l", "--", strings.Join(append([]string{`"$C"`}, args...), " "))
	c.key(t, "Enter")
	var pid string
	c.wait(t, time.Minute, "claude's prompt", func(s string) bool {
		if pid == "" {
			pid = child(shell)
		}
		return pid != "" && inputLine(s) == "" && strings.Contains(s, "❯")
	})
	c.pids = append(c.pids, pid)
}

// child returns the pid of a child of the process pid, "" when it has none.
func child(pid string) string {
	b, _ := os.ReadFile("/proc/" + pid + "/task/" + pid + "/children")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// capture returns the pane's screen.
func (c *session) capture(t *testing.T) string {
	t.Helper()
	out, err := c.srv.Client.Capture(context.Background(), c.pane)
	if err != nil {
		t.Fatalf("e2e: capture %s: %v", c.pane, err)
	}
	return out
}

// wait polls the screen until cond holds and returns it; past the deadline it fails with
// the screen.
func (c *session) wait(t *testing.T, d time.Duration, what string, cond func(screen string) bool) string {
	t.Helper()
	end := deadline(d)
	for {
		s := c.capture(t)
		if cond(s) {
			return s
		}
		if time.Now().After(end) {
			t.Fatalf("e2e: waited %s for %s on pane %s; the screen:\n%s", tmuxtest.Scale(d), what, c.pane, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitText waits for text on the screen.
func (c *session) waitText(t *testing.T, d time.Duration, text string) string {
	t.Helper()
	return c.wait(t, d, fmt.Sprintf("%q", text), func(s string) bool { return strings.Contains(s, text) })
}

// key presses one key (tmux key name).
func (c *session) key(t *testing.T, key string) {
	t.Helper()
	c.srv.Tmux(t, "send-keys", "-t", c.pane, key)
}

// typeText types text literally and waits until the input box shows it.
func (c *session) typeText(t *testing.T, text string) {
	t.Helper()
	c.srv.Tmux(t, "send-keys", "-t", c.pane, "-l", "--", text)
	c.wait(t, 30*time.Second, fmt.Sprintf("%q in the input box", text), func(s string) bool { return inputLine(s) == text })
}

// inputLine is the text of the input box: the last line that starts with ❯ (a menu's
// focused row is indented), without the marker.
func inputLine(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(lines[i], "❯"); ok {
			return strings.TrimSpace(strings.TrimLeft(rest, " \u00a0"))
		}
	}
	return ""
}

// stopText starts the stop message the mock's 5-hour limit makes Claude Code print.
const stopText = "You've hit your 5-hour limit"

// below returns the screen after the last stop message.
func below(screen string) string {
	_, after, _ := strings.Cut(screen[strings.LastIndex(screen, stopText)+1:], "\n")
	return after
}

// stopAndLimit posts a 5-hour limit that lifts at the next whole minute at least lead away
// (Claude Code prints the reset to the minute), types a prompt and waits for the stop.
func (c *session) stopAndLimit(t *testing.T, m *mock, lead time.Duration) time.Time {
	t.Helper()
	return c.stopAndLimitAt(t, m, time.Now().Add(lead).Truncate(time.Minute).Add(time.Minute))
}

// stopAndLimitAt posts a 5-hour limit that lifts at reset, types a prompt and waits for the
// stop.
func (c *session) stopAndLimitAt(t *testing.T, m *mock, reset time.Time) time.Time {
	t.Helper()
	m.limit(t, reset)
	c.typeText(t, "do more")
	c.key(t, "Enter")
	c.waitText(t, time.Minute, stopText)
	t.Logf("stopped at the limit; reset %s (in %s)", reset.Format(time.TimeOnly), time.Until(reset).Round(time.Second))
	return reset
}

// ---- the watcher

// watch is one `cac-tmux watch` process logging JSON lines to a file.
type watch struct {
	log  string
	done chan struct{}
}

// startWatch runs `cac-tmux watch` on the session's server with its own state, runtime and
// configuration directories; it is killed when t ends.
func startWatch(t *testing.T, bin string, c *session, flags ...string) *watch {
	t.Helper()
	return startWatchEnv(t, bin, c, nil, flags...)
}

// startWatchEnv is startWatch with env added to the watcher's environment (TZ=…).
func startWatchEnv(t *testing.T, bin string, c *session, env []string, flags ...string) *watch {
	t.Helper()
	dir := t.TempDir()
	w := &watch{log: filepath.Join(dir, "watch.log"), done: make(chan struct{})}
	f, err := os.Create(w.log)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"watch", "-S", c.srv.Socket, "--margin", margin.String(), "--interval", "1s", "--log-format", "json"}
	// CAC_E2E_LOG_LEVEL=debug: every look and decision, and the log printed even when the
	// test passes.
	if level := os.Getenv("CAC_E2E_LOG_LEVEL"); level != "" {
		args = append(args, "--log-level", level)
	}
	args = append(args, flags...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(withoutTmux(os.Environ()), env...), "XDG_STATE_HOME="+dir+"/state", "XDG_RUNTIME_DIR="+dir+"/run", "XDG_CONFIG_HOME="+dir+"/config")
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatalf("e2e: start watcher: %v", err)
	}
	go func() { cmd.Wait(); f.Close(); close(w.done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-w.done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-w.done
		}
		if t.Failed() || os.Getenv("CAC_E2E_LOG_LEVEL") == "debug" {
			b, _ := os.ReadFile(w.log)
			t.Logf("the watcher's log:\n%s", b)
		}
	})
	return w
}

func withoutTmux(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") && !strings.HasPrefix(kv, "XDG_") {
			out = append(out, kv)
		}
	}
	return out
}

// lines returns the watcher's log lines.
func (w *watch) lines(t *testing.T) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(w.log)
	if err != nil {
		t.Fatalf("e2e: read watcher log: %v", err)
	}
	var out []map[string]any
	for line := range bytes.Lines(b) {
		var l map[string]any
		if json.Unmarshal(line, &l) == nil {
			out = append(out, l)
		}
	}
	return out
}

// messages returns the messages of the log lines about pane.
func (w *watch) messages(t *testing.T, pane string) []string {
	var out []string
	for _, l := range w.lines(t) {
		if l["pane"] == pane {
			out = append(out, fmt.Sprint(l["message"]))
		}
	}
	return out
}

// keys returns the log lines of the keys the watcher sent to pane ("press 1 (…)", "type
// \"continue\" and Enter").
func (w *watch) keys(t *testing.T, pane string) []string {
	var out []string
	for _, m := range w.messages(t, pane) {
		if strings.HasPrefix(m, "press ") || strings.HasPrefix(m, "type ") {
			out = append(out, m)
		}
	}
	return out
}

// waitLog waits for a log line about pane with the message msg and returns it.
func (w *watch) waitLog(t *testing.T, d time.Duration, pane, msg string) map[string]any {
	t.Helper()
	for end := deadline(d); ; time.Sleep(200 * time.Millisecond) {
		for _, l := range w.lines(t) {
			if l["pane"] == pane && l["message"] == msg {
				return l
			}
		}
		select {
		case <-w.done:
			t.Fatalf("e2e: the watcher exited before logging %q", msg)
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("e2e: waited %s for the watcher to log %q about %s; it logged %q", tmuxtest.Scale(d), msg, pane, w.messages(t, pane))
		}
	}
}

// exactMargin is the wait after an exact reset (from the transcript) before the keys.
var exactMargin = scheduler.Default.ExactMargin

// listJSON runs `cac-tmux list --json` on the session's server and returns its pane's row.
func listJSON(t *testing.T, bin string, c *session) map[string]any {
	t.Helper()
	cmd := exec.Command(bin, "list", "--json", "-S", c.srv.Socket)
	cmd.Env = withoutTmux(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("e2e: cac-tmux list --json: %v", err)
	}
	var rows []map[string]any
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("e2e: cac-tmux list --json printed %q: %v", out, err)
	}
	for _, r := range rows {
		if r["pane"] == c.pane {
			return r
		}
	}
	t.Fatalf("e2e: cac-tmux list --json has no row for %s: %s", c.pane, out)
	return nil
}

// sameInstant reports whether an RFC3339 value names the instant want, to the second.
func sameInstant(v any, want time.Time) bool {
	s, _ := v.(string)
	got, err := time.Parse(time.RFC3339, s)
	return err == nil && got.Equal(want.Truncate(time.Second))
}
