package proc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// daemonPID is $CODEX_HOME/app-server-daemon/daemon.pid as Codex 0.171.0 writes it
// (records/testdata/codex/daemon.pid): the pid, its start as text in the daemon's own zone
// ("Sat Nov 28 07:40:40 2026"), and on Linux the boot and starttime (field 22 of
// /proc/PID/stat) that make it one process.
type daemonPID struct {
	PID       int    `json:"pid"`
	StartText string `json:"processStartTime"`
	Identity  *struct {
		BootID     string `json:"bootId"`
		StartTicks int64  `json:"startTicks"`
	} `json:"processIdentity"`
}

// DaemonZone is the zone of the app-server daemon of the Codex home codexHome (records.Env's
// CodexDir), the zone in which Codex prints a stop's reset without one (SPEC §11): the daemon
// formats it, in the zone it inherited from the TUI that started it. It reads the daemon's pid
// file, checks that the process runs and is that daemon (its boot and starttime when the file
// records them, its executable named codex running `app-server … --managed-daemon`), then
// reads its TZ: an IANA name, ":NAME", or a path to a zone file; unset, the host's
// /etc/localtime (UTC without one), as musl, which Codex's Linux build links, reads it. The
// start the file records in the daemon's zone must be the process's start in the zone found.
// how says where the zone came from. An error when the zone cannot be told: no daemon,
// another process, a TZ that is a POSIX rule rather than a zone, or not readable.
func (f *Finder) DaemonZone(ctx context.Context, codexHome string) (loc *time.Location, how string, err error) {
	path := filepath.Join(codexHome, "app-server-daemon", "daemon.pid")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("proc: codex daemon zone: %w", err)
	}
	var d daemonPID
	if err := json.Unmarshal(b, &d); err != nil || d.PID <= 0 {
		return nil, "", fmt.Errorf("proc: codex daemon zone: %s is not a pid file", path)
	}
	var (
		tz      string
		tzSet   bool
		started time.Time
	)
	if f.NoProc || !(&procfs{root: f.root()}).usable() {
		tz, tzSet, started, err = f.daemonNoProc(ctx, d)
	} else {
		tz, tzSet, started, err = f.daemonProc(d)
	}
	if err != nil {
		return nil, "", fmt.Errorf("proc: codex daemon zone: pid %d of %s: %w", d.PID, path, err)
	}
	if loc, how, err = f.zoneOf(tz, tzSet); err != nil {
		return nil, "", fmt.Errorf("proc: codex daemon zone: pid %d: %w", d.PID, err)
	}
	if d.StartText != "" {
		recorded, err := time.ParseInLocation(lstartLayout, strings.Join(strings.Fields(d.StartText), " "), loc)
		if err != nil || recorded.Sub(started).Abs() > 1500*time.Millisecond {
			return nil, "", fmt.Errorf("proc: codex daemon zone: pid %d started %s, which is not %q in %s",
				d.PID, started.In(loc).Format(lstartLayout), d.StartText, how)
		}
	}
	return loc, fmt.Sprintf("the Codex daemon's (pid %d) %s", d.PID, how), nil
}

// daemonProc checks the daemon on /proc and reads its TZ and start.
func (f *Finder) daemonProc(d daemonPID) (tz string, set bool, started time.Time, err error) {
	fs := procfs{root: f.root()}
	st, err := fs.stat(d.PID)
	switch {
	case err != nil && gone(err):
		return "", false, time.Time{}, errors.New("not running")
	case err != nil:
		return "", false, time.Time{}, err
	case zombie(st.state):
		return "", false, time.Time{}, errors.New("not running (a zombie)")
	}
	if id := d.Identity; id != nil {
		boot, _ := os.ReadFile(fs.root + "/sys/kernel/random/boot_id")
		if string(bytes.TrimSpace(boot)) != id.BootID || strconv.FormatInt(id.StartTicks, 10) != st.start {
			return "", false, time.Time{}, errors.New("another process than the one the file names (its boot or start differs)")
		}
	}
	if err := isDaemon(fs.cmdline(d.PID), fs.exe(d.PID)); err != nil {
		return "", false, time.Time{}, err
	}
	environ, err := fs.read(fs.path(d.PID, "environ"))
	if err != nil {
		return "", false, time.Time{}, fmt.Errorf("its environment: %w", err)
	}
	for kv := range strings.SplitSeq(string(environ), "\x00") {
		if v, ok := strings.CutPrefix(kv, "TZ="); ok {
			tz, set = v, true
		}
	}
	started, err = fs.started(st.start)
	return tz, set, started, err
}

