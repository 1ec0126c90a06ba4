package hosts

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/config"
)

// The first word of [hosts] ssh is the program, the rest its first arguments.
func TestOptionsOf(t *testing.T) {
	h := config.Hosts{Names: []string{"a"}, Command: "~/go/bin/cac-tmux", Timeout: 3 * time.Second, SSH: []string{"/usr/bin/ssh", "-F", "~/.ssh/work"}}
	want := Options{SSH: "/usr/bin/ssh", SSHArgs: []string{"-F", "~/.ssh/work"}, Command: "~/go/bin/cac-tmux", Timeout: 3 * time.Second}
	if got := OptionsOf(h); !reflect.DeepEqual(got, want) {
		t.Errorf("OptionsOf = %+v, want %+v", got, want)
	}
	if got := OptionsOf(config.Hosts{}); got.ssh() != "ssh" || got.command() != "cac-tmux" {
		t.Errorf("OptionsOf of nothing = %+v, want the defaults", got)
	}
}

// Relay copies what the remote printed and says how it ended: done, the remote's own exit
// status with a line naming the action, the pane and the host, or why it did not run.
func TestRelay(t *testing.T) {
	ssh := func(script string) Options {
		path := filepath.Join(t.TempDir(), "ssh")
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return Options{SSH: path}
	}
	for _, tc := range []struct {
		script        string
		code          int
		printed, want string
	}{
		{`echo resumed`, 0, "resumed\n", ""},
		{`echo "cac-tmux: resume %1: held after the keys" >&2; exit 3`, 3, "cac-tmux: resume %1: held after the keys\n", "resume %1 on dev1: the remote cac-tmux exited 3"},
		{`echo "ssh: connect to host dev1 port 22: Connection refused" >&2; exit 255`, 0, "", "resume %1 on dev1: unreachable: ssh: connect to host dev1 port 22: Connection refused"},
	} {
		var out strings.Builder
		code, err := Relay(context.Background(), "dev1", "resume", "%1", ssh(tc.script), &out)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if code != tc.code || got != tc.want || (tc.printed != "" && out.String() != tc.printed) {
			t.Errorf("Relay(%s) = %d, %q, printed %q; want %d, %q, %q", tc.script, code, got, out.String(), tc.code, tc.want, tc.printed)
		}
	}
}
