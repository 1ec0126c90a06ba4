package notify

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// desktop shows the event with notify-send or osascript. Title and body are arguments of
// their own: osascript's script is fixed and reads them from its run handler's argv.
type desktop struct {
	path string // notify-send or osascript, resolved on PATH at New
	goos string
}

func (d *desktop) name() string { return "desktop" }

// osaScript shows a notification with the title and body given as osascript's arguments;
// they are never part of the script.
var osaScript = []string{"-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)", "-e", "end run"}

// desktopArgs are the arguments of the desktop program for e (titleOf and bodyOf never start
// with "-", and notify-send's "--" ends its options anyway).
func desktopArgs(goos string, e Event) []string {
	title, body := titleOf(e), bodyOf(e)
	if goos == "darwin" {
		return append(append([]string{}, osaScript...), title, body)
	}
	urgency := "normal"
	if presentations[e.Kind].critical {
		urgency = "critical"
	}
	return []string{"--app-name=cac-tmux", "--urgency=" + urgency, "--", title, body}
}

func (d *desktop) deliver(ctx context.Context, e Event) error {
	cmd := exec.CommandContext(ctx, d.path, desktopArgs(d.goos, e)...)
	out := &tail{max: 1024}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = waitDelay
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("run %s: %w: %s", d.path, err, oneLine(msg))
		}
		return fmt.Errorf("run %s: %w", d.path, err)
	}
	return nil
}
