package servers

import (
	"slices"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Each server's ticks come at a phase of the interval of their own, the same each time the
// server is supervised, within the interval.
func TestPhase(t *testing.T) {
	const interval = 2 * time.Second
	seen := map[time.Duration]bool{}
	for _, socket := range []string{"/tmp/tmux-1/default", "/tmp/tmux-1/work", "/tmp/tmux-1/a", "/tmp/tmux-1/b"} {
		p := Phase(socket, interval)
		if p < 0 || p >= interval {
			t.Errorf("Phase(%s) = %v, not within [0, %v)", socket, p, interval)
		}
		if again := Phase(socket, interval); again != p {
			t.Errorf("Phase(%s) = %v, then %v", socket, p, again)
		}
		seen[p] = true
	}
	if len(seen) < 2 {
		t.Errorf("four servers share one phase: %v", seen)
	}
	if p := Phase("/s", 0); p < 0 || p >= time.Millisecond {
		t.Errorf("Phase with no interval = %v, want under a millisecond", p)
	}
}

// The rows of every member reach OnRows, each named by its server when more than one has
// panes; a member that left is no longer shown nor reachable (Client).
func TestFleetRowsAndClients(t *testing.T) {
	var shown []watcher.Row
	f := &Fleet{OnRows: func(rows []watcher.Row) { shown = rows }}
	work := &tmuxctl.Client{SocketPath: "/s/work"}
	f.join(&Member{Socket: "/s/work", Label: "work", Tmux: work})
	f.join(&Member{Socket: "/s/default", Label: "default", Tmux: &tmuxctl.Client{SocketPath: "/s/default"}})
	f.tick("/s/work", []watcher.Row{{Pane: "%1"}})
	f.tick("/s/default", []watcher.Row{{Pane: "%2"}})
	var got []string
	for _, r := range shown {
		got = append(got, r.Server+" "+r.Pane)
	}
	if want := []string{"default %2", "work %1"}; !slices.Equal(got, want) {
		t.Errorf("rows shown = %q, want %q", got, want)
	}
	if c, ok := f.Client("/s/work"); !ok || c != work {
		t.Errorf("Client(/s/work) = %v, %v; want the member's client", c, ok)
	}
	f.leave("/s/work")
	if _, ok := f.Client("/s/work"); ok {
		t.Error("Client finds a server whose member left")
	}
	f.tick("/s/default", []watcher.Row{{Pane: "%2"}})
	if len(shown) != 1 || shown[0].Server != "" {
		t.Errorf("rows shown after a member left = %+v, want the one server's, unnamed", shown)
	}
}

// The reload policy: the log level, [servers], [phone] and [accounts] take effect at
// restart, each named once; any other change takes effect at once (no warning).
func TestAtRestart(t *testing.T) {
	var base config.Config
	base.Watch.LogLevel = "info"
	for _, tc := range []struct {
		name   string
		change func(*config.Config)
		want   int
	}{
		{"nothing", func(*config.Config) {}, 0},
		{"margin", func(c *config.Config) { c.Watch.Margin = time.Hour }, 0},
		{"log level", func(c *config.Config) { c.Watch.LogLevel = "debug" }, 1},
		{"servers", func(c *config.Config) { c.Servers.Sockets = []string{"/s"} }, 1},
		{"all servers", func(c *config.Config) { c.Servers.All = true }, 1},
		{"phone", func(c *config.Config) { c.Phone.Listen = "127.0.0.1:1" }, 1},
		{"accounts", func(c *config.Config) { c.Accounts.Dirs = []string{"~/.claude"} }, 1},
		{"phone and accounts", func(c *config.Config) { c.Phone.Public, c.Accounts.Auto = true, true }, 1},
		{"three", func(c *config.Config) { c.Watch.LogLevel, c.Servers.All, c.Accounts.MaxPerDay = "warn", true, 9 }, 3},
	} {
		now := base
		tc.change(&now)
		if got := AtRestart(base, now); len(got) != tc.want {
			t.Errorf("%s: AtRestart = %q, want %d warning(s)", tc.name, got, tc.want)
		}
	}
}
