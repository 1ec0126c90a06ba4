package tmuxctl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Output, piped (tmux 3.2a to 3.7). Where wait-for has no -E, a server tells no client of a
// pane's output in another session than its own, and any command costs a 1,000-pane server
// a pass over every pane (docs/costs.md, where the server's time goes). So the watcher pipes
// each Claude pane's output (`pipe-pane -O`) into `cat`, which writes it to one FIFO the
// watcher reads: a tick with nothing in the FIFO since the last listing, no request and no
// change notified needs no listing of those panes, and sends tmux nothing.
//
// A pipe is opened only on a pane that has none (tmux decides `if-shell -F` and `pipe-pane` in
// the same command queue): a pipe the user set is never closed or replaced. pipeOption marks a
// pipe of ours with the pane's pid then and the FIFO's path, so a watcher started again finds
// its pipes, and a pipe closed under it is not opened again for the same process; tmux keeps
// a pane's pipe through respawn-pane. The watcher holds the FIFO open read-write: a cat's open
// does not wait while it lives; once it is gone, a cat's next write fails (SIGPIPE) and tmux
// closes that pipe. The shell opens the FIFO only if it is one, so no regular file can fill.

// pipeOption is the pane option that marks a pipe of the watcher's: "PID:PATH", the pane's
// pid when it was piped and the FIFO's path.
const pipeOption = "@cac_pipe"

// pipes is the FIFO the piped panes' output comes into, read until closed. Its methods are
// safe for concurrent use.
type pipes struct {
	path string
	f    *os.File
	id   os.FileInfo // the FIFO opened, to tell it from another file put at path since

	mu     sync.Mutex
	gen    uint64 // the quietGens value of the last read, or of the opening
	broken bool   // the FIFO cannot be read: nothing can be told
}

// openPipes makes the FIFO at path (or takes the one there, left by an earlier watcher on the
// same state file: a FIFO of this user's that only they can use) and reads it.
func openPipes(path string) (*pipes, error) {
	if err := syscall.Mkfifo(path, 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("tmuxctl: make the output FIFO %s: %w", path, err)
	}
	if err := ownFIFO(path, true); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("tmuxctl: open the output FIFO %s: %w", path, err)
	}
	id, err := f.Stat()
	if err == nil && id.Mode()&fs.ModeNamedPipe == 0 {
		err = errors.New("not a FIFO")
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("tmuxctl: open the output FIFO %s: %w", path, err)
	}
	p := &pipes{path: path, f: f, id: id, gen: quietGens.Add(1)}
	go p.read()
	return p, nil
}

