// Package simterm is the terminal side that the simulated agents (demo/simclaude,
// demo/simcodex) share: raw mode, the reads of the terminal with the instant each came, the
// log line of a read, and the instants of their command lines. It never draws.
package simterm

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/cac-tmux/cac-tmux/clock"
)

// Chunk is one read of the terminal and when it came.
type Chunk struct {
	At    time.Time
	Bytes []byte
}

// Terminal is the process's terminal in raw mode: its reads and the signals a simulator
// reacts to.
type Terminal struct {
	Input   chan Chunk     // every read of stdin; closed when the input ends
	Signals chan os.Signal // SIGWINCH, SIGTERM and SIGHUP
	restore func()
}

// Open puts stdin in raw mode and starts reading it and the signals; Close undoes it.
func Open() (*Terminal, error) {
	restore, err := raw(0)
	if err != nil {
		return nil, err
	}
	t := &Terminal{Input: make(chan Chunk), Signals: make(chan os.Signal, 4), restore: restore}
	go read(t.Input)
	signal.Notify(t.Signals, syscall.SIGWINCH, syscall.SIGTERM, syscall.SIGHUP)
	return t, nil
}

// Close stops the signals and restores the terminal's mode.
func (t *Terminal) Close() {
	signal.Stop(t.Signals)
	t.restore()
}

// Size is the size of the terminal on stdout; width and height when it is none.
func Size(width, height int) (int, int) {
	if w, h, err := term.GetSize(1); err == nil && w > 0 && h > 0 {
		return w, h
	}
	return width, height
}

// read sends every read of stdin to the channel, and closes it when the input ends.
func read(input chan<- Chunk) {
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			input <- Chunk{clock.Real.Now(), append([]byte(nil), buf[:n]...)}
		}
		if err != nil {
			close(input)
			return
		}
	}
}

// Logged writes the log line of a read: an RFC3339Nano timestamp, a tab and the bytes quoted
// with strconv.Quote (simclaude.ParseLine reads it back).
func Logged(w io.Writer, c Chunk) {
	fmt.Fprintf(w, "%s\t%s\n", c.At.Format(time.RFC3339Nano), strconv.Quote(string(c.Bytes)))
}

// raw puts the terminal on fd in raw mode like cfmakeraw(3) (golang.org/x/term): no echo, no
// line editing, no signals from keys, no output processing, a byte at a time. It returns the
// function that restores the old mode (a no-op when fd is no terminal).
func raw(fd int) (func(), error) {
	if !term.IsTerminal(fd) {
		return func() {}, nil
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return nil, fmt.Errorf("simterm: raw mode: %w", err)
	}
	return func() { term.Restore(fd, old) }, nil
}

// Instant parses the RFC3339 value of a command-line flag, def when it is empty.
func Instant(flag, s string, def time.Time) (time.Time, error) {
	if s == "" {
		return def, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", flag, err)
	}
	return t, nil
}
