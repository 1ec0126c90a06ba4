package notify

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// hook runs the user's program once per event: argv as configured, the event in CAC_*
// environment variables, stdin /dev/null. No shell is involved and nothing of the event
// reaches argv, so no pane text can become part of a command.
type hook struct {
	path string // the program, resolved on PATH at New
	args []string
}

func (h *hook) name() string { return "command" }

// waitDelay is how long a hook's output pipes may stay open after it exits or is killed
// (a background child it left holds them).
const waitDelay = 2 * time.Second

// deliver runs the hook until it exits or ctx ends; then its whole process group is killed.
// A hook that exits 0 but leaves a child holding its output open succeeded.
func (h *hook) deliver(ctx context.Context, e Event) error {
	cmd := exec.CommandContext(ctx, h.path, h.args...)
	cmd.Env = hookEnv(os.Environ(), e)
	out := &tail{max: 2048}
	cmd.Stdout, cmd.Stderr = out, out // stdin stays nil: /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		err = nil
	}
	if err != nil {
		return &hookError{err: err, output: out.String()}
	}
	return nil
}

// hookError is a hook that failed, with the end of what it printed (logged at debug only:
// it may quote the note, which may quote the screen).
type hookError struct {
	err    error
	output string
}

func (e *hookError) Error() string { return "run the hook: " + e.err.Error() }
func (e *hookError) Unwrap() error { return e.err }

// hookEnv is the hook's environment: the watcher's, less any CAC_* variable of its own, plus
// the event's (CAC_RESET and CAC_AT in RFC 3339, CAC_RESET "" when the reset is unknown;
// CAC_AGENT the agent's name, claude or codex). NUL, which no environment can hold, is
// dropped from the values.
func hookEnv(environ []string, e Event) []string {
	env := make([]string, 0, len(environ)+9)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "CAC_") {
			env = append(env, kv)
		}
	}
	for _, kv := range [][2]string{
		{"CAC_EVENT", string(e.Kind)}, {"CAC_PANE", e.Pane}, {"CAC_TARGET", e.Target}, {"CAC_AGENT", agentName(e.Agent)},
		{"CAC_KIND", e.Limit}, {"CAC_RESET", rfc3339(e.Reset)}, {"CAC_STATE", e.State}, {"CAC_NOTE", e.Note},
		{"CAC_AT", rfc3339(e.At)},
	} {
		env = append(env, kv[0]+"="+strings.ReplaceAll(kv[1], "\x00", ""))
	}
	return env
}

// rfc3339 is t in RFC 3339 with its own offset, "" for the zero time.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = t.b[over:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
