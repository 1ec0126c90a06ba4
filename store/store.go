// Package store keeps what a watcher must not forget across restarts (docs/how-it-works.md):
// per tmux server, one JSON file with a record per stopped session (the stop as seen, when it
// appeared, the reset and its source, the due instant, the attempts, the claude process), and
// the lock that lets one watcher run per server. The file, in $XDG_STATE_HOME/cac-tmux/ (else
// ~/.local/state/cac-tmux/), mode 0600, is replaced atomically (Replace: written and synced,
// renamed, the directory synced), so a crash leaves the old file or the new one; a file that
// cannot be read back is set aside with a warning. The lock is a flock(2) on a file named after
// the socket in $XDG_RUNTIME_DIR/cac-tmux/ (else the state directory); the kernel drops it
// even on kill -9, so a stale lock cannot keep a new watcher out.
package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/renameio/v2"
)

// version is the version of the state file's format. A file of another version is set aside.
const version = 1

// Pane is what is remembered of one stopped session, keyed by its pane id.
type Pane struct {
	// PID and Start identify the claude process (proc.Identity): a record applies to a
	// pane only while the same process runs in it, so a pane id reused by another program or
	// by a new tmux server never inherits a wait.
	PID   int    `json:"pid"`
	Start string `json:"start"`
	// Agent names the agent of the process (agent.Name); "" in a record written before there
	// was a second agent, which agent.Parse reads as claude.
	Agent string `json:"agent,omitzero"`

	State string `json:"state"`
	Note  string `json:"note,omitzero"`
	// Stop is the limit message as seen on screen.
	Stop string `json:"stop"`
	// Appeared is when the stop appeared (zero: it was already on screen when first seen);
	// Stopped is when a watcher first saw it.
	Appeared time.Time `json:"appeared,omitzero"`
	Stopped  time.Time `json:"stopped"`
	Kind     string    `json:"kind,omitzero"`
	// Reset is the reset instant (zero: none printed), ResetHow how it was derived and
	// ResetZone the zone Claude Code printed.
	Reset     time.Time `json:"reset,omitzero"`
	ResetHow  string    `json:"reset_how,omitzero"`
	ResetZone string    `json:"reset_zone,omitzero"`
	// ResetSource is "transcript" when Reset came from Claude Code's transcript, to the second.
	ResetSource string    `json:"reset_source,omitzero"`
	Due         time.Time `json:"due,omitzero"`
	RetryAt     time.Time `json:"retry_at,omitzero"`
	// Attempts counts the resumes sent for this stop; Sent is when the last one went out
	// (recorded before its keys). Typed is true when the message was typed, PressEnter when
	// Claude Code asked for a bare Enter.
	Attempts   int       `json:"attempts,omitzero"`
	Sent       time.Time `json:"sent,omitzero"`
	Typed      bool      `json:"typed,omitzero"`
	PressEnter bool      `json:"press_enter,omitzero"`
	// Above is a digest of the screen down to the stop when the keys went out (never the
	// text itself), to tell a new stop below it from the old one.
	Above string `json:"above,omitzero"`
	// Sticky keeps a hold until the stop changes.
	Sticky bool `json:"sticky,omitzero"`
	// Person is true when a person typed at the pane during this stop (a draft was seen): it
	// is held until resumed by hand, even with its box cleared.
	Person bool `json:"person,omitzero"`
}

// file is the state file's content.
type file struct {
	Version int             `json:"version"`
	Server  string          `json:"server"`
	Panes   map[string]Pane `json:"panes"`
}

// Store reads and writes the state file of one tmux server.
type Store struct {
	// Path is the state file.
	Path string
	// Server is the socket path of the server the file belongs to.
	Server string
	// ReadOnly makes Save do nothing (a dry run may read the state, never write it).
	ReadOnly bool
	// now names set-aside files; nil means time.Now.
	now func() time.Time

	last []byte // the content last read or written
}

// New returns the store of the server whose socket is server, in directory dir.
func New(dir, server string) *Store {
	return &Store{Path: filepath.Join(dir, key(server)+".json"), Server: server}
}

// Pipe is the path of the FIFO the watcher of the server pipes its Claude panes' output into
// (tmuxctl.Client.PipeInto), beside the state file: the same for the next watcher.
func (s *Store) Pipe() string { return strings.TrimSuffix(s.Path, ".json") + ".pipe" }

// key names a server's files: the socket's base name (for people) and a digest of its whole
// path (so /tmp/tmux-1000/default and /tmp/x/default differ).
func key(server string) string {
	sum := sha256.Sum256([]byte(server))
	base := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, filepath.Base(server))
	if len(base) > 40 {
		base = base[:40]
	}
	return base + "-" + hex.EncodeToString(sum[:6])
}

