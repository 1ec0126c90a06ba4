package table

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

// Durations logged as whole milliseconds under a key that says so ("took_ms") read on the
// console as people write them (not margin=60000 without a unit); a key that only contains
// "_ms" stays.
func TestHumanDurations(t *testing.T) {
	zerolog.DurationFieldUnit, zerolog.DurationFieldInteger = time.Millisecond, true // as watch logs
	var out bytes.Buffer
	console := zerolog.New(zerolog.ConsoleWriter{Out: &out, NoColor: true, FormatPrepare: HumanDurations})
	console.Info().Dur("took_ms", 146980*time.Microsecond).Dur("margin_ms", time.Minute).Int("panes_ms_x", 3).Msg("x")
	if got := out.String(); !strings.Contains(got, "took=146ms") || !strings.Contains(got, "margin=1m0s") || !strings.Contains(got, "panes_ms_x=3") {
		t.Errorf("console line = %q, want took=146ms, margin=1m0s and panes_ms_x=3", got)
	}
}
