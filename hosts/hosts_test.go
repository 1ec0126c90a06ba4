package hosts

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// words are the hard cases of a word on the remote command line: each must reach the remote
// program as itself.
var words = []string{
	"", "cac-tmux", "%12", "work:2.1", "my session:1.0", "it's", `a\b`, `'`, `\`, `''\\''`, `"dq"`,
	"$(rm -rf ~)", "`id`", "$HOME", "${x}", "a;b", "a|b", "a&b", "*", "?", "[a]", "{a,b}", "~", "~/x",
	"=x", "#x", "!x", "-S/tmp/x", "--", "tab\there", "new\nline", "é ü 日本", "x'y\\z'\"$(w)`v`", "\xff\xfe'\x80",
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ word, want string }{
		{"", "''"},
		{"cac-tmux", "cac-tmux"},
		{"--json", "--json"},
		{"/home/me/go/bin/cac-tmux", "/home/me/go/bin/cac-tmux"},
		{"user@host:1.0,+x", "user@host:1.0,+x"},
		{"%12", "'%12'"},
		{"my session:1.0", "'my session:1.0'"},
		{"it's", `'it'\''s'`},
		{`a\b`, `'a'\\'b'`},
		{`'`, `\'`},
		{`''`, `\'\'`},
		{"$(rm -rf ~)", "'$(rm -rf ~)'"},
		{"=x", "'=x'"},
		{"~/x", "'~/x'"},
	} {
		if got := quote(tc.word); got != tc.want {
			t.Errorf("quote(%q) = %s, want %s", tc.word, got, tc.want)
		}
	}
}

// Each word, quoted, reaches a program as one literal argument through every POSIX shell
// installed here (sh, dash, bash, zsh, ksh; fish, whose single quotes treat \ specially, when
// installed): what the remote user's shell does with the line ssh hands it.
func TestQuoteInShells(t *testing.T) {
	printf, err := exec.LookPath("printf")
	if err != nil {
		t.Skip("no printf program")
	}
	want := strings.Join(words, "\x00") + "\x00"
	shells := 0
	for _, sh := range []string{"sh", "dash", "bash", "zsh", "ksh", "mksh", "fish"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		shells++
		line := commandLine(printf, append([]string{`%s\0`}, words...)...)
		out, err := exec.Command(path, "-c", line).Output()
		if got := strings.Split(string(out), "\x00"); err != nil || string(out) != want {
			t.Errorf("%s -c %s printed %q (%v), want %q", sh, line, got, err, words)
		}
	}
	if shells == 0 {
		t.Skip("no shell installed")
	}
}

func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		command string
		args    []string
		want    string
	}{
		{"cac-tmux", []string{"list", "--json", "--all"}, "cac-tmux list --json --all"},
		{"~/go/bin/cac-tmux", []string{"resume", "--", "my s:1.0"}, "~/go/bin/cac-tmux resume -- 'my s:1.0'"},
		{"~/my bin/cac-tmux", nil, "~/'my bin/cac-tmux'"},
		{"/opt/$(x)/cac-tmux", []string{"skip", "--", "%3"}, "'/opt/$(x)/cac-tmux' skip -- '%3'"},
		{"~user/cac-tmux", nil, "'~user/cac-tmux'"}, // only ~/ expands
	} {
		if got := commandLine(tc.command, tc.args...); got != tc.want {
			t.Errorf("commandLine(%q, %q) = %s, want %s", tc.command, tc.args, got, tc.want)
		}
	}
}

// A command that starts with ~/ runs from the remote user's home, the rest of it quoted.
func TestCommandLineHome(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "my bin $(x)")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cac-tmux"), []byte("#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	line := commandLine("~/my bin $(x)/cac-tmux", "list", "a b")
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err := cmd.Output()
	want := filepath.Join(dir, "cac-tmux") + "\nlist\na b\n"
	if err != nil || string(out) != want {
		t.Errorf("sh -c %s printed %q (%v), want %q", line, out, err, want)
	}
}

