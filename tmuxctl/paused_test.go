package tmuxctl_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// TestPausedPanes lists the panes that carry @cac_state on a private server: a pane without
// it is filtered out by tmux, a window linked into two sessions is listed once, and option
// values holding the field separator or a newline cannot shift the fields or split the row.
func TestPausedPanes(t *testing.T) {
	eachTransport(t, func(t *testing.T, control bool) {
		s := start(t, control, 80, 24)
		ctx := context.Background()
		ps, err := s.Client.PausedPanes(ctx)
		if err != nil || len(ps) != 0 {
			t.Fatalf("PausedPanes with nothing paused = %+v, %v; want none", ps, err)
		}
		s.Tmux(t, "new-window", "-d", "-t", "main:1")
		s.Tmux(t, "new-window", "-d", "-t", "main:2")
		ids := strings.Fields(s.Tmux(t, "list-panes", "-s", "-t", "main", "-F", "#{pane_id}"))
		if len(ids) != 3 {
			t.Fatalf("panes = %q, want 3", ids)
		}
		s.Tmux(t, "new-session", "-d", "-s", "other")
		s.Tmux(t, "link-window", "-s", "main:1", "-t", "other:5")
		set := func(pane, name, value string) {
			if err := s.Client.SetPaneOption(ctx, pane, name, value); err != nil {
				t.Fatal(err)
			}
		}
		set(ids[1], "@cac_state", "waiting")
		set(ids[1], "@cac_due", "2026-11-21T01:31:00+02:00")
		set(ids[1], "@cac_note", "not asked for")
		set(ids[2], "@cac_state", "held\x1fx\ny")
		ps, err = s.Client.PausedPanes(ctx)
		want := []tmuxctl.Pane{
			{ID: ids[1], Options: tmuxctl.Options{State: "waiting", Due: "2026-11-21T01:31:00+02:00"}},
			{ID: ids[2], Options: tmuxctl.Options{State: "held?x?y"}},
		}
		if err != nil || !reflect.DeepEqual(ps, want) {
			t.Errorf("PausedPanes = %+v, %v; want %+v", ps, err, want)
		}
	})
}

func TestPausedPanesNoServer(t *testing.T) {
	c := &tmuxctl.Client{SocketPath: t.TempDir() + "/none"}
	if _, err := c.PausedPanes(context.Background()); !errors.Is(err, tmuxctl.ErrNoServer) {
		t.Errorf("PausedPanes on no server = %v, want ErrNoServer", err)
	}
}

func TestParsePaused(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want []tmuxctl.Pane
		err  string
	}{
		{"", nil, ""},
		{row("%1", "waiting", "2026-11-21T01:31:00Z", "4242", "%1") + "\n" + row("%1", "waiting", "", "4242", "%1") + "\n",
			[]tmuxctl.Pane{{ID: "%1", Options: tmuxctl.Options{State: "waiting", Due: "2026-11-21T01:31:00Z"}, Watcher: "4242"}}, ""},
		{row("%1", "waiting", "", "%1"), nil, "4 fields, want 5"},
		{row("1", "waiting", "", "", "1"), nil, `pane id "1"`},
		// tmux 3.7 and later cut the row short at their time limit on a format: its last field,
		// expanded through a condition, comes out empty, whatever came before it; a row with
		// escaped separators (tmux 3.4, 3.5) ending so reads the same.
		{row("%1", "", "", "", ""), nil, "cut short"},
		{row("%1", "waiting", "", "4242", ""), nil, "cut short"},
		{`%1\037waiting\037\0374242\037`, nil, "cut short"},
	} {
		got, err := tmuxctl.ParsePaused(tc.out)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParsePaused(%q) = %+v, %v; want %+v, error with %q", tc.out, got, err, tc.want, tc.err)
		}
	}
}
