package service_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/service"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with what the code renders")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./service -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what is rendered (go test ./service -update rewrites it after a wanted change):\n%s",
			path, strings.Join(service.Diff(want, got), "\n"))
	}
}

// spec is a typical installation.
func spec() service.Spec {
	return service.Spec{Binary: "/usr/local/bin/cac-tmux",
		Env:     []string{"PATH=/usr/bin:/usr/local/bin:/bin", "TMUX_TMPDIR=/run/user/1000"},
		LogFile: "/Users/me/Library/Logs/cac-tmux.log"}
}

func TestGolden(t *testing.T) {
	named := spec()
	named.SocketName = "work"
	odd := spec() // every character that needs care in each format
	odd.Binary = "/opt/my apps 100%/cac-tmux$1"
	odd.SocketPath = `/tmp/a "b" & <c>/it's -- $HOME\x;`
	odd.Env = append(odd.Env, "XDG_CONFIG_HOME=/home/me/my config%")
	for _, c := range []struct {
		file string
		p    service.Platform
		s    service.Spec
	}{
		{"default.service", service.Systemd, spec()},
		{"socket-name.service", service.Systemd, named},
		{"default.plist", service.Launchd, spec()},
		{"socket-name.plist", service.Launchd, named},
		{"odd.service", service.Systemd, odd},
		{"odd.plist", service.Launchd, odd},
	} {
		got, err := service.Render(c.p, c.s)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		golden(t, c.file, got)
	}
}

// TestExecStartQuoting: each argument is one word for systemd, its characters as given.
func TestExecStartQuoting(t *testing.T) {
	for _, c := range []struct {
		binary, name, path string
		want               string
	}{
		{"/usr/bin/cac-tmux", "", "", `ExecStart=/usr/bin/cac-tmux watch --log-format console`},
		{"/opt/my apps/cac-tmux", "my work", "", `ExecStart="/opt/my apps/cac-tmux" watch --log-format console -L "my work"`},
		{"/opt/100%/cac-tmux", "%i", "", `ExecStart=/opt/100%%/cac-tmux watch --log-format console -L %%i`},
		{"/opt/$x/cac-tmux", "$HOME", "", `ExecStart=/opt/$x/cac-tmux watch --log-format console -L $$HOME`},
		{"/usr/bin/cac-tmux", "", `/tmp/a "b"/c\d;e`, `ExecStart=/usr/bin/cac-tmux watch --log-format console -S "/tmp/a \"b\"/c\\d;e"`},
		{"/usr/bin/cac-tmux", "", `/tmp/it's`, `ExecStart=/usr/bin/cac-tmux watch --log-format console -S "/tmp/it's"`},
	} {
		s := service.Spec{Binary: c.binary, SocketName: c.name, SocketPath: c.path}
		got, err := service.Render(service.Systemd, s)
		if err != nil {
			t.Errorf("%+v: %v", s, err)
			continue
		}
		if !slices.Contains(strings.Split(string(got), "\n"), c.want) {
			t.Errorf("%+v: no line\n%s\nin\n%s", s, c.want, got)
		}
	}
}

// TestSystemdVerifies runs systemd-analyze verify on a unit whose program lives in a
// directory with a space, a "%" and a "$": systemd must find the program, so it read the
// quoting as meant, and accept every other line.
func TestSystemdVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze")
	}
	dir := filepath.Join(t.TempDir(), "my apps 100%$x")
	bin := filepath.Join(dir, "cac-tmux")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := spec()
	s.Binary, s.SocketPath = bin, `/tmp/a "b" $HOME\x;`
	got, err := service.Render(service.Systemd, s)
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), service.Unit)
	if err := os.WriteFile(unit, got, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", "--man=no", unit).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s\nthe unit:\n%s", err, out, got)
	}
	// The check can fail: the program's path without its quotes is refused.
	bad := strings.Replace(string(got), `ExecStart="`+strings.ReplaceAll(bin, "%", "%%")+`"`, "ExecStart="+strings.ReplaceAll(bin, "%", "%%"), 1)
	if bad == string(got) {
		t.Fatalf("no quoted program in\n%s", got)
	}
	os.WriteFile(unit, []byte(bad), 0o644)
	if out, err := exec.Command(analyze, "verify", "--man=no", unit).CombinedOutput(); err == nil {
		t.Errorf("systemd-analyze verify accepts the program's path unquoted:\n%s", out)
	}
}

// TestSystemdRefusesProgramPath: systemd takes no quote or backslash in a program's path.
func TestSystemdRefusesProgramPath(t *testing.T) {
	for _, bin := range []string{`/opt/a"b/cac-tmux`, `/opt/it's/cac-tmux`, `/opt/a\b/cac-tmux`} {
		_, err := service.Render(service.Systemd, service.Spec{Binary: bin})
		if err == nil || !strings.Contains(err.Error(), "systemd refuses a program whose path holds a quote or a backslash") {
			t.Errorf("binary %s: %v, want a refusal", bin, err)
		}
		if _, err := service.Render(service.Launchd, service.Spec{Binary: bin, LogFile: "/l"}); err != nil {
			t.Errorf("launchd, binary %s: %v", bin, err)
		}
	}
}

