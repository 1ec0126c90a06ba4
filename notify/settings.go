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
	"strconv"
	"strings"
	"time"
)

// Settings are the notification settings: the [notify] table of the configuration file,
// field for field (the toml tags are its keys). Every field has a TOML type: durations are
// strings in Go's time.ParseDuration syntax ("10s"), like the [watch] table's.
//
// Three channels, each off until configured, each with the events it receives:
//
//	[notify]
//	command = ["/usr/local/bin/on-claude", "--quiet"]  # a program and its arguments, never a shell line
//	command_events = ["stopped", "resumed", "held", "failed", "again"]
//	url = "https://ntfy.sh/my-secret-topic"            # an ntfy-compatible topic URL
//	url_events = ["stopped", "resumed", "held", "failed", "again"]
//	token_file = "/home/me/.config/cac-tmux/ntfy-token" # or token_env = "NTFY_TOKEN"
//	desktop = "auto"                                     # auto, on or off
//	desktop_events = ["held", "failed"]
//	timeout = "10s"
//	min_gap = "1m"
//	max_per_hour = 12
type Settings struct {
	// Command is the hook: a program (an absolute path, or a name found on PATH) and its
	// arguments, run once per event with the CAC_* variables. Empty: no hook.
	Command []string `toml:"command"`
	// CommandEvents are the events the hook gets.
	CommandEvents []EventKind `toml:"command_events"`
	// URL is an ntfy-compatible topic URL (http or https) POSTed to once per event. Empty:
	// no POST.
	URL string `toml:"url"`
	// URLEvents are the events POSTed to URL.
	URLEvents []EventKind `toml:"url_events"`
	// TokenFile is an absolute path to a file holding a bearer token for URL (read at every
	// POST; surrounding white space is ignored). At most one of TokenFile and TokenEnv.
	TokenFile string `toml:"token_file"`
	// TokenEnv names an environment variable holding a bearer token for URL.
	TokenEnv string `toml:"token_env"`
	// Desktop is the desktop channel: notify-send (Linux and the BSDs) or osascript (macOS).
	Desktop Desktop `toml:"desktop"`
	// DesktopEvents are the events shown on the desktop.
	DesktopEvents []EventKind `toml:"desktop_events"`
	// Timeout bounds each delivery attempt on every channel (a hook is killed with its
	// process group when it runs longer); from 1s to 10m.
	Timeout string `toml:"timeout"`
	// MinGap: an event of the same kind for the same pane within this time of the last one
	// sent is dropped; "0s" turns it off.
	MinGap string `toml:"min_gap"`
	// MaxPerHour caps the events sent for one pane in any hour; 0 means no cap.
	MaxPerHour int `toml:"max_per_hour"`
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

// Limits of the validation.
const (
	minTimeout = time.Second
	maxTimeout = 10 * time.Minute
)

// Default returns the built-in settings: no hook, no URL, desktop "off", every channel's
// events defaultEvents() (all but skipped), timeout "10s", min_gap "1m", max_per_hour 12.
// With them nothing is ever sent.
func Default() Settings {
	return Settings{
		CommandEvents: defaultEvents(),
		URLEvents:     defaultEvents(),
		Desktop:       DesktopOff,
		DesktopEvents: defaultEvents(),
		Timeout:       "10s",
		MinGap:        "1m",
		MaxPerHour:    12,
	}
}

// Keys returns the full names of the keys of [notify] in the order Validate checks them,
// such as "notify.command". The slice is the caller's.
func Keys() []string {
	keys := make([]string, len(rules))
	for i, r := range rules {
		keys[i] = "notify." + r.key
	}
	return keys
}

// Error is a notification setting that breaks its rule. It maps onto config.Error: the
// configuration file adds where the key is.
type Error struct {
	Key string // "notify.url"
	Msg string // what is wrong and the fix
	Got string // the value as it would be written in the file, "" when none
}

// Error reads like `notify.timeout: must be a duration like "10s" (got "soon")`.
func (e *Error) Error() string {
	s := e.Key + ": " + e.Msg
	if e.Got != "" {
		s += " (got " + e.Got + ")"
	}
	return s
}

// rule is the rule of one key: it returns what is wrong with the value and the fix, "" when
// nothing, and the value as written.
type rule struct {
	key   string
	check func(s *Settings) (msg, got string)
}

// rules are the keys of [notify] in the order Validate checks them.
var rules = []rule{
	{"command", func(s *Settings) (string, string) { return checkCommand(s.Command), tomlStrings(s.Command) }},
	{"command_events", func(s *Settings) (string, string) { return checkEvents(s.CommandEvents) }},
	{"url", func(s *Settings) (string, string) { return checkURL(s.URL), strconv.Quote(s.URL) }},
	{"url_events", func(s *Settings) (string, string) { return checkEvents(s.URLEvents) }},
	{"token_file", func(s *Settings) (string, string) { return checkTokenFile(s), strconv.Quote(s.TokenFile) }},
	{"token_env", func(s *Settings) (string, string) { return checkTokenEnv(s), strconv.Quote(s.TokenEnv) }},
	{"desktop", func(s *Settings) (string, string) { return checkDesktop(s.Desktop), strconv.Quote(string(s.Desktop)) }},
	{"desktop_events", func(s *Settings) (string, string) { return checkEvents(s.DesktopEvents) }},
	{"timeout", func(s *Settings) (string, string) { return checkTimeout(s.Timeout), strconv.Quote(s.Timeout) }},
	{"min_gap", func(s *Settings) (string, string) { return checkMinGap(s.MinGap), strconv.Quote(s.MinGap) }},
	{"max_per_hour", func(s *Settings) (string, string) {
		if s.MaxPerHour < 0 {
			return "must not be negative; 0 means no cap", strconv.Itoa(s.MaxPerHour)
		}
		return "", ""
	}},
}

// Validate checks every setting by its rule and returns nil or the *Error of the first key,
// in Keys order, that breaks its rule. It looks at the machine as the watcher would: the
// hook's program must be executable (on PATH when it is a bare name), the token file
// readable and not empty, the token variable set, and with desktop "on" the desktop program
// present.
func (s Settings) Validate() error {
	for _, r := range rules {
		if msg, got := r.check(&s); msg != "" {
			return &Error{Key: "notify." + r.key, Msg: msg, Got: got}
		}
	}
	return nil
}

func checkCommand(argv []string) string {
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

// checkEvents checks a list of events; it also returns the list as written.
func checkEvents(list []EventKind) (string, string) {
	names := make([]string, len(list))
	for i, k := range list {
		names[i] = string(k)
	}
	got := tomlStrings(names)
	for i, k := range list {
		if _, err := parseEventKind(string(k)); err != nil {
			return fmt.Sprintf("unknown event %q; the events are %s", k, eventNames()), got
		}
		if slices.Contains(list[:i], k) {
			return fmt.Sprintf("%q is listed twice; list each event once", k), got
		}
	}
	return "", got
}

const wantURL = `must be an http:// or https:// URL like "https://ntfy.sh/my-topic"`

func checkURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return wantURL
	}
	return ""
}

