package detector

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fixtureDir holds the real Claude Code screens shared by the project (../shared beside the
// repository root). CAC_FIXTURES overrides it.
func fixtureDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("CAC_FIXTURES"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "fixtures", "claude-screens")
}

// fixture is one row of EXPECT.tsv.
type fixture struct {
	file    string
	limited bool
	reset   string
}

func readExpect(t testing.TB) []fixture {
	t.Helper()
	f, err := os.Open(filepath.Join(fixtureDir(t), "EXPECT.tsv"))
	if err != nil {
		t.Fatalf("golden screens are missing (clone shared/ beside the repository or set CAC_FIXTURES): %v", err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 {
			t.Fatalf("EXPECT.tsv: row %q has %d columns, want at least 3", line, len(cols))
		}
		out = append(out, fixture{file: cols[0], limited: cols[1] == "yes", reset: cols[2]})
	}
	if len(out) == 0 {
		t.Fatal("EXPECT.tsv has no rows")
	}
	return out
}

// The harness that rendered the real screens ran claude with TZ=Europe/Berlin, so "local"
// in EXPECT.tsv means Berlin.
const fixtureHostZone = "Europe/Berlin"

var (
	nextOccurrence = regexp.MustCompile(`^(\d{2}):(\d{2}) (\S+) next occurrence`)
	monthDay       = regexp.MustCompile(`^([A-Z][a-z]{2}) (\d{1,2}) (\d{2}):(\d{2}) (\S+)$`)
	fullDate       = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}) (\S+)$`)
	unixReset      = regexp.MustCompile(`^unix (\d+)`)
)

// expectation turns an EXPECT.tsv reset column into the facts of a capture consistent with it
// and the exact instant the detector must compute.
//
//   - "HH:MM ZONE next occurrence": the capture is taken, and the message appeared, one hour
//     before that wall-clock time on 2026-11-21, so the next occurrence is 2026-11-21 HH:MM.
//     (One hour before is also after every turn-summary clock on these screens, e.g. pos-16's
//     "done 10:58 PM" before a 12:50am reset.)
//   - "Mon D HH:MM ZONE": a date without a year; the capture is two days earlier in 2026.
//   - "YYYY-MM-DD HH:MM ZONE": the capture is three days earlier.
//   - "unix N": the capture is one hour before N.
//
// known is false for rows whose reset is unknown or absent.
func expectation(t *testing.T, reset string) (f Facts, want time.Time, known bool) {
	t.Helper()
	host := mustZone(t, fixtureHostZone)
	zone := func(name string) *time.Location {
		if name == "local" {
			return host
		}
		return mustZone(t, name)
	}
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("EXPECT.tsv reset %q: %v", reset, err)
		}
		return n
	}
	f.Zone = host
	switch {
	case strings.HasPrefix(reset, "none"), strings.HasPrefix(reset, "unknown"):
		f.Now = time.Date(2026, 11, 20, 22, 0, 0, 0, host)
		return f, time.Time{}, false
	case nextOccurrence.MatchString(reset):
		m := nextOccurrence.FindStringSubmatch(reset)
		want = time.Date(2026, 11, 21, atoi(m[1]), atoi(m[2]), 0, 0, zone(m[3]))
		f.Now = want.Add(-time.Hour)
	case monthDay.MatchString(reset):
		m := monthDay.FindStringSubmatch(reset)
		mon, ok := months[m[1]]
		if !ok {
			t.Fatalf("EXPECT.tsv reset %q: unknown month", reset)
		}
		want = time.Date(2026, mon, atoi(m[2]), atoi(m[3]), atoi(m[4]), 0, 0, zone(m[5]))
		f.Now = want.Add(-48 * time.Hour)
	case fullDate.MatchString(reset):
		m := fullDate.FindStringSubmatch(reset)
		want = time.Date(atoi(m[1]), time.Month(atoi(m[2])), atoi(m[3]), atoi(m[4]), atoi(m[5]), 0, 0, zone(m[6]))
		f.Now = want.Add(-72 * time.Hour)
	case unixReset.MatchString(reset):
		want = time.Unix(int64(atoi(unixReset.FindStringSubmatch(reset)[1])), 0)
		f.Now = want.Add(-time.Hour)
	default:
		t.Fatalf("EXPECT.tsv reset %q: unknown form; teach expectation() to read it", reset)
	}
	f.Appeared = f.Now
	return f, want, true
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	l, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load zone %q: %v", name, err)
	}
	return l
}

// TestFixtures runs every shared Claude Code screen against its EXPECT.tsv row, once with the
// appearance instant known and once with it unknown (a watcher that starts with the message
// already on screen): both must give the exact reset.
func TestFixtures(t *testing.T) {
	for _, fx := range readExpect(t) {
		t.Run(fx.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(fixtureDir(t), fx.file))
			if err != nil {
				t.Fatal(err)
			}
			facts, want, known := expectation(t, fx.reset)
			for _, appeared := range []bool{true, false} {
				f := facts
				if !appeared {
					f.Appeared = time.Time{}
				}
				v := Detect(string(raw), f)
				if v.Limited != fx.limited {
					t.Fatalf("Detect(%s, appeared=%v).Limited = %v, want %v (reason: %s)", fx.file, appeared, v.Limited, fx.limited, v.Reason)
				}
				if !fx.limited {
					continue
				}
				if v.Reset.Known != known {
					t.Fatalf("Detect(%s, appeared=%v).Reset.Known = %v, want %v (%s)", fx.file, appeared, v.Reset.Known, known, v.Reset.How)
				}
				if known && !v.Reset.At.Equal(want) {
					t.Errorf("Detect(%s, appeared=%v).Reset.At = %v, want %v (%s)", fx.file, appeared, v.Reset.At, want.In(v.Reset.At.Location()), v.Reset.How)
				}
			}
		})
	}
}
