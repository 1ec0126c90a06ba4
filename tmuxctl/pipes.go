package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"
)

// Output, piped (tmux 3.2a to 3.7). Where wait-for has no -E, a server tells no client of a
// pane's output in another session than its own, and any command costs a 1,000-pane server
// two passes over every pane (poll(2) on every pty, then its loop): a listing a second is
// about 0.2 % of a core before it filters anything, and filtering every pane on its window's
// activity more than as much again (docs/costs.md, bash bench/signalcost.sh). So the watcher
// pipes each Claude pane's output (`pipe-pane -O`) into `cat`, which writes it to one FIFO the
// watcher reads: a tick with nothing in the FIFO since the last listing, no request and no
// change notified needs no listing of those panes, and sends tmux nothing.
//
// A pipe is opened only on a pane that has none (`if-shell -F '#{pane_pipe}'`, in tmux, in
// the same command): a pipe the user set is never closed or replaced, and a pane whose pipe
// is not ours is simply not covered. The pane option pipeOption holds the FIFO's path, so a
// watcher started again on the same state file knows the pipes it finds as its own; tmux keeps
// a pane's pipe through respawn-pane. The FIFO is opened read-write, so a cat's open never
// waits and the FIFO never ends while the watcher lives; once it is gone, a cat's next write
// fails (SIGPIPE), the cat exits and tmux closes that pipe.

// pipeOption is the pane option that marks a pipe of the watcher's: the FIFO's path.
const pipeOption = "@cac_pipe"

// pipes is the FIFO the piped panes' output comes into, read until closed. Its methods are
// safe for concurrent use.
type pipes struct {
	path string
	f    *os.File

	mu     sync.Mutex
	gen    uint64 // the quietGens value of the last read, or of the opening
	broken bool   // the FIFO cannot be read: nothing can be told
}

