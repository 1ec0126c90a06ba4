package config

import (
	"strings"
	"testing"
	"time"
)

// [phone] from the file, with its rules: off by default, links valid for an hour, replies
// of 500 characters; each mistake names the key and the fix, and the rules between keys
// (listen needs url and notify.url; a listen address beyond loopback needs public) are
// checked as a table's rule.
func TestParsePhone(t *testing.T) {
	if d := Default().Phone; d != (Phone{LinkTTL: time.Hour, PromptMax: 500}) || d.On() {
		t.Errorf("Default().Phone = %+v, on %v; want off", d, d.On())
	}
	const ntfy = "[notify]\nurl = \"https://ntfy.sh/t\"\n"
	c, err := parseNamed("cfg.toml", []byte(ntfy+"[phone]\nlisten = \"127.0.0.1:8765\"\nurl = \"https://box.tail1234.ts.net\"\nlink_ttl = \"30m\"\nscreen = true\nprompts = true\nprompt_max = 4000\n"))
	want := Phone{Listen: "127.0.0.1:8765", URL: "https://box.tail1234.ts.net", LinkTTL: 30 * time.Minute, Screen: true, Prompts: true, PromptMax: 4000}
	if err != nil || c.Phone != want || !c.Phone.On() {
		t.Fatalf("parseNamed = %+v (on %v), %v; want %+v, on", c.Phone, c.Phone.On(), err, want)
	}
	for _, ok := range []string{
		ntfy + "[phone]\nlisten = \"[::1]:1\"\nurl = \"http://localhost:8765/cac\"",
		ntfy + "[phone]\nlisten = \"localhost:8765\"\nurl = \"https://box.example/\"",
		ntfy + "[phone]\nlisten = \"0.0.0.0:8765\"\npublic = true\nurl = \"https://box.example\"",
		ntfy + "[phone]\nlisten = \"box.lan:8765\"\nurl = \"https://box.example\"", // a name is resolved when the watcher starts
		"[phone]\nlink_ttl = \"24h\"\nprompt_max = 1\nscreen = true",
	} {
		if _, err := parseNamed("cfg.toml", []byte(ok)); err != nil {
			t.Errorf("parseNamed(%q) = %v", ok, err)
		}
	}
	for _, tc := range []struct{ data, want string }{
		{"[phone]\nlisten = \"8765\"", `phone.listen: must be HOST:PORT like "127.0.0.1:8765", with a port from 1 to 65535; "" is off (cfg.toml line 2, got "8765")`},
		{"[phone]\nlisten = \"127.0.0.1:0\"", `phone.listen: must be HOST:PORT like "127.0.0.1:8765", with a port from 1 to 65535; "" is off (cfg.toml line 2, got "127.0.0.1:0")`},
		{"[phone]\nlisten = 8765", `phone.listen: must be an address like "127.0.0.1:8765" (cfg.toml line 2, got 8765)`},
		{"[phone]\npublic = \"true\"", `phone.public: must be true or false, without quotes (cfg.toml line 2, got "true")`},
		{"[phone]\nurl = \"http://box.example\"", `phone.url: must be an https:// URL like "https://box.tail1234.ts.net" (http:// only to localhost), without a query (cfg.toml line 2, got "http://box.example")`},
		{"[phone]\nurl = \"https://box.example/?k=v\"", `phone.url: must be an https:// URL like "https://box.tail1234.ts.net" (http:// only to localhost), without a query (cfg.toml line 2, got "https://box.example/?k=v")`},
		{"[phone]\nlink_ttl = \"30s\"", `phone.link_ttl: must be from 1m to 24h (cfg.toml line 2, got "30s")`},
		{"[phone]\nlink_ttl = \"25h\"", `phone.link_ttl: must be from 1m to 24h (cfg.toml line 2, got "25h")`},
		{"[phone]\nprompt_max = 0", `phone.prompt_max: must be from 1 to 4000 (cfg.toml line 2, got 0)`},
		{"[phone]\nprompt_max = 4001", `phone.prompt_max: must be from 1 to 4000 (cfg.toml line 2, got 4001)`},
		{"[phone]\nprompt_max = \"500\"", `phone.prompt_max: must be an integer like 500, without quotes (cfg.toml line 2, got "500")`},
		{ntfy + "[phone]\nlisten = \"127.0.0.1:8765\"", `phone.url: must be set with listen: the public base URL at which your tunnel reaches it, like "https://box.tail1234.ts.net" (cfg.toml, got "")`},
		{"[phone]\nlisten = \"127.0.0.1:8765\"\nurl = \"https://box.example\"", `phone.listen: needs notify.url (the ntfy topic the buttons come with); set notify.url or remove listen (cfg.toml line 2, got "127.0.0.1:8765")`},
		{ntfy + "[phone]\nlisten = \"0.0.0.0:8765\"\nurl = \"https://box.example\"", `phone.listen: is not a loopback address, so it would be reachable from other hosts; listen on "127.0.0.1:PORT" behind your tunnel, or set public = true (cfg.toml line 4, got "0.0.0.0:8765")`},
		{ntfy + "[phone]\nlisten = \":8765\"\nurl = \"https://box.example\"", `phone.listen: is not a loopback address, so it would be reachable from other hosts; listen on "127.0.0.1:PORT" behind your tunnel, or set public = true (cfg.toml line 4, got ":8765")`},
	} {
		if _, err := parseNamed("cfg.toml", []byte(tc.data)); err == nil || err.Error() != tc.want {
			t.Errorf("parseNamed(%q) = %v\nwant %s", tc.data, err, tc.want)
		}
	}
}

// The keys of [phone] are set by tmux options too, by the same rules.
func TestPhoneOptions(t *testing.T) {
	e, err := Resolve(File{}, []Option{{Name: "@cac-tmux-phone-link-ttl", Value: "10m"}, {Name: "@cac-tmux-phone-screen", Value: "true"}}, nil)
	if err != nil || e.Config.Phone.LinkTTL != 10*time.Minute || !e.Config.Phone.Screen {
		t.Errorf("Resolve = %+v, %v", e.Config.Phone, err)
	}
	_, err = Resolve(File{}, []Option{{Name: "@cac-tmux-phone-prompt-max", Value: "9000"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "@cac-tmux-phone-prompt-max: must be from 1 to 4000") {
		t.Errorf("Resolve(prompt-max 9000) = %v", err)
	}
}
