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

// Durations in watch's log: whole milliseconds under a key that says so in JSON (not
// took=146.98976); the live table's events and a console show them as people write them.
func TestLogDurations(t *testing.T) {
	var out bytes.Buffer
	log, events := Log(&out, zerolog.InfoLevel, false, false, false)
	log.Info().Dur("took_ms", 146980*time.Microsecond).Dur("margin_ms", time.Minute).Msg("x")
	if got := out.String(); events != nil || !strings.Contains(got, `"took_ms":146,`) || !strings.Contains(got, `"margin_ms":60000`) {
		t.Errorf("JSON line = %s (events %v), want took_ms 146 and margin_ms 60000", got, events)
	}
	out.Reset()
	log, _ = Log(&out, zerolog.InfoLevel, false, true, false)
	log.Debug().Msg("below the level")
	log.Info().Dur("took_ms", 146980*time.Microsecond).Msg("x")
	if got := out.String(); !strings.Contains(got, "took=146ms") || strings.Contains(got, "below the level") || strings.Contains(got, "\x1b[") {
		t.Errorf("console line = %q, want took=146ms, without color or what is below the level", got)
	}
	out.Reset()
	log, events = Log(&out, zerolog.InfoLevel, true, true, true)
	log.Info().Dur("took_ms", 146980*time.Microsecond).Msg("x")
	if last := events.Last(1); out.Len() != 0 || len(last) != 1 || !strings.Contains(last[0], "took=146ms") {
		t.Errorf("live: events %q, out %q; want the line among the events only", last, out.String())
	}
}
