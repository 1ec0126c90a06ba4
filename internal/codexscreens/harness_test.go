//go:build codexscreens

package codexscreens

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

var (
	outDir = flag.String("out", "../../detector/testdata/codex-screens", "where the screens and EXPECT.tsv go")
	shared = flag.String("shared", "../../../shared", "the shared/ checkout (tools/codex)")
	prefix = flag.String("codex", filepath.Join(os.Getenv("HOME"), ".cache/cac-tmux-codex/0.171.0/prefix"), "the npm prefix real-codex.sh printed")
)

func TestMain(m *testing.M) { tmuxtest.Main(m) }

// mock is one run of ../shared/tools/codex/start.sh: the loopback backend and a private HOME.
type mock struct {
	dir, env string
	url      string
	http     *http.Client
}

// startMock starts the mock with plan; stop.sh runs when t ends (Codex's daemon outlives its TUI).
func startMock(t *testing.T, plan string) *mock {
	t.Helper()
	tools := filepath.Join(*shared, "tools", "codex")
	dir, err := os.MkdirTemp("/tmp", "cxs")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(tools, "start.sh"), dir, plan).Output()
	t.Cleanup(func() {
		exec.Command(filepath.Join(tools, "stop.sh"), dir).Run()
		os.RemoveAll(dir)
	})
	if err != nil {
		t.Fatalf("start.sh: %v", err)
	}
	port, err := os.ReadFile(filepath.Join(dir, "port"))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "tls", "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &mock{
		dir: dir, env: strings.TrimSpace(string(out)),
		url:  "https://127.0.0.1:" + strings.TrimSpace(string(port)) + "/_mock/state",
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}},
	}
}

// set merges state into the mock's state.
func (m *mock) set(t *testing.T, state map[string]any) {
	t.Helper()
	b, _ := json.Marshal(state)
	resp, err := m.http.Post(m.url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("mock state %s: %v", b, err)
	}
	resp.Body.Close()
}

// codexCommand is the pane command running the npm launcher of Codex in zone; with shell, an
// interactive bash with a user@host prompt follows Codex's exit.
func (m *mock) codexCommand(zone string, shell bool) []string {
	env := fmt.Sprintf("env -i %s PATH=%s/bin:/usr/bin:/bin TERM=tmux-256color LANG=C.UTF-8 TZ=%s", m.env, *prefix, zone)
	cmd := fmt.Sprintf("cd %s/w && exec %s codex", m.dir, env)
	if shell {
		cmd = fmt.Sprintf("cd %s/w && %s codex; exec env -i HOME=%s/home TERM=tmux-256color LANG=C.UTF-8 PS1='me@devbox:~/w$ ' /bin/bash --norc --noprofile -i", m.dir, env, m.dir)
	}
	return []string{"sh", "-c", cmd}
}

// pane is one Codex pane of the private server.
type pane struct {
	s      *tmuxtest.Server
	target string
}

func (p pane) tmux(t *testing.T, args ...string) string {
	t.Helper()
	return p.s.Tmux(t, args...)
}

// screen is the capture the goldens are made of: -p -J -e, escapes kept.
func (p pane) screen(t *testing.T) string {
	t.Helper()
	return p.tmux(t, "capture-pane", "-p", "-J", "-e", "-t", p.target)
}

// plain is the capture without escapes, for waiting on text.
func (p pane) plain(t *testing.T) string {
	t.Helper()
	return p.tmux(t, "capture-pane", "-p", "-J", "-t", p.target)
}

// joined is the plain screen as one line of words: a wrapped message reads whole.
func (p pane) joined(t *testing.T) string {
	return strings.Join(strings.Fields(p.plain(t)), " ")
}

// wait waits until cond holds on the plain screen.
func (p pane) wait(t *testing.T, what string, cond func(plain string) bool) {
	t.Helper()
	tmuxtest.WaitFor(t, 90*time.Second, what+" on "+p.target, func() bool { return cond(p.plain(t)) })
}

