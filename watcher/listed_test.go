package watcher_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// A row written by list --json on one host is the same row on the host that reads it: the
// reset in the zone it was printed in, the due instant, every field the table shows. An
// unknown reset is null in JSON and zero again after.
func TestListedRoundTrip(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	rows := []watcher.Row{
		{Pane: "%3", Target: "main:1.0", Agent: agent.Claude, State: "waiting", Kind: "session", Reset: time.Date(2026, 5, 1, 15, 0, 0, 0, tokyo),
			Zone: "Asia/Tokyo", Source: "transcript", Account: "/home/u/.claude", Due: time.Date(2026, 5, 1, 6, 1, 0, 0, time.UTC), Note: "n"},
		{Pane: "%4", Target: "main:2.0", Agent: agent.Codex, State: "running"},
	}
	for _, r := range rows {
		data, err := json.Marshal(r.Listed(true))
		if err != nil {
			t.Fatal(err)
		}
		var p hosts.Pane
		if err := json.Unmarshal(data, &p); err != nil {
			t.Fatal(err)
		}
		if !p.WatcherRunning {
			t.Errorf("%s: watcher_running false, want true", r.Pane)
		}
		got := watcher.RowFromListed(p)
		if !got.Reset.Equal(r.Reset) || got.Reset.Location().String() != r.Reset.Location().String() || !got.Due.Equal(r.Due) {
			t.Errorf("%s: reset %v due %v, want %v, %v", r.Pane, got.Reset, got.Due, r.Reset, r.Due)
		}
		got.Reset, got.Due, r.Reset, r.Due = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if got != r {
			t.Errorf("%s: RowFromListed(Listed) = %+v, want %+v", r.Pane, got, r)
		}
	}
}

// The agent of a listed pane: "agent" in list --json; a row of an older cac-tmux, which has
// none, is Claude Code's, and an agent this version does not know keeps its name.
func TestListedAgent(t *testing.T) {
	for _, tc := range []struct {
		json string
		want agent.Name
	}{
		{`{"pane":"%1","target":"a:0.0","state":"waiting"}`, agent.Claude},
		{`{"pane":"%1","target":"a:0.0","state":"waiting","agent":"codex"}`, agent.Codex},
		{`{"pane":"%1","target":"a:0.0","state":"waiting","agent":"gemini"}`, "gemini"},
	} {
		var p hosts.Pane
		if err := json.Unmarshal([]byte(tc.json), &p); err != nil {
			t.Fatal(err)
		}
		if got := watcher.RowFromListed(p).Agent; got != tc.want {
			t.Errorf("RowFromListed(%s).Agent = %q, want %q", tc.json, got, tc.want)
		}
	}
	data, err := json.Marshal(watcher.Row{Pane: "%1", Agent: agent.Codex}.Listed(false))
	if err != nil || !strings.Contains(string(data), `"agent":"codex"`) {
		t.Errorf("Listed = %s, %v; want \"agent\":\"codex\"", data, err)
	}
}
