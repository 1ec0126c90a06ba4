package table

import (
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/rs/zerolog"
)

// Log builds the one logger of `watch`, at level: on the live table's events (live; the Ring
// returned, nil otherwise), as readable lines on out (console: --log-format console, or auto
// on a terminal; colored only on a terminal, tty), else as JSON lines on out. Times carry
// milliseconds (latencies are read from the log), and a duration is a whole number of
// milliseconds under a key that says so ("took_ms"), which the console shows as people write
// it (HumanDurations).
func Log(out io.Writer, level zerolog.Level, live, console, tty bool) (zerolog.Logger, *Ring) {
	var events *Ring
	sink := out
	switch {
	case live:
		events = &Ring{Max: 50}
		sink = zerolog.ConsoleWriter{Out: events, NoColor: true, TimeFormat: time.TimeOnly, FormatPrepare: HumanDurations}
	case console:
		sink = zerolog.ConsoleWriter{Out: out, NoColor: !tty, TimeFormat: time.TimeOnly, FormatPrepare: HumanDurations}
	}
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00"
	zerolog.DurationFieldUnit, zerolog.DurationFieldInteger = time.Millisecond, true
	return zerolog.New(sink).Level(level).With().Timestamp().Logger(), events
}

// HumanDurations shows each "…_ms" field of a console log line as a duration under its name
// without the unit: took_ms=146 as took=146ms, margin_ms=60000 as margin=1m0s
// (zerolog.ConsoleWriter.FormatPrepare, for the live table's events and a console log).
func HumanDurations(fields map[string]any) error {
	for k, v := range fields {
		name, ok := strings.CutSuffix(k, "_ms")
		ms, isNumber := v.(json.Number)
		if !ok || !isNumber {
			continue
		}
		if n, err := ms.Int64(); err == nil {
			delete(fields, k)
			fields[name] = (time.Duration(n) * time.Millisecond).String()
		}
	}
	return nil
}
