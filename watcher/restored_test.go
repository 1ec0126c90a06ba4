package watcher

import (
	"slices"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/store"
)

// TestStoppedPanes: of a state file's records, the stops a watcher tells as stopped (what
// [accounts] auto switches) are listed, earliest first; a hold, a failure, a skip (the user's)
// and a state of another version are not.
func TestStoppedPanes(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	recs := map[string]store.Pane{
		"%1": {State: string(Waiting), Stopped: at.Add(2 * time.Second)},
		"%2": {State: string(Limited), Stopped: at},
		"%3": {State: string(Held), Stopped: at},
		"%4": {State: string(Failed), Stopped: at},
		"%5": {State: string(Skipped), Stopped: at},
		"%6": {State: string(Native), Stopped: at.Add(time.Second)},
		"%7": {State: "sleeping", Stopped: at},
		"%8": {State: string(Verifying), Stopped: at.Add(2 * time.Second)},
		"%9": {State: string(Unwaitable), Stopped: at.Add(3 * time.Second)},
	}
	want := []string{"%2", "%6", "%1", "%8", "%9"}
	if got := StoppedPanes(recs); !slices.Equal(got, want) {
		t.Errorf("StoppedPanes = %q, want %q", got, want)
	}
	if got := StoppedPanes(nil); len(got) != 0 {
		t.Errorf("StoppedPanes(nil) = %q, want none", got)
	}
}

// TestStoppedOf: the stops of the state file of a server, read without its lock; a server
// without a state file has none.
func TestStoppedOf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := map[string]string{"XDG_STATE_HOME": dir + "/state", "XDG_RUNTIME_DIR": dir + "/run"}
	getenv := func(k string) string { return env[k] }
	const socket = "/tmp/tmux-1000/work"
	if got, err := StoppedOf(getenv, socket); err != nil || len(got) != 0 {
		t.Errorf("StoppedOf without a state file = %q, %v; want none", got, err)
	}
	st, lock, err := store.Open(getenv, socket, false)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	at := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	if err := st.Save(map[string]store.Pane{"%1": {State: string(Held), Stopped: at}, "%2": {State: string(Waiting), Stopped: at}}); err != nil {
		t.Fatal(err)
	}
	if got, err := StoppedOf(getenv, socket); err != nil || !slices.Equal(got, []string{"%2"}) {
		t.Errorf("StoppedOf = %q, %v; want [%%2]", got, err)
	}
}
