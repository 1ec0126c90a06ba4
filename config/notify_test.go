package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/notify"
)

// TestNotifyRules: each rule of [notify], its exact message, naming the key and the fix.
func TestNotifyRules(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	empty := filepath.Join(dir, "empty")
	notExec := filepath.Join(dir, "script.sh")
	for f, body := range map[string]string{token: "tk_1\n", empty: " \n", notExec: "#!/bin/sh\n"} {
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("CAC_TEST_TOKEN", "tk_2")
	t.Setenv("CAC_TEST_EMPTY", "")
	const url = "https://ntfy.example/topic"
	cases := []struct {
		name string
		edit func(s *notify.Settings)
		want string // "" valid
	}{
		{"command by name on PATH", func(s *notify.Settings) { s.Command = []string{"true", "--x"} }, ""},
		{"command absolute", func(s *notify.Settings) { s.Command = []string{"/bin/sh", "-c", "exit 0"} }, ""},
		{"command empty program", func(s *notify.Settings) { s.Command = []string{"", "x"} },
			`notify.command: the first element must be the program to run, like ["/usr/local/bin/on-claude"] (got ["", "x"])`},
		{"command not on PATH", func(s *notify.Settings) { s.Command = []string{"notfy-me"} },
			`notify.command: the program "notfy-me" is not on PATH; give its absolute path (got ["notfy-me"])`},
		{"command relative", func(s *notify.Settings) { s.Command = []string{"./bin/hook"} },
			`notify.command: the program "./bin/hook" must be an absolute path or a name found on PATH (a relative path depends on the watcher's directory) (got ["./bin/hook"])`},
		{"command not executable", func(s *notify.Settings) { s.Command = []string{notExec} },
			`notify.command: the program ` + notExec + ` cannot be run (permission denied); give the absolute path of an executable file (got ["` + notExec + `"])`},
		{"command missing file", func(s *notify.Settings) { s.Command = []string{"/nonexistent/hook"} },
			`notify.command: the program /nonexistent/hook cannot be run (no such file or directory); give the absolute path of an executable file (got ["/nonexistent/hook"])`},
		{"command NUL", func(s *notify.Settings) { s.Command = []string{"/bin/sh", "a\x00b"} },
			`notify.command: must not contain NUL characters (got ["/bin/sh", "a\u0000b"])`},
		{"events unknown", func(s *notify.Settings) { s.CommandEvents = []notify.EventKind{"stopped", "stoped"} },
			`notify.command_events: unknown event "stoped"; the events are stopped, resumed, held, failed, again, skipped (got ["stopped", "stoped"])`},
		{"events twice", func(s *notify.Settings) { s.DesktopEvents = []notify.EventKind{"held", "failed", "held"} },
			`notify.desktop_events: "held" is listed twice; list each event once (got ["held", "failed", "held"])`},
		{"events none", func(s *notify.Settings) { s.URLEvents = []notify.EventKind{} }, ""},
		{"url", func(s *notify.Settings) { s.URL = "http://127.0.0.1:8080/cac" }, ""},
		{"url scheme", func(s *notify.Settings) { s.URL = "ntfy.sh/topic" },
			`notify.url: must be an http:// or https:// URL like "https://ntfy.sh/my-topic" (got "ntfy.sh/topic")`},
		{"url ftp", func(s *notify.Settings) { s.URL = "ftp://host/x" },
			`notify.url: must be an http:// or https:// URL like "https://ntfy.sh/my-topic" (got "ftp://host/x")`},
		{"url no host", func(s *notify.Settings) { s.URL = "https:///x" },
			`notify.url: must be an http:// or https:// URL like "https://ntfy.sh/my-topic" (got "https:///x")`},
		{"token_file", func(s *notify.Settings) { s.URL, s.TokenFile = url, token }, ""},
		{"token_file without url", func(s *notify.Settings) { s.TokenFile = token },
			`notify.token_file: is used only with notify.url; set url or remove token_file (got "` + token + `")`},
		{"token_file relative", func(s *notify.Settings) { s.URL, s.TokenFile = url, "token" },
			`notify.token_file: must be an absolute path (got "token")`},
		{"token_file missing", func(s *notify.Settings) { s.URL, s.TokenFile = url, dir+"/nope" },
			`notify.token_file: cannot read ` + dir + `/nope: no such file or directory (got "` + dir + `/nope")`},
		{"token_file empty", func(s *notify.Settings) { s.URL, s.TokenFile = url, empty },
			`notify.token_file: ` + empty + ` is empty; write the token in it (got "` + empty + `")`},
		{"token_env", func(s *notify.Settings) { s.URL, s.TokenEnv = url, "CAC_TEST_TOKEN" }, ""},
		{"token_env and token_file", func(s *notify.Settings) { s.URL, s.TokenFile, s.TokenEnv = url, token, "CAC_TEST_TOKEN" },
			`notify.token_env: set token_file or token_env, not both (got "CAC_TEST_TOKEN")`},
		{"token_env without url", func(s *notify.Settings) { s.TokenEnv = "CAC_TEST_TOKEN" },
			`notify.token_env: is used only with notify.url; set url or remove token_env (got "CAC_TEST_TOKEN")`},
		{"token_env bad name", func(s *notify.Settings) { s.URL, s.TokenEnv = url, "$NTFY_TOKEN" },
			`notify.token_env: must be the name of an environment variable, like "NTFY_TOKEN" (got "$NTFY_TOKEN")`},
		{"token_env unset", func(s *notify.Settings) { s.URL, s.TokenEnv = url, "CAC_TEST_EMPTY" },
			`notify.token_env: $CAC_TEST_EMPTY is not set or empty in the watcher's environment (got "CAC_TEST_EMPTY")`},
		{"desktop auto", func(s *notify.Settings) { s.Desktop = "auto" }, ""},
		{"desktop bool-like", func(s *notify.Settings) { s.Desktop = "true" },
			`notify.desktop: must be "auto", "on" or "off" (got "true")`},
		{"desktop on without notify-send", func(s *notify.Settings) { s.Desktop = "on" },
			`notify.desktop: "on" needs notify-send on PATH (Debian and Ubuntu: apt install libnotify-bin; Fedora: dnf install libnotify); set "auto" to show notifications only where it is, or "off" (got "on")`},
		{"timeout short", func(s *notify.Settings) { s.Timeout = 500 * time.Millisecond }, `notify.timeout: must be from 1s to 10m (got "500ms")`},
		{"timeout long", func(s *notify.Settings) { s.Timeout = time.Hour }, `notify.timeout: must be from 1s to 10m (got "1h")`},
		{"min_gap off", func(s *notify.Settings) { s.MinGap = 0 }, ""},
		{"min_gap negative", func(s *notify.Settings) { s.MinGap = -time.Minute }, `notify.min_gap: must not be negative; "0s" turns it off (got "-1m")`},
		{"max_per_hour", func(s *notify.Settings) { s.MaxPerHour = -1 }, `notify.max_per_hour: must not be negative; 0 means no cap (got -1)`},
		{"first key wins", func(s *notify.Settings) { s.Timeout, s.URL = 0, "y" },
			`notify.url: must be an http:// or https:// URL like "https://ntfy.sh/my-topic" (got "y")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Default()
			c.edit(&cfg.Notify)
			err := cfg.validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Validate: %v, want nil", err)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Errorf("Validate:\n got %v\nwant %s", err, c.want)
			}
			var e *Error
			if c.want != "" && !errors.As(err, &e) {
				t.Errorf("%T is not a *Error", err)
			}
		})
	}
}
