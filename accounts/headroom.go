package accounts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/records"
)

// Headroom is what an account's own records say of its usage limit.
type Headroom struct {
	Account
	// Until is when the account's latest usage limit lifts (the latest resetsAt of a
	// usage-limit row not followed by a reply); zero when none was seen.
	Until time.Time
	// Last is when the account last hit a usage limit (the instant of its latest usage-limit
	// row); zero when none was seen. Of two free accounts, the one limited longer ago is
	// likelier to have room left.
	Last time.Time
}

// Limited reports whether the account is limited at now.
func (h Headroom) Limited(now time.Time) bool { return h.Until.After(now) }

// The bounds of Look: transcripts modified within Recent, at most maxFiles of them (the
// newest), and of each only its end (records.ReadTail).
const (
	Recent   = 7 * 24 * time.Hour
	maxFiles = 64
)

// Look reads the headroom of account a at now from its transcripts
// (<dir>/projects/*/*.jsonl) modified within Recent: the account is limited until the latest
// resetsAt of a usage-limit row, unless a prompt sent after that row got a reply in the
// account (the limit was lifted early, or was one model's own). Rows of a session switched
// into the account at copied[sessionId] and written before that instant are not the
// account's (copySession brought them from another account) and are left out. An account
// with no transcripts is free.
func Look(a Account, now time.Time, copied map[string]time.Time) (Headroom, error) {
	files, err := recent(a.Dir, now)
	if err != nil {
		return Headroom{}, err
	}
	h := Headroom{Account: a}
	var limits []records.Row
	var lastTurn time.Time // the latest prompt (or tool result) that got a reply
	for _, f := range files {
		session := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		rows, err := records.ReadTail(f, session)
		if errors.Is(err, records.ErrNoRecord) {
			continue // removed since it was listed
		}
		if err != nil {
			return Headroom{}, fmt.Errorf("accounts: headroom of %s: %w", a.Dir, err)
		}
		var asked time.Time
		for _, r := range rows {
			switch {
			case r.At.Before(copied[session]):
			case r.Kind == records.RowLimit:
				limits, asked = append(limits, r), time.Time{}
			case r.Kind == records.RowUser:
				asked = r.At
			case r.Kind == records.RowAssistant && asked.After(lastTurn):
				lastTurn = asked
			}
		}
	}
	for _, r := range limits {
		if r.At.After(h.Last) {
			h.Last = r.At
		}
		if !lastTurn.After(r.At) && r.ResetsAt.After(h.Until) {
			h.Until = r.ResetsAt
		}
	}
	return h, nil
}

// recent lists the account's transcripts modified within Recent of now, newest first, at
// most maxFiles. An account without a projects directory has none.
func recent(dir string, now time.Time) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "projects", "*", "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("accounts: transcripts of %s: %w", dir, err)
	}
	type file struct {
		path string
		mod  time.Time
	}
	var files []file
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.ModTime().Before(now.Add(-Recent)) {
			continue // gone since the glob, or not a transcript, or old
		}
		files = append(files, file{p, fi.ModTime()})
	}
	slices.SortFunc(files, func(a, b file) int { return b.mod.Compare(a.mod) })
	out := make([]string, 0, min(len(files), maxFiles))
	for _, f := range files[:min(len(files), maxFiles)] {
		out = append(out, f.path)
	}
	return out, nil
}

// pick chooses among the accounts hs the one to switch to at now: a free one, the one whose
// last limit is oldest (never limited first); of equals, the first. ok is false when all are
// limited.
func pick(hs []Headroom, now time.Time) (best Headroom, ok bool) {
	for _, h := range hs {
		if h.Limited(now) {
			continue
		}
		if !ok || h.Last.Before(best.Last) {
			best, ok = h, true
		}
	}
	return best, ok
}
