// Package proc finds the Claude Code or Codex CLI process in a tmux pane (Found.Agent).
//
// tmux's pane_current_command only names argv[0] of the pane's foreground process group, which
// reads "node", a version string or a wrapper shell for some installs (docs/claude-code.md,
// Which panes run Claude Code). A Finder looks at the foreground group itself: the terminal's
// foreground process group (tpgid) of the pane's first process, its leader and the leader's
// descendants in that group, breadth-first up to depth 3, so that a wrapper script running
// claude in the foreground is seen through, while a claude suspended with Ctrl-Z or running in
// the background of a shell is not taken for the foreground program.
//
// What runs decides, never a name a process was given (explainClaude): a process is Claude Code by
// its executable, and one whose executable cannot be learned is not. The same holds for Codex
// CLI (isCodex): its native binary running the interactive TUI; below npm's Node launcher,
// the launcher's native child, the process a Codex session follows. Its app-server daemon
// (its own session, never in a pane's foreground) and `codex exec` are never taken. For a
// Codex process found, Codex tells what finds its thread's rollout, and DaemonZone the zone
// its daemon prints a reset in.
//
// Claude Code that the foreground runs out of the pane's reach is never found: under
// script(1) (or any program that runs it on a terminal of its own, in a session of its own:
// a process below the foreground, not in its group, whose terminal's foreground group is not
// the pane's), or in a pane of another tmux server whose client is in the foreground (nested
// tmux). Keys sent to the pane would go through that program or client. Diagnose (and
// explain, for doctor) looks there, one level down and bounded as the walk is, to say where
// it runs: on which terminal, or in the server on which socket (the client's -S, or its -L,
// $TMUX, $TMUX_TMPDIR and user, as tmux works it out), found as the process listening on
// that socket (/proc/net/unix and the descriptors of /proc, or lsof -U without /proc), whose
// children are its panes.
//
// On Linux it reads /proc (a few files per candidate, no exec). Where /proc is not usable
// (macOS, the BSDs, or a /proc that cannot be read), or with Finder.NoProc, it asks the tools
// those systems have, the same rule deciding. ps, once per call, gives the process tree:
//
//	ps -ww -A -o pid= -o ppid= -o pgid= -o tpgid= -o stat= -o lstart= -o args=
//
// with LC_ALL=C and TZ=UTC0, so that the five lstart tokens ("Fri Nov 20 10:00:00 2026") are the
// same for every call of every watcher. Every column but the last is one token; args, the only
// free text, is last. Then one lsof run for all the candidates of the walk gives each one's
// executable (its program text, the first txt file), working directory (to resolve the script
// a runtime runs) and command name:
//
//	lsof -w -b -O +c 0 -a -p PID,PID… -d txt,cwd -F pcftn
//
// argv comes from the kernel on macOS (sysctl kern.procargs2: exact), elsewhere from ps's args
// column, split at spaces (ambiguous: an argument holding a space reads as two). The
// environment (Env) comes from kern.procargs2 on macOS, elsewhere from `ps eww -p PID -o
// command=` (ambiguous where a value holds a space followed by NAME=: then an error, never a
// guess, for the two variables read). Every tool's output is parsed strictly: what does not
// fit is an error or an unknown, never Claude Code.
//
// A process is identified by its pid and its start (Identity), since pids are reused.
package proc

import (
	"context"
	"fmt"
	"strings"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/records"
)

// Identity is one process instance: a pid can be reused, so its start time is part of it.
type Identity struct {
	PID   int
	Start string // Linux /proc: "ticks:<starttime field 22 of /proc/PID/stat>"; without /proc: "lstart:<ps lstart text>"
}

// ProcStart is the start of a process found through /proc as Claude Code's session registry
// writes it (procStart: field 22 of /proc/PID/stat); ok is false for an identity found
// without /proc.
func (id Identity) ProcStart() (string, bool) {
	return strings.CutPrefix(id.Start, ticksPrefix)
}

// Found is the agent's process in a pane and how it was found.
type Found struct {
	Identity
	How string // one short sentence for logs/doctor, e.g. "foreground group 123 of pane pid 100: comm \"claude\""
	// Starting, with ok false, says that the answer holds only for now: the pane's first
	// process is still tmux's fork (see forked), which has not yet run the pane's program;
	// or Codex's npm launcher runs in the foreground without its native child (isCodex),
	// which it starts at once, or which has just exited. A caller that keeps answers must
	// ask again.
	Starting bool
	// Agent is which agent the process is: agent.Claude or agent.Codex ("" when none).
	Agent agent.Name
}

