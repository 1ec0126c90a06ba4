package table

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// A server that gave no listing is the error of list only when nothing else can be shown;
// with hosts asked, no tmux server at all here is no problem unless -L or -S named one.
func TestListingUnlisted(t *testing.T) {
	noServer := fmt.Errorf("x: %w", tmuxctl.ErrNoServer)
	failed := errors.New("timed out")
	ok := Served{Name: "server -L ok", Rows: []watcher.Row{{Pane: "%1", State: "waiting"}}, Watching: true}
	host := []hosts.Result{{Host: "dev1"}}
	for _, tc := range []struct {
		name      string
		local     []Served
		remote    []hosts.Result
		oneServer bool
		want      int // servers named as the error
	}{
		{"one failed", []Served{{Name: "a", Err: failed}}, nil, false, 1},
		{"every one failed", []Served{{Name: "a", Err: failed}, {Name: "b", Err: noServer}}, nil, false, 2},
		{"one failed among others", []Served{{Name: "a", Err: failed}, ok}, nil, false, 0},
		{"no server, a host asked", []Served{{Name: "a", Err: noServer}}, host, false, 0},
		{"no server named, a host asked", []Served{{Name: "a", Err: noServer}}, host, true, 0},
	} {
		if got := NewListing(tc.local, tc.remote, false, tc.oneServer).Unlisted(); len(got) != tc.want {
			t.Errorf("%s: Unlisted = %+v, want %d", tc.name, got, tc.want)
		}
	}
	var out, errw strings.Builder
	NewListing([]Served{{Name: "server -L a", Err: noServer}}, host, false, false).WriteTable(&out, &errw, 0, time.Now())
	if strings.Contains(out.String(), "server -L a") {
		t.Errorf("no server here, hosts asked: the table names it:\n%s", out.String())
	}
	out.Reset()
	NewListing([]Served{{Name: "server -L a", Err: noServer}}, host, false, true).WriteTable(&out, &errw, 0, time.Now())
	if !strings.Contains(out.String(), "server -L a: x: ") {
		t.Errorf("the server -L named is not named with its error:\n%s", out.String())
	}
}

// list --json names each pane's server only when more than one server has panes, a host's
// panes by their host, and leaves out the running panes without --all.
func TestListingJSON(t *testing.T) {
	a := Served{Label: "a", Name: "server -L a", Rows: []watcher.Row{{Pane: "%1", State: "waiting"}}, Watching: true}
	b := Served{Label: "b", Name: "server -L b", Rows: []watcher.Row{{Pane: "%2", State: "held"}}}
	remote := []hosts.Result{{Host: "dev1", Panes: []hosts.Pane{{Pane: "%7", State: "running"}, {Pane: "%8", State: "waiting"}}}}
	for _, tc := range []struct {
		local []Served
		want  string
	}{
		{[]Served{a}, "%1 dev1%8"},
		{[]Served{a, b}, "a%1 b%2 dev1%8"},
	} {
		var out, errw strings.Builder
		if err := NewListing(tc.local, remote, false, false).WriteJSON(&out, &errw); err != nil {
			t.Fatal(err)
		}
		var panes []hosts.Pane
		if err := json.Unmarshal([]byte(out.String()), &panes); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range panes {
			got = append(got, p.Server+p.Host+p.Pane)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("panes %q, want %q", strings.Join(got, " "), tc.want)
		}
	}
}

// Print: only failures to show is the error, naming each server; else JSON or the table.
func TestListingPrint(t *testing.T) {
	now := time.Date(2026, 11, 20, 19, 0, 0, 0, time.UTC)
	failed := []Served{{Name: "server -L a", Err: errors.New("timed out")}, {Name: "server -L b", Err: errors.New("exit 1")}}
	var out, errOut strings.Builder
	err := NewListing(failed, nil, false, false).Print(&out, &errOut, false, 0, now)
	if err == nil || err.Error() != "list: server -L a: timed out\nlist: server -L b: exit 1" || out.Len() != 0 {
		t.Errorf("Print(failures) = %v, stdout %q", err, out.String())
	}
	ok := []Served{{Name: "server -L ok", Label: "ok", Rows: []watcher.Row{{Pane: "%1", Target: "w:0.0", State: "held"}}, Watching: true}}
	if err := NewListing(ok, nil, false, false).Print(&out, &errOut, true, 0, now); err != nil || !strings.HasPrefix(out.String(), "[") {
		t.Errorf("Print(JSON) = %v, %q", err, out.String())
	}
	out.Reset()
	if err := NewListing(ok, nil, false, false).Print(&out, &errOut, false, 0, now); err != nil || !strings.Contains(out.String(), "w:0.0") || strings.HasPrefix(out.String(), "[") {
		t.Errorf("Print(table) = %v, %q", err, out.String())
	}
}
