package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Pane is one pane of `cac-tmux list --json`: the one definition of that output, for the
// command to encode and List to decode from another host, so that both sides agree on every
// name.
// Fields may be added (a decoder ignores those it does not know, so an older cac-tmux reads a
// newer one's output); a field is never renamed or given another meaning.
type Pane struct {
	// Pane is the pane's tmux id on its server (%12): what resume and skip take as PANE.
	Pane string `json:"pane"`
	// Target is session:window.pane, the pane's place as a person finds it.
	Target string `json:"target"`
	// Agent is the agent that runs in the pane: "claude" (Claude Code) or "codex" (Codex
	// CLI). An older cac-tmux omits it: its panes are Claude Code's.
	Agent string `json:"agent"`
	// State is the state a watcher published; with no watcher running, the last one published
	// (nobody keeps it current), or "stopped": a stop list itself saw on a pane nothing was
	// published for.
	State string  `json:"state"`
	Reset *string `json:"reset"` // RFC3339 in the printed zone's offset, null when unknown
	Due   *string `json:"due"`   // when the watcher acts, null when it will not
	// Zone is the IANA zone the reset was printed in, omitted when unknown.
	Zone string `json:"zone,omitempty"`
	// ResetSource is "transcript" (Claude Code's record, to the second) or "screen" (the
	// printed time); omitted when the reset is unknown.
	ResetSource string `json:"reset_source,omitempty"`
	// Kind is the kind of limit the pane is stopped at, as the detector names it (session,
	// weekly, …); "" when it is not stopped at one.
	Kind    string `json:"kind"`
	Account string `json:"account,omitempty"` // the claude process's config directory
	// Note is what the watcher says about the pane beyond its state (why it is held, …).
	Note string `json:"note,omitempty"`
	// WatcherRunning says whether a watcher runs on the server: false, nothing resumes the
	// pane, and its state and due instant are what the last watcher published.
	WatcherRunning bool `json:"watcher_running"`
	// Server names the pane's tmux server ("work", a socket path) in a listing of several
	// servers; omitted when the listing covers one.
	Server string `json:"server,omitempty"`
	// Host is the host the pane is on in a listing of several hosts (list --host), as ssh
	// was given it; omitted for this host's panes.
	Host string `json:"host,omitempty"`
}

// Decode reads the output of `cac-tmux list --json` from host: strict about what a caller
// relies on (a JSON array whose every row has a pane, a target and a state; anything else is
// an ErrBadOutput error naming host), tolerant of fields it does not know, which a newer
// cac-tmux on the other side may add.
func Decode(host string, data []byte) ([]Pane, error) {
	bad := func(format string, a ...any) error {
		return &Error{Op: "list", Host: host, Kind: ErrBadOutput, Detail: fmt.Sprintf(format, a...)}
	}
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return nil, bad("no output")
	case trimmed[0] != '[':
		return nil, bad("not a JSON array (it starts %s; does the remote shell's startup print anything?)", excerpt(trimmed))
	}
	var rows []json.RawMessage
	if err := json.Unmarshal(trimmed, &rows); err != nil {
		return nil, bad("%v", err)
	}
	panes := make([]Pane, 0, len(rows))
	for i, raw := range rows {
		var p Pane
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, bad("row %d: %v", i+1, err)
		}
		for _, f := range []struct{ name, value string }{{"pane", p.Pane}, {"target", p.Target}, {"state", p.State}} {
			if f.value == "" {
				return nil, bad("row %d has no %q", i+1, f.name)
			}
		}
		panes = append(panes, p)
	}
	return panes, nil
}

// excerpt is the start of an output, quoted, for an error: enough to recognise a banner.
func excerpt(b []byte) string {
	const max = 40
	if len(b) <= max {
		return strconv.Quote(string(b))
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strconv.Quote(string(b[:cut])) + "…"
}
