package table

import (
	"encoding/json"
	"strings"
	"time"
)

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
