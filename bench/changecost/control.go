//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// control is a control-mode client of the server, `tmux -C attach-session -f
// no-output,ignore-size`, as cac-tmux watch keeps one. Its stdout is read all the time.
type control struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr bytes.Buffer
	blocks chan block  // replies, in order
	pushes chan string // %subscription-changed lines (dropped when nobody reads)
	nPush  atomic.Int64
	done   chan struct{} // closed when stdout ends
}

// block is the reply to one command: the lines between %begin and %end or %error.
type block struct {
	rows []string
	err  bool
}

// attach starts a control client of s and waits for the reply to its attach-session.
func attach(s *server) (*control, error) {
	c := &control{blocks: make(chan block, 16), pushes: make(chan string, 16), done: make(chan struct{})}
	c.cmd = exec.Command(s.tmux, "-S", s.sock, "-C", "attach-session", "-t", "b", "-f", "no-output,ignore-size")
	c.cmd.Env = env()
	c.cmd.Stderr = &c.stderr
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	go c.read(out)
	b, err := c.reply(5 * time.Second)
	if err == nil && b.err {
		err = fmt.Errorf("attach-session: %s", strings.Join(b.rows, " "))
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// read parses the client's output until it ends.
func (c *control) read(out io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var cur *block
	for sc.Scan() {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "%begin "):
			cur = &block{}
		case cur != nil && (strings.HasPrefix(line, "%end ") || strings.HasPrefix(line, "%error ")):
			cur.err = strings.HasPrefix(line, "%error ")
			c.blocks <- *cur
			cur = nil
		case cur != nil:
			cur.rows = append(cur.rows, line)
		case strings.HasPrefix(line, "%subscription-changed "):
			c.nPush.Add(1)
			select {
			case c.pushes <- line:
			default:
			}
		}
	}
}

// send writes one command line.
func (c *control) send(line string) error {
	_, err := io.WriteString(c.in, line+"\n")
	return err
}

// reply waits for the next reply block.
func (c *control) reply(timeout time.Duration) (block, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case b := <-c.blocks:
		return b, nil
	case <-c.done:
		return block{}, fmt.Errorf("control client ended: %s", strings.TrimSpace(c.stderr.String()))
	case <-t.C:
		return block{}, errors.New("no reply from the control client")
	}
}

// request sends a command line and waits for its reply.
func (c *control) request(line string) (block, error) {
	if err := c.send(line); err != nil {
		return block{}, err
	}
	b, err := c.reply(10 * time.Second)
	if err == nil && b.err {
		err = fmt.Errorf("%s: %s", line, strings.Join(b.rows, " "))
	}
	return b, err
}

// pid is the client process's.
func (c *control) pid() int { return c.cmd.Process.Pid }

// close ends the client: EOF on its stdin detaches it; it is killed if still there after 3s.
func (c *control) close() {
	_ = c.in.Close()
	exited := make(chan struct{})
	go func() {
		// Keep reading replies so that the reader never blocks on a full channel.
		for {
			select {
			case <-c.blocks:
			case <-exited:
				return
			}
		}
	}()
	select {
	case <-c.done:
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	_ = c.cmd.Wait()
	close(exited)
}