func TestRenderRefuses(t *testing.T) {
	for _, c := range []struct {
		s    service.Spec
		want string
	}{
		{service.Spec{Binary: "cac-tmux"}, `service: binary "cac-tmux": must be an absolute path`},
		{service.Spec{Binary: "/b", SocketName: "a", SocketPath: "/s"}, "service: give -L NAME or -S PATH, not both"},
		{service.Spec{Binary: "/b", SocketPath: "s"}, `service: -S "s": must be an absolute path`},
		{service.Spec{Binary: "/b", SocketName: "a\nb"}, `service: "a\nb": control characters cannot be written into a service file`},
		{service.Spec{Binary: "/b", Env: []string{"NOEQUALS"}}, `service: environment "NOEQUALS": must be KEY=VALUE`},
	} {
		if _, err := service.Render(service.Systemd, c.s); err == nil || err.Error() != c.want {
			t.Errorf("%+v: %v, want %s", c.s, err, c.want)
		}
	}
	if _, err := service.Render(service.Launchd, service.Spec{Binary: "/b"}); err == nil || !strings.Contains(err.Error(), "log file") {
		t.Errorf("launchd without a log file: %v", err)
	}
}

// plistDoc is a launchd plist as encoding/xml reads it: the top dict's keys and values in
// order.
type plistDoc struct {
	Dict struct {
		Items []plistItem `xml:",any"`
	} `xml:"dict"`
}

type plistItem struct {
	XMLName xml.Name
	Text    string      `xml:",chardata"`
	Items   []plistItem `xml:",any"`
}

// TestPlistXML: a strict XML parser reads back every argument and variable exactly, however
// odd its characters (the comment with the marker holds no "--").
func TestPlistXML(t *testing.T) {
	s := spec()
	s.Binary = `/opt/a&b <c> "d" 'e' ]]> --/cac-tmux`
	s.SocketPath = "/tmp/ü -- x/&amp;"
	s.Env = []string{"PATH=/a&b:/c<d>", "XDG_STATE_HOME=/x]]>y"}
	got, err := service.Render(service.Launchd, s)
	if err != nil {
		t.Fatal(err)
	}
	var doc plistDoc
	d := xml.NewDecoder(bytes.NewReader(got))
	d.Strict = true
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, got)
	}
	values := map[string]plistItem{}
	items := doc.Dict.Items
	for i := 0; i+1 < len(items); i += 2 {
		values[items[i].Text] = items[i+1]
	}
	var args []string
	for _, a := range values["ProgramArguments"].Items {
		args = append(args, a.Text)
	}
	if !slices.Equal(args, s.Args()) {
		t.Errorf("ProgramArguments %q, want %q", args, s.Args())
	}
	var env []string
	envItems := values["EnvironmentVariables"].Items
	for i := 0; i+1 < len(envItems); i += 2 {
		env = append(env, envItems[i].Text+"="+envItems[i+1].Text)
	}
	if !slices.Equal(env, s.Env) {
		t.Errorf("EnvironmentVariables %q, want %q", env, s.Env)
	}
	if values["Label"].Text != service.Label || values["StandardErrorPath"].Text != s.LogFile {
		t.Errorf("Label %q, StandardErrorPath %q", values["Label"].Text, values["StandardErrorPath"].Text)
	}
	if name, path, ok := service.Server(got); !ok || name != "" || path != s.SocketPath {
		t.Errorf("Server = %q, %q, %v; want the socket path back", name, path, ok)
	}
}

// TestServerMarker: the marker gives back the server the file was written for.
func TestServerMarker(t *testing.T) {
	for _, s := range []service.Spec{
		{Binary: "/b", LogFile: "/l"},
		{Binary: "/b", LogFile: "/l", SocketName: "my work -- 100% +x"},
		{Binary: "/b", LogFile: "/l", SocketPath: "/tmp/a b/c=d&e"},
	} {
		for _, p := range []service.Platform{service.Systemd, service.Launchd} {
			got, err := service.Render(p, s)
			if err != nil {
				t.Fatal(err)
			}
			name, path, ok := service.Server(got)
			if !ok || name != s.SocketName || path != s.SocketPath || !service.Ours(got) {
				t.Errorf("%s %+v: Server = %q, %q, %v", p, s, name, path, ok)
			}
		}
	}
	if service.Ours([]byte("[Unit]\nDescription=mine\n")) {
		t.Error("a file without the marker is taken for ours")
	}
}