func (p pane) waitText(t *testing.T, text string) {
	t.Helper()
	p.wait(t, fmt.Sprintf("%q", text), func(s string) bool { return strings.Contains(s, text) })
}

// settle waits until two captures a second apart are the same (Codex finished drawing).
func (p pane) settle(t *testing.T) string {
	t.Helper()
	prev := ""
	var cur string
	tmuxtest.WaitFor(t, 30*time.Second, "a still screen on "+p.target, func() bool {
		cur = p.screen(t)
		same := cur == prev
		prev = cur
		if !same {
			clock.Real.Sleep(context.Background(), time.Second)
		}
		return same
	})
	return cur
}

// stopBelow reports a Codex error cell (a row starting "■ ") below the last prompt cell
// that shows text: the stop of that turn.
func stopBelow(plain, text string) bool {
	rows := strings.Split(plain, "\n")
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.TrimRight(rows[i], " ") == "› "+text {
			for _, r := range rows[i+1:] {
				if strings.HasPrefix(r, "■ ") {
					return true
				}
			}
			return false
		}
	}
	return false
}

// typeText types text literally and waits until the composer shows it.
func (p pane) typeText(t *testing.T, text string) {
	t.Helper()
	p.tmux(t, "send-keys", "-t", p.target, "-l", "--", text)
	last := text[strings.LastIndex(text, "\n")+1:]
	p.waitText(t, "› "+strings.SplitN(text, "\n", 2)[0])
	p.waitText(t, last)
}

// submit types text, then Enter alone after Codex's paste-burst window: an Enter that
// follows typed text within ~500 ms becomes a newline in the composer (SPEC §11).
func (p pane) submit(t *testing.T, text string) {
	t.Helper()
	p.typeText(t, text)
	clock.Real.Sleep(context.Background(), 700*time.Millisecond)
	p.tmux(t, "send-keys", "-t", p.target, "Enter")
}

func (p pane) key(t *testing.T, keys ...string) {
	t.Helper()
	p.tmux(t, append([]string{"send-keys", "-t", p.target}, keys...)...)
}

func (p pane) resize(t *testing.T, width int) {
	t.Helper()
	p.tmux(t, "resize-window", "-t", p.target, "-x", fmt.Sprint(width))
}

// expect is one EXPECT.tsv row.
type expect struct {
	file, limited, reset, kind, zone string
	captured, appeared               time.Time
	provenance, notes                string
}

// book writes the screens and, at the end, EXPECT.tsv.
type book struct {
	dir  string
	rows []expect
}

func (b *book) save(t *testing.T, screen string, e expect) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(b.dir, e.file), []byte(screen), 0o644); err != nil {
		t.Fatal(err)
	}
	b.rows = append(b.rows, e)
	t.Logf("saved %s", e.file)
}

const header = "# filename\tlimited\treset\tkind\tzone\tcaptured\tappeared\tprovenance\tnotes\n" +
	"# reset: the instant the detector must compute (RFC 3339, in the zone the printed time is read in), none, or unknown (printed \"later\").\n" +
	"# zone: the zone the printed time is in (Codex's app-server daemon's, inherited from the TUI that started it). captured: the capture instant (Facts.Now).\n" +
	"# appeared: when the stop the screen shows first appeared (Facts.Appeared), - when the screen shows none.\n"

func (b *book) write(t *testing.T) {
	t.Helper()
	var s strings.Builder
	s.WriteString(header)
	for _, e := range b.rows {
		appeared := "-"
		if !e.appeared.IsZero() {
			appeared = e.appeared.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(&s, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.file, e.limited, e.reset, e.kind, e.zone,
			e.captured.UTC().Format(time.RFC3339), appeared, e.provenance, e.notes)
	}
	if err := os.WriteFile(filepath.Join(b.dir, "EXPECT.tsv"), []byte(s.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readScreen(dir, file string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, file))
	return string(b), err
}
