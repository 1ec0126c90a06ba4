//go:build linux

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// listTable runs `cac-tmux list ARGS` and returns its stdout lines.
func listTable(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"list"}, args...), stdio{out: &out, err: &errOut}); code != 0 {
		t.Fatalf("list %q = %d, stderr %q", args, code, errOut.String())
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// rowOf is the line of the table that shows pane, "" when none does.
func rowOf(lines []string, pane string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, pane+" ") {
			return l
		}
	}
	return ""
}

// On a server no watcher has ever watched, list says that none runs and that nothing will be
// resumed, and shows a Claude pane stopped at a limit as stopped and not watched: it showed
// nothing (and with --all, "running"). A Claude pane that runs and a shell whose screen shows
// limit text are not stopped.
func TestListNeverWatched(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30, "sh", "-c", "echo 'usage: limit reached'; exec sleep 600") // main:0.0
	s.WaitScreen(t, "main:0.0", "usage: limit")
	reset := time.Now().Add(2 * time.Hour).UTC().Truncate(time.Minute)
	stopped, _ := startClaude(t, s, "--reset", reset.Format(time.RFC3339))
	idle, _ := startClaude(t, s, "--scenario", "idle")

	lines := listTable(t, "-S", s.Socket)
	if len(lines) != 3 || lines[0] != "no watcher runs on server "+s.Socket+": nothing here will be resumed (start one: cac-tmux watch)" {
		t.Fatalf("list = %q, want the note that no watcher runs, the header and one pane", lines)
	}
	if row := rowOf(lines, stopped); !strings.Contains(row, "stopped (not watched)") || !strings.Contains(row, reset.Format("15:04")+" UTC") {
		t.Errorf("row of the stopped pane = %q, want stopped (not watched) and its reset", row)
	}
	got, stderr := listJSONOf(t, "-S", s.Socket, "--all")
	if len(got) != 2 || got[0].Pane != stopped || got[0].State != "stopped" || got[0].Reset == nil || *got[0].Reset != reset.Format(time.RFC3339) ||
		got[0].Kind != "session" || got[0].Due != nil || got[0].WatcherRunning || got[1].Pane != idle || got[1].State != "running" || got[1].WatcherRunning {
		t.Errorf("list --all --json = %+v, want %s stopped at %s, then %s running, neither watched", got, stopped, reset.Format(time.RFC3339), idle)
	}
	if !strings.Contains(stderr, "no watcher is running") {
		t.Errorf("list --json stderr = %q, want a note that no watcher runs", stderr)
	}
}

// With the state a watcher published and no watcher running, list marks each state as the
// last published ("waiting (stale)"), shows no countdown to a due instant nobody will keep,
// and --json says watcher_running false; with a watcher running, the same pane is simply
// waiting and due.
func TestListStaleState(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	pane, _ := startClaude(t, s, "--reset", time.Now().Add(3*time.Hour).UTC().Format(time.RFC3339))
	// Due 2h59m30s from now, an hour after the reset: a countdown to it reads 2h59m for the
	// next 30 s whether it is cut or rounded to the minute (a due instant cut to the minute
	// left as little as a second of it: CI on 3.5a read 2h58m).
	due := time.Now().Add(2*time.Hour + 59*time.Minute + 30*time.Second).UTC().Truncate(time.Second)
	reset := due.Add(-time.Hour)
	o := tmuxctl.Options{State: "waiting", Reset: reset.Format(time.RFC3339), Due: due.Format(time.RFC3339), Kind: "session", Zone: "UTC"}
	if err := s.Client.SetPaneOptions(context.Background(), pane, tmuxctl.OptionNames, o.Values()); err != nil {
		t.Fatal(err)
	}
	lines := listTable(t, "-S", s.Socket)
	row := rowOf(lines, pane)
	if !strings.HasPrefix(lines[0], "no watcher runs on ") || !strings.Contains(row, "waiting (stale)") || strings.Contains(row, " 2h59m") || strings.Contains(row, " 3h") {
		t.Errorf("list without a watcher = %q; want the note, waiting (stale) and no countdown to the due instant", lines)
	}
	if got, _ := listJSONOf(t, "-S", s.Socket); len(got) != 1 || got[0].State != "waiting" || got[0].WatcherRunning {
		t.Errorf("list --json without a watcher = %+v, want waiting as published, watcher_running false", got)
	}

	watched(t, s) // a live pid published as the watcher's
	lines = listTable(t, "-S", s.Socket)
	if row := rowOf(lines, pane); len(lines) != 2 || !strings.Contains(row, "waiting  ") || strings.Contains(row, "stale") || !strings.Contains(row, " 2h59m") {
		t.Errorf("list with a watcher = %q; want only the header and the pane waiting, due in 2h59m", lines)
	}
	if got, stderr := listJSONOf(t, "-S", s.Socket); len(got) != 1 || !got[0].WatcherRunning || stderr != "" {
		t.Errorf("list --json with a watcher = %+v, stderr %q; want watcher_running true, nothing on stderr", got, stderr)
	}
}