func checkTokenFile(s *Settings) string {
	switch {
	case s.TokenFile == "":
		return ""
	case s.URL == "":
		return "is used only with notify.url; set url or remove token_file"
	case !filepath.IsAbs(s.TokenFile):
		return "must be an absolute path"
	}
	_, err := readToken(s.TokenFile, "")
	if err != nil {
		return err.Error()
	}
	return ""
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func checkTokenEnv(s *Settings) string {
	switch {
	case s.TokenEnv == "":
		return ""
	case s.TokenFile != "":
		return "set token_file or token_env, not both"
	case s.URL == "":
		return "is used only with notify.url; set url or remove token_env"
	case !envName.MatchString(s.TokenEnv):
		return `must be the name of an environment variable, like "NTFY_TOKEN"`
	}
	if _, err := readToken("", s.TokenEnv); err != nil {
		return err.Error()
	}
	return ""
}

func checkDesktop(d Desktop) string {
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

func checkTimeout(s string) string {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return `must be a duration like "10s"`
	case d < minTimeout || d > maxTimeout:
		return "must be from 1s to 10m"
	}
	return ""
}

func checkMinGap(s string) string {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return `must be a duration like "1m"`
	case d < 0:
		return `must not be negative; "0s" turns it off`
	}
	return ""
}

// tomlStrings writes a list of strings as a TOML array: ["a", "b"].
func tomlStrings(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
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
