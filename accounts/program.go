package accounts

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cac-tmux/cac-tmux/proc"
)

// errNoProgram says that the command that started a Claude Code process cannot be told.
var errNoProgram = errors.New("cannot tell how to start this Claude Code again")

// procDir is /proc; a test points it elsewhere.
var procDir = "/proc"

// program is the command that starts the Claude Code of process pid again, read from /proc,
// without its arguments, which may hold a first prompt (submitted again), another session to
// resume (-c, --resume) or -p; the caller adds --resume ID. It is the native build's executable
// (~/.local/share/claude/versions/2.1.332, the version that ran the session); for the npm
// build, the runtime and the script it runs while its arguments name it (node …/cli.js);
// otherwise "claude" in the process's own PATH, as the user's shell found it (the npm build
// retitles itself "claude", which on Linux rewrites its arguments; an updated executable reads
// " (deleted)"). Without /proc (macOS, the BSDs) it is errNoProgram.
func program(pid int) ([]string, error) {
	base := filepath.Join(procDir, strconv.Itoa(pid))
	exe, err := os.Readlink(filepath.Join(base, "exe"))
	if err != nil {
		return nil, fmt.Errorf("accounts: program of pid %d: %w: %w", pid, errNoProgram, err)
	}
	if !strings.HasSuffix(exe, " (deleted)") {
		if !proc.IsRuntime(filepath.Base(exe)) {
			return []string{exe}, nil
		}
		if script := scriptOf(base); script != "" {
			return []string{exe, script}, nil
		}
	}
	if p := onPath(base); p != "" {
		return []string{p}, nil
	}
	return nil, fmt.Errorf("accounts: program of pid %d (%s): %w: no claude on its PATH", pid, exe, errNoProgram)
}

// scriptOf is the script a runtime process runs: its first argument after the runtime's
// options, when it is a file (relative to the process's working directory); "" otherwise.
func scriptOf(base string) string {
	b, err := os.ReadFile(filepath.Join(base, "cmdline"))
	if err != nil {
		return ""
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			continue // a runtime's option (--no-warnings, …)
		}
		if !filepath.IsAbs(a) {
			cwd, err := os.Readlink(filepath.Join(base, "cwd"))
			if err != nil {
				return ""
			}
			a = filepath.Join(cwd, a)
		}
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			return a
		}
		return ""
	}
	return ""
}

// onPath is the executable "claude" on the PATH of the process's environment, "" when none.
func onPath(base string) string {
	b, err := os.ReadFile(filepath.Join(base, "environ"))
	if err != nil {
		return ""
	}
	for v := range bytes.SplitSeq(b, []byte{0}) {
		path, ok := bytes.CutPrefix(v, []byte("PATH="))
		if !ok {
			continue
		}
		for dir := range strings.SplitSeq(string(path), ":") {
			p := filepath.Join(dir, "claude")
			if fi, err := os.Stat(p); filepath.IsAbs(dir) && err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return p
			}
		}
	}
	return ""
}