// Finder finds Claude Code under a pane's process. Its methods may be called concurrently.
// The zero Finder reads /proc where it is usable, and asks ps and lsof where it is not.
type Finder struct {
	// procRoot is the proc filesystem root; "" means "/proc". It counts as usable when
	// procRoot/self exists (procfs always has it); otherwise Find and explain take the path
	// without /proc.
	procRoot string
	// NoProc makes Find and explain take the path without /proc (ps, lsof, and
	// kern.procargs2 on macOS) even where /proc is usable: the path macOS and the BSDs take,
	// selectable on Linux to run and test it there. The identities Find gives then start
	// "lstart:", and alive and Env check them without /proc too (an identity's prefix, not
	// NoProc, tells alive and Env where to look).
	NoProc bool
	// ps runs `ps` for the path without /proc and returns its output; nil means exec the real
	// ps (argv only, bounded by the context, or 5 s when it has no deadline). A replacement
	// prints what `ps -ww -A -o pid= -o ppid= -o pgid= -o tpgid= -o stat= -o lstart= -o args=`
	// prints in the C locale.
	ps func(ctx context.Context) (string, error)

	// Replacements for tests, nil in use: the output of lsof with lsofArgs(pids), of ps with
	// psEnvironArgs(pid), and kern.procargs2 parsed (exactArgs); for Diagnose, the output of
	// lsof with lsofUnixArgs and of `ps -o COLUMN= -p PID` (psColumn).
	lsof      func(ctx context.Context, pids []int) (string, error)
	psEnviron func(ctx context.Context, pid int) (string, error)
	args      func(pid int) (procArgs, error)
	lsofUnix  func(ctx context.Context) (string, error)
	psOne     func(ctx context.Context, pid int, column string) (string, error)
	// localtime is the host's zone file for DaemonZone; "" means /etc/localtime.
	localtime string
}

// Start prefixes of an Identity: which source it came from.
const (
	ticksPrefix  = "ticks:"
	lstartPrefix = "lstart:"
)

// Candidate walk limits: how deep below the group leader, and how many processes at most (a
// foreground "make -j" has many children; Claude Code is the leader or near it).
const (
	maxDepth      = 3
	maxCandidates = 32
)

// Find returns the Claude Code process in the foreground of the pane whose first process is
// panePID. ok=false, err=nil: definitely not Claude Code (a shell, vim, …), or the pane
// process is gone, or not yet (found.Starting). err != nil: neither /proc nor the tools could
// tell.
func (f *Finder) Find(ctx context.Context, panePID int) (found Found, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return Found{}, false, fmt.Errorf("proc: find pane pid %d: %w", panePID, err)
	}
	if panePID <= 0 {
		return Found{}, false, fmt.Errorf("proc: find pane pid %d: not a pid", panePID)
	}
	found, ok, _, err = f.search(ctx, "find", panePID, false)
	return found, ok, err
}

// search is the walk of Find and explain: on /proc, unless NoProc is set or /proc cannot be
// read, then without it. op names the call in errors; when explain is set, the diagnosis
// says why no process was taken and what runs out of the pane's reach below it.
func (f *Finder) search(ctx context.Context, op string, panePID int, explain bool) (found Found, ok bool, d Diagnosis, err error) {
	var procErr error
	if !f.NoProc {
		fs := procfs{root: f.root(), explain: explain}
		found, ok, procErr = fs.find(panePID)
		if procErr == nil {
			d.Why = fs.rejects
			if explain && !ok {
				d = d.with(fs.below())
			}
			return found, ok, d, nil
		}
	}
	np := &noProc{explain: explain}
	found, ok, err = f.findNoProc(ctx, panePID, np)
	switch {
	case err == nil:
		d.Why = np.rejects
		if explain && !ok {
			d = d.with(f.belowNoProc(ctx, np))
		}
		return found, ok, d, nil
	case procErr != nil:
		return Found{}, false, Diagnosis{}, fmt.Errorf("proc: %s pane pid %d: %v; without /proc: %w", op, panePID, procErr, err)
	}
	return Found{}, false, Diagnosis{}, fmt.Errorf("proc: %s pane pid %d: %w", op, panePID, err)
}

// alive reports whether the process id is still running with the same start (same procRoot/ps
// sources). A zombie is not running. An identity from /proc ("ticks:") can only be checked
// through /proc, one found without /proc ("lstart:") only through ps.
func (f *Finder) alive(ctx context.Context, id Identity) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("proc: alive pid %d: %w", id.PID, err)
	}
	if id.PID <= 0 {
		return false, fmt.Errorf("proc: alive pid %d: not a pid", id.PID)
	}
	switch {
	case strings.HasPrefix(id.Start, ticksPrefix):
		fs := procfs{root: f.root()}
		alive, err := fs.alive(id)
		if err != nil {
			return false, fmt.Errorf("proc: alive pid %d: %w", id.PID, err)
		}
		return alive, nil
	case strings.HasPrefix(id.Start, lstartPrefix):
		out, err := f.runPS(ctx)
		if err != nil {
			return false, fmt.Errorf("proc: alive pid %d: %w", id.PID, err)
		}
		tab, err := parsePS(out)
		if err != nil {
			return false, fmt.Errorf("proc: alive pid %d: %w", id.PID, err)
		}
		return tab.alive(id), nil
	}
	return false, fmt.Errorf("proc: alive pid %d: unknown start %q", id.PID, id.Start)
}