func TestArgv(t *testing.T) {
	got, err := sshArgv("dev1", Options{}, "list", "--json", "--all")
	want := []string{"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=9", "dev1", "--", "env CAC_TMUX_OVER_SSH=1 cac-tmux list --json --all"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Argv with the defaults = %q, %v; want %q", got, err, want)
	}
	o := Options{SSH: "/usr/bin/ssh", SSHArgs: []string{"-F", "my config", "-o", "ConnectTimeout=2"}, Command: "~/go/bin/cac-tmux", Timeout: 5 * time.Second}
	got, err = sshArgv("me@dev1", o, "resume", "--", "my session:1.0")
	want = []string{"/usr/bin/ssh", "-F", "my config", "-o", "ConnectTimeout=2", "-o", "BatchMode=yes", "-o", "ConnectTimeout=4",
		"me@dev1", "--", "env CAC_TMUX_OVER_SSH=1 ~/go/bin/cac-tmux resume -- 'my session:1.0'"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Argv = %q, %v; want %q", got, err, want)
	}
	if _, err := sshArgv("dev1", Options{}, "resume", "--", "a\x00b"); !errors.Is(err, ErrInvalid) ||
		err.Error() != "hosts: resume dev1: invalid: a word of the remote command holds a NUL byte" {
		t.Errorf("Argv with a NUL byte = %v, want invalid", err)
	}
	for _, host := range []string{"", "-oProxyCommand=touch /tmp/x", "-F", "dev 1", "dev1\n", "a\tb"} {
		_, err := sshArgv(host, Options{}, "list")
		if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "hosts: list ") {
			t.Errorf("sshArgv(%q) = %v, want an invalid host", host, err)
		}
	}
}

func TestConnectTimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		want    int
	}{{DefaultTimeout, 9}, {time.Second, 1}, {500 * time.Millisecond, 1}, {2500 * time.Millisecond, 1}, {3 * time.Second, 2}, {3 * time.Minute, 179}} {
		if got := connectTimeout(tc.timeout); got != tc.want {
			t.Errorf("connectTimeout(%s) = %d, want %d", tc.timeout, got, tc.want)
		}
	}
}

