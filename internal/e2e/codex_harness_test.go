//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// The harness of the Codex cases: the real Codex CLI (../shared/tools/codex/real-codex.sh)
// against the loopback mock of its backend (start.sh, stop.sh), in a pane of a private tmux
// server, each owned by one test and ended with it (Codex's app-server daemon outlives its TUI,
// so stop.sh runs after the tmux server is gone).

const (
	defaultCodexVersion = "0.171.0"
	codexReply          = "e2e reply from the codex mock"
	// codexStop starts the line Codex 0.171.0 prints at a usage-limit stop (U+2019).
	codexStop = "You\u2019ve hit your usage limit."
	// codexMenu heads the menu Codex opens at the first stop of a session (SPEC §11).
	codexMenu = "Approaching rate limits"
	// codexPlaceholder is the dim text of an empty composer.
	codexPlaceholder = "Ask Codex to do anything"
	// pasteBurst is the least pause between typed text and its Enter: an Enter that follows
	// the text more closely is read by Codex's paste-burst detection as a newline (SPEC §11).
	pasteBurst = 500 * time.Millisecond
)

// codexTools are what every Codex case runs.
type codexTools struct {
	cac      string
	launcher string // the npm launcher, bin/codex (node starts the native binary as its child)
	native   string // the native binary, run directly
	scripts  string // ../shared/tools/codex
	tls      string // one throwaway CA and leaf for every mock of the run
	skip     string
	err      error
}

var codexSetup = sync.OnceValue(func() codexTools {
	for _, tool := range []string{"node", "npm", "python3", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			return codexTools{skip: fmt.Sprintf("e2e: the Codex cases need %s (the npm launcher, real-codex.sh and the mock of Codex's backend): %v", tool, err)}
		}
	}
	tl := codexTools{scripts: filepath.Join(sharedDir(), "tools", "codex"), tls: filepath.Join(binDir, "codex-tls")}
	if _, err := os.Stat(filepath.Join(tl.scripts, "start.sh")); err != nil {
		return codexTools{skip: fmt.Sprintf("e2e: no Codex mock at %s (clone shared/ beside the repository or set CAC_SHARED): %v", tl.scripts, err)}
	}
	version := os.Getenv("CAC_CODEX_VERSION")
	if version == "" {
		version = defaultCodexVersion
	}
	prefix, err := runOut(exec.Command("bash", filepath.Join(tl.scripts, "real-codex.sh"), version))
	if err != nil {
		return codexTools{skip: fmt.Sprintf("e2e: no real Codex %s (real-codex.sh needs npm and the npm registry the first time): %v", version, err)}
	}
	tl.launcher = filepath.Join(prefix, "bin", "codex")
	tl.native = filepath.Join(filepath.Dir(prefix), "native", "package", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	for _, p := range []string{tl.launcher, tl.native} {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			return codexTools{skip: fmt.Sprintf("e2e: real-codex.sh %s left no executable %s: %v", version, p, err)}
		}
	}
	if _, err := runOut(exec.Command(filepath.Join(tl.scripts, "mktls.sh"), tl.tls)); err != nil {
		return codexTools{err: fmt.Errorf("e2e: the mock's certificates: %w", err)}
	}
	if tl.cac, err = buildCac(); err != nil {
		return codexTools{err: err}
	}
	return tl
})

// needCodex returns the Codex tools, or skips (nothing to run against) or fails t.
func needCodex(t *testing.T) codexTools {
	t.Helper()
	tl := codexSetup()
	ready(t, tl.skip, tl.err)
	return tl
}

// runOut runs cmd and returns its output trimmed; an error carries its stderr.
func runOut(cmd *exec.Cmd) (string, error) {
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = fmt.Errorf("%w: %s", err, bytes.TrimSpace(ee.Stderr))
	}
	return strings.TrimSpace(string(out)), err
}

// ---- the mock of Codex's backend

