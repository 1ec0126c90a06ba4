package notify_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/notify"
)

func TestDefault(t *testing.T) {
	d := notify.Default()
	want := []notify.EventKind{"stopped", "resumed", "held", "failed", "again"}
	if !slices.Equal(d.CommandEvents, want) || !slices.Equal(d.URLEvents, want) || !slices.Equal(d.DesktopEvents, want) {
		t.Errorf("default events %q %q %q, want %q", d.CommandEvents, d.URLEvents, d.DesktopEvents, want)
	}
	if d.Desktop != "off" || d.Timeout != 10*time.Second || d.MinGap != time.Minute || d.MaxPerHour != 12 || d.Command != nil || d.URL != "" {
		t.Errorf("Default() = %+v", d)
	}
}

func TestParseEventKind(t *testing.T) {
	for _, k := range notify.EventKinds() {
		if got, err := notify.ParseEventKind(string(k)); err != nil || got != k {
			t.Errorf("ParseEventKind(%q) = %q, %v", k, got, err)
		}
	}
	for _, bad := range []string{"", "Stopped", "stopped ", "limit-again", "resume"} {
		if _, err := notify.ParseEventKind(bad); err == nil {
			t.Errorf("ParseEventKind(%q) accepted", bad)
		}
	}
}
