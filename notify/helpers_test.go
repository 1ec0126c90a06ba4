package notify_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/internal/syncbuf"
	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// Tests of the channels against real endpoints on loopback: an httptest server taking the
// ntfy POSTs, and internal/hookrecorder as the hook, notify-send and osascript. Time is a
// manual clock: a timeout or a retry pause passes when the test moves it.

// recorder is internal/hookrecorder, built by TestMain.
var recorder string

func TestMain(m *testing.M) {
	tmuxtest.MainBuilding(m, func(dir string) error {
		recorder = filepath.Join(dir, "hookrecorder")
		return tmuxtest.GoBuild(recorder, "../internal/hookrecorder")
	})
}

// patience is how long a test waits for another process or goroutine.
const patience = 10 * time.Second

// start is the manual clock's first instant.
var start = time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)

// logBuf collects the JSON log lines of a Notifier; safe for its workers.
type logBuf struct{ syncbuf.Buffer }

// count is how many log lines contain every one of subs.
func (l *logBuf) count(subs ...string) int {
	n := 0
	for _, line := range strings.Split(l.String(), "\n") {
		all := line != ""
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n
}

// waitLog waits until n log lines contain every one of subs.
func (l *logBuf) waitLog(t *testing.T, n int, subs ...string) {
	t.Helper()
	tmuxtest.WaitFor(t, patience, strconv.Itoa(n)+" log lines with "+strings.Join(subs, " and "), func() bool { return l.count(subs...) >= n })
}

// rig is a Notifier on a manual clock with its logs.
type rig struct {
	n    *notify.Notifier
	clk  *clocktest.Manual
	logs *logBuf
}

// newRig starts a Notifier with s; it is closed, deliveries in flight cut, when t ends.
func newRig(t *testing.T, s notify.Settings) *rig {
	t.Helper()
	r := &rig{clk: clocktest.New(start), logs: &logBuf{}}
	n, err := notify.New(s, zerolog.New(r.logs).Level(zerolog.DebugLevel), r.clk)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	r.n = n
	t.Cleanup(func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		n.Close(ctx)
	})
	return r
}

// send calls Send and fails the test if it does not return at once (it must never wait for
// a channel).
func (r *rig) send(t *testing.T, e notify.Event) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		r.n.Send(e)
		close(done)
	}()
	tmuxtest.WaitFor(t, patience, "Send to return", func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	})
}

// settings are the defaults with only the channels a test sets.
func settings(edit func(s *notify.Settings)) notify.Settings {
	s := notify.Default()
	edit(&s)
	return s
}

// record is one run of hookrecorder (see its doc).
type record struct {
	Name         string            `json:"name"`
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	PID          int               `json:"pid"`
	PGID         int               `json:"pgid"`
	StdinDevNull bool              `json:"stdin_devnull"`
}

// records reads the runs recorded in out so far.
func records(t *testing.T, out string) []record {
	t.Helper()
	f, err := os.Open(out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rs []record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %q: %v", out, sc.Text(), err)
		}
		rs = append(rs, r)
	}
	return rs
}

// waitRecords waits until out holds n runs and returns them.
func waitRecords(t *testing.T, out string, n int) []record {
	t.Helper()
	var rs []record
	tmuxtest.WaitFor(t, patience, strconv.Itoa(n)+" runs recorded in "+filepath.Base(out), func() bool {
		rs = records(t, out)
		return len(rs) >= n
	})
	return rs
}

// gone reports whether process pid has ended (a zombie waiting for its parent counts).
func gone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) STATE ...: comm may hold spaces and parentheses, the state follows the last ")".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z' || s[i+2] == 'X'
}

// request is one POST the server took.
type request struct {
	Method, Path string
	Header       http.Header
	Body         string
}

// ntfyServer is an ntfy-compatible endpoint on loopback that records what it is sent and
// answers status, or, with hang, never answers (until the test ends).
type ntfyServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []request
}

func newServer(t *testing.T, status int, hang bool) *ntfyServer {
	t.Helper()
	s := &ntfyServer{}
	release := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)})
		s.mu.Unlock()
		if hang {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(release) }) // runs first: Close waits for the handlers
	return s
}

func (s *ntfyServer) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.reqs...)
}

// waitRequests waits until the server took n requests and returns them.
func (s *ntfyServer) waitRequests(t *testing.T, n int) []request {
	t.Helper()
	var rs []request
	tmuxtest.WaitFor(t, patience, strconv.Itoa(n)+" POSTs", func() bool {
		rs = s.requests()
		return len(rs) >= n
	})
	return rs
}

// desktopPath puts hookrecorder on PATH as name (notify-send, osascript), recording into a
// file it returns; PATH keeps nothing else (the hook and the shell are given absolute).
func desktopPath(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(recorder, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "desktop.jsonl")
	t.Setenv("PATH", dir)
	t.Setenv("HOOKRECORDER_OUT", out)
	return out
}

// waitFor waits for cond, polling on the real clock, with a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tmuxtest.WaitFor(t, patience, what, cond)
}