// codexMock is one mock in its own RUN_DIR (start.sh): the mock's log and state, and the HOME
// (with CODEX_HOME at home/.codex) and work directory of the Codex processes run against it.
type codexMock struct {
	dir  string
	env  []string // HOME, TMPDIR and CODEX_CA_CERTIFICATE, as start.sh prints them
	url  string
	http *http.Client
}

// startCodexMock starts a mock with a plus plan's fake login, answering codexReply. When t
// ends it stops what the run started (stop.sh: Codex's daemon, its updater, the mock) and
// removes the directory; register it before the tmux server, whose cleanup runs first.
func startCodexMock(t *testing.T, tl codexTools) *codexMock {
	t.Helper()
	// /tmp, short: Codex's control socket lives in HOME/.codex (a unix socket's path must
	// stay under ~100 bytes).
	dir, err := os.MkdirTemp("/tmp", "cxc")
	if err != nil {
		t.Fatal(err)
	}
	m := &codexMock{dir: dir}
	t.Cleanup(func() {
		stop := exec.Command(filepath.Join(tl.scripts, "stop.sh"), dir, tl.native)
		if out, err := stop.CombinedOutput(); err != nil {
			t.Errorf("e2e: stop.sh %s: %v: %s", dir, err, out)
		}
		os.RemoveAll(dir)
	})
	start := exec.Command(filepath.Join(tl.scripts, "start.sh"), dir, "plus")
	start.Env = append(os.Environ(), "CAC_CODEX_TLS="+tl.tls)
	env, err := runOut(start)
	if err != nil {
		t.Fatalf("e2e: start.sh %s: %v", dir, err)
	}
	m.env = strings.Fields(env)
	port, err := os.ReadFile(filepath.Join(dir, "port"))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(tl.tls, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatalf("e2e: no certificate in %s", filepath.Join(tl.tls, "ca.pem"))
	}
	m.url = "https://127.0.0.1:" + strings.TrimSpace(string(port))
	m.http = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	m.set(t, map[string]any{"text": codexReply})
	return m
}

// home is Codex's HOME; its records are under home/.codex (CODEX_HOME's default).
func (m *codexMock) home() string { return filepath.Join(m.dir, "home") }

// set merges fields into the mock's state (mockcodex.py: mode, reset, auto_ok_after_reset,
// limit_headers, text, …).
func (m *codexMock) set(t *testing.T, fields map[string]any) {
	t.Helper()
	body, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.http.Post(m.url+"/_mock/state", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("e2e: post the Codex mock's state: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("e2e: post the Codex mock's state: %s", resp.Status)
	}
}

// limit makes every model request a usage limit until reset (then ok by itself). Without
// headers the 429 carries no x-codex-* rate limits: the rollout's rate_limits are null and the
// reset is only in the printed message.
func (m *codexMock) limit(t *testing.T, reset time.Time, headers bool) {
	t.Helper()
	m.set(t, map[string]any{"mode": "limit", "reset": reset.Unix(), "auto_ok_after_reset": true, "limit_headers": headers})
}

// codexRequest is one model request in the mock's log (a response.create frame over the
// WebSocket, or a POST …/responses).
type codexRequest struct {
	Seq    int    `json:"seq"`
	UnixMS int64  `json:"unix_ms"`
	Method string `json:"method"`
	Path   string `json:"path"`
	WSType string `json:"ws_type"`
	Model  string `json:"model"`
	Text   string `json:"last_user_text"` // "" when null (a prewarm)
	Answer string `json:"answer"`
}

func (r codexRequest) at() time.Time { return time.UnixMilli(r.UnixMS) }

// titlePrompt starts the request Codex 0.171.0 makes of its own to name a new thread (its
// text quotes the user's first prompt after "User prompt:").
const titlePrompt = "Generate a concise, single-line task title"

// requests returns the model requests the mock answered (a line being written is left out).
func (m *codexMock) requests(t *testing.T) []codexRequest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(m.dir, "mock.jsonl"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("e2e: read the Codex mock's log: %v", err)
	}
	var out []codexRequest
	for line := range bytes.Lines(b) {
		var r codexRequest
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		u, err := url.Parse(r.Path)
		if err == nil && (r.Method == "WS" && r.WSType == "response.create" || r.Method == "POST" && strings.HasSuffix(u.Path, "/responses")) {
			out = append(out, r)
		}
	}
	return out
}

