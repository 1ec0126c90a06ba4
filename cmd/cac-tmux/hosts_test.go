//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/hosts"
	"github.com/cac-tmux/cac-tmux/internal/sshtest"
	"github.com/cac-tmux/cac-tmux/tmuxctl/tmuxtest"
)

// list shows the panes of another host, asked through ssh (an sshd on a loopback port, the
// hosts of [hosts]), beside this host's, named by host; a host where nothing listens is named
// with the reason and hides nothing; --json marks each pane of another host with it.
func TestListHosts(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	reset := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	remote := tmuxtest.Start(t, 120, 30)
	remotePane, _ := startClaude(t, remote, "--reset", reset)
	local := tmuxtest.Start(t, 120, 30)
	localPane, _ := startClaude(t, local, "--reset", reset)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "cac-tmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := `[hosts]
names = ["` + sshtest.Host + `", "` + sshtest.Dead + `"]
command = "` + srv.Remote(t, bins.cac, remote.Socket) + `"
ssh = ["ssh", "-F", "` + srv.Config + `"]
timeout = "` + tmuxtest.Scale(20*time.Second).String() + `"
`
	if err := os.WriteFile(filepath.Join(home, "cac-tmux", "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	list := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bins.cac, append([]string{"list", "-S", local.Socket}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+home)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("list %q: %v\n%s%s", args, err, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}

	out, _ := list()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^SERVER +PANE +TARGET +STATE`),
		regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(local.Socket) + ` +` + localPane + ` +main:1\.0 +stopped \(not watched\)`),
		regexp.MustCompile(`(?m)^` + sshtest.Host + ` +` + remotePane + ` +main:1\.0 +stopped \(not watched\)`),
		regexp.MustCompile(`(?m)^host ` + sshtest.Dead + `: unreachable: ssh: connect to host 127\.0\.0\.1 port \d+: Connection refused$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("list: no line like %s:\n%s", want, out)
		}
	}

	out, stderr := list("--json", "--host", sshtest.Host+","+sshtest.Dead)
	var panes []hosts.Pane
	if err := json.Unmarshal([]byte(out), &panes); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	var where []string
	for _, p := range panes {
		where = append(where, p.Host+" "+p.Pane+" "+p.State)
	}
	if want := []string{" " + localPane + " stopped", sshtest.Host + " " + remotePane + " stopped"}; strings.Join(where, "|") != strings.Join(want, "|") {
		t.Errorf("list --json: %q, want %q", where, want)
	}
	if !strings.Contains(stderr, "cac-tmux: host "+sshtest.Dead+": unreachable") {
		t.Errorf("list --json: stderr does not name the dead host:\n%s", stderr)
	}
	if out, _ := list("--host="); strings.Contains(out, sshtest.Host) || strings.Contains(out, "SERVER") {
		t.Errorf("list --host= asked the hosts of the configuration:\n%s", out)
	}

	// skip, unskip and a bad pane on the other host, through its cac-tmux: its exit status is
	// this command's.
	act := func(want int, args ...string) string {
		t.Helper()
		cmd := exec.Command(bins.cac, args...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+home)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Errorf("%q: exit %d, want %d:\n%s", args, code, want, out)
		}
		return string(out)
	}
	act(0, "skip", "--host", sshtest.Host, remotePane)
	if st := strings.TrimSpace(remote.Tmux(t, "display-message", "-p", "-t", remotePane, "#{@cac_state}")); st != "skipped" {
		t.Errorf("after skip --host: the remote pane's state is %q, want skipped", st)
	}
	act(0, "unskip", "--host", sshtest.Host, remotePane)
	act(2, "resume", "--host", sshtest.Host, "nosuch:9.9")
	if out := act(1, "resume", "--host", sshtest.Dead, remotePane); !strings.Contains(out, "unreachable") {
		t.Errorf("resume on a dead host: %s", out)
	}
	// doctor of the other host: its report, its exit status (no watcher runs there: 1); a
	// host ssh does not reach is the one problem, with the fix.
	if out := act(1, "doctor", "--host", sshtest.Host); !strings.Contains(out, "PROBLEM watcher") || !strings.Contains(out, "ok      tmux") {
		t.Errorf("doctor --host: %s", out)
	}
	if out := act(1, "doctor", "--host", sshtest.Dead); !strings.Contains(out, "unreachable") || !strings.Contains(out, "ssh "+sshtest.Dead+" true") {
		t.Errorf("doctor --host on a dead host: %s", out)
	}
	if st := strings.TrimSpace(local.Tmux(t, "display-message", "-p", "-t", localPane, "#{@cac_state}")); st != "" {
		t.Errorf("the local pane with the same id got state %q from actions on another host", st)
	}
}

// list --host with no tmux server on this host lists the host: no server here is no problem
// when hosts are asked (with -L or -S naming one, it is named on a line of its own).
func TestListHostWithoutLocalServer(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	remote := tmuxtest.Start(t, 120, 30)
	remotePane, _ := startClaude(t, remote, "--reset", time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "cac-tmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := "[hosts]\ncommand = \"" + srv.Remote(t, bins.cac, remote.Socket) + "\"\nssh = [\"ssh\", \"-F\", \"" + srv.Config + "\"]\n"
	if err := os.WriteFile(filepath.Join(home, "cac-tmux", "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	tmp, _ := tmuxtest.UserTmux(t) // no server in it
	none := filepath.Join(t.TempDir(), "none")
	for _, args := range [][]string{{"list", "--host", sshtest.Host}, {"list", "--host", sshtest.Host, "-S", none}} {
		cmd := exec.Command(bins.cac, args...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+home, "TMUX_TMPDIR="+tmp)
		out, err := cmd.CombinedOutput()
		// The host's rows alone: no SERVER column (table.Merge names a source among several).
		row := regexp.MustCompile(`(?m)^` + remotePane + ` +main:1\.0 +stopped \(not watched\)`)
		if err != nil || !row.Match(out) {
			t.Errorf("%q: %v, want the host's pane:\n%s", args, err, out)
		}
		if named := strings.Contains(string(out), "server "+none+": tmuxctl: "); named != (len(args) > 3) {
			t.Errorf("%q: the server of -S named %v, want %v:\n%s", args, named, len(args) > 3, out)
		}
	}
}

// A pane that runs ssh (or mosh) with Claude Code's title, Claude Code on the other host: list
// --all shows it as remote with what to do, doctor explains it without calling it a problem,
// and no key ever reaches it (resume refuses it).
func TestRemoteShellPane(t *testing.T) {
	t.Parallel()
	s := tmuxtest.Start(t, 120, 30)
	bin := filepath.Join(t.TempDir(), "ssh") // a process named ssh, as pane_current_command shows
	if err := os.Symlink("/bin/sleep", bin); err != nil {
		t.Fatal(err)
	}
	pane := strings.TrimSpace(s.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_id}", bin, "600"))
	s.Tmux(t, "select-pane", "-t", pane, "-T", "✳ Claude Code")
	tmuxtest.WaitFor(t, 10*time.Second, "the pane's command to be ssh", func() bool {
		return strings.TrimSpace(s.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_current_command}")) == "ssh"
	})
	run := func(want int, args ...string) string {
		t.Helper()
		cmd := exec.Command(bins.cac, args...)
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, _ := cmd.Output()
		if code := cmd.ProcessState.ExitCode(); code != want {
			t.Errorf("%q: exit %d, want %d:\n%s%s", args, code, want, out, errOut.String())
		}
		return string(out)
	}
	if out := run(0, "list", "-S", s.Socket, "--all"); !regexp.MustCompile(pane + ` +main:1\.0 +remote .*Claude Code on another host, through ssh: nothing is typed here; run cac-tmux watch on that host`).MatchString(out) {
		t.Errorf("list --all:\n%s", out)
	}
	if out := run(0, "list", "-S", s.Socket); strings.Contains(out, pane) {
		t.Errorf("list (paused panes only) shows the remote pane:\n%s", out)
	}
	out := run(1, "doctor", "-S", s.Socket, "--json") // 1: no watcher runs
	var r struct {
		Panes []struct {
			Pane            string
			Remote, Problem bool
			Note            string
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	found := false
	for _, p := range r.Panes {
		if p.Pane == pane {
			found = true
			if !p.Remote || p.Problem || !strings.Contains(p.Note, "run cac-tmux watch on that host") {
				t.Errorf("doctor: the ssh pane is %+v; want remote, no problem, the note", p)
			}
		}
	}
	if !found {
		t.Errorf("doctor does not list the ssh pane:\n%s", out)
	}
	run(1, "resume", "-S", s.Socket, pane)
}

// What a remote host prints reaches the terminal printable, whichever command asked:
// resume --host and doctor --host, as list --host, show an OSC 2 retitle, an OSC 52 clipboard
// write, a CSI 2J clear and a carriage return as "?"; newlines and tabs stay.
func TestHostOutputIsPrintable(t *testing.T) {
	t.Parallel()
	srv := sshtest.Start(t)
	hostile := `printf 'title\033]2;pwned\007 clip\033]52;c;aGk=\007 clear\033[2J\tover\rwritten\n'` + "\n" +
		`printf 'err\033]2;pwned\007\n' >&2` + "\n"
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "cac-tmux"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := `[hosts]
command = "` + srv.Script(t, "cac-tmux", hostile) + `"
ssh = ["ssh", "-F", "` + srv.Config + `"]
timeout = "` + tmuxtest.Scale(20*time.Second).String() + `"
`
	if err := os.WriteFile(filepath.Join(home, "cac-tmux", "config.toml"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"resume", "--host", sshtest.Host, "%1"}, {"doctor", "--host", sshtest.Host}} {
		cmd := exec.Command(bins.cac, args...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%q", args, err, out)
		}
		if i := bytes.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' }); i >= 0 {
			t.Errorf("%q wrote control character %q to the terminal: %q", args, out[i], out)
		}
		for _, want := range []string{"title?]2;pwned? clip?]52;c;aGk=? clear?[2J\tover?written\n", "err?]2;pwned?\n"} {
			if !bytes.Contains(out, []byte(want)) {
				t.Errorf("%q: %q does not hold %q", args, out, want)
			}
		}
	}
}
