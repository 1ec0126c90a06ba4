package hosts

import (
	"io"
	"sync"

	"github.com/cac-tmux/cac-tmux/printable"
)

// The bounds of what is kept of a remote command's output: a remote host, or a shell
// startup file gone wrong, must not fill the memory.
const (
	maxStdout = 16 << 20 // a listing of thousands of panes is a few MiB
	maxTail   = 64 << 10 // stderr and the mixed output: their ends say what happened
)

// capture keeps what ssh writes to its stdout and stderr, and both as they came. ssh's two
// streams are copied by two goroutines, hence the lock.
type capture struct {
	mu     sync.Mutex
	stdout []byte
	stderr []byte
	both   []byte
	cut    bool
}

// stdoutOf and stderrOf are the writers of c's two streams.
func stdoutOf(c *capture) io.Writer { return stream{c, false} }
func stderrOf(c *capture) io.Writer { return stream{c, true} }

type stream struct {
	c     *capture
	isErr bool
}

// Write keeps p and always takes all of it: a writer that refused would stop the copy and
// leave ssh blocked on a full pipe.
func (s stream) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.both = tail(append(c.both, p...), maxTail)
	if s.isErr {
		c.stderr = tail(append(c.stderr, p...), maxTail)
		return len(p), nil
	}
	room := maxStdout - len(c.stdout)
	if len(p) > room {
		c.stdout, c.cut = append(c.stdout, p[:max(room, 0)]...), true
	} else {
		c.stdout = append(c.stdout, p...)
	}
	return len(p), nil
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// reply is what c kept, once the writers are done, made printable (printable.Text): whoever
// prints what a remote host sent, no byte of it reaches the terminal as a command.
func (c *capture) reply() Reply {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Reply{Stdout: printable.Text(string(c.stdout)), Stderr: printable.Text(string(c.stderr)),
		Output: printable.Text(string(c.both)), cut: c.cut}
}
