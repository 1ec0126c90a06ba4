package main

import (
	"fmt"
	"os"
	"os/exec"
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
	goTool, err := exec.LookPath("go") // go test puts $GOROOT/bin first in PATH
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	for _, b := range build {
		if out, err := exec.Command(goTool, "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n%s", b[1], err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	cleanup()
	os.Exit(code)
}
