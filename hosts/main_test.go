package hosts_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// bins are the programs TestMain builds: cac-tmux itself, the remote side of the tests, and on
// Linux the fake Claude Code (internal/fakeclaude) under the name "claude", so that the remote
// cac-tmux recognises it in a pane.
var bins struct{ cac, claude string }

func TestMain(m *testing.M) {
	tmuxtest.MainBuilding(m, func(dir string) error {
		bins.cac, bins.claude = filepath.Join(dir, "cac-tmux"), filepath.Join(dir, "claude")
		if err := tmuxtest.GoBuild(bins.cac, "../cmd/cac-tmux"); err != nil || runtime.GOOS != "linux" {
			return err
		}
		return tmuxtest.GoBuild(bins.claude, "../internal/fakeclaude")
	})
}
