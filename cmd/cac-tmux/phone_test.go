//go:build linux

package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// ntfyTopic is a fake ntfy topic on loopback: it keeps every message posted to it.
type ntfyTopic struct {
	srv   *httptest.Server
	mu    sync.Mutex
	posts []ntfyPost
}

// ntfyPost is one message: its title, its body and its buttons (X-Actions).
type ntfyPost struct{ title, body, actions string }

func newNtfyTopic(t *testing.T) *ntfyTopic {
	n := &ntfyTopic{}
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		n.mu.Lock()
		n.posts = append(n.posts, ntfyPost{r.Header.Get("Title"), string(b), r.Header.Get("X-Actions")})
		n.mu.Unlock()
	}))
	t.Cleanup(n.srv.Close)
	return n
}

// await waits for a message whose title holds title and returns it.
func (n *ntfyTopic) await(t *testing.T, title string) ntfyPost {
	t.Helper()
	var got ntfyPost
	tmuxtest.WaitFor(t, 30*time.Second, "an ntfy message titled "+strconv.Quote(title), func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		for _, p := range n.posts {
			if strings.Contains(p.title, title) {
				got = p
				return true
			}
		}
		return false
	})
	return got
}

// button is an http button of a message: what a tap POSTs where.
type button struct{ label, url, body string }

var httpButton = regexp.MustCompile(`action=http, label="([^"]*)", url="([^"]*)", method=POST, body="([^"]*)"`)

func (p ntfyPost) button(t *testing.T, label string) button {
	t.Helper()
	for _, m := range httpButton.FindAllStringSubmatch(p.actions, -1) {
		if m[1] == label {
			return button{m[1], m[2], m[3]}
		}
	}
	t.Fatalf("no %q button in %q", label, p.actions)
	return button{}
}

// tap POSTs body to url as ntfy does for a button and returns the status and the answer.
func tap(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// freePort is a loopback port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// A stopped session resumed from a phone: `watch` with [phone] signs the buttons
// of its ntfy notifications; the held session's Resume button resumes it once, through the
// gates of `cac-tmux resume`, and the outcome comes back to the topic. The same token again,
// a forged one and one sent for another pane are refused and logged, and nothing more is
// typed; the Resume of a pane holding a draft is refused by the gate, its box untouched.
func TestPhoneResume(t *testing.T) {
	t.Parallel()
	topic := newNtfyTopic(t)
	port := freePort(t)
	conf := filepath.Join(t.TempDir(), "config.toml")
	text := fmt.Sprintf("[policy]\nsession = \"notify\"\n[notify]\nurl = %q\nmin_gap = \"0s\"\n[phone]\nlisten = \"127.0.0.1:%d\"\nurl = \"http://127.0.0.1:%d\"\nprompts = true\n",
		topic.srv.URL+"/topic", port, port)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s := tmuxtest.Start(t, 120, 30)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	// Its limit lifted early (a resume takes), its turns a second long (a reply needs it idle).
	pane, log := startClaude(t, s, "--reset", reset, "--limit-until", time.Now().Format(time.RFC3339), "--turn", "1s")
	draft, draftLog := startClaude(t, s, "--scenario", "draft", "--draft", "my idea", "--reset", reset)
	target := func(id string) string {
		return strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", id, "#{session_name}:#{window_index}.#{pane_index}"))
	}
	w := startWatch(t, s.Socket, "--config", conf)
	held := topic.await(t, target(pane)+" is held")
	resume := held.button(t, "Resume now")
	held.button(t, "Skip")
	if !strings.Contains(resume.url, "/v1/act?") || !strings.Contains(resume.url, "pane=%25") {
		t.Errorf("the Resume button's URL is %q", resume.url)
	}

	// Another pane's URL with this token, then a forged token: refused, nothing typed.
	other := strings.Replace(resume.url, "pane="+strings.ReplaceAll(pane, "%", "%25"), "pane="+strings.ReplaceAll(draft, "%", "%25"), 1)
	if code, answer := tap(t, other, resume.body); code != http.StatusForbidden {
		t.Errorf("the token on another pane's URL: %d %q, want 403", code, answer)
	}
	forged := resume.body[:len(resume.body)-2] + "AA"
	if code, _ := tap(t, resume.url, forged); code != http.StatusForbidden {
		t.Errorf("a forged token: %d, want 403", code)
	}
	// The real tap resumes, once.
	if code, answer := tap(t, resume.url, resume.body); code != http.StatusAccepted {
		t.Fatalf("the Resume button: %d %q, want 202", code, answer)
	}
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(w.log)
			topic.mu.Lock()
			t.Logf("watcher log:\n%s\nntfy: %+v", b, topic.posts)
			topic.mu.Unlock()
		}
	})
	wantOneResume(t, log)
	topic.await(t, "resume of "+pane+": done")
	if code, _ := tap(t, resume.url, resume.body); code != http.StatusForbidden {
		t.Errorf("the same token again: %d, want 403", code)
	}
	w.waitLog(t, 10*time.Second, map[string]string{"level": "warn", "pane": pane})

	// The draft's pane: its Resume is refused by the gate, and its box is left alone.
	heldDraft := topic.await(t, target(draft)+" is held")
	b := heldDraft.button(t, "Resume now")
	if code, _ := tap(t, b.url, b.body); code != http.StatusAccepted {
		t.Fatalf("the draft's Resume button: %d, want 202 (the gate answers later)", code)
	}
	refusal := topic.await(t, "resume of "+draft+": refused")
	if !strings.Contains(refusal.body, "draft") {
		t.Errorf("the refusal says %q, want the draft named", refusal.body)
	}
	if ins, _, _ := inputs(t, draftLog); len(ins) != 0 {
		t.Errorf("the draft's pane received %q", ins)
	}
	wantOneResume(t, log)

	// The resumed session's Reply: a form (GET acts not), then the text typed, once.
	resumed := topic.await(t, target(pane)+" resumed")
	m := viewButton.FindStringSubmatch(resumed.actions)
	if m == nil || m[1] != "Reply" {
		t.Fatalf("no Reply button in %q", resumed.actions)
	}
	form, err := http.Get(m[2])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(form.Body)
	form.Body.Close()
	if form.StatusCode != http.StatusOK || !strings.Contains(string(page), "<textarea") {
		t.Fatalf("the Reply form: %d\n%s", form.StatusCode, page)
	}
	u, _ := url.Parse(m[2])
	q := u.Query()
	fields := url.Values{"server": {q.Get("server")}, "pane": {q.Get("pane")}, "token": {q.Get("token")}, "text": {"now write the tests"}}
	tmuxtest.WaitFor(t, 10*time.Second, "the resumed turn over", func() bool {
		_, _, states := inputs(t, log)
		return hasState(states, "turn-done")
	})
	sent, err := http.PostForm(strings.Replace(m[2], "/v1/reply?"+u.RawQuery, "/v1/reply", 1), fields)
	if err != nil {
		t.Fatal(err)
	}
	sent.Body.Close()
	if sent.StatusCode != http.StatusAccepted {
		t.Fatalf("the reply: %d, want 202", sent.StatusCode)
	}
	topic.await(t, "reply to "+pane+": done")
	tmuxtest.WaitFor(t, 10*time.Second, "the reply typed and sent", func() bool {
		ins, _, _ := inputs(t, log)
		return slices.Equal(ins, []string{"continue", "\r", "now write the tests", "\r"})
	})
	if b, err := os.ReadFile(w.log); err != nil || strings.Contains(string(b), resume.body) || strings.Contains(string(b), "now write the tests") {
		t.Errorf("the watcher's log (%v) holds a token or the reply", err)
	}
}

