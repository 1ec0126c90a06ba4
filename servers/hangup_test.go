//go:build linux

package servers

import (
	"os"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A terminal hangs up when the side that holds its pty goes away; a file that was never a
// terminal (/dev/null) never does.
func TestHungUp(t *testing.T) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	defer master.Close()
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	hungUp, never := HungUp(null, tty), HungUp(null)
	if hungUp() || never() {
		t.Fatal("a terminal whose pty is held has hung up")
	}
	master.Close()
	if !hungUp() {
		t.Error("the terminal has not hung up after its pty's holder closed it")
	}
	if never() {
		t.Error("/dev/null hung up")
	}
}
