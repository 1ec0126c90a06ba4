package detector

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A screen of maxScreen bytes is read whole; one byte more is refused.
func TestReadScreen(t *testing.T) {
	full := strings.Repeat("x", maxScreen)
	if got, err := ReadScreen(strings.NewReader(full)); err != nil || len(got) != maxScreen {
		t.Errorf("ReadScreen(maxScreen bytes) = %d bytes, %v", len(got), err)
	}
	if _, err := ReadScreen(strings.NewReader(full + "x")); err == nil || err.Error() != "more than 16 MiB: that is not one pane's screen" {
		t.Errorf("ReadScreen(maxScreen+1 bytes) = %v", err)
	}
}

// The report is one indented JSON object, with the account.
func TestWriteReport(t *testing.T) {
	var b strings.Builder
	if err := WriteReport(&b, Verdict{}, time.Unix(0, 0), "transcript", "/home/me/.claude"); err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal([]byte(b.String()), &r); err != nil || !strings.HasPrefix(b.String(), "{\n  \"") || r.Limited {
		t.Errorf("WriteReport = %v\n%s", err, b.String())
	}
	if r.Account != "/home/me/.claude" {
		t.Errorf("the report lacks the account:\n%s", b.String())
	}
}
