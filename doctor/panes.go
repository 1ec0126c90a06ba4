package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/printable"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// lookAlikeFix is the fix of a pane that looks like Claude Code but is not taken for it.
const lookAlikeFix = "if it is Claude Code, run cac-tmux as the user who runs it, and start it so that its " +
	"executable shows it: the native build (an executable named claude, or a version under a claude " +
	"directory) or node/bun running @anthropic-ai/claude-code; a wrapper script must keep claude in " +
	"the foreground (exec claude)"

// checkPanes says what each pane of the server is under the configuration cfg.
func checkPanes(ctx context.Context, e Env, cfg config.Config) ([]Pane, Check) {
	list, err := e.Tmux.ListPanes(ctx, tmuxctl.Search{})
	if err != nil {
		return nil, Check{Name: "panes", Detail: "the panes cannot be listed: " + err.Error(), Fix: "run doctor again; if it fails again, run it with the tmux server's user"}
	}
	var panes []Pane
	var procErr error
	claude, supervised, lookAlikes, beneath := 0, 0, 0, 0
	for _, tp := range list {
		p, err := classify(ctx, e.Finder, watchedIn(e), tp, cfg)
		if err != nil && procErr == nil {
			procErr = err
		}
		switch {
		case p.Claude:
			claude++
			if p.Supervised {
				supervised++
			}
		case p.Beneath != 0 && p.Problem:
			beneath++
		case p.Problem:
			lookAlikes++
		}
		panes = append(panes, p)
	}
	c := Check{Name: "panes", OK: true, Detail: fmt.Sprintf("%s of %d, %d supervised", printable.Count(claude, "Claude Code pane"), len(list), supervised)}
	if lookAlikes > 0 {
		verb := "look like Claude Code but are"
		if lookAlikes == 1 {
			verb = "looks like Claude Code but is"
		}
		c.Detail += fmt.Sprintf("; %d %s not taken for it", lookAlikes, verb)
	}
	if beneath > 0 {
		verb := "run Claude Code out of their reach"
		if beneath == 1 {
			verb = "runs Claude Code out of its reach"
		}
		c.Detail += fmt.Sprintf("; %d %s, which no watcher supervises", beneath, verb)
	}
	if lookAlikes+beneath > 0 {
		c.OK, c.Fix = false, "see the fix under each pane"
	}
	if procErr != nil {
		c.OK = false
		c.Detail += "; the process table cannot be read (" + procErr.Error() + "): panes are recognised by command and title only, and a watcher types into none"
		c.Fix = "run cac-tmux where it can read /proc (Linux) or run ps (macOS)"
	}
	return panes, c
}

// watchedIn says whether a watcher holds the lock of the server on socket (store.Holder, in
// the lock directory of e), and its pid.
func watchedIn(e Env) func(socket string) (int, bool) {
	return func(socket string) (int, bool) {
		if e.DirErr != nil {
			return 0, false
		}
		pid, held, err := store.Holder(e.LockDir, socket)
		return pid, err == nil && held
	}
}

// classify says what one pane is. An error means the process table could not tell: the
// pane is then judged by its command and title, as the watcher does. watched says whether a
// watcher supervises another server (by its socket), and its pid. A pane is supervised when
// cfg's [panes] selects its session and its agent is enabled.
func classify(ctx context.Context, f Finder, watched func(string) (int, bool), tp tmuxctl.Pane, cfg config.Config) (Pane, error) {
	p := Pane{Pane: tp.ID, Target: tp.Target(), Command: tp.Command, LooksLike: looksLikeClaude(tp)}
	found, ok, err := f.Find(ctx, tp.PID)
	if err != nil {
		ok = proc.Hint(tp.Command, tp.Title)
		found = proc.Found{How: "by command and title only (the process table cannot be read)"}
	}
	if ok {
		p.Claude, p.Agent, p.How, p.id = true, cmp.Or(found.Agent, agent.Claude), found.How, found.Identity
		p.Supervised, p.Note = cfg.Panes.Match(tp.Session)
		if p.Supervised && cfg.AgentSettings()[p.Agent].Off {
			p.Supervised, p.Note = false, string(p.Agent)+".enabled is false"
		}
		return p, err
	}
	d, xerr := f.Diagnose(ctx, tp.PID)
	why := d.Why
	switch {
	case xerr != nil:
		p.Why = "not explained: " + xerr.Error()
	case d.Beneath != nil:
		beneathPane(&p, *d.Beneath, watched)
		return p, err
	case p.LooksLike && proc.RemoteShell(tp.Command):
		p.Remote = true
		p.Why = "Claude Code runs on another host: the pane runs " + tp.Command + " and its title is Claude Code's"
		p.Note = "no watcher of this host types into it; run cac-tmux watch on that host (cac-tmux doctor --host HOST checks it)"
		return p, err
	case p.LooksLike: // every process looked at, up to three
		if len(why) > 3 {
			why = append(why[:3:3], fmt.Sprintf("and %d more", len(why)-3))
		}
		p.Why = strings.Join(why, "; ")
	case len(why) > 0: // the foreground's leader says enough
		p.Why = why[0]
	}
	if p.LooksLike {
		p.Problem, p.Fix = true, lookAlikeFix
	}
	return p, err
}

