package config

import (
	"time"

	"github.com/cac-tmux/cac-tmux/notify"
)

// notifyKey is a key of [notify].
func notifyKey[T any](name, want, help string, k *kind[T], at func(*notify.Settings) *T, rule func(T) string) setting {
	return newKey(meta{table: "notify", name: name, want: want, help: help}, k,
		func(c *Config) *T { return at(&c.Notify) }, rule)
}

// eventsKey is a key of [notify] holding a channel's events (notify.CheckEvents).
func eventsKey(name, help string, at func(*notify.Settings) *[]notify.EventKind) setting {
	return accessKey(meta{table: "notify", name: name, want: `an array of events like ["stopped", "resumed"]`, help: help},
		listKind,
		func(c *Config) []string {
			out := make([]string, len(*at(&c.Notify)))
			for i, k := range *at(&c.Notify) {
				out[i] = string(k)
			}
			return out
		},
		func(c *Config, v []string) {
			ks := make([]notify.EventKind, len(v))
			for i, s := range v {
				ks[i] = notify.EventKind(s)
			}
			*at(&c.Notify) = ks
		}, notify.CheckEvents)
}

// notifyTable is [notify]: notify.Settings, its defaults notify.Default().
var notifyTable = table{name: "notify", help: []string{
	"Notifications of each pane's events: stopped, resumed, held, failed, again (the limit",
	"still holds after the keys) and skipped. Each channel is optional; events per channel."},
	keys: []setting{
		notifyKey("command", `an array like ["/usr/local/bin/on-claude", "--flag"]`,
			"a program run once per event with CAC_EVENT, CAC_PANE, CAC_TARGET, CAC_AGENT, CAC_KIND, CAC_RESET, CAC_STATE, CAC_NOTE; never a shell string",
			listKind, func(s *notify.Settings) *[]string { return &s.Command }, notify.CheckCommand),
		eventsKey("command_events", "the events the command gets", func(s *notify.Settings) *[]notify.EventKind { return &s.CommandEvents }),
		notifyKey("url", `a URL like "https://ntfy.sh/my-topic"`, "an ntfy-compatible URL POSTed to once per event",
			textKind, func(s *notify.Settings) *string { return &s.URL }, notify.CheckURL),
		eventsKey("url_events", "the events POSTed to url", func(s *notify.Settings) *[]notify.EventKind { return &s.URLEvents }),
		notifyKey("token_file", `an absolute path like "/home/me/.config/ntfy-token"`, "a file holding a bearer token for url (never logged)",
			textKind, func(s *notify.Settings) *string { return &s.TokenFile }, nil),
		notifyKey("token_env", `a variable name like "NTFY_TOKEN"`, "an environment variable holding a bearer token for url",
			textKind, func(s *notify.Settings) *string { return &s.TokenEnv }, nil),
		accessKey(meta{table: "notify", name: "desktop", want: `"off", "auto" or "on"`, help: "desktop notifications (notify-send, osascript): auto when the program is there"},
			textKind, func(c *Config) string { return string(c.Notify.Desktop) }, func(c *Config, v string) { c.Notify.Desktop = notify.Desktop(v) },
			func(v string) string { return notify.CheckDesktop(notify.Desktop(v)) }),
		eventsKey("desktop_events", "the events shown on the desktop", func(s *notify.Settings) *[]notify.EventKind { return &s.DesktopEvents }),
		notifyKey("timeout", `a duration like "10s"`, "the longest one delivery may take, on every channel (1s to 10m)",
			durationKind, func(s *notify.Settings) *time.Duration { return &s.Timeout }, func(d time.Duration) string {
				if d < time.Second || d > 10*time.Minute {
					return "must be from 1s to 10m"
				}
				return ""
			}),
		notifyKey("min_gap", `a duration like "1m"`, "the same event of the same pane within this time is not sent again",
			durationKind, func(s *notify.Settings) *time.Duration { return &s.MinGap }, func(d time.Duration) string {
				if d < 0 {
					return `must not be negative; "0s" turns it off`
				}
				return ""
			}),
		notifyKey("max_per_hour", "an integer", "at most this many events per pane in an hour; 0: no cap",
			intKind, func(s *notify.Settings) *int { return &s.MaxPerHour }, func(n int) string {
				if n < 0 {
					return "must not be negative; 0 means no cap"
				}
				return ""
			}),
	},
	check: checkTokens,
}

// checkTokens is [notify]'s rule between keys: a token goes with url, from a file or a
// variable, not both, and must be readable there (notify.CheckTokenFile, CheckTokenEnv).
func checkTokens(c *Config) (key, msg, got string) {
	n := c.Notify
	if n.TokenFile != "" {
		msg = notify.CheckTokenFile(n.TokenFile)
		if n.URL == "" {
			msg = "is used only with notify.url; set url or remove token_file"
		}
		if msg != "" {
			return "notify.token_file", msg, tomlString(n.TokenFile)
		}
	}
	if n.TokenEnv != "" {
		msg = notify.CheckTokenEnv(n.TokenEnv)
		if n.URL == "" {
			msg = "is used only with notify.url; set url or remove token_env"
		}
		if n.TokenFile != "" {
			msg = "set token_file or token_env, not both"
		}
		if msg != "" {
			return "notify.token_env", msg, tomlString(n.TokenEnv)
		}
	}
	return "", "", ""
}