var viewButton = regexp.MustCompile(`action=view, label="([^"]*)", url="([^"]*)"`)

// phoneConfig writes a configuration with [phone] on listen (its url the same address), the
// notifications to topic and a stop held (policy notify), and returns its path.
func phoneConfig(t *testing.T, topic *ntfyTopic, listen string) string {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "config.toml")
	text := fmt.Sprintf("[policy]\nsession = \"notify\"\n[notify]\nurl = %q\nmin_gap = \"0s\"\n[phone]\nlisten = %q\nurl = \"http://%s\"\nprompts = true\n",
		topic.srv.URL+"/topic", listen, listen)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return conf
}

// A button acts only on the Claude Code session its notification was about: after
// `respawn-pane -k` gives the pane id to another claude (stopped the same way), the old
// Resume button is refused by the watcher, the refusal is reported, and the new claude
// receives nothing.
func TestPhoneLinkBoundToSession(t *testing.T) {
	t.Parallel()
	topic := newNtfyTopic(t)
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	s := tmuxtest.Start(t, 120, 30)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	args := []string{"--reset", reset, "--limit-until", time.Now().Format(time.RFC3339)}
	pane, _ := startClaude(t, s, args...)
	target := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{session_name}:#{window_index}.#{pane_index}"))
	startWatch(t, s.Socket, "--config", phoneConfig(t, topic, addr))
	resume := topic.await(t, target+" is held").button(t, "Resume now")

	log := filepath.Join(s.Dir, "respawned.log")
	s.Tmux(t, append([]string{"respawn-pane", "-k", "-t", pane, bins.claude, "--log", log}, args...)...)
	tmuxtest.WaitFor(t, 10*time.Second, "the new claude to start", func() bool {
		_, _, states := inputs(t, log)
		return len(states) > 0
	})
	if code, answer := tap(t, resume.url, resume.body); code != http.StatusAccepted {
		t.Fatalf("the old Resume button: %d %q, want 202 (the watcher answers later)", code, answer)
	}
	refusal := topic.await(t, "resume of "+pane+": refused")
	if !strings.Contains(refusal.body, "another Claude Code session") {
		t.Errorf("the refusal says %q, want the other session named", refusal.body)
	}
	if ins, _, _ := inputs(t, log); len(ins) != 0 {
		t.Errorf("the new claude received %q", ins)
	}
}

// A phone port held by another program (another local user's, say) does not stop the
// watcher: it says why, its notifications go without buttons (a tap would reach whatever
// holds the port), and it goes on supervising.
func TestPhonePortHeld(t *testing.T) {
	t.Parallel()
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	topic := newNtfyTopic(t)
	s := tmuxtest.Start(t, 120, 30)
	pane, _ := startClaude(t, s, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	target := strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{session_name}:#{window_index}.#{pane_index}"))
	w := startWatch(t, s.Socket, "--config", phoneConfig(t, topic, other.Addr().String()))
	held := topic.await(t, target+" is held")
	if held.actions != "" {
		t.Errorf("buttons %q while another program holds the phone's port", held.actions)
	}
	w.waitLog(t, 10*time.Second, map[string]string{"level": "warn", "message": "phone: the endpoint does not listen, so the notifications go without buttons until it does; the watcher goes on supervising"})
	select {
	case <-w.done:
		t.Fatalf("the watcher exited (%d)", w.code)
	default:
	}
}
