// Command hookrecorder is a notification hook for the tests of package notify:
// `hookrecorder OUT MODE [ARG...]` appends to OUT one JSON line with its argv, CAC_* variables,
// pid, process group and whether stdin is /dev/null, then does as MODE says: "ok" (exit 0),
// "exit=N", "hang" (never exit) or "hang-child" (start "hookrecorder OUT hang" in its process
// group, then never exit). Installed as notify-send or osascript it records the same way,
// takes their first argument as MODE, and exits 0.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// entry is one line of OUT.
type entry struct {
	Name        string            `json:"name"` // base name it was run as
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	PID         int               `json:"pid"`
	PGID        int               `json:"pgid"`
	StdinDevNul bool              `json:"stdin_devnull"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hookrecorder:", err)
		os.Exit(3)
	}
}

func run() error {
	name := filepath.Base(os.Args[0])
	args := os.Args[1:]
	out := os.Getenv("HOOKRECORDER_OUT") // as notify-send or osascript, whose argv is not ours
	mode := "ok"
	if name == "hookrecorder" {
		if len(args) < 2 {
			return fmt.Errorf("usage: hookrecorder OUT MODE [ARG...]")
		}
		out, mode = args[0], args[1]
	}
	if err := record(out, name, args); err != nil {
		return err
	}
	switch {
	case mode == "ok":
		return nil
	case strings.HasPrefix(mode, "exit="):
		code, err := strconv.Atoi(strings.TrimPrefix(mode, "exit="))
		if err != nil {
			return err
		}
		os.Exit(code)
	case mode == "hang-child":
		if err := exec.Command(os.Args[0], out, "hang").Start(); err != nil {
			return err
		}
		fallthrough
	case mode == "hang":
		for {
			time.Sleep(time.Hour)
		}
	}
	return fmt.Errorf("unknown mode %q", mode)
}

func record(out, name string, args []string) error {
	r := entry{Name: name, Args: args, Env: map[string]string{}, PID: os.Getpid()}
	r.PGID, _ = syscall.Getpgid(0)
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CAC_") {
			r.Env[k] = v
		}
	}
	in, err1 := os.Stdin.Stat()
	null, err2 := os.Stat(os.DevNull)
	r.StdinDevNul = err1 == nil && err2 == nil && os.SameFile(in, null)
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
