package watcher

import (
	"cmp"
	"slices"

	"github.com/cac-tmux/cac-tmux/notify"
	"github.com/cac-tmux/cac-tmux/store"
)

// StoppedPanes lists the panes of recs (a state file's records, by pane id) whose sessions are
// stopped in a state the watcher tells as notify.Stopped when a session enters it, earliest
// stop first. A restarted watcher takes such a stop up without telling it again (restore), so
// what acts on that event ([accounts] auto) asks for these when it starts.
func StoppedPanes(recs map[string]store.Pane) []string {
	var out []string
	for id, r := range recs {
		if st, err := parseState(r.State); err == nil && eventOf(Running, st) == notify.Stopped {
			out = append(out, id)
		}
	}
	return slices.SortedFunc(slices.Values(out), func(a, b string) int {
		return cmp.Or(recs[a].Stopped.Compare(recs[b].Stopped), cmp.Compare(a, b))
	})
}

// StoppedOf is StoppedPanes of the state file of the server on socket, read without its lock
// (store.Open read-only): what a watcher's [accounts] auto queues when the watcher starts.
func StoppedOf(getenv func(string) string, socket string) ([]string, error) {
	st, _, err := store.Open(getenv, socket, true)
	if err != nil {
		return nil, err
	}
	recs, err := st.Load()
	return StoppedPanes(recs), err
}