// beneathPane says where the Claude Code out of the pane's reach runs, and what to do: a
// problem, unless it runs in another tmux server that a watcher supervises.
func beneathPane(p *Pane, b proc.Beneath, watched func(string) (int, bool)) {
	p.Beneath, p.OtherServer, p.Why, p.Problem = b.Claude.PID, b.Socket, b.String(), true
	if b.Socket == "" {
		p.Fix = "run claude directly in the pane, not under script or another program that gives it a terminal of its own " +
			"(cac-tmux types only into a pane's own terminal; tmux pipe-pane keeps a log of a pane)"
		return
	}
	if pid, ok := watched(b.Socket); ok {
		p.Problem, p.Note = false, fmt.Sprintf("a watcher (pid %d) supervises that server", pid)
		return
	}
	p.Fix = "start a watcher on that server: cac-tmux watch -S " + b.Socket
}

// looksLikeClaude reports whether a pane's command or title suggests Claude Code (proc.Hint),
// a runtime's command (node, bun) only with a title that does: a runtime runs much else.
func looksLikeClaude(tp tmuxctl.Pane) bool {
	return proc.Hint(tp.Command, "") && !proc.IsRuntime(tp.Command) || proc.Hint("", tp.Title)
}

// checkRecords reads where each Claude Code pane's process keeps its records (records
// package): its config directory and the session registry in it.
func checkRecords(ctx context.Context, e Env, panes []Pane) Check {
	n, problems := 0, 0
	for i := range panes {
		p := &panes[i]
		if !p.Claude || p.id.PID == 0 {
			continue
		}
		n++
		var fix string
		p.Records, fix = paneRecords(ctx, e.Finder, p.id)
		if fix != "" {
			problems++
			p.Problem, p.Fix = true, fix
		}
	}
	switch {
	case problems > 0:
		return Check{Name: "records", Detail: fmt.Sprintf("the records of %d of %s cannot be read", problems, printable.Count(n, "Claude Code pane")),
			Fix: "see the fix under each pane"}
	case n == 0:
		return Check{Name: "records", OK: true, Detail: "no Claude Code pane to read the records of"}
	}
	return Check{Name: "records", OK: true, Detail: "the records of " + printable.Count(n, "Claude Code pane") + " are readable"}
}

// paneRecords says what is readable of one claude process's records, and the fix of a
// problem ("" when none).
func paneRecords(ctx context.Context, f Finder, id proc.Identity) (detail, fix string) {
	env, err := f.Env(ctx, id)
	if err != nil {
		return "not read: " + err.Error(), ""
	}
	dir := env.Dir()
	sessions := filepath.Join(dir, "sessions")
	_, err = os.ReadDir(sessions)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, err := os.Stat(dir); err != nil {
			return dir + " does not exist (yet)", ""
		}
		return dir + " has no session registry (sessions/; older Claude Code keeps none)", ""
	case err != nil:
		return sessions + " cannot be read: " + err.Error(),
			"make " + sessions + " a directory this user can read: cac-tmux must run as the user who runs Claude Code"
	}
	start, _ := id.ProcStart()
	en, err := env.Session(id.PID, start)
	switch {
	case errors.Is(err, records.ErrNoRecord):
		return fmt.Sprintf("%s readable; no registry entry for pid %d (older Claude Code writes none)", sessions, id.PID), ""
	case err != nil:
		return sessions + " readable; its entry is not: " + err.Error(), ""
	}
	return fmt.Sprintf("%s readable; registry entry of Claude Code %s, session %s", sessions, en.Version, en.SessionID), ""
}