// prompts returns the model requests that carry a user's text (not Codex's own title
// request, nor a prewarm without text).
func (m *codexMock) prompts(t *testing.T) []codexRequest {
	return slices.DeleteFunc(m.requests(t), func(r codexRequest) bool {
		return r.Text == "" || strings.HasPrefix(r.Text, titlePrompt)
	})
}

// typed returns the prompts whose text is text.
func (m *codexMock) typed(t *testing.T, text string) []codexRequest {
	return slices.DeleteFunc(m.prompts(t), func(r codexRequest) bool { return r.Text != text })
}

// ---- the real Codex in a private tmux server

// codexHow is how a case runs Codex.
type codexHow struct {
	native bool   // the native binary directly, not the npm launcher (pane command node)
	tz     string // the TUI's zone (the daemon's too, when this TUI starts it)
}

// codexCommand is the pane command that runs Codex against m as start.sh says: env -i, the
// printed environment, the work directory m.dir/w.
func codexCommand(tl codexTools, m *codexMock, how codexHow) []string {
	bin := tl.launcher
	if how.native {
		bin = tl.native
	}
	script := `cd "$1" && shift && exec env -i "$@" PATH=/usr/bin:/bin TERM=tmux-256color LANG=C.UTF-8 ` +
		`TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ` + `TZ=` + how.tz + ` ` + bin
	return append([]string{"sh", "-c", script, "sh", filepath.Join(m.dir, "w")}, m.env...)
}

// startCodex starts the real Codex in session "main" of a private tmux server (120x36) and
// returns once its composer is drawn and its daemon has written its pid.
func startCodex(t *testing.T, tl codexTools, m *codexMock, how codexHow) *session {
	t.Helper()
	c := &session{home: m.home()}
	n := len(m.requests(t))
	c.srv = tmuxtest.Start(t, 120, 36, codexCommand(tl, m, how)...)
	c.pane = strings.TrimSpace(c.srv.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_id}"))
	codexReady(t, c, m, n)
	return c
}

// startCodexBeside starts another Codex in a new session name of c's server and returns its
// pane once it is ready.
func startCodexBeside(t *testing.T, tl codexTools, m *codexMock, c *session, name string, how codexHow) *session {
	t.Helper()
	n := len(m.requests(t))
	c.srv.NewSession(t, name, 120, 36, codexCommand(tl, m, how)...)
	o := &session{srv: c.srv, home: m.home()}
	o.pane = strings.TrimSpace(c.srv.Tmux(t, "display-message", "-p", "-t", name, "#{pane_id}"))
	codexReady(t, o, m, n)
	return o
}

// codexReady waits for the composer's placeholder, the daemon's pid file and the model
// request without text by which Codex prewarms its connection at start, the first after the
// mock's n-th (the README's "give it ~3 s more").
func codexReady(t *testing.T, c *session, m *codexMock, n int) {
	t.Helper()
	c.waitText(t, time.Minute, codexPlaceholder)
	pid := filepath.Join(m.home(), ".codex", "app-server-daemon", "daemon.pid")
	tmuxtest.WaitFor(t, 30*time.Second, "Codex's daemon to write "+pid, func() bool {
		_, err := os.Stat(pid)
		return err == nil
	})
	tmuxtest.WaitFor(t, 30*time.Second, "Codex's prewarm (a model request without text)", func() bool {
		rs := m.requests(t)
		return len(rs) > n && slices.ContainsFunc(rs[n:], func(r codexRequest) bool { return r.Text == "" })
	})
}

