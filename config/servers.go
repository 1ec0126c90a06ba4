package config

import (
	"strings"
	"time"
)

// Servers is [servers]: which tmux servers one `cac-tmux watch` supervises.
type Servers struct {
	// All makes the watcher supervise every tmux server of the user, each on its own: the
	// sockets of the user's tmux directory (tmux-UID in $TMUX_TMPDIR, else /tmp) and Sockets,
	// servers appearing and going while it runs.
	All bool
	// Sockets are the sockets of more servers to supervise with All: servers started with
	// -S PATH outside the tmux directory. One where no server listens is looked at again.
	Sockets []string
}

// Hosts is [hosts]: the other hosts whose Claude Code panes `list` and the popup show
// beside this one's, through the user's own ssh.
type Hosts struct {
	// Names are the hosts as ssh takes them (an alias of ~/.ssh/config, user@host).
	Names []string
	// Command is cac-tmux on those hosts: a non-interactive ssh session's PATH often lacks
	// ~/go/bin, so "~/go/bin/cac-tmux" may be needed.
	Command string
	// Timeout bounds the answer of each host.
	Timeout time.Duration
	// SSH is the ssh program and the arguments it starts with (["ssh", "-F", "~/.ssh/work"]).
	SSH []string
}

// serversTable is [servers].
var serversTable = table{name: "servers", help: []string{
	"Which tmux servers `cac-tmux watch` supervises: the one it is started for (-L, -S, or the",
	"default), or with all = true every server of the user, one watcher process for all."}, keys: []setting{
	newKey(meta{table: "servers", name: "all", want: "true or false", flag: "--all-servers",
		help: "supervise every tmux server of the user (the sockets in tmux-UID and sockets), each with its own state and lock"},
		boolKind, func(c *Config) *bool { return &c.Servers.All }, nil),
	newKey(meta{table: "servers", name: "sockets", want: `an array of paths like ["/srv/tmux/work"]`,
		help: "more server sockets to supervise with all = true (servers started with -S elsewhere)"},
		listKind, func(c *Config) *[]string { return &c.Servers.Sockets }, nil),
}}

// hostsTable is [hosts].
var hostsTable = table{name: "hosts", help: []string{
	"Other hosts whose Claude Code panes `cac-tmux list` and the popup show beside this one's,",
	"asked through your own ssh (its config, keys and ControlMaster); each runs its own watcher."}, keys: []setting{
	newKey(meta{table: "hosts", name: "names", want: `an array of ssh hosts like ["dev1", "me@box"]`,
		help: "the hosts, as ssh takes them; list --host overrides them"},
		listKind, func(c *Config) *[]string { return &c.Hosts.Names }, checkHostNames),
	newKey(meta{table: "hosts", name: "command", want: `a string like "~/go/bin/cac-tmux"`,
		help: "cac-tmux on those hosts (a non-interactive ssh session's PATH often lacks ~/go/bin)"},
		textKind, func(c *Config) *string { return &c.Hosts.Command }, func(s string) string {
			if s == "" {
				return `must not be empty; "cac-tmux" finds it on the remote PATH`
			}
			return ""
		}),
	newKey(meta{table: "hosts", name: "timeout", want: wantDuration, help: "how long each host has to answer"},
		durationKind, func(c *Config) *time.Duration { return &c.Hosts.Timeout }, func(d time.Duration) string { return atLeast(d, time.Second) }),
	newKey(meta{table: "hosts", name: "ssh", want: `an array like ["ssh", "-F", "/home/me/.ssh/work"]`,
		help: "the ssh program and its first arguments; BatchMode and ConnectTimeout are added"},
		listKind, func(c *Config) *[]string { return &c.Hosts.SSH }, func(l []string) string {
			if len(l) == 0 || l[0] == "" {
				return `must name the ssh program first, like ["ssh"]`
			}
			return ""
		}),
}}

// checkHostNames is the rule of hosts.names: each name follows CheckHost.
func checkHostNames(names []string) string {
	for _, n := range names {
		if msg := CheckHost(n); msg != "" {
			return msg + " (" + tomlString(n) + " is not)"
		}
	}
	return ""
}

// CheckHost is the rule of a host given to ssh (hosts.names, --host): "" when name is an ssh
// host or alias, optionally with a user (dev1, me@box.example, [::1]), else what it must be.
// ssh would read a name starting with "-" as an option, and the remote shell never sees it,
// but a character outside these has no business in a host name.
func CheckHost(name string) string {
	ok := name != "" && name[0] != '-' && !strings.ContainsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@:[]%", r))
	})
	if !ok {
		return `must be an ssh host like "dev1" or "me@box": letters, digits and . _ - @ : [ ] %, not starting with -`
	}
	return ""
}
