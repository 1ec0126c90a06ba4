package config

import (
	"reflect"
	"testing"
	"time"
)

// [servers] and [hosts] from the file, with their rules: a boolean written as text is refused
// with the fix, a host that ssh would read as an option or as two words is refused, and the
// defaults hold when the tables are left out.
func TestParseServersAndHosts(t *testing.T) {
	c, err := parseNamed("cfg.toml", []byte("[servers]\nall = true\nsockets = [\"/srv/t/work\"]\n[hosts]\nnames = [\"dev1\", \"me@box\"]\ncommand = \"~/go/bin/cac-tmux\"\ntimeout = \"3s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Servers = Servers{All: true, Sockets: []string{"/srv/t/work"}}
	want.Hosts = Hosts{Names: []string{"dev1", "me@box"}, Command: "~/go/bin/cac-tmux", Timeout: 3 * time.Second, SSH: []string{"ssh"}}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("parseNamed = %+v, want %+v", c, want)
	}
	if d := Default(); d.Servers.All || d.Hosts.Command != "cac-tmux" || d.Hosts.Timeout != 10*time.Second || d.Hosts.Names != nil {
		t.Errorf("defaults: %+v %+v", d.Servers, d.Hosts)
	}
	for _, tc := range []struct{ data, want string }{
		{"[servers]\nall = \"true\"", `servers.all: must be true or false, without quotes (cfg.toml line 2, got "true")`},
		{"[servers]\nall = 1", `servers.all: must be true or false (cfg.toml line 2, got 1)`},
		{"[hosts]\nnames = [\"-oProxyCommand=x\"]", `hosts.names: must be an ssh host like "dev1" or "me@box": letters, digits and . _ - @ : [ ] %, not starting with - ("-oProxyCommand=x" is not) (cfg.toml line 2, got ["-oProxyCommand=x"])`},
		{"[hosts]\nnames = [\"dev 1\"]", `hosts.names: must be an ssh host like "dev1" or "me@box": letters, digits and . _ - @ : [ ] %, not starting with - ("dev 1" is not) (cfg.toml line 2, got ["dev 1"])`},
		{"[hosts]\ncommand = \"\"", `hosts.command: must not be empty; "cac-tmux" finds it on the remote PATH (cfg.toml line 2, got "")`},
		{"[hosts]\nssh = []", `hosts.ssh: must name the ssh program first, like ["ssh"] (cfg.toml line 2, got [])`},
		{"[hosts]\ntimeout = \"10ms\"", `hosts.timeout: must be at least 1s (cfg.toml line 2, got "10ms")`},
	} {
		if _, err := parseNamed("cfg.toml", []byte(tc.data)); err == nil || err.Error() != tc.want {
			t.Errorf("parseNamed(%q) = %v\nwant %s", tc.data, err, tc.want)
		}
	}
}

// --all-servers is the flag of servers.all: given alone it is true, and Resolve reads it by
// the key's rule.
func TestAllServersFlag(t *testing.T) {
	var f KeyFlag
	for _, k := range KeyFlags() {
		if k.Key == "servers.all" {
			f = k
		}
	}
	if f.Name != "all-servers" || f.Bare != "true" || f.Default != "false" || f.Value.Type() != "bool" {
		t.Fatalf("the flag of servers.all: %+v", f)
	}
	if err := f.Value.Set(f.Bare); err != nil {
		t.Fatal(err)
	}
	e, err := Resolve(File{}, nil, GivenFlags([]KeyFlag{f}))
	if err != nil || !e.Config.Servers.All || e.Sources["servers.all"].flag != "--all-servers" {
		t.Errorf("Resolve(--all-servers) = %+v, %v", e.Config.Servers, err)
	}
	if _, err := Resolve(File{}, nil, []Flag{{Name: "--all-servers", Key: "servers.all", Value: "yes"}}); err == nil ||
		err.Error() != `--all-servers: must be true or false (got "yes")` {
		t.Errorf("Resolve(--all-servers=yes) = %v", err)
	}
}
