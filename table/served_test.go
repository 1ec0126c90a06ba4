package table

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// noClaude is a Finder that finds Claude Code in no pane.
type noClaude struct{}

func (noClaude) Find(context.Context, int) (proc.Found, bool, error) {
	return proc.Found{}, false, nil
}

func (noClaude) Env(context.Context, proc.Identity) (records.Env, error) {
	return records.Env{}, errors.New("no records")
}

// ListServers gives every server in the clients' order: one in the socket directory by its
// name, with what its watcher published, the pane whose state cannot be read left out and
// said on warn; one that is not there with its error and how to reach one.
func TestListServers(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "tmux-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	s := tmuxtest.StartAt(t, filepath.Join(dir, "work"), 80, 24, "sleep", "600")
	s.Tmux(t, "new-window", "-d", "-t", "main:1", "sleep", "600")
	ids := strings.Fields(s.Tmux(t, "list-panes", "-a", "-F", "#{pane_id}"))
	o := tmuxctl.Options{State: "held"}
	if err := s.Client.SetPaneOptions(ctx, ids[0], tmuxctl.OptionNames, o.Values()); err != nil {
		t.Fatal(err)
	}
	s.Tmux(t, "set-option", "-p", "-t", ids[1], "@cac_state", "dozing")
	none := &tmuxctl.Client{SocketPath: filepath.Join(tmp, "none")}
	getenv := func(k string) string {
		return map[string]string{"TMUX_TMPDIR": tmp, "XDG_STATE_HOME": tmp, "XDG_RUNTIME_DIR": tmp}[k]
	}
	var warn strings.Builder
	got := ListServers(ctx, []*tmuxctl.Client{s.Client, none}, noClaude{}, false, getenv, os.Getuid(), &warn)
	if len(got) != 2 {
		t.Fatalf("ListServers = %+v; want two servers", got)
	}
	if w := got[0]; w.Label != "work" || w.Name != s.Client.Name() || w.Err != nil || w.Watching || len(w.Rows) != 1 || w.Rows[0].Pane != ids[0] {
		t.Errorf("the server = %+v; want work, not watched, its held pane %s", w, ids[0])
	}
	if !strings.Contains(warn.String(), "@cac_state") || !strings.Contains(warn.String(), "left out") {
		t.Errorf("warnings = %q; want the pane whose state cannot be read", warn.String())
	}
	if n := got[1]; n.Label != none.SocketPath || !errors.Is(n.Err, tmuxctl.ErrNoServer) || !strings.Contains(n.Err.Error(), "select the server with -L NAME or -S PATH") {
		t.Errorf("the missing server = %+v; want its path and the hint", n)
	}
}

// Every pane id first, then every target, each described by the other and the state; a
// row without a target offers its id only.
func TestChoices(t *testing.T) {
	rows := []watcher.Row{{Pane: "%12", Target: "work:2.1", State: "waiting"}, {Pane: "%3", Target: "%3x:0.0", State: "running"}, {Pane: "%4", State: "held"}}
	got := Choices(rows, "%")
	want := []Choice{{"%12", "work:2.1, waiting"}, {"%3", "%3x:0.0, running"}, {"%4", ", held"}, {"%3x:0.0", "%3, running"}}
	if !slices.Equal(got, want) {
		t.Errorf("Choices(%%) = %q, want %q", got, want)
	}
	if got := Choices(rows, "work"); !slices.Equal(got, []Choice{{"work:2.1", "%12, waiting"}}) {
		t.Errorf("Choices(work) = %q", got)
	}
}
