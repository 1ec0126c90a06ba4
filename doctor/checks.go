package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// minTmux is the oldest tmux cac-tmux works with: its listing filters panes (list-panes -f),
// which tmux 3.2 brought. It is tested on 3.2a, 3.3a, 3.4, 3.5a, 3.6b, 3.7c and next-3.8.
const minTmux = "3.2"

// checkTmux names the tmux binary cac-tmux runs (`tmux -V`); what a version can do is asked
// of the server (checkServer), never read off this string.
func checkTmux(ctx context.Context, e Env) Check {
	v, err := e.Tmux.Version(ctx)
	if err != nil {
		return Check{Name: "tmux", Detail: "tmux cannot be run: " + err.Error(),
			Fix: "install tmux " + minTmux + " or later (apt install tmux, brew install tmux) on the PATH of cac-tmux"}
	}
	return Check{Name: "tmux", OK: true, Detail: v}
}

func checkServer(ctx context.Context, e Env) Check {
	info, err := e.Tmux.ServerInfo(ctx)
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return Check{Name: "server", Detail: "without tmux, no server can be asked", Fix: "install tmux (above)"}
	case errors.Is(err, tmuxctl.ErrNoServer):
		return Check{Name: "server", Detail: "no tmux server runs on " + e.Server,
			Fix: "start tmux, or select the server of your Claude Code panes with -L NAME or -S PATH, as tmux takes them"}
	case err != nil:
		return Check{Name: "server", Detail: e.Server + ": " + err.Error(),
			Fix: "check that the socket is a running tmux server of this user (tmux -S SOCKET ls)"}
	}
	detail := fmt.Sprintf("%s: socket %s, pid %d, tmux %s", e.Server, info.Socket, info.PID, info.Version)
	k, err := e.Tmux.Probe(ctx)
	switch {
	case err != nil:
		return Check{Name: "server", Detail: detail + "; what it can do cannot be asked: " + err.Error(),
			Fix: "run doctor again; if it fails again, run it with the tmux server's user"}
	case !k.Filter:
		return Check{Name: "server", Detail: detail + ": too old, it cannot filter a listing (list-panes -f)",
			Fix: "upgrade tmux to " + minTmux + " or later, then restart the server (tmux kill-server)"}
	}
	return Check{Name: "server", OK: true, Detail: detail + "; " + capabilities(k)}
}

// capabilities says what the watcher uses of what the server can do.
func capabilities(k tmuxctl.Capabilities) string {
	control := "control mode"
	if k.Control != nil {
		control = "no control mode (" + strings.TrimPrefix(k.Control.Error(), tmuxctl.ErrRefused.Error()+": ") +
			"), every command a process"
	}
	// wait-for -E (3.8) is used where control mode is, else the output pipes (tmuxctl/pipes.go);
	// pane_last_output_time (3.8) was measured no cheaper than window activity
	// (bench/changecost), so it is named, not used.
	change := "changes seen by window activity"
	switch {
	case k.OutputSignal && k.Control == nil:
		change = "output signalled by wait-for -E (a second control client; a tick with no output sends tmux nothing)"
	case k.Control == nil:
		change = "output of Claude panes piped to the watcher (pipe-pane, a cat per pane; a tick with no output sends tmux nothing)"
	case k.LastOutput:
		change += " (pane_last_output_time exists; not used: no cheaper)"
	}
	return fmt.Sprintf("%s, output %s, %s", control, k.Escaping, change)
}

// checkConfig reads the configuration; with a mistake in it, the defaults stand in for the
// pane selection.
func checkConfig(ctx context.Context, e Env) (config.Config, Check) {
	c, what, err := e.Config(ctx)
	if err != nil {
		return config.Default(), Check{Name: "config", Detail: strings.ReplaceAll(err.Error(), "\n", "; "),
			Fix: "correct each setting named above (cac-tmux config check lists every setting and where it came from)"}
	}
	return c, Check{Name: "config", OK: true, Detail: what}
}

// zones are loaded to see that time zone data is there: Claude Code prints resets in the
// user's zone, any IANA zone.
var zones = []string{"UTC", "America/Los_Angeles", "America/Sao_Paulo", "Europe/Berlin", "Asia/Kolkata", "Australia/Sydney"}

func checkZones(e Env) Check {
	load := e.loadLocation
	if load == nil {
		load = time.LoadLocation
	}
	for _, z := range zones {
		if _, err := load(z); err != nil {
			return Check{Name: "zones", Detail: "time zone " + z + " does not load: " + err.Error(),
				Fix: "this binary should embed the zone data (time/tzdata): rebuild it with go install github.com/cac-tmux/cac-tmux/cmd/cac-tmux@latest, or install the tzdata package"}
		}
	}
	local, err := localZone(e.Getenv, load)
	if err != nil {
		return Check{Name: "zones", Detail: err.Error(),
			Fix: "set TZ to an IANA zone such as Europe/Berlin, or unset it to use /etc/localtime"}
	}
	name, offset := e.now().Local().Zone()
	return Check{Name: "zones", OK: true, Detail: fmt.Sprintf("zone data loads (%s); the local zone is %s, now %s (UTC%s)",
		strings.Join(zones, ", "), local, name, formatOffset(offset))}
}

