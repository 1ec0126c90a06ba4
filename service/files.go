package service

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cac-tmux/cac-tmux/store"
)

// Path is where the service file of p goes: $XDG_CONFIG_HOME/systemd/user/cac-tmux.service
// (else ~/.config/systemd/user/..., as systemd reads it), or
// ~/Library/LaunchAgents/com.github.cac-tmux.plist. An XDG_CONFIG_HOME that is not absolute
// is ignored, as the XDG spec says.
func Path(p Platform, getenv func(string) string) (string, error) {
	home := getenv("HOME")
	if p == Systemd {
		if dir := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
			return filepath.Join(dir, "systemd", "user", Unit), nil
		}
	}
	if !filepath.IsAbs(home) {
		return "", errors.New("service: HOME is not an absolute path; set it")
	}
	if p == Launchd {
		return filepath.Join(home, "Library", "LaunchAgents", Label+".plist"), nil
	}
	return filepath.Join(home, ".config", "systemd", "user", Unit), nil
}

// LogPath is where the launchd agent writes the watcher's output: ~/Library/Logs/cac-tmux.log.
func LogPath(getenv func(string) string) (string, error) {
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", errors.New("service: HOME is not an absolute path; set it")
	}
	return filepath.Join(home, "Library", "Logs", "cac-tmux.log"), nil
}

// passedOn are the variables of the installer's environment the service gets when they are
// set: where tmux puts its sockets (the default server is $TMUX_TMPDIR/tmux-UID/default, else
// /tmp/...), and where cac-tmux reads its configuration and keeps its state. A service
// manager starts the watcher without the login shell's environment, so without them it
// would watch another server and read another file.
var passedOn = []string{"TMUX_TMPDIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"}

// Environment is the service's environment: PATH, with the directory of the tmux found on
// the installer's PATH first, then the system's directories (a service manager's own PATH
// may miss Homebrew's or ~/.local/bin, and tmuxctl runs "tmux" from PATH), and the passedOn
// variables that are set.
func Environment(p Platform, getenv func(string) string, lookPath func(string) (string, error)) []string {
	dirs := []string{"/usr/local/bin", "/usr/bin", "/bin"}
	if p == Launchd {
		dirs = append([]string{"/opt/homebrew/bin"}, dirs...)
	}
	if tmux, err := lookPath("tmux"); err == nil && filepath.IsAbs(tmux) {
		dirs = append([]string{filepath.Dir(tmux)}, dirs...)
	}
	var path []string
	for _, d := range dirs {
		if !slices.Contains(path, d) {
			path = append(path, d)
		}
	}
	env := []string{"PATH=" + strings.Join(path, ":")}
	for _, k := range passedOn {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// ForeignError is a file at the service's path that cac-tmux did not write.
type ForeignError struct {
	Path string
	Op   string // "install" or "uninstall"
}

func (e *ForeignError) Error() string {
	if e.Op == "uninstall" {
		return fmt.Sprintf("service: %s was not written by cac-tmux (no %q line); it is left alone: remove it yourself if you mean to", e.Path, Marker)
	}
	return fmt.Sprintf("service: %s exists and was not written by cac-tmux (no %q line); it is left alone: move it away or remove it, then run cac-tmux service install again", e.Path, Marker)
}

// ErrNotInstalled is Uninstall finding no file.
var ErrNotInstalled = errors.New("service: not installed")

// State is what is at the service's path.
type State struct {
	Exists bool
	// Ours is true when the file carries the marker.
	Ours bool
	// Current is true when the file is exactly what would be written now.
	Current bool
	// Content is the file as it is.
	Content []byte
}

// Inspect reads path and compares it with want.
func Inspect(path string, want []byte) (State, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("service: read %s: %w", path, unwrapPath(err))
	}
	return State{Exists: true, Ours: Ours(b), Current: bytes.Equal(b, want), Content: b}, nil
}

// Result is what Install did.
type Result int

// The results of Install.
const (
	Created   Result = iota // there was no file
	Updated                 // a file of ours was replaced
	Unchanged               // the file was already what would be written
)

// Install writes content at path (mode 0644, missing directories 0755), through a temporary
// file renamed over it, so a crash leaves the old file or the new one. It refuses a file it
// did not write (*ForeignError) and leaves one that is already content as it is.
func Install(path string, content []byte) (Result, error) {
	st, err := Inspect(path, content)
	switch {
	case err != nil:
		return 0, err
	case st.Exists && !st.Ours:
		return 0, &ForeignError{Path: path, Op: "install"}
	case st.Current:
		return Unchanged, nil
	}
	if err := write(path, content); err != nil {
		return 0, err
	}
	if st.Exists {
		return Updated, nil
	}
	return Created, nil
}

// write puts content at path, mode 0644, through a temporary file in the same directory
// (store.Replace, the one atomic write).
func write(path string, content []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("service: create %s: %w", dir, unwrapPath(err))
	}
	if err := store.Replace(path, content, 0o644); err != nil {
		return fmt.Errorf("service: write %s: %w", path, unwrapPath(errors.Unwrap(err)))
	}
	return nil
}

// Uninstall removes the service file at path when cac-tmux wrote it. It refuses a file it
// did not write (*ForeignError) and, for systemd, a unit still enabled (its link in
// default.target.wants would be left dangling); no file is ErrNotInstalled.
func Uninstall(p Platform, path string) error {
	st, err := Inspect(path, nil)
	switch {
	case err != nil:
		return err
	case !st.Exists:
		return ErrNotInstalled
	case !st.Ours:
		return &ForeignError{Path: path, Op: "uninstall"}
	}
	if p == Systemd {
		link := filepath.Join(filepath.Dir(path), "default.target.wants", Unit)
		if _, err := os.Lstat(link); err == nil {
			return fmt.Errorf("service: %s is enabled (%s); run systemctl --user disable --now %s first, then cac-tmux service uninstall", Unit, link, Unit)
		}
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("service: remove %s: %w", path, unwrapPath(err))
	}
	return nil
}

// EnableCommand is the shell command that starts the installed service now and at every
// login.
func EnableCommand(p Platform, path string) string {
	if p == Launchd {
		return "launchctl bootstrap gui/$(id -u) " + shellQuote(path)
	}
	return "systemctl --user daemon-reload && systemctl --user enable --now " + Unit
}

// DisableCommand is the shell command that stops the service and forgets it: for systemd
// before Uninstall (which refuses an enabled unit), for launchd after it as well as before
// (launchd knows a loaded agent by its label).
func DisableCommand(p Platform) string {
	if p == Launchd {
		return "launchctl bootout gui/$(id -u)/" + Label
	}
	return "systemctl --user disable --now " + Unit
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// unwrapPath drops an *fs.PathError's path, which the message names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
