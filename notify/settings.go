package notify

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Settings are what a Notifier sends, where and how often: the [notify] table of the
// configuration, whose keys, help and rules are package config's registry (the rules that
// need this package's knowledge are its Check functions). Three channels, each off until
// configured, each with the events it receives.
type Settings struct {
	// Command is the hook: a program (an absolute path, or a name found on PATH) and its
	// arguments, run once per event with the CAC_* variables. Empty: no hook.
	Command []string
	// CommandEvents are the events the hook gets.
	CommandEvents []EventKind
	// URL is an ntfy-compatible topic URL (http or https) POSTed to once per event. Empty:
	// no POST.
	URL string
	// URLEvents are the events POSTed to URL.
	URLEvents []EventKind
	// TokenFile is an absolute path to a file holding a bearer token for URL (read at every
	// POST; surrounding white space is ignored). At most one of TokenFile and TokenEnv.
	TokenFile string
	// TokenEnv names an environment variable holding a bearer token for URL.
	TokenEnv string
	// Desktop is the desktop channel: notify-send (Linux and the BSDs) or osascript (macOS).
	Desktop Desktop
	// DesktopEvents are the events shown on the desktop.
	DesktopEvents []EventKind
	// Timeout bounds each delivery attempt on every channel (a hook is killed with its
	// process group when it runs longer).
	Timeout time.Duration
	// MinGap: an event of the same kind for the same pane within this time of the last one
	// sent is dropped; 0 turns it off.
	MinGap time.Duration
	// MaxPerHour caps the events sent for one pane in any hour; 0 means no cap.
	MaxPerHour int
}

// Desktop says whether desktop notifications are shown.
type Desktop string

// The values of desktop.
const (
	// DesktopOff: never.
	DesktopOff Desktop = "off"
	// DesktopAuto: when the program (notify-send, osascript) is on PATH at start.
	DesktopAuto Desktop = "auto"
	// DesktopOn: always; a missing program is a configuration error.
	DesktopOn Desktop = "on"
)

// Default returns the built-in settings: no hook, no URL, desktop "off", every channel's
// events defaultEvents() (all but skipped), timeout 10s, min_gap 1m, max_per_hour 12.
// With them nothing is ever sent.
func Default() Settings {
	return Settings{
		CommandEvents: defaultEvents(),
		URLEvents:     defaultEvents(),
		Desktop:       DesktopOff,
		DesktopEvents: defaultEvents(),
		Timeout:       10 * time.Second,
		MinGap:        time.Minute,
		MaxPerHour:    12,
	}
}

// CheckCommand is the rule of notify.command: "" when argv can be run as the hook (or is
// empty: no hook), else what is wrong and the fix. It looks at the machine as the watcher
// would: the program must be executable, on PATH when it is a bare name.
func CheckCommand(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	for _, a := range argv {
		if strings.ContainsRune(a, 0) {
			return "must not contain NUL characters"
		}
	}
	prog := argv[0]
	switch {
	case prog == "":
		return `the first element must be the program to run, like ["/usr/local/bin/on-claude"]`
	case !filepath.IsAbs(prog) && strings.ContainsRune(prog, '/'):
		return fmt.Sprintf("the program %q must be an absolute path or a name found on PATH (a relative path depends on the watcher's directory)", prog)
	}
	if _, err := exec.LookPath(prog); err != nil {
		if !filepath.IsAbs(prog) {
			return fmt.Sprintf("the program %q is not on PATH; give its absolute path", prog)
		}
		return fmt.Sprintf("the program %s cannot be run (%s); give the absolute path of an executable file", prog, cause(err))
	}
	return ""
}

// cause is err's innermost message: "permission denied", not the path again.
func cause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// CheckEvents is the rule of a channel's list of events (notify.command_events, …): "" when
// each is a known event listed once, else what is wrong and the fix.
func CheckEvents(list []string) string {
	for i, k := range list {
		if _, err := parseEventKind(k); err != nil {
			return fmt.Sprintf("unknown event %q; the events are %s", k, eventNames())
		}
		if slices.Contains(list[:i], k) {
			return fmt.Sprintf("%q is listed twice; list each event once", k)
		}
	}
	return ""
}

const wantURL = `must be an http:// or https:// URL like "https://ntfy.sh/my-topic"`

// CheckURL is the rule of notify.url: "" when raw is empty (no POST) or an http or https URL
// with a host, else what is wrong and the fix.
func CheckURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return wantURL
	}
	return ""
}

// CheckTokenFile is the rule of notify.token_file on its own: "" when path is empty or an
// absolute path to a readable file holding one word, else what is wrong and the fix. That it
// goes with notify.url, and not with token_env, is the table's rule.
func CheckTokenFile(path string) string {
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) {
		return "must be an absolute path"
	}
	if _, err := readToken(path, ""); err != nil {
		return err.Error()
	}
	return ""
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CheckTokenEnv is the rule of notify.token_env on its own: "" when name is empty or a
// variable of the watcher's environment holding one word, else what is wrong and the fix.
func CheckTokenEnv(name string) string {
	if name == "" {
		return ""
	}
	if !envName.MatchString(name) {
		return `must be the name of an environment variable, like "NTFY_TOKEN"`
	}
	if _, err := readToken("", name); err != nil {
		return err.Error()
	}
	return ""
}

// CheckDesktop is the rule of notify.desktop: "" for off, auto, and on where the desktop
// program is on PATH, else what is wrong and the fix.
func CheckDesktop(d Desktop) string {
	switch d {
	case DesktopOff, DesktopAuto:
		return ""
	case DesktopOn:
		if _, err := exec.LookPath(desktopProgram()); err != nil {
			return fmt.Sprintf(`"on" needs %s on PATH (%s); set "auto" to show notifications only where it is, or "off"`, desktopProgram(), desktopInstallHint())
		}
		return ""
	}
	return `must be "auto", "on" or "off"`
}

// readToken reads the bearer token from the file path or the environment variable env. The
// errors never contain the token.
func readToken(path, env string) (string, error) {
	var tok string
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return "", fmt.Errorf("cannot read %s: %v", path, err)
		}
		tok = strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("%s is empty; write the token in it", path)
		}
	} else {
		tok = strings.TrimSpace(os.Getenv(env))
		if tok == "" {
			return "", fmt.Errorf("$%s is not set or empty in the watcher's environment", env)
		}
	}
	if strings.ContainsFunc(tok, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
		return "", errors.New("the token contains white space or control characters; it must be one word")
	}
	return tok, nil
}

// goos is runtime.GOOS; the tests change it to drive the macOS desktop channel on Linux.
var goos = runtime.GOOS

// desktopProgram is the program of the desktop channel on this system.
func desktopProgram() string {
	if goos == "darwin" {
		return "osascript"
	}
	return "notify-send"
}

func desktopInstallHint() string {
	if goos == "darwin" {
		return "it comes with macOS"
	}
	return "Debian and Ubuntu: apt install libnotify-bin; Fedora: dnf install libnotify"
}
