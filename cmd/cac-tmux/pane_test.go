package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// TestInspectPane inspects live panes of a private tmux server that show real screens.
func TestInspectPane(t *testing.T) {
	pos := goldenCase(t, "pos-12-")
	neg := goldenCase(t, "neg-02-")
	s := tmuxtest.Start(t, 120, 40, "sh", "-c", "cat '"+pos.Path+"'; exec sleep 600")
	s.Tmux(t, "new-window", "-t", "main:1", "sh", "-c", "cat '"+neg.Path+"'; exec sleep 600")
	s.WaitScreen(t, "main:0.0", "resets 12:50am")
	s.WaitScreen(t, "main:1.0", "medium")
	ids := strings.Fields(s.Tmux(t, "list-panes", "-a", "-F", "#{pane_id}"))
	if len(ids) != 2 {
		t.Fatalf("panes = %q, want 2", ids)
	}
	for _, tc := range []struct {
		args        []string
		code        int
		out, stderr string
	}{
		{[]string{"--pane", ids[0], "-S", s.Socket, "--json"}, 0, `"limited": true`, ""},
		{[]string{"--pane", ids[1], "--socket-path", s.Socket, "--json"}, 1, `"limited": false`, ""},
		{[]string{"--pane", "%999", "-S", s.Socket}, 2, "", `no pane "%999"`},
		{[]string{"--pane", "main:9.9", "-S", s.Socket}, 2, "", `no pane "main:9.9"`}, // not the current pane
		{[]string{"--pane", "main:1.0", "-S", s.Socket, "--json"}, 1, `"limited": false`, ""},
		{[]string{"--pane", ids[0], "-S", s.Dir + "/none"}, 2, "", "select the server with -L NAME or -S PATH"},
		{[]string{"--pane", ids[0], "-S", s.Socket, pos.Path}, 2, "", "--pane and a FILE"},
	} {
		var out, errOut bytes.Buffer
		code := run(append([]string{"inspect"}, tc.args...), stdio{in: strings.NewReader(""), out: &out, err: &errOut})
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.stderr) {
			t.Errorf("inspect(%q) = %d, stdout %q, stderr %q; want %d, stdout with %q, stderr with %q",
				tc.args, code, out.String(), errOut.String(), tc.code, tc.out, tc.stderr)
		}
	}
}