// ownFIFO checks, without following a link, that path is a FIFO of this user's, and with
// private that only they can use it.
func ownFIFO(path string, private bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("tmuxctl: output FIFO: %w", err)
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok || st.Mode()&fs.ModeNamedPipe == 0 || int(sys.Uid) != os.Getuid() || (private && st.Mode().Perm()&0o077 != 0) {
		return fmt.Errorf("tmuxctl: %s is not a FIFO only its owner can use; remove it", path)
	}
	return nil
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

// quiet reports whether nothing came into the FIFO since generation gen (armed's value), the
// FIFO still at its path.
func (p *pipes) quiet(gen uint64) bool {
	if p == nil || !p.inPlace() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return gen != 0 && !p.broken && p.gen == gen
}

// armed returns the current generation, 0 when the FIFO cannot be read or is no longer at
// its path (removed, or replaced: a cat would write elsewhere).
func (p *pipes) armed(context.Context) uint64 {
	if p == nil || !p.inPlace() {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken {
		return 0
	}
	return p.gen
}

// inPlace reports whether the FIFO read is still the file at its path.
func (p *pipes) inPlace() bool {
	st, err := os.Lstat(p.path)
	return err == nil && os.SameFile(st, p.id)
}

// close stops reading the FIFO and lets go every writer: a cat that was still opening it
// (a pipe made just before) gets its open, then fails at its first write and exits, where it
// would otherwise wait for a reader for ever while tmux keeps that pane's output for it.
func (p *pipes) close() {
	p.f.Close()
	if f, err := os.OpenFile(p.path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0); err == nil {
		f.Close()
	}
}

// pipeCommand is the shell command of a pipe: cat appending to the FIFO at path if it is one,
// quoted for sh, with "#" doubled since tmux expands pipe-pane's command as a format.
func pipeCommand(path string) string {
	quoted := strings.ReplaceAll("'"+strings.ReplaceAll(path, "'", `'\''`)+"'", "#", "##")
	return "[ -p " + quoted + " ] && exec cat >>" + quoted
}

// PipeMark is what a pane's PipeMark reads when its pipe is this client's output pipe, ""
// when the client pipes nothing (no control connection, tmux 3.8's signal in its place, no
// FIFO given to Connect, or the FIFO gone from its path).
func (c *Client) PipeMark() string {
	if c.conn == nil {
		return ""
	}
	if p := c.conn.pipesNow(); p != nil && p.inPlace() {
		return p.path
	}
	return ""
}

// pipeBatch is how many panes one command line pipes: each pipe-pane forks the tmux server,
// which on a server of several hundred MB takes milliseconds each, while the user's own
// commands wait (64 took 1.1 s on a 595 MB server of 3.3a).
const pipeBatch = 8

// PipeOutput pipes the output of each pane into the client's FIFO (see pipes), on a pane that
// has no pipe only, and returns each pane as it is then: its ID, Pipe, PipeMark (the client's
// PipeMark when the pipe is its own) and PipePID. It does nothing when PipeMark is "". A pane
// gone ends its batch (pipeBatch): that batch's panes are not returned; a later call pipes
// the rest and reports the ones piped already.
func (c *Client) PipeOutput(ctx context.Context, panes []string) ([]Pane, error) {
	mark := c.PipeMark()
	if mark == "" {
		return nil, nil
	}
	c.conn.mu.Lock()
	c.conn.pipedAt = c.conn.Client.clock().Now()
	c.conn.mu.Unlock()
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
			open.WriteString(" ; set-option -p -F -t " + p + " " + pipeOption + " ")
			quoteArg(&open, "#{pane_pid}:"+strings.ReplaceAll(mark, "#", "##"))
			// if-shell -F runs what it chose right after itself, before the next command. A
			// pane that has exited is left: pipe-pane refuses it (3.3a and later).
			args = append(args, "if-shell", "-F", "-t", p, "#{||:#{pane_pipe},#{pane_dead}}", "", open.String(),
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
	pipeMarkField,
	rowEnd,
}

// pipeMarkField reads pipeOption into Pane.PipePID and PipeMark: "PID:PATH" as PipeOutput
// sets it; any other value is PipeMark as it is, PipePID 0.
var pipeMarkField = paneField{freeText(pipeOption), pipeOption, func(p *Pane, v string) error {
	p.PipePID, p.PipeMark = 0, v
	if pid, path, ok := strings.Cut(v, ":"); ok {
		if n, err := strconv.Atoi(pid); err == nil && n > 0 {
			p.PipePID, p.PipeMark = n, path
		}
	}
	return nil
}}

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

// pipesNow returns the output pipes' FIFO, nil when there is none (yet), or when the
// connection up now has tmux 3.8's signal (a server started again on the socket, newer).
func (n *transport) pipesNow() *pipes {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.act != nil {
		return nil
	}
	return n.pipes
}

// pipeGrace is how long the FIFO is still read after the last pipe made, when the client
// closes: the shell of a pipe opens the FIFO a moment after pipe-pane returns.
const pipeGrace = time.Second

// closePipes closes the output pipes' FIFO, pipeGrace after the last pipe made at the
// latest, and unsets signalOption over k if it still names the FIFO. Called by Close with
// n.mu held; k may be nil.
func (n *transport) closePipes(k *controlClient) {
	if n.pipes == nil {
		return
	}
	clk := n.Client.clock()
	if d := pipeGrace - clk.Now().Sub(n.pipedAt); !n.pipedAt.IsZero() && d > 0 && d <= pipeGrace {
		_ = clk.Sleep(context.Background(), d)
	}
	n.pipes.close()
	if k == nil || k.unanswered.Load() {
		return
	}
	ctx, cancel := withTimeout(context.Background(), clk, n.Client.timeout())
	defer cancel()
	// Compared here, not in a format: the path may hold anything a format would read.
	out, err := k.Run(ctx, "display-message", "-p", freeText(signalOption))
	if err != nil {
		return
	}
	if f, err := splitFields(out, 1, "display-message"); err == nil && f[0] == n.pipes.path {
		_, _ = k.Run(ctx, "set-option", "-gu", signalOption)
	}
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
	if err := ownFIFO(path, false); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return fmt.Errorf("tmuxctl: %s is not a FIFO", path)
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