// Env is the part of the environment of the agent process id that locates its records
// (records.Env: CLAUDE_CONFIG_DIR, CODEX_HOME and HOME), as it was started, while the process runs: from
// /proc/PID/environ for an identity from /proc, else as the package doc says (kern.procargs2
// on macOS, `ps eww` elsewhere).
func (f *Finder) Env(ctx context.Context, id Identity) (records.Env, error) {
	if err := ctx.Err(); err != nil {
		return records.Env{}, fmt.Errorf("proc: environment of pid %d: %w", id.PID, err)
	}
	var env records.Env
	switch {
	case id.PID <= 0:
		return records.Env{}, fmt.Errorf("proc: environment of pid %d: not a pid", id.PID)
	case strings.HasPrefix(id.Start, ticksPrefix):
		fs := procfs{root: f.root()}
		if alive, err := fs.alive(id); err != nil || !alive {
			return records.Env{}, fmt.Errorf("proc: environment of pid %d: the process is gone", id.PID)
		}
		env = fs.env(id.PID)
	case strings.HasPrefix(id.Start, lstartPrefix):
		var err error
		if env, err = f.envNoProc(ctx, id); err != nil {
			return records.Env{}, fmt.Errorf("proc: environment of pid %d: %w", id.PID, err)
		}
	default:
		return records.Env{}, fmt.Errorf("proc: environment of pid %d: unknown start %q", id.PID, id.Start)
	}
	if env.Dir() == "" && env.CodexDir() == "" {
		return records.Env{}, fmt.Errorf("proc: environment of pid %d: unreadable, or no CLAUDE_CONFIG_DIR, CODEX_HOME or HOME", id.PID)
	}
	return env, nil
}

// explain says, for doctor, why Find takes no process in the pane whose first process is
// panePID for Claude Code: a sentence per process Find looked at, in its order (explainClaude's
// reason, or an executable that cannot be learned), or one saying why it looked at none; first,
// where the foreground runs Claude Code out of the pane's reach (Diagnose), and each tmux
// client's server where none was seen. nil when Find takes one; it takes Find's path.
func (f *Finder) explain(ctx context.Context, panePID int) ([]string, error) {
	d, err := f.Diagnose(ctx, panePID)
	return d.Why, err
}

// Diagnosis is why Find takes no process in a pane.
type Diagnosis struct {
	Why []string // explain's sentences
	// Beneath is a Claude Code process that the pane's foreground runs out of the pane's
	// reach, nil when none was seen.
	Beneath *Beneath
}

// Diagnose is explain with the Claude Code process, if any, that the pane's foreground runs
// out of the pane's reach, where Find rightly does not take it, since keys sent to the pane
// would not reach it as typed: one on a terminal of its own below the foreground (under
// script(1), which runs its command on a new pseudo-terminal in a session of its own), or one
// in a pane of another tmux server whose client runs in the foreground (a nested tmux). It
// looks one level down, with Find's rule (explainClaude) and bounds: at most maxCandidates
// terminals and panes. The zero Diagnosis, when Find takes a process.
func (f *Finder) Diagnose(ctx context.Context, panePID int) (Diagnosis, error) {
	if err := ctx.Err(); err != nil {
		return Diagnosis{}, fmt.Errorf("proc: explain pane pid %d: %w", panePID, err)
	}
	_, ok, d, err := f.search(ctx, "explain", panePID, true)
	switch {
	case err != nil:
		return Diagnosis{}, err
	case ok:
		return Diagnosis{}, nil
	case len(d.Why) == 0:
		d.Why = []string{"no process of the foreground group could be read"}
	}
	return d, nil
}

func (f *Finder) root() string {
	if f.procRoot == "" {
		return "/proc"
	}
	return strings.TrimSuffix(f.procRoot, "/")
}

// how is the sentence of Found.How. source is "" for /proc, noProcSource without it.
func how(source string, panePID, tpgid, pid, depth int, why string) string {
	if pid == tpgid {
		return fmt.Sprintf("foreground group %d of pane pid %d%s: %s", tpgid, panePID, source, why)
	}
	if depth < 0 {
		return fmt.Sprintf("foreground group %d of pane pid %d%s (leader gone): pid %d: %s",
			tpgid, panePID, source, pid, why)
	}
	return fmt.Sprintf("foreground group %d of pane pid %d%s: pid %d at depth %d: %s",
		tpgid, panePID, source, pid, depth, why)
}
