//go:build linux

package proc

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// TestTmuxTitledRuntime: a runtime that titled itself "claude" as Claude Code's npm build
// does on Linux (testdata/retitle: comm, argv and ps's args read "claude", the executable is
// named node) is found by both paths, and its environment read by both, the path without
// /proc reading `ps eww` of a rewritten argument area. (exec -a claude node, argv alone:
// TestTmuxRuntimes.)
func TestTmuxTitledRuntime(t *testing.T) {
	needLsof(t)
	node := filepath.Join(t.TempDir(), "node")
	if err := tmuxtest.GoBuild(node, "./testdata/retitle"); err != nil {
		t.Fatal(err)
	}
	s := tmuxtest.Start(t, 80, 24)
	want := records.Env{Home: "/tmp/titled home"}
	pane := newWindow(t, s, "env", "-u", "CLAUDE_CONFIG_DIR", "HOME="+want.Home, node, "/usr/lib/node_modules/x/cli.js", "--resume")
	waitForeground(t, "node titled claude", pane, "claude")
	founds := waitFound(t, pane)
	for i, src := range finders {
		if !strings.Contains(founds[i].How, "titled itself") {
			t.Errorf("%s: How = %q, want the title", src.name, founds[i].How)
		}
		if env, err := src.f.Env(toolCtx(t), founds[i].Identity); err != nil || env != want {
			t.Errorf("%s: Env = %+v, %v, want %+v", src.name, env, err, want)
		}
	}
	killAndWait(t, founds)
}
