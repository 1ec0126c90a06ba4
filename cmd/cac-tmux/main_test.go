package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// bins are the programs TestMain builds: cac-tmux itself, and on Linux the fake Claude Code
// (watcher/fakeclaude) under the name "claude", so that the watcher recognises it.
var bins struct{ cac, claude string }

func TestMain(m *testing.M) {
	cleanup := tmuxtest.Isolate()
	dir, err := os.MkdirTemp("", "cacbin")
	if err != nil {
		panic(err)
	}
	bins.cac, bins.claude = filepath.Join(dir, "cac-tmux"), filepath.Join(dir, "claude")
	build := [][2]string{{bins.cac, "."}}
	if runtime.GOOS == "linux" {
		build = append(build, [2]string{bins.claude, "../../watcher/fakeclaude"})
	}
	for _, b := range build {
		if err := tmuxtest.GoBuild(b[0], b[1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	cleanup()
	os.Exit(code)
}