// localZone names the local zone: $TZ (checked), else /etc/localtime's target.
func localZone(getenv func(string) string, load func(string) (*time.Location, error)) (string, error) {
	if tz := getenv("TZ"); tz != "" {
		name := strings.TrimPrefix(tz, ":")
		var err error
		if filepath.IsAbs(name) {
			var data []byte
			if data, err = os.ReadFile(name); err == nil {
				_, err = time.LoadLocationFromTZData(name, data)
			}
		} else {
			_, err = load(name)
		}
		if err != nil {
			return "", fmt.Errorf("TZ=%q is not a time zone (%v): local times are taken as UTC", tz, err)
		}
		return "TZ=" + tz, nil
	}
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if _, zone, ok := strings.Cut(target, "zoneinfo/"); ok {
			return zone + " (/etc/localtime)", nil
		}
		return target + " (/etc/localtime)", nil
	}
	if _, err := os.Stat("/etc/localtime"); err == nil {
		return "/etc/localtime", nil
	}
	return "UTC (no TZ, no /etc/localtime)", nil
}

func formatOffset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return fmt.Sprintf("%s%02d:%02d", sign, sec/3600, sec%3600/60)
}

// checkDir checks that a directory of the watcher can be written: that a file can be saved
// in the directory itself, or in the nearest one above it that exists (the watcher creates
// the rest), as the watcher saves its own (store.Probe: written, synced to disk, removed).
func checkDir(name, what, dir string, dirErr error, env string) Check {
	if dirErr != nil {
		return Check{Name: name, Detail: dirErr.Error(), Fix: "set HOME, or " + env + ", to an absolute path"}
	}
	at, err := writable(dir)
	if err != nil {
		return Check{Name: name, Detail: what + " " + dir + " cannot be written: " + err.Error(), Fix: dirFix(at, env, err)}
	}
	if at == dir {
		if err := store.PrivateDir(dir); err != nil { // a symlink, another user's, writable by others
			return Check{Name: name, Detail: what + " " + dir + " is not private: " + strings.TrimPrefix(err.Error(), "store: "),
				Fix: "the watcher refuses it; follow the advice above"}
		}
	}
	saved := fmt.Sprintf("a %d-byte file was written, synced to disk and removed", store.ProbeSize)
	detail := what + " " + dir + " is writable: " + saved
	if at != dir {
		detail = what + " " + dir + " does not exist yet; in " + at + " " + saved + ", so the watcher can create it"
	}
	return Check{Name: name, OK: true, Detail: detail}
}

// dirFix is the fix when a file cannot be saved in the directory at: room on a full disk or
// over a quota, a higher file size limit, else a directory this user can write.
func dirFix(at, env string, err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		return "free space on the file system of " + at + " (df -h " + at + "), or raise this user's quota there: " +
			"until then the watcher cannot record what it does, and refuses to send keys"
	case errors.Is(err, syscall.EFBIG):
		return "raise the file size limit of the shell that starts cac-tmux (ulimit -f unlimited): no file can be written now"
	}
	return "make " + at + " a directory this user can write, or set " + env + " to one"
}

// probe writes and removes a file in a directory (store.Probe); tests replace it with one that
// fails as a full disk does.
var probe = store.Probe

// writable saves a file in dir, or in the nearest directory above it that exists, which it
// returns, and removes it (probe).
func writable(dir string) (string, error) {
	d := dir
	for {
		fi, err := os.Stat(d)
		switch {
		case err == nil && !fi.IsDir():
			return d, fmt.Errorf("%s is not a directory", d)
		case err == nil:
			return d, probe(d)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) || filepath.Dir(d) == d:
			return d, err
		}
		d = filepath.Dir(d)
	}
}

func checkWatcher(ctx context.Context, e Env) Check {
	pid, running := e.Watcher(ctx)
	lock := "no lock directory"
	if e.DirErr == nil {
		lock = "lock " + store.LockPath(e.LockDir, e.Socket)
		switch holder, held, err := store.Holder(e.LockDir, e.Socket); {
		case err != nil:
			lock += " unreadable: " + err.Error()
		case held:
			lock += fmt.Sprintf(" held by pid %d", holder)
		default:
			lock += " not held"
		}
	}
	if !running {
		return Check{Name: "watcher", Detail: "no watcher supervises " + e.Server + ", so no session is resumed (" + lock + ")",
			Fix: "start one in a spare pane or window of the server: " + e.WatchCommand + " (or, with the plugin, set -g @cac-tmux-autostart on)"}
	}
	return Check{Name: "watcher", OK: true, Detail: fmt.Sprintf("a watcher (pid %d) supervises %s (%s)", pid, e.Server, lock)}
}
