package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// Durations in the log: whole milliseconds under a key that says so in JSON (not
// took=146.98976); table.HumanDurations shows them on the console.
func TestLogDurations(t *testing.T) {
	var std bytes.Buffer
	log, _ := watchLog(&watchOptions{logFormat: "json", level: zerolog.InfoLevel}, &deps{stdio: stdio{err: &std}}, false)
	log.Info().Dur("took_ms", 146980*time.Microsecond).Dur("margin_ms", time.Minute).Msg("x")
	if got := std.String(); !strings.Contains(got, `"took_ms":146,`) || !strings.Contains(got, `"margin_ms":60000`) {
		t.Errorf("JSON line = %s, want took_ms 146 and margin_ms 60000", got)
	}
}
