package config

import (
	"errors"

	"github.com/cac-tmux/cac-tmux/notify"
)

// [notify] is notify.Settings: the keys, their defaults (notify.Default) and their rules
// (notify.Settings.Validate, applied as the table's rule) are the notify package's; this
// table only says where each value goes.

// eventsKey is a key holding a list of events.
func eventsKey(name, help string, at func(*Config) *[]notify.EventKind) setting {
	return accessKey(meta{table: "notify", name: name, want: `an array of events like ["stopped", "resumed"]`, help: help},
		listKind,
		func(c *Config) []string {
			out := make([]string, len(*at(c)))
			for i, k := range *at(c) {
				out[i] = string(k)
			}
			return out
		},
		func(c *Config, v []string) {
			ks := make([]notify.EventKind, len(v))
			for i, s := range v {
				ks[i] = notify.EventKind(s)
			}
			*at(c) = ks
		}, nil)
}

func notifyText(name, want, help string, at func(*Config) *string) setting {
	return newKey(meta{table: "notify", name: name, want: want, help: help}, textKind, at, nil)
}

// notifyTable is [notify].
var notifyTable = table{name: "notify", help: []string{
	"Notifications of each pane's events: stopped, resumed, held, failed, again (the limit",
	"still holds after the keys) and skipped. Each channel is optional; events per channel."},
	keys: []setting{
		newKey(meta{table: "notify", name: "command", want: `an array like ["/usr/local/bin/on-claude", "--flag"]`,
			help: "a program run once per event with CAC_EVENT, CAC_PANE, CAC_TARGET, CAC_KIND, CAC_RESET, CAC_STATE, CAC_NOTE; never a shell string"},
			listKind, func(c *Config) *[]string { return &c.Notify.Command }, nil),
		eventsKey("command_events", "the events the command gets", func(c *Config) *[]notify.EventKind { return &c.Notify.CommandEvents }),
		notifyText("url", `a URL like "https://ntfy.sh/my-topic"`, "an ntfy-compatible URL POSTed to once per event", func(c *Config) *string { return &c.Notify.URL }),
		eventsKey("url_events", "the events POSTed to url", func(c *Config) *[]notify.EventKind { return &c.Notify.URLEvents }),
		notifyText("token_file", `an absolute path like "/home/me/.config/ntfy-token"`, "a file holding a bearer token for url (never logged)", func(c *Config) *string { return &c.Notify.TokenFile }),
		notifyText("token_env", `a variable name like "NTFY_TOKEN"`, "an environment variable holding a bearer token for url", func(c *Config) *string { return &c.Notify.TokenEnv }),
		accessKey(meta{table: "notify", name: "desktop", want: `"off", "auto" or "on"`, help: "desktop notifications (notify-send, osascript): auto when the program is there"},
			textKind, func(c *Config) string { return string(c.Notify.Desktop) }, func(c *Config, v string) { c.Notify.Desktop = notify.Desktop(v) }, nil),
		eventsKey("desktop_events", "the events shown on the desktop", func(c *Config) *[]notify.EventKind { return &c.Notify.DesktopEvents }),
		notifyText("timeout", `a duration like "10s"`, "the longest one delivery may take, on every channel", func(c *Config) *string { return &c.Notify.Timeout }),
		notifyText("min_gap", `a duration like "1m"`, "the same event of the same pane within this time is not sent again", func(c *Config) *string { return &c.Notify.MinGap }),
		newKey(meta{table: "notify", name: "max_per_hour", want: "an integer", help: "at most this many events per pane in an hour; 0: no cap"},
			intKind, func(c *Config) *int { return &c.Notify.MaxPerHour }, nil),
	},
	check: func(c *Config) (key, msg, got string) {
		var e *notify.Error
		if errors.As(c.Notify.Validate(), &e) {
			return e.Key, e.Msg, e.Got
		}
		return "", "", ""
	},
}