// daemonNoProc checks the daemon without /proc (ps, lsof, and kern.procargs2 on macOS) and
// reads its TZ and start.
func (f *Finder) daemonNoProc(ctx context.Context, d daemonPID) (tz string, set bool, started time.Time, err error) {
	out, err := f.runPS(ctx)
	if err != nil {
		return "", false, time.Time{}, err
	}
	tab, err := parsePS(out)
	if err != nil {
		return "", false, time.Time{}, err
	}
	i, ok := tab.byPID[d.PID]
	if !ok || zombie(tab.rows[i].stat[0]) {
		return "", false, time.Time{}, errors.New("not running")
	}
	r := tab.rows[i]
	id := Identity{PID: d.PID, Start: lstartPrefix + r.lstart}
	if started, err = f.Started(id); err != nil {
		return "", false, time.Time{}, err
	}
	listed, err := f.runLsof(ctx, []int{d.PID})
	if err != nil {
		return "", false, time.Time{}, err
	}
	argv := strings.Fields(r.args)
	pa, err := f.exactArgs(d.PID)
	switch {
	case err == nil:
		argv = pa.argv
		tz, set = envVar(pa.env, "TZ")
	case !errors.Is(err, errNoExactArgs):
		return "", false, time.Time{}, err
	default:
		var env string
		if env, err = f.psEnvironOf(ctx, d.PID); err != nil {
			return "", false, time.Time{}, err
		}
		vars, err := psEnvVars(env, r.args, "TZ")
		if err != nil {
			return "", false, time.Time{}, err
		}
		tz, set = vars["TZ"]
	}
	if err := isDaemon(argv, listed[d.PID].exe); err != nil {
		return "", false, time.Time{}, err
	}
	return tz, set, started, nil
}

// envVar reads one variable of a NUL-separated environment.
func envVar(environ []byte, name string) (string, bool) {
	for kv := range strings.SplitSeq(string(environ), "\x00") {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// psEnvironOf is the output of ps with psEnvironArgs(pid), from f.psEnviron when set.
func (f *Finder) psEnvironOf(ctx context.Context, pid int) (string, error) {
	if f.psEnviron != nil {
		out, err := f.psEnviron(ctx, pid)
		if err != nil {
			return "", fmt.Errorf("ps: %w", err)
		}
		return out, nil
	}
	out, _, err := runTool(ctx, "ps", psEnvironArgs(pid), psEnv)
	return out, err
}

// isDaemon says why a process is not Codex's app-server daemon: its executable is Codex's
// native binary and it runs `codex app-server … --managed-daemon`.
func isDaemon(argv []string, exe string) error {
	switch {
	case exe == "" || len(argv) == 0:
		return errors.New("its executable or arguments cannot be read")
	case !isCodexName(baseName(exe)):
		return fmt.Errorf("its executable %q is not codex", exe)
	}
	if sub, _ := codexTUI(argv[1:]); sub != "app-server" || !slices.Contains(argv, "--managed-daemon") {
		return fmt.Errorf("codex %q is not its app-server daemon", strings.Join(argv[1:], " "))
	}
	return nil
}

// zoneOf reads a process's TZ as musl does: unset, the host's zone file (f.localtime, else
// /etc/localtime; UTC without one); "" is UTC; ":NAME" is NAME; a name with a "/" first is a
// zone file; any other is an IANA name, looked up by time.LoadLocation. A POSIX rule such as
// "JST-9" is not read: an error.
func (f *Finder) zoneOf(tz string, set bool) (*time.Location, string, error) {
	if !set {
		path := f.localtime
		if path == "" {
			path = "/etc/localtime"
		}
		loc, err := zoneFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return time.UTC, "zone UTC (no TZ, no " + path + ")", nil
		}
		if err != nil {
			return nil, "", err
		}
		return loc, fmt.Sprintf("zone %s (no TZ: the host's %s)", loc, path), nil
	}
	name := strings.TrimPrefix(tz, ":")
	switch {
	case name == "":
		return time.UTC, fmt.Sprintf("zone UTC (TZ=%q)", tz), nil
	case strings.HasPrefix(name, "/"):
		loc, err := zoneFile(name)
		if err != nil {
			return nil, "", fmt.Errorf("TZ=%q: %w", tz, err)
		}
		return loc, fmt.Sprintf("zone %s (TZ=%q)", loc, tz), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, "", fmt.Errorf("TZ=%q is not a zone cac-tmux can read: %w", tz, err)
	}
	return loc, fmt.Sprintf("zone %s (TZ=%q)", loc, tz), nil
}

// zoneFile loads a zone file, named by what follows "zoneinfo/" in its real path (the path
// itself otherwise).
func zoneFile(path string) (*time.Location, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		name = real
	}
	if _, after, ok := strings.Cut(name, "zoneinfo/"); ok {
		name = after
	}
	loc, err := time.LoadLocationFromTZData(name, b)
	if err != nil {
		return nil, fmt.Errorf("zone file %s: %w", path, err)
	}
	return loc, nil
}
