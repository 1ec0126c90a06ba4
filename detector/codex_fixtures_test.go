package detector

import (
	"bufio"
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// codexDir holds the golden Codex screens (internal/codexscreens made them from the real
// Codex 0.171.0) and their EXPECT.tsv: testdata/codex-screens, or $CAC_CODEX_SCREENS (a set
// captured again, on another tmux for one).
var codexDir = cmp.Or(os.Getenv("CAC_CODEX_SCREENS"), "testdata/codex-screens")

// codexCase is one row of codex-screens/EXPECT.tsv.
type codexCase struct {
	file, reset, kind string
	limited           bool
	zone              *time.Location
	captured          time.Time
	appeared          time.Time // zero: the screen shows no stop
}

func readCodexCases(t *testing.T) []codexCase {
	t.Helper()
	f, err := os.Open(filepath.Join(codexDir, "EXPECT.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []codexCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		col := strings.Split(line, "\t")
		if len(col) != 9 {
			t.Fatalf("EXPECT.tsv row %q: %d columns, want 9", line, len(col))
		}
		c := codexCase{file: col[0], limited: col[1] == "yes", reset: col[2], kind: col[3]}
		if c.zone, err = time.LoadLocation(col[4]); err != nil {
			t.Fatal(err)
		}
		if c.captured, err = time.Parse(time.RFC3339, col[5]); err != nil {
			t.Fatalf("%s: captured: %v", c.file, err)
		}
		if col[6] != "-" {
			if c.appeared, err = time.Parse(time.RFC3339, col[6]); err != nil {
				t.Fatalf("%s: appeared: %v", c.file, err)
			}
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		t.Fatalf("EXPECT.tsv: %v, %d rows", err, len(out))
	}
	return out
}

func readCodexScreen(t testing.TB, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(codexDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCodexFixtures runs every golden Codex screen against its EXPECT.tsv row, once with the
// appearance instant known and once unknown: the verdict, the kind and the exact reset (a
// relative reset is not known without the appearance).
func TestCodexFixtures(t *testing.T) {
	for _, c := range readCodexCases(t) {
		t.Run(c.file, func(t *testing.T) {
			screen := readCodexScreen(t, c.file)
			for _, appeared := range []bool{true, false} {
				f := Facts{Now: c.captured, Appeared: c.appeared, Zone: c.zone}
				if !appeared {
					f.Appeared = time.Time{}
				}
				v := DetectCodex(screen, f)
				if v.Limited != c.limited {
					t.Fatalf("DetectCodex(%s, appeared=%v).Limited = %v, want %v (%s)", c.file, appeared, v.Limited, c.limited, v.Reason)
				}
				if !c.limited {
					continue
				}
				if string(v.Kind) != c.kind {
					t.Errorf("Kind = %q, want %q (message %q)", v.Kind, c.kind, v.Message)
				}
				checkCodexReset(t, c, v.Reset, appeared)
			}
		})
	}
}

func checkCodexReset(t *testing.T, c codexCase, r Reset, appeared bool) {
	t.Helper()
	switch {
	case c.reset == "none" || c.reset == "unknown":
		if r.Known {
			t.Errorf("appeared=%v: Reset = %v (%s), want none", appeared, r.At, r.How)
		}
	case r.Source == SourceRelative && !appeared:
		if r.Known {
			t.Errorf("a relative reset without the appearance is known: %v (%s)", r.At, r.How)
		}
	default:
		want, err := time.Parse(time.RFC3339, c.reset)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Known || !r.At.Equal(want) {
			t.Errorf("appeared=%v: Reset = %v known=%v (%s), want %v", appeared, r.At, r.Known, r.How, want.In(c.zone))
		}
		if r.Zone != c.zone.String() {
			t.Errorf("Reset.Zone = %q, want %q", r.Zone, c.zone)
		}
	}
	if r.How == "" {
		t.Errorf("Reset.How is empty")
	}
}
