package doctor

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/internal/clocktest"
)

// The phone check asks the public url what a tap would reach: a watcher's endpoint (405 to a
// GET of /v1/act) is fine; nothing listening, or something else answering, is a problem that
// names the tunnel. Without [phone] listen there is no check.
func TestCheckPhone(t *testing.T) {
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/act" && r.Method == http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
		}
	}))
	defer endpoint.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer other.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	e := Env{WatchCommand: "cac-tmux watch"}
	p := config.Phone{Listen: "127.0.0.1:8765", LinkTTL: time.Hour, Prompts: true}
	for _, tc := range []struct {
		url       string
		ok        bool
		detail    string
		fixNames  string
		checkSeen bool
	}{
		{endpoint.URL, true, "the buttons reach a watcher at 127.0.0.1:8765 through " + endpoint.URL + " (links valid 1h0m0s; screen off, replies on)", "", true},
		{other.URL, false, other.URL + " answers 200 OK, not cac-tmux's endpoint", "phone.listen (127.0.0.1:8765)", true},
		{closed, false, "the buttons point at " + closed + ", which does not answer", "the tunnel that forwards " + closed + " to 127.0.0.1:8765", true},
	} {
		p.URL = tc.url
		c, on := checkPhone(context.Background(), e, p)
		if !on || c.OK != tc.ok || !strings.HasPrefix(c.Detail, tc.detail) || !strings.Contains(c.Fix, tc.fixNames) {
			t.Errorf("checkPhone(%s) = %+v (%v)\nwant ok %v, detail %q…, fix naming %q", tc.url, c, on, tc.ok, tc.detail, tc.fixNames)
		}
	}
	if _, on := checkPhone(context.Background(), e, config.Phone{}); on {
		t.Errorf("checkPhone without listen made a check")
	}
}

// The accounts check says, for each account of [accounts], whether it is limited now (from
// its recent transcripts, as a switch decides) or missing, and how sessions move.
func TestCheckAccounts(t *testing.T) {
	home := t.TempDir()
	now := time.Date(2026, 11, 26, 18, 0, 0, 0, time.Local)
	limited := filepath.Join(home, "work")
	project := filepath.Join(limited, "projects", "-src-x")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	row := `{"type":"assistant","sessionId":"s1","timestamp":"` + now.Add(-time.Minute).UTC().Format(time.RFC3339Nano) +
		`","isApiErrorMessage":true,"error":"rate_limit","quotaLimits":{"status":"rejected","resetsAt":` +
		strconv.FormatInt(now.Add(90*time.Minute).Unix(), 10) + `,"rateLimitType":"five_hour"}}` + "\n"
	if err := os.WriteFile(filepath.Join(project, "s1.jsonl"), []byte(row), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	e := Env{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, Clock: clocktest.New(now)}
	c, on := checkAccounts(e, config.Accounts{Dirs: []string{"~/.claude", "~/work"}, MaxPerDay: 2, Auto: true})
	want := "~/.claude free, ~/work limited until " + now.Add(90*time.Minute).Format("Mon 15:04") +
		"; a session moves by the watcher when a session stops (auto), and by hand, at most 2 times a day"
	if !on || !c.OK || c.Detail != want {
		t.Errorf("checkAccounts = %+v\nwant ok, %q", c, want)
	}
	c, _ = checkAccounts(e, config.Accounts{Dirs: []string{"~/.claude", "~/gone"}, MaxPerDay: 2})
	if c.OK || !strings.Contains(c.Detail, "~/gone missing") || !strings.Contains(c.Fix, "CLAUDE_CONFIG_DIR") {
		t.Errorf("checkAccounts with a missing account = %+v", c)
	}
	if _, on := checkAccounts(e, config.Accounts{MaxPerDay: 2}); on {
		t.Errorf("checkAccounts without accounts made a check")
	}
}
