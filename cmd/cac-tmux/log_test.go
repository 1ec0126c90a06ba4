package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// Durations in the log: whole milliseconds under a key that says so in JSON, as people write
// them on the console (not took=146.98976, nor margin=60000 without a unit).
func TestLogDurations(t *testing.T) {
	var std bytes.Buffer
	log, _ := watchLog(&watchOptions{logFormat: "json", level: zerolog.InfoLevel}, &deps{stdio: stdio{err: &std}}, false)
	log.Info().Dur("took_ms", 146980*time.Microsecond).Dur("margin_ms", time.Minute).Msg("x")
	if got := std.String(); !strings.Contains(got, `"took_ms":146,`) || !strings.Contains(got, `"margin_ms":60000`) {
		t.Errorf("JSON line = %s, want took_ms 146 and margin_ms 60000", got)
	}
	var out bytes.Buffer
	console := zerolog.New(zerolog.ConsoleWriter{Out: &out, NoColor: true, FormatPrepare: humanDurations})
	console.Info().Dur("took_ms", 146980*time.Microsecond).Dur("margin_ms", time.Minute).Int("panes_ms_x", 3).Msg("x")
	if got := out.String(); !strings.Contains(got, "took=146ms") || !strings.Contains(got, "margin=1m0s") || strings.Contains(got, "_ms=") {
		t.Errorf("console line = %q, want took=146ms and margin=1m0s", got)
	}
}
