// Package doctor checks what `cac-tmux watch` needs to supervise the Claude Code panes of a
// tmux server and says how to fix each problem: tmux, the server, every pane (how each Claude
// Code was identified, why a look-alike was not, which the configuration leaves out), Claude
// Code's records, the configuration, the zone data, the state and lock directories, a watcher.
// It never changes anything of the user's; its one write is a small file written, synced and
// removed in the state and lock directories (store.Probe).
package doctor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// Check is one finding: what was looked at, what was found and, when it is a problem, the fix.
type Check struct {
	Name   string `json:"check"` // "tmux", "server", "panes", "records", "config", "zones", "state", "watcher", "phone", "accounts"
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Pane is one pane of the server as doctor sees it.
type Pane struct {
	Pane    string `json:"pane"`
	Target  string `json:"target"`
	Command string `json:"command"` // pane_current_command
	// Claude is true when the pane runs Claude Code; How says how it was identified.
	Claude bool   `json:"claude"`
	How    string `json:"how,omitempty"`
	// Agent is the agent that runs in the pane, "" when none is taken to run there.
	Agent agent.Name `json:"agent,omitempty"`
	// Supervised is true for a pane of an agent the configuration does not leave out (its
	// session selected by [panes], its agent enabled).
	Supervised bool `json:"supervised"`
	// LooksLike is true for a pane whose command or title suggests Claude Code; when it is not
	// taken for it, Why says why (a problem, with Fix).
	LooksLike bool   `json:"looks_like_claude"`
	Why       string `json:"why,omitempty"`
	// Beneath is the pid of a Claude Code process that the pane's foreground runs out of the
	// pane's reach (proc.Beneath): under script(1) on a terminal of its own, or in a pane of
	// another tmux server whose client runs here, OtherServer its socket. A watcher of this
	// server never types into the pane for it; Why says where it runs, Fix what to do.
	Beneath     int    `json:"claude_beneath,omitempty"`
	OtherServer string `json:"other_server,omitempty"`
	// Remote is true for a pane where Claude Code runs on another host, through ssh or mosh
	// (proc.RemoteShell, and a title of Claude Code's): no problem here, Note says what to do.
	Remote bool `json:"remote,omitempty"`
	// Note says why a Claude Code pane is not supervised, or what its records are.
	Note    string `json:"note,omitempty"`
	Records string `json:"records,omitempty"`
	Problem bool   `json:"problem"`
	Fix     string `json:"fix,omitempty"`

	id proc.Identity // the claude process, for its records
}

// Report is everything doctor found. OK is true when no check found a problem.
type Report struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
	Panes  []Pane  `json:"panes"`
}

// Finder is what doctor asks of the process table (proc.Finder).
type Finder interface {
	Find(ctx context.Context, panePID int) (proc.Found, bool, error)
	Diagnose(ctx context.Context, panePID int) (proc.Diagnosis, error)
	Env(ctx context.Context, id proc.Identity) (records.Env, error)
}

// Env is what Run works with: cmd wires the real ones.
type Env struct {
	Tmux   *tmuxctl.Client
	Finder Finder
	// Server names the server for people ("server -L work"); Socket is its socket's path, which
	// keys the watcher's lock.
	Server, Socket string
	// Config reads the configuration in effect (file and tmux options) and says what it read.
	Config func(ctx context.Context) (config.Config, string, error)
	// Watcher says whether a watcher supervises the server, and its pid (0: unknown).
	Watcher func(ctx context.Context) (pid int, running bool)
	// StateDir and LockDir are the watcher's directories (store.StateDir, store.LockDir), or
	// the error of finding them.
	StateDir, LockDir string
	DirErr            error
	Getenv            func(string) string
	// loadLocation loads a time zone; nil is time.LoadLocation.
	loadLocation func(string) (*time.Location, error)
	// WatchCommand is the command line that starts a watcher of this server, for the fixes.
	WatchCommand string
	// Clock is the one clock (whether an account is limited now); nil is clock.Real.
	Clock clock.Clock
	// HTTP asks the phone's endpoint through the user's tunnel; nil is http.DefaultClient.
	HTTP *http.Client
}

// now is the time on e's clock.
func (e Env) now() time.Time { return clock.Or(e.Clock).Now() }

// Run checks everything, in the order of Report.Checks.
func Run(ctx context.Context, e Env) Report {
	r := Report{Panes: []Pane{}}
	r.add(checkTmux(ctx, e))
	server := checkServer(ctx, e)
	r.add(server)
	cfg, cfgCheck := checkConfig(ctx, e)
	if server.OK {
		panes, check := checkPanes(ctx, e, cfg)
		r.Panes = append(r.Panes, panes...)
		r.add(check)
		r.add(checkRecords(ctx, e, r.Panes))
	}
	r.add(cfgCheck)
	r.add(checkZones(e))
	r.add(checkDir("state", "the state directory", e.StateDir, e.DirErr, "XDG_STATE_HOME"))
	r.add(checkDir("lock", "the lock directory", e.LockDir, e.DirErr, "XDG_RUNTIME_DIR"))
	r.add(checkWatcher(ctx, e))
	if c, on := checkPhone(ctx, e, cfg.Phone); on {
		r.add(c)
	}
	if c, on := checkAccounts(e, cfg.Accounts); on {
		r.add(c)
	}
	r.OK = true
	for _, c := range r.Checks {
		r.OK = r.OK && c.OK
	}
	return r
}

func (r *Report) add(c Check) { r.Checks = append(r.Checks, c) }

// Write prints the report for people: one line per check ("ok" or "PROBLEM"), the panes under
// their check, and each fix under its problem.
func (r Report) Write(w io.Writer) error {
	var b strings.Builder
	for _, c := range r.Checks {
		status := "ok     "
		if !c.OK {
			status = "PROBLEM"
		}
		fmt.Fprintf(&b, "%s %s: %s\n", status, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(&b, "          fix: %s\n", c.Fix)
		}
		if c.Name == "panes" {
			for _, p := range r.Panes {
				b.WriteString(p.line())
			}
		}
	}
	if r.OK {
		b.WriteString("all is well\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// line is a pane in the report for people.
func (p Pane) line() string {
	head := fmt.Sprintf("          %s %s (%s): ", p.Pane, p.Target, p.Command)
	var s string
	switch {
	case p.Claude && p.Supervised:
		s = head + p.Agent.Title() + ", supervised; " + p.How
	case p.Claude:
		s = head + p.Agent.Title() + ", not supervised: " + p.Note + "; " + p.How
	case p.Beneath != 0 && p.Note != "":
		s = head + "Claude Code out of this pane's reach: " + p.Why + "; " + p.Note
	case p.Beneath != 0:
		s = head + "Claude Code out of this pane's reach: " + p.Why
	case p.Remote:
		s = head + "Claude Code on another host: " + p.Why + "; " + p.Note
	case p.LooksLike:
		s = head + "looks like Claude Code but is not taken for it: " + p.Why
	default:
		s = head + "not Claude Code: " + p.Why
	}
	if p.Records != "" {
		s += "\n            records: " + p.Records
	}
	if p.Fix != "" {
		s += "\n            fix: " + p.Fix
	}
	return s + "\n"
}