func TestDecode(t *testing.T) {
	in := `[
  {"pane": "%1", "target": "work:1.0", "state": "waiting", "reset": "2026-11-20T23:23:17Z", "due": "2026-11-20T23:23:22Z",
   "zone": "UTC", "reset_source": "transcript", "kind": "session", "account": "/home/me/.claude", "watcher_running": true},
  {"pane": "%2", "target": "my s:2.0", "state": "running", "reset": null, "due": null, "kind": "", "watcher_running": true,
   "added_later": {"a": [1, 2]}, "another": 3}
]`
	got, err := Decode("dev1", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	reset, due := "2026-11-20T23:23:17Z", "2026-11-20T23:23:22Z"
	want := []Pane{
		{Pane: "%1", Target: "work:1.0", State: "waiting", Reset: &reset, Due: &due, Zone: "UTC", ResetSource: "transcript",
			Kind: "session", Account: "/home/me/.claude", WatcherRunning: true},
		{Pane: "%2", Target: "my s:2.0", State: "running", WatcherRunning: true},
	}
	if len(got) != 2 || *got[0].Reset != reset || *got[0].Due != due || got[1].Reset != nil || got[1].Due != nil {
		t.Fatalf("Decode = %+v, want %+v", got, want)
	}
	got[0].Reset, got[0].Due, want[0].Reset, want[0].Due = nil, nil, nil, nil
	if !slices.Equal(got, want) {
		t.Errorf("Decode = %+v, want %+v", got, want)
	}
	if got, err := Decode("dev1", []byte(" []\n")); err != nil || got == nil || len(got) != 0 {
		t.Errorf("Decode([]) = %#v, %v; want no pane and no error", got, err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "hosts: list dev1: bad output: no output"},
		{"null", `hosts: list dev1: bad output: not a JSON array (it starts "null"; does the remote shell's startup print anything?)`},
		{"Welcome to dev1! Last login: Mon Nov 20 23:23:17 2026 from 10.0.0.1\n[]", `hosts: list dev1: bad output: not a JSON array (it starts "Welcome to dev1! Last login: Mon Nov 20 "…; does the remote shell's startup print anything?)`},
		{`{"pane": "%1"}`, `hosts: list dev1: bad output: not a JSON array (it starts "{\"pane\": \"%1\"}"; does the remote shell's startup print anything?)`},
		{`[{"pane": "%1", "target": "w:1.0"}]`, `hosts: list dev1: bad output: row 1 has no "state"`},
		{`[{"pane": "%1", "target": "w:1.0", "state": "waiting"}, {"pane": "%2", "state": "waiting"}]`, `hosts: list dev1: bad output: row 2 has no "target"`},
		{`[{"target": "w:1.0", "state": "waiting"}]`, `hosts: list dev1: bad output: row 1 has no "pane"`},
		{`[{"pane": "", "target": "w:1.0", "state": "waiting"}]`, `hosts: list dev1: bad output: row 1 has no "pane"`},
		{`[null]`, `hosts: list dev1: bad output: row 1 has no "pane"`},
		{`[1]`, "hosts: list dev1: bad output: row 1: json: cannot unmarshal number into Go value of type hosts.Pane"},
		{`[{"pane": 1, "target": "w:1.0", "state": "waiting"}]`, "hosts: list dev1: bad output: row 1: json: cannot unmarshal number into Go struct field Pane.pane of type string"},
		{`[] []`, "hosts: list dev1: bad output: invalid character '[' after top-level value"},
		{`[{"pane": "%1",`, "hosts: list dev1: bad output: unexpected end of JSON input"},
	} {
		_, err := Decode("dev1", []byte(tc.in))
		if !errors.Is(err, ErrBadOutput) || err.Error() != tc.want {
			t.Errorf("Decode(%q) = %v, want\n%s", tc.in, err, tc.want)
		}
	}
}

func TestErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{
		{&Error{Op: "list", Host: "dev1", Kind: ErrUnreachable, Code: 255, Detail: "ssh: connect to host 127.0.0.1 port 2222: Connection refused"},
			"hosts: list dev1: unreachable: ssh: connect to host 127.0.0.1 port 2222: Connection refused"},
		{&Error{Op: "resume", Host: "dev1", Target: "my s:1.0", Kind: ErrTimeout, Detail: "no answer within 3m0s; ssh was killed", Err: context.DeadlineExceeded},
			`hosts: resume "my s:1.0" on dev1: timed out: no answer within 3m0s; ssh was killed`},
		{&Error{Op: "list", Host: "dev1", Kind: context.Canceled, Err: context.Canceled}, "hosts: list dev1: context canceled"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %s, want %s", got, tc.want)
		}
		if !errors.Is(tc.err, tc.err.Kind) || (tc.err.Err != nil && !errors.Is(tc.err, tc.err.Err)) {
			t.Errorf("%v: errors.Is does not see its kind and the error underneath", tc.err)
		}
		var e *Error
		if wrapped := errors.Join(errors.New("x"), tc.err); !errors.As(wrapped, &e) || e != tc.err {
			t.Errorf("errors.As does not find %v", tc.err)
		}
	}
}

func TestLastLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Warning: Permanently added 'x' (ED25519) to the list of known hosts.\r\nssh: connect to host x port 22: Connection refused\r\n\n", "ssh: connect to host x port 22: Connection refused"},
		{"a\n  \n", "a"},
		{"bad \x1b[31mred\x1b[0m\x07 \xff", "bad ?[31mred?[0m? ?"},
		{strings.Repeat("x", 400), strings.Repeat("x", maxDetail) + "…"},
	} {
		if got := lastLine(tc.in); got != tc.want {
			t.Errorf("lastLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// An action other than resume, skip or unskip, or no pane, is refused before ssh runs (an ssh
// that cannot be started would say unreachable).
func TestActRefusedBeforeSSH(t *testing.T) {
	o := Options{SSH: filepath.Join(t.TempDir(), "no-ssh")}
	for _, tc := range []struct{ action, target, want string }{
		{"reboot", "%1", `hosts: act %1 on dev1: invalid: "reboot" is not an action (resume, skip or unskip)`},
		{"list", "%1", `hosts: act %1 on dev1: invalid: "list" is not an action (resume, skip or unskip)`},
		{"Resume", "%1", `hosts: act %1 on dev1: invalid: "Resume" is not an action (resume, skip or unskip)`},
		{"resume", "", "hosts: resume dev1: invalid: no pane given"},
	} {
		code, out, err := Act(context.Background(), "dev1", tc.action, tc.target, o)
		if code != -1 || out != "" || !errors.Is(err, ErrInvalid) || err.Error() != tc.want {
			t.Errorf("Act(%q, %q) = %d, %q, %v; want -1 and\n%s", tc.action, tc.target, code, out, err, tc.want)
		}
	}
	if _, _, err := Act(context.Background(), "-oProxyCommand=x", "resume", "%1", o); !errors.Is(err, ErrInvalid) {
		t.Errorf("Act on host -oProxyCommand=x = %v, want invalid", err)
	}
}

// An ssh that cannot be started leaves the host unreachable, saying why; a call whose caller
// gave up is canceled, and ssh never runs.
func TestRunWithoutSSH(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-ssh")
	r := List(context.Background(), "dev1", Options{SSH: missing})
	var e *Error
	if !errors.As(r.Err, &e) || e.Kind != ErrUnreachable || e.Code != -1 || r.Panes != nil ||
		!strings.HasPrefix(r.Err.Error(), "hosts: list dev1: unreachable: ssh: fork/exec "+missing+": no such file or directory") {
		t.Errorf("List with a missing ssh = %+v, want unreachable, saying why", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, err := Act(ctx, "dev1", "skip", "%1", Options{SSH: "true"})
	if code != -1 || !errors.Is(err, context.Canceled) || err.Error() != "hosts: skip %1 on dev1: context canceled" {
		t.Errorf("Act after cancel = %d, %v; want canceled", code, err)
	}
}

// The capture keeps stdout up to its bound and says it was cut, and the ends of stderr and of
// the mixed output.
func TestCapture(t *testing.T) {
	var c capture
	out, errOut := stdoutOf(&c), stderrOf(&c)
	big := bytes.Repeat([]byte("o"), maxStdout-1)
	out.Write(big)
	errOut.Write(bytes.Repeat([]byte("e"), maxTail))
	errOut.Write([]byte("\nlast\n"))
	out.Write([]byte("xyz"))
	r := c.reply()
	if len(r.Stdout) != maxStdout || !strings.HasSuffix(r.Stdout, "ox") || !r.cut {
		t.Errorf("stdout kept %d bytes ending %q, cut %v; want %d ending \"ox\", cut", len(r.Stdout), r.Stdout[len(r.Stdout)-2:], r.cut, maxStdout)
	}
	if len(r.Stderr) != maxTail || !strings.HasSuffix(r.Stderr, "e\nlast\n") || lastLine(r.Stderr) != "last" {
		t.Errorf("stderr kept %d bytes, last line %q; want %d, \"last\"", len(r.Stderr), lastLine(r.Stderr), maxTail)
	}
	if len(r.Output) != maxTail || !strings.HasSuffix(r.Output, "last\nxyz") {
		t.Errorf("the mixed output kept %d bytes ending %q; want %d ending \"last\\nxyz\"", len(r.Output), r.Output[len(r.Output)-8:], maxTail)
	}
}

// FuzzQuote: any word without a NUL byte (no program can be given one) reaches a program
// through sh as itself.
func FuzzQuote(f *testing.F) {
	printf, err := exec.LookPath("printf")
	if err != nil {
		f.Skip("no printf program")
	}
	for _, w := range words {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		if strings.IndexByte(w, 0) >= 0 {
			t.Skip()
		}
		line := commandLine(printf, `%s\0`, w)
		out, err := exec.Command("sh", "-c", line).Output()
		if err != nil || string(out) != w+"\x00" {
			t.Errorf("sh -c %s printed %q (%v), want %q", line, out, err, w+"\x00")
		}
	})
}
