package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"
)

// Switch is one move of a Claude Code session to another account (`cac-tmux switch`).
type Switch struct {
	Session string    `json:"session"` // Claude Code's session id
	From    string    `json:"from"`    // the config directory it left
	To      string    `json:"to"`      // the config directory it went to
	At      time.Time `json:"at"`
}

// Switches is the record of the switches made on this host, for all tmux servers: a
// session is one Claude Code conversation wherever it runs. One JSON file,
// switches.json in the state directory, replaced atomically; a switch older than Keep is
// dropped at the next write. The per-day bound of `switch` is counted from it, and the
// accounts' headroom leaves out the rows a switch copied in.
type Switches struct {
	path string
}

// keep is how long a switch is remembered: longer than the bound's day, as long as the
// headroom of an account looks back (accounts.Recent).
const keep = 7 * 24 * time.Hour

// OpenSwitches finds the record of switches in the state directory (StateDir).
func OpenSwitches(getenv func(string) string) (*Switches, error) {
	dir, err := StateDir(getenv)
	if err != nil {
		return nil, err
	}
	return &Switches{path: filepath.Join(dir, "switches.json")}, nil
}

// LockSwitches takes the lock of switching, without waiting: one `cac-tmux switch` at a time
// per user, so that the bound is counted and the record written by one of them at a time.
// Another switch holding it gives *LockedError.
func LockSwitches(getenv func(string) string) (*Lock, error) {
	dir, err := LockDir(getenv)
	if err != nil {
		return nil, err
	}
	return acquire(dir, "switches")
}

// Load reads the switches, oldest first; none when the file does not exist yet.
func (s *Switches) Load() ([]Switch, error) {
	b, err := readPrivate(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", s.path, err)
	}
	var all []Switch
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, fmt.Errorf("store: read %s: %w (remove it to start afresh)", s.path, err)
	}
	return all, nil
}

// Add records sw, dropping the switches older than Keep at now. Call it holding
// LockSwitches.
func (s *Switches) Add(sw Switch, now time.Time) error {
	all, err := s.Load()
	if err != nil {
		return err
	}
	kept := []Switch{}
	for _, x := range all {
		if now.Sub(x.At) < keep {
			kept = append(kept, x)
		}
	}
	b, err := json.MarshalIndent(append(kept, sw), "", "  ")
	if err != nil {
		return fmt.Errorf("store: write %s: %w", s.path, err)
	}
	return writeAtomic(s.path, append(b, '\n'))
}

// Count is how many times session was switched within d before now (a switch stamped after
// now, by a clock set back since, counts too).
func Count(all []Switch, session string, now time.Time, d time.Duration) int {
	n := 0
	for _, x := range all {
		if x.Session == session && now.Sub(x.At) < d {
			n++
		}
	}
	return n
}

// Into is when each session was last switched into the config directory dir (same reports
// whether two directories are one): the rows of its transcript there written before that
// instant came from another account.
func Into(all []Switch, dir string, same func(a, b string) bool) map[string]time.Time {
	m := map[string]time.Time{}
	for _, x := range all {
		if same(x.To, dir) && x.At.After(m[x.Session]) {
			m[x.Session] = x.At
		}
	}
	return m
}
