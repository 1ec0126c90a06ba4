package detector

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// maxScreen bounds what ReadScreen takes: a 500×200 pane is 100 kB of text even with wide
// runes and escapes; 16 MiB leaves room for any capture and refuses runaway input.
const maxScreen = 16 << 20

// ReadScreen reads one screen, as a file or a pipe gives it, from r: more than maxScreen
// bytes is not one pane's screen.
func ReadScreen(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxScreen+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxScreen {
		return "", fmt.Errorf("more than %d MiB: that is not one pane's screen", maxScreen>>20)
	}
	return string(b), nil
}

// WriteReport writes the report of v (NewReport) to w as one indented JSON object, as
// `inspect --json` prints it.
func WriteReport(w io.Writer, v Verdict, now time.Time, source, account string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewReport(v, now, source, account))
}
