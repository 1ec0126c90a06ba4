//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// post is one ntfy-style POST the test's endpoint received.
type post struct {
	title, priority, tags, auth, body string
}

// A stop and its resume reach the hook (argv and CAC_* environment) and an ntfy-style
// endpoint on loopback (title, priority, tags, bearer token), through `cac-tmux watch` with a
// [notify] table in its configuration file.
func TestWatchNotifiesAHookAndAnEndpoint(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var posts []post
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, post{r.Header.Get("Title"), r.Header.Get("Priority"), r.Header.Get("Tags"), r.Header.Get("Authorization"), string(b)})
		mu.Unlock()
	}))
	defer srv.Close()
	dir := t.TempDir()
	hookOut, token := filepath.Join(dir, "hook.jsonl"), filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte("tk-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "config.toml")
	text := fmt.Sprintf("[notify]\ncommand = [%q, %q, \"ok\"]\nurl = %q\ntoken_file = %q\nmin_gap = \"0s\"\n", bins.hook, hookOut, srv.URL+"/cac", token)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}

	reset := nextReset(20 * time.Second) // the first event must be the wait, not a resume
	s := tmuxtest.Start(t, 120, 30)
	pane, log := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	w := startWatch(t, s.Socket, "--config", conf)
	waitResumed(t, log, "continue", time.Until(reset)+30*time.Second)
	w.waitLog(t, 10*time.Second, map[string]string{"pane": pane, "message": "resumed"})

	var hooks []map[string]string
	tmuxtest.WaitFor(t, 10*time.Second, "the hook to run for the stop and the resume", func() bool {
		hooks = hookRuns(t, hookOut)
		return len(hooks) >= 2
	})
	want := []map[string]string{
		{"CAC_EVENT": "stopped", "CAC_PANE": pane, "CAC_KIND": "session", "CAC_RESET": reset.Format(time.RFC3339), "CAC_STATE": "waiting"},
		{"CAC_EVENT": "resumed", "CAC_PANE": pane, "CAC_KIND": "session", "CAC_STATE": "running"},
	}
	for i, h := range hooks[:2] {
		for k, v := range want[i] {
			if h[k] != v {
				t.Errorf("hook run %d: %s = %q, want %q (all: %v)", i, k, h[k], v, h)
			}
		}
		if h["CAC_TARGET"] == "" {
			t.Errorf("hook run %d: no CAC_TARGET: %v", i, h)
		}
	}
	tmuxtest.WaitFor(t, 10*time.Second, "the endpoint to get the stop and the resume", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(posts) >= 2
	})
	mu.Lock()
	defer mu.Unlock()
	for i, p := range posts[:2] {
		if p.title == "" || p.priority == "" || p.tags == "" || p.auth != "Bearer tk-secret" || p.body == "" {
			t.Errorf("POST %d = %+v, want a title, a priority, tags, the bearer token and a body", i, p)
		}
	}
	if b, err := os.ReadFile(w.log); err != nil || strings.Contains(string(b), "tk-secret") {
		t.Errorf("the watcher's log (%v) holds the token:\n%s", err, b)
	}
}

// hookRuns reads the CAC_* environment of each run internal/hookrecorder recorded.
func hookRuns(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []map[string]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Env map[string]string `json:"env"`
		}
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			runs = append(runs, r.Env)
		}
	}
	return runs
}
