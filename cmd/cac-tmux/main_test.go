package main

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// bins are the programs TestMain builds: cac-tmux itself, and on Linux the fake Claude Code
// (internal/fakeclaude) under the name "claude", so that the watcher recognises it, and the
// notification hook that records how it was run (internal/hookrecorder).
var bins struct{ cac, claude, hook string }

func TestMain(m *testing.M) {
	tmuxtest.MainBuilding(m, func(dir string) error {
		bins.cac, bins.claude, bins.hook = filepath.Join(dir, "cac-tmux"), filepath.Join(dir, "claude"), filepath.Join(dir, "hookrecorder")
		if err := tmuxtest.GoBuild(bins.cac, "."); err != nil || runtime.GOOS != "linux" {
			return err
		}
		if err := tmuxtest.GoBuild(bins.hook, "../../internal/hookrecorder"); err != nil {
			return err
		}
		return tmuxtest.GoBuild(bins.claude, "../../internal/fakeclaude")
	})
}
