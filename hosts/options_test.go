package hosts

import (
	"reflect"
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
