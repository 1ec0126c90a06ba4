package service

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Diff lists the lines of have that want lacks ("- line") and the lines of want that have
// lacks ("+ line"), in file order: what a reinstall would change. Lines are compared as a
// set, which is enough for files of a few dozen distinct lines.
func Diff(have, want []byte) []string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	var out []string
	for _, l := range h {
		if !slices.Contains(w, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range w {
		if !slices.Contains(h, l) {
			out = append(out, "+ "+l)
		}
	}
	return out
}

// Runner runs a program and returns its standard output; the error of a program that ran
// and failed is an *exec.ExitError, of one not found exec.ErrNotFound.
type Runner func(ctx context.Context, name string, args ...string) (string, error)

// Exec is the Runner that runs programs.
func Exec(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	return string(out), err
}

// ManagerState asks the service manager about the service, read-only, and says what it
// answered in a few words: "enabled, active (running)" from systemctl --user show, "loaded,
// running" from launchctl print. A manager that is not installed or cannot be reached is
// said so; it is not an error.
func ManagerState(ctx context.Context, p Platform, uid int, run Runner) string {
	if p == Launchd {
		return launchdState(ctx, uid, run)
	}
	out, err := run(ctx, "systemctl", "--user", "show", Unit, "--property=LoadState,UnitFileState,ActiveState,SubState")
	if err != nil {
		return unreachable("systemctl", err)
	}
	props := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			props[k] = v
		}
	}
	if props["LoadState"] == "not-found" {
		return "systemd does not know " + Unit + " (run systemctl --user daemon-reload after installing)"
	}
	enabled := props["UnitFileState"]
	if enabled == "" {
		enabled = "unknown"
	}
	return enabled + ", " + props["ActiveState"] + " (" + props["SubState"] + ")"
}

// launchdState is ManagerState for launchd: launchctl print fails for an agent not loaded.
func launchdState(ctx context.Context, uid int, run Runner) string {
	out, err := run(ctx, "launchctl", "print", "gui/"+strconv.Itoa(uid)+"/"+Label)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return "not loaded"
	}
	if err != nil {
		return unreachable("launchctl", err)
	}
	state := "loaded"
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), " = ")
		if ok && (k == "state" || k == "last exit code") {
			state += ", " + k + " " + v
		}
	}
	return state
}

// unreachable says why the manager gave no answer.
func unreachable(prog string, err error) string {
	var exit *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return prog + " not found: the service's state is unknown"
	case errors.As(err, &exit) && len(exit.Stderr) > 0:
		line, _, _ := strings.Cut(strings.TrimSpace(string(exit.Stderr)), "\n")
		return prog + " failed: " + line
	}
	return prog + " failed: " + err.Error()
}
