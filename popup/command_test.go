package popup

import (
	"context"
	"testing"
)

// Outside a popup: no terminal, outside tmux, or in a pane ($TMUX_PANE, which tmux sets for
// panes and never for popups).
func TestOutside(t *testing.T) {
	for _, tc := range []struct {
		tty              bool
		tmux, pane, want string
	}{
		{false, "/tmp/s,1,0", "", "its standard input and output are not a terminal"},
		{true, "", "", "it runs outside tmux"},
		{true, "/tmp/s,1,0", "%3", "it runs in the pane %3, not in a popup"},
		{true, "/tmp/s,1,0", "", ""},
	} {
		env := map[string]string{"TMUX": tc.tmux, "TMUX_PANE": tc.pane}
		if got := Outside(tc.tty, tc.tty, func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("Outside(%v, %v) = %q, want %q", tc.tty, env, got, tc.want)
		}
	}
}

func TestWatcherText(t *testing.T) {
	for _, tc := range []struct {
		pid     int
		running bool
		want    string
	}{{0, false, ""}, {4242, true, "watcher pid 4242"}, {0, true, "a watcher runs"}} {
		if got := watcherText(tc.pid, tc.running); got != tc.want {
			t.Errorf("watcherText(%d, %v) = %q, want %q", tc.pid, tc.running, got, tc.want)
		}
	}
}

// Enter with no client to switch says how to name one, and asks nothing of tmux.
func TestJumpWithoutClient(t *testing.T) {
	want := "popup: no client to switch to %3 (give --client NAME, a name from tmux list-clients)"
	if err := jump(context.Background(), nil, "", "%3"); err == nil || err.Error() != want {
		t.Errorf("jump = %v, want %q", err, want)
	}
}