// setAsideError says that the state file could not be used and was moved out of the way.
type setAsideError struct {
	Path, To string
	Err      error
}

func (e *setAsideError) Error() string {
	return fmt.Sprintf("store: state file %s set aside as %s, starting afresh: %v", e.Path, e.To, e.Err)
}

func (e *setAsideError) Unwrap() error { return e.Err }

// Load reads the records of the server's stopped sessions. A missing file gives none. A
// corrupt file, one of another version or of another server is renamed to Path.bad-TIME and
// Load returns no records and a *setAsideError, which the caller reports as a warning.
func (s *Store) Load() (map[string]Pane, error) {
	data, err := readPrivate(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Pane{}, nil
	}
	if err != nil {
		return map[string]Pane{}, fmt.Errorf("store: read %s: %w", s.Path, err)
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	switch err := dec.Decode(&f); {
	case err != nil:
		return map[string]Pane{}, s.setAside(fmt.Errorf("not a state file: %w", err))
	case f.Version != version:
		return map[string]Pane{}, s.setAside(fmt.Errorf("format version %d, this cac-tmux reads version %d", f.Version, version))
	case f.Server != s.Server:
		return map[string]Pane{}, s.setAside(fmt.Errorf("written for server %q, not %q", f.Server, s.Server))
	}
	if f.Panes == nil {
		f.Panes = map[string]Pane{}
	}
	s.last = data
	return f.Panes, nil
}

func (s *Store) setAside(why error) error {
	now := time.Now
	if s.now != nil {
		now = s.now
	}
	to := s.Path + ".bad-" + now().UTC().Format("20060102T150405Z")
	if s.ReadOnly {
		return &setAsideError{Path: s.Path, To: "(not moved: read-only)", Err: why}
	}
	if err := os.Rename(s.Path, to); err != nil {
		return fmt.Errorf("store: set aside %s: %w (it is unusable: %v)", s.Path, err, why)
	}
	return &setAsideError{Path: s.Path, To: to, Err: why}
}

// Save replaces the state file with panes, atomically; it writes nothing when the content is
// what was last read or written.
func (s *Store) Save(panes map[string]Pane) error {
	if s.ReadOnly {
		return nil
	}
	if panes == nil {
		panes = map[string]Pane{}
	}
	data, err := json.MarshalIndent(file{Version: version, Server: s.Server, Panes: panes}, "", "  ")
	if err != nil {
		return fmt.Errorf("store: encode %s: %w", s.Path, err)
	}
	data = append(data, '\n')
	if bytes.Equal(data, s.last) {
		return nil
	}
	if err := writeAtomic(s.Path, data); err != nil {
		return err
	}
	s.last = data
	return nil
}

// readPrivate reads a file of a private directory, never through a symlink (openPrivate).
func readPrivate(path string) ([]byte, error) {
	f, err := openPrivate(path, os.O_RDONLY, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// writeAtomic replaces path with data (renameio: a temporary file in the same directory,
// fsync, rename), then fsyncs the directory. The file is 0600: records name processes and
// limits, nobody else's business. The directory is created 0700 when missing, and must be
// this user's own (PrivateDir).
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := PrivateDir(dir); err != nil {
		return err
	}
	if err := Replace(path, data, 0o600); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		err = d.Sync()
		d.Close()
		if err != nil {
			return fmt.Errorf("store: sync %s: %w", dir, err)
		}
	}
	return nil
}

// Replace replaces the file at path with data, atomically: a temporary file in the same
// directory, written, synced and renamed over path (renameio), so that a reader or a crash
// sees the old file or the new one whole. The file has mode perm whatever mode the old one
// had (renameio.WriteFile would keep an old file's mode: a state file copied in at 0644 would
// stay readable by everyone).
func Replace(path string, data []byte, perm os.FileMode) error {
	t, err := renameio.NewPendingFile(path, renameio.WithTempDir(filepath.Dir(path)), renameio.WithStaticPermissions(perm))
	if err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	defer t.Cleanup()
	if _, err := t.Write(data); err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	if err := t.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	return nil
}

// StateDir is the directory of state files: $XDG_STATE_HOME/cac-tmux, else
// $HOME/.local/state/cac-tmux. An XDG_STATE_HOME that is not absolute is ignored (XDG Base
// Directory specification).
func StateDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "cac-tmux"), nil
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return "", errors.New("store: no state directory: set XDG_STATE_HOME or HOME to an absolute path")
	}
	return filepath.Join(home, ".local", "state", "cac-tmux"), nil
}

// LockDir is the directory of lock files: $XDG_RUNTIME_DIR/cac-tmux, else the state directory.
func LockDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "cac-tmux"), nil
	}
	return StateDir(getenv)
}