// styled returns the pane's screen with its SGR escapes (capture-pane -e), as the watcher
// reads a Codex pane.
func (c *session) styled(t *testing.T) string {
	t.Helper()
	out, err := c.srv.Client.CaptureStyled(context.Background(), c.pane)
	if err != nil {
		t.Fatalf("e2e: capture -e %s: %v", c.pane, err)
	}
	return out
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// composer reads Codex's composer from a styled screen: the last line that starts with "›"
// (the menu's focused row starts so too: no composer while the menu is open). The text
// after the marker is a draft unless it is dim (\e[2m): the placeholder. ok is false without
// a composer.
func composer(styled string) (draft string, ok bool) {
	if strings.Contains(sgr.ReplaceAllString(styled, ""), codexMenu) {
		return "", false
	}
	lines := strings.Split(styled, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		plain := strings.TrimLeft(sgr.ReplaceAllString(lines[i], ""), " ")
		rest, found := strings.CutPrefix(plain, "›")
		if !found {
			continue
		}
		_, raw, _ := strings.Cut(lines[i], "›")
		if strings.HasPrefix(strings.TrimLeft(sgr.ReplaceAllStringFunc(raw, dimOnly), " "), "\x1b[2m") {
			return "", true
		}
		return strings.TrimSpace(rest), true
	}
	return "", false
}

// dimOnly keeps the SGR sequences that turn on dim (2) and drops the others; the arguments
// of an extended colour (38;5;N, 38;2;R;G;B and 48;…) are no attributes.
func dimOnly(seq string) string {
	ps := strings.Split(strings.TrimSuffix(seq[2:], "m"), ";")
	for i := 0; i < len(ps); i++ {
		switch ps[i] {
		case "2":
			return "\x1b[2m"
		case "38", "48", "58":
			if i+1 < len(ps) && ps[i+1] == "5" {
				i += 2
			} else if i+1 < len(ps) && ps[i+1] == "2" {
				i += 4
			}
		}
	}
	return ""
}

// typeDraft types text literally and waits until the composer shows it.
func (c *session) typeDraft(t *testing.T, text string) {
	t.Helper()
	c.srv.Tmux(t, "send-keys", "-t", c.pane, "-l", "--", text)
	tmuxtest.WaitFor(t, 30*time.Second, fmt.Sprintf("%q in Codex's composer", text), func() bool {
		d, ok := composer(c.styled(t))
		return ok && d == text
	})
}

// submit types text as a person does: the text, a fresh look that shows it in the composer,
// a pause of at least pasteBurst after the text, then Enter alone.
func (c *session) submit(t *testing.T, text string) {
	t.Helper()
	typed := time.Now()
	c.typeDraft(t, text)
	time.Sleep(time.Until(typed.Add(pasteBurst))) // Codex's paste-burst window, not a wait for a condition
	c.key(t, "Enter")
}

// codexStopAt makes the mock answer with a usage limit that lifts at reset, submits a prompt
// and waits for the stop, and with headers for the menu (Codex 0.171.0 opens it from the
// 429's rate-limit headers: without them it stays shut). It returns the model the stopped
// prompt asked for.
func codexStopAt(t *testing.T, m *codexMock, c *session, reset time.Time, headers bool) string {
	t.Helper()
	m.limit(t, reset, headers)
	c.submit(t, "do more")
	c.waitText(t, time.Minute, codexStop)
	if headers {
		c.waitText(t, 30*time.Second, codexMenu)
	}
	rs := m.typed(t, "do more")
	if len(rs) != 1 || rs[0].Answer != "limit" {
		t.Fatalf("e2e: the stopped prompt reached the mock as %+v, want once answered limit", rs)
	}
	t.Logf("Codex stopped at the limit (model %s); reset %s (in %s)", rs[0].Model, reset.Format(time.TimeOnly), time.Until(reset).Round(time.Second))
	return rs[0].Model
}

// paneOption reads a user option of the pane ("" when unset).
func (c *session) paneOption(t *testing.T, name string) string {
	t.Helper()
	return strings.TrimSpace(c.srv.Tmux(t, "show-options", "-pqv", "-t", c.pane, name))
}
