package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cac-tmux/cac-tmux/records"
)

// userHZ is the unit of starttime in /proc/PID/stat: USER_HZ, 100 on every architecture Go
// builds cac-tmux for (the kernel scales it from its own HZ).
const userHZ = 100

// lstartLayout reads ps's lstart as the listing joins its five tokens, in UTC (psEnv).
const lstartLayout = "Mon Jan 2 15:04:05 2006"

// Started is when the process id started: from /proc, the boot time (/proc/stat's btime, whole
// seconds) plus its starttime in clock ticks, so within a second; without /proc, ps's lstart,
// to the second. It does not check that the process still runs (alive does).
func (f *Finder) Started(id Identity) (time.Time, error) {
	if ticks, ok := id.ProcStart(); ok {
		at, err := procfs{root: f.root()}.started(ticks)
		if err != nil {
			return time.Time{}, fmt.Errorf("proc: start of pid %d: %w", id.PID, err)
		}
		return at, nil
	}
	if text, ok := strings.CutPrefix(id.Start, lstartPrefix); ok {
		at, err := time.ParseInLocation(lstartLayout, text, time.UTC)
		if err != nil {
			return time.Time{}, fmt.Errorf("proc: start of pid %d: %w", id.PID, err)
		}
		return at, nil
	}
	return time.Time{}, fmt.Errorf("proc: start of pid %d: unknown start %q", id.PID, id.Start)
}

// started is the instant of a starttime in clock ticks since boot.
func (p procfs) started(ticks string) (time.Time, error) {
	n, err := strconv.ParseInt(ticks, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("bad starttime %q", ticks)
	}
	b, err := os.ReadFile(p.root + "/stat")
	if err != nil {
		return time.Time{}, err
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			boot, ok := atoi(bytes.TrimSpace(v))
			if !ok || boot <= 0 {
				break
			}
			return time.Unix(int64(boot), 0).Add(time.Duration(n) * time.Second / userHZ), nil
		}
	}
	return time.Time{}, fmt.Errorf("no btime in %s/stat", p.root)
}

// CodexTUI is what the process table tells of a Codex TUI that Find took: where its records
// are, and what finds the thread it shows (records.Env.FindRollout).
type CodexTUI struct {
	Env     records.Env // its HOME and CODEX_HOME (Env.CodexDir)
	Args    CodexArgs   // what its argv says: a thread it reopened, -C, --no-daemon
	Cwd     string      // its thread's working directory: -C resolved from its own, else its own
	Started time.Time   // when it started (Started)
}

// Query is what FindRollout needs of the process, without the screen's part (the stop's
// instant and the prompt on screen).
func (c CodexTUI) Query() records.CodexQuery {
	return records.CodexQuery{Cwd: c.Cwd, Started: c.Started, Thread: c.Args.Thread}
}

// Codex reads what CodexTUI says of the Codex process id while it runs: its environment (as
// Env reads it), argv, working directory (/proc/PID/cwd, or lsof's cwd without /proc) and
// start.
func (f *Finder) Codex(ctx context.Context, id Identity) (CodexTUI, error) {
	env, err := f.Env(ctx, id)
	if err != nil {
		return CodexTUI{}, err
	}
	var argv []string
	var cwd string
	if _, ok := id.ProcStart(); ok {
		fs := procfs{root: f.root()}
		argv = fs.cmdline(id.PID)
		cwd, err = os.Readlink(fs.path(id.PID, "cwd"))
	} else {
		argv, cwd, err = f.argsCwdNoProc(ctx, id)
	}
	switch {
	case err != nil:
		return CodexTUI{}, fmt.Errorf("proc: codex pid %d: %w", id.PID, err)
	case len(argv) == 0 || !filepath.IsAbs(cwd):
		return CodexTUI{}, fmt.Errorf("proc: codex pid %d: its arguments or working directory cannot be read", id.PID)
	}
	c := CodexTUI{Env: env, Args: ParseCodexArgs(argv), Cwd: cwd}
	if d := c.Args.Dir; d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		c.Cwd = filepath.Clean(d)
	}
	if c.Started, err = f.Started(id); err != nil {
		return CodexTUI{}, err
	}
	return c, nil
}

// argsCwdNoProc is the argv and working directory of a process found without /proc: argv
// from kern.procargs2 on macOS, else ps's args split at spaces; the directory from lsof.
func (f *Finder) argsCwdNoProc(ctx context.Context, id Identity) ([]string, string, error) {
	out, err := f.runPS(ctx)
	if err != nil {
		return nil, "", err
	}
	tab, err := parsePS(out)
	if err != nil {
		return nil, "", err
	}
	if !tab.alive(id) {
		return nil, "", errors.New("the process is gone")
	}
	listed, err := f.runLsof(ctx, []int{id.PID})
	if err != nil {
		return nil, "", err
	}
	argv := strings.Fields(tab.rows[tab.byPID[id.PID]].args)
	pa, err := f.exactArgs(id.PID)
	switch {
	case err == nil:
		argv = pa.argv
	case !errors.Is(err, errNoExactArgs):
		return nil, "", err
	}
	return argv, listed[id.PID].cwd, nil
}
