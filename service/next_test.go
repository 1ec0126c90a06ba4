package service_test

import (
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/service"
)

// After an install: what was done, what runs, how to start it, how to restart it on an
// updated file (systemd and launchd each in their own words), and where its log is; after an
// uninstall, how to stop what still runs.
func TestNextSteps(t *testing.T) {
	s := service.Spec{Binary: "/usr/bin/cac-tmux", SocketName: "work", LogFile: "/u/Library/Logs/cac-tmux.log"}
	for _, tc := range []struct {
		p    service.Platform
		res  service.Result
		want []string
		not  string
	}{
		{service.Systemd, service.Created, []string{"wrote /u/unit\n", "it runs: /usr/bin/cac-tmux watch --log-format console -L work", "enable --now cac-tmux.service", "journalctl --user -u cac-tmux.service"}, "restart"},
		{service.Systemd, service.Updated, []string{"updated /u/unit", "systemctl --user restart cac-tmux.service"}, ""},
		{service.Launchd, service.Updated, []string{"updated /u/unit", "launchctl bootout gui/$(id -u)/", "Its log: /u/Library/Logs/cac-tmux.log"}, ""},
		{service.Launchd, service.Unchanged, []string{"already up to date: /u/unit", "launchctl bootstrap gui/$(id -u) /u/unit"}, "load it again"},
	} {
		var b strings.Builder
		service.WriteInstalled(&b, tc.p, "/u/unit", tc.res, s)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s %v: no %q in\n%s", tc.p, tc.res, w, b.String())
			}
		}
		if tc.not != "" && strings.Contains(b.String(), tc.not) {
			t.Errorf("%s %v: %q in\n%s", tc.p, tc.res, tc.not, b.String())
		}
	}
	var b strings.Builder
	service.WriteRemoved(&b, service.Systemd, "/u/unit")
	if !strings.Contains(b.String(), "removed /u/unit") || !strings.Contains(b.String(), "systemctl --user stop cac-tmux.service") {
		t.Errorf("after uninstall:\n%s", b.String())
	}
}