// openPipes makes the FIFO at path (or takes the one there, left by an earlier watcher on the
// same state file) and reads it.
func openPipes(path string) (*pipes, error) {
	if err := syscall.Mkfifo(path, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("tmuxctl: make the output FIFO %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("tmuxctl: open the output FIFO %s: %w", path, err)
	}
	if st, err := f.Stat(); err != nil || st.Mode()&fs.ModeNamedPipe == 0 || st.Mode().Perm()&0o077 != 0 {
		f.Close()
		return nil, fmt.Errorf("tmuxctl: %s is not a FIFO only its owner can use; remove it", path)
	}
	p := &pipes{path: path, f: f, gen: quietGens.Add(1)}
	go p.read()
	return p, nil
}

// read takes whatever comes into the FIFO, each read a new generation, until it is closed.
func (p *pipes) read() {
	buf := make([]byte, 64<<10)
	for {
		_, err := p.f.Read(buf)
		p.mu.Lock()
		p.gen = quietGens.Add(1)
		if err != nil {
			p.broken = true
		}
		p.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// quiet reports whether nothing came into the FIFO since generation gen (armed's value).
func (p *pipes) quiet(gen uint64) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return gen != 0 && !p.broken && p.gen == gen
}

// armed returns the current generation, 0 when the FIFO cannot be read.
func (p *pipes) armed(context.Context) uint64 {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken {
		return 0
	}
	return p.gen
}

func (p *pipes) close() { p.f.Close() }

// pipeCommand is the shell command of a pipe: cat appending to the FIFO at path, quoted for
// sh, with "#" doubled since tmux expands pipe-pane's command as a format.
func pipeCommand(path string) string {
	quoted := "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
	return "exec cat >>" + strings.ReplaceAll(quoted, "#", "##")
}

// PipeMark is what a pane's PipeMark reads when its pipe is this client's output pipe, ""
// when the client pipes nothing (no control connection, tmux 3.8's signal in its place, or no
// FIFO given to Connect).
func (c *Client) PipeMark() string {
	if c.conn == nil {
		return ""
	}
	if p := c.conn.pipesNow(); p != nil {
		return p.path
	}
	return ""
}

// pipeBatch is how many panes one command line pipes.
const pipeBatch = 64

// PipeOutput pipes the output of each pane into the client's FIFO (see pipes), on a pane that
// has no pipe only, and returns each pane as it is then: its ID, Pipe and PipeMark (the
// client's PipeMark when the pipe is its own). It does nothing when PipeMark is "". A pane
// gone ends its batch (pipeBatch): the panes after it are not returned, and are piped by a
// later call.
func (c *Client) PipeOutput(ctx context.Context, panes []string) ([]Pane, error) {
	mark := c.PipeMark()
	if mark == "" {
		return nil, nil
	}
	var piped []Pane
	for len(panes) > 0 {
		batch := panes[:min(len(panes), pipeBatch)]
		panes = panes[len(batch):]
		var args []string
		for _, p := range batch {
			if !isPaneID(p) {
				return piped, fmt.Errorf("tmuxctl: pipe-pane: %q is not a pane id", p)
			}
			if len(args) > 0 {
				args = append(args, ";")
			}
			var open strings.Builder
			open.WriteString("pipe-pane -O -t " + p + " ")
			quoteArg(&open, pipeCommand(mark))
			open.WriteString(" ; set-option -p -t " + p + " " + pipeOption + " ")
			quoteArg(&open, mark)
			// if-shell -F runs what it chose right after itself, before the next command.
			args = append(args, "if-shell", "-F", "-t", p, "#{pane_pipe}", "", open.String(),
				";", "display-message", "-p", "-t", p, pipedFormat)
		}
		out, err := c.Run(ctx, args...)
		if err != nil && !errors.Is(err, ErrNoTarget) {
			return piped, err
		}
		rows, perr := parseRows(out, pipedFields, false)
		if perr != nil {
			return piped, perr
		}
		piped = append(piped, rows...)
	}
	return piped, nil
}

// pipedFormat is the format of pipedFields.
var pipedFormat = formatOf(pipedFields)

// pipedFields are the fields PipeOutput reads back of each pane.
var pipedFields = []paneField{
	text("#{pane_id}", func(p *Pane) *string { return &p.ID }),
	flag("pane_pipe", func(p *Pane) *bool { return &p.Pipe }),
	text(freeText(pipeOption), func(p *Pane) *string { return &p.PipeMark }),
	rowEnd,
}

// isPaneID reports whether s is a pane id: "%" and a number.
func isPaneID(s string) bool {
	n := strings.TrimPrefix(s, "%")
	return n != s && n != "" && strings.Trim(n, "0123456789") == ""
}

// PipeInto gives the client's control connection (Connect) the FIFO of its output pipes: on a
// server without wait-for -E, output is piped there (see pipes). Without Connect it does
// nothing.
func (c *Client) PipeInto(path string) {
	if c.conn != nil {
		c.conn.mu.Lock()
		c.conn.pipePath = path
		c.conn.mu.Unlock()
	}
}

// pipesNow returns the output pipes' FIFO, nil when there is none (yet).
func (n *transport) pipesNow() *pipes {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.pipes
}

// pipeOutput opens the FIFO of the output pipes, if a path was given and it is not open yet,
// and names it in signalOption over k, for Request to write to. Called with n.mu held, for a
// connection of a server without wait-for -E. A nil error with no path: nothing to do.
func (n *transport) pipeOutput(ctx context.Context, k *controlClient) error {
	if n.pipePath == "" {
		return errors.New("tmux has no wait-for -E")
	}
	if n.pipes == nil {
		p, err := openPipes(n.pipePath)
		if err != nil {
			return err
		}
		n.pipes = p
	}
	if _, err := k.Run(ctx, "set-option", "-g", signalOption, arg(n.pipes.path)); err != nil {
		return err
	}
	n.log("pipes", nil)
	return nil
}

// wakePipes writes a byte into the output pipes' FIFO at path, named in signalOption by a
// watcher: it wakes that watcher's next tick as a pane's output would. Only a FIFO of the
// caller's own, opened without waiting, is written to.
func wakePipes(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || st.Mode()&fs.ModeNamedPipe == 0 || int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%s is not a FIFO of this user", path)
	}
	_, err = f.Write([]byte{'\n'})
	return err
}

// signal tells whether any pane it covers printed since a generation it handed out: tmux
// 3.8's wait (activity) or the output pipes.
type signal interface {
	quiet(gen uint64) bool
	armed(ctx context.Context) uint64
	// covers reports whether it covers every pane a listing with search s would show.
	covers(s Search) bool
}

func (a *activity) covers(Search) bool { return true }

func (p *pipes) covers(s Search) bool { return s.Piped }

// armed is a.armed, 0 without a signal.
func armed(ctx context.Context, a signal) uint64 {
	if a == nil {
		return 0
	}
	return a.armed(ctx)
}

// signal returns the output signal of connection k: tmux 3.8's wait where the server has it,
// else the output pipes; nil when there is none.
func (n *transport) signal(ctx context.Context, k *controlClient) signal {
	if a := n.activity(ctx, k); a != nil {
		return a
	}
	if p := n.pipesNow(); p != nil {
		return p
	}
	return nil
}
