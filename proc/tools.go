package proc

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// toolTimeout bounds one run of ps or lsof when the context has no deadline.
const toolTimeout = 5 * time.Second

// runTool runs the program name with args (argv only, no shell) and env as its whole
// environment, bounded by the context (toolTimeout when it has none), and returns what it
// printed. A failed run is an error naming the program, with its message; it wraps the
// *exec.ExitError of a program that ran and exited non-zero, for callers to whom an exit
// status is an answer (lsof exits 1 when a pid it was asked about is gone).
func runTool(ctx context.Context, name string, args, env []string) (stdout, stderr string, err error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, toolTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.WaitDelay = time.Second
	var out, msg strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &msg
	err = cmd.Run()
	stdout, stderr = out.String(), strings.TrimSpace(msg.String())
	switch {
	case err == nil:
		return stdout, stderr, nil
	case ctx.Err() != nil:
		return stdout, stderr, fmt.Errorf("%s: %w", name, ctx.Err())
	case stderr != "":
		return stdout, stderr, fmt.Errorf("%s: %w: %.300s", name, err, stderr)
	}
	return stdout, stderr, fmt.Errorf("%s: %w", name, err)
}
