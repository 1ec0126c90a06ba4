// Package service writes, checks and removes the user service that runs `cac-tmux watch`: a
// systemd user unit on Linux, a launchd agent on macOS (Render, Install, Uninstall, Inspect).
// It never enables, starts or stops it; the command prints the manager's command for that.
// Only ManagerState runs a program (systemctl or launchctl, read-only, through a Runner).
// Every file it writes carries Marker on its first lines; Install and Uninstall refuse a file
// without it.
package service

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
)

// Platform is a service manager.
type Platform string

// The service managers.
const (
	Systemd Platform = "systemd"
	Launchd Platform = "launchd"
)

// Names of the service.
const (
	// Unit is the systemd user unit's name.
	Unit = "cac-tmux.service"
	// Label is the launchd agent's label (and its file's name, with ".plist").
	Label = "com.github.cac-tmux"
	// Marker is on the first lines of every file Install writes.
	Marker = "cac-tmux-managed"
)

// ParsePlatform reads "systemd" or "launchd".
func ParsePlatform(s string) (Platform, error) {
	switch p := Platform(s); p {
	case Systemd, Launchd:
		return p, nil
	}
	return "", fmt.Errorf("service: platform %q: must be systemd or launchd", s)
}

// ForOS is the service manager of the operating system goos (runtime.GOOS): launchd on
// macOS, systemd elsewhere (Linux; the BSDs have no user services and are refused).
func ForOS(goos string) (Platform, error) {
	switch goos {
	case "darwin":
		return Launchd, nil
	case "linux":
		return Systemd, nil
	}
	return "", fmt.Errorf("service: no user service manager cac-tmux knows on %s; run cac-tmux watch from your own init scripts, or pass --platform systemd|launchd to see the files", goos)
}

// Spec is what the service runs.
type Spec struct {
	// Binary is the absolute path of the cac-tmux binary.
	Binary string
	// SocketName and SocketPath select the tmux server as -L and -S do; neither: the
	// default server. SocketPath must be absolute.
	SocketName, SocketPath string
	// Env are the service's environment variables, "KEY=VALUE", in order (Environment).
	Env []string
	// LogFile is where launchd writes the watcher's output (LogPath); unused by systemd,
	// whose journal takes it.
	LogFile string
}

// Args is the service's command line: BINARY watch --log-format console [-L NAME|-S PATH].
// The log is read by people in the journal or the log file, so it is the console format.
func (s Spec) Args() []string {
	args := []string{s.Binary, "watch", "--log-format", "console"}
	switch {
	case s.SocketName != "":
		args = append(args, "-L", s.SocketName)
	case s.SocketPath != "":
		args = append(args, "-S", s.SocketPath)
	}
	return args
}

// check refuses a Spec that cannot be written into a service file.
func (s Spec) check(p Platform) error {
	switch {
	case !filepath.IsAbs(s.Binary):
		return fmt.Errorf("service: binary %q: must be an absolute path", s.Binary)
	case s.SocketName != "" && s.SocketPath != "":
		return errors.New("service: give -L NAME or -S PATH, not both")
	case s.SocketPath != "" && !filepath.IsAbs(s.SocketPath):
		return fmt.Errorf("service: -S %q: must be an absolute path", s.SocketPath)
	case p == Systemd && strings.ContainsAny(s.Binary, `"'\`):
		return fmt.Errorf("service: binary %q: systemd refuses a program whose path holds a quote or a backslash; put cac-tmux in a plain directory, or pass --binary", s.Binary)
	case p == Launchd && !filepath.IsAbs(s.LogFile):
		return fmt.Errorf("service: log file %q: must be an absolute path", s.LogFile)
	}
	for _, v := range append(append(s.Args(), s.Env...), s.LogFile) {
		if strings.ContainsFunc(v, unicode.IsControl) {
			return fmt.Errorf("service: %q: control characters cannot be written into a service file", v)
		}
	}
	for _, kv := range s.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("service: environment %q: must be KEY=VALUE", kv)
		}
	}
	return nil
}

// Render is the service file of p for s.
func Render(p Platform, s Spec) ([]byte, error) {
	if err := s.check(p); err != nil {
		return nil, err
	}
	switch p {
	case Systemd:
		return []byte(unit(s)), nil
	case Launchd:
		return []byte(plist(s)), nil
	}
	return nil, fmt.Errorf("service: platform %q: must be systemd or launchd", p)
}

// markerLine is the marker and the server the file was written for, in a form that holds no
// space and no "--" (it sits in an XML comment too): "cac-tmux-managed socket-name=work".
func markerLine(s Spec) string {
	esc := func(v string) string { return strings.ReplaceAll(url.QueryEscape(v), "-", "%2D") }
	switch {
	case s.SocketName != "":
		return Marker + " socket-name=" + esc(s.SocketName)
	case s.SocketPath != "":
		return Marker + " socket-path=" + esc(s.SocketPath)
	}
	return Marker + " default-server"
}

// Server is the tmux server a service file of ours was written for, read from its marker:
// ok is false when the file has no marker (it is not ours).
func Server(content []byte) (socketName, socketPath string, ok bool) {
	for _, line := range strings.SplitN(string(content), "\n", 6) {
		_, rest, found := strings.Cut(line, Marker+" ")
		if !found {
			continue
		}
		field, _, _ := strings.Cut(rest, " ")
		k, v, _ := strings.Cut(field, "=")
		v, err := url.QueryUnescape(v)
		switch {
		case err != nil:
			return "", "", true
		case k == "socket-name":
			return v, "", true
		case k == "socket-path":
			return "", v, true
		}
		return "", "", true
	}
	return "", "", false
}

// Ours reports whether content was written by Install: its first lines carry the marker.
func Ours(content []byte) bool {
	_, _, ok := Server(content)
	return ok
}
