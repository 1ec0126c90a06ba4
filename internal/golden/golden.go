// Package golden reads the shared Claude Code screens and their EXPECT.tsv
// (../shared/fixtures/claude-screens) into test cases: for each screen, a capture instant
// consistent with its expectation and the exact reset instant the detector must compute. It
// is used by the tests of detector and of the inspect command.
package golden

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// HostZone is the zone the real screens were rendered in (the harness ran claude with
// TZ=Europe/Berlin), so "local" in EXPECT.tsv means Berlin.
const HostZone = "Europe/Berlin"

// Case is one row of EXPECT.tsv turned into a capture and its expected verdict.
type Case struct {
	File    string // screen file name
	Path    string // path to the screen
	Limited bool
	// Known is true when the reset is a definite instant (false for "none" and "unknown").
	Known bool
	Reset time.Time // the exact reset instant when Known
	Now   time.Time // a capture instant consistent with the row; the message appears then
	Zone  *time.Location
	Note  string // the reset column as written
}

// Dir is where the shared screens are: $CAC_FIXTURES, else ../shared/fixtures/claude-screens
// relative to the repository root, found from the directory a test runs in.
func Dir() string {
	if d := os.Getenv("CAC_FIXTURES"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "fixtures", "claude-screens")
		}
		if filepath.Dir(d) == d {
			return filepath.Join("..", "shared", "fixtures", "claude-screens")
		}
	}
}

var (
	nextOccurrence = regexp.MustCompile(`^(\d{2}):(\d{2}) (\S+) next occurrence`)
	monthDay       = regexp.MustCompile(`^([A-Z][a-z]{2}) (\d{1,2}) (\d{2}):(\d{2}) (\S+)$`)
	fullDate       = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}) (\S+)$`)
	unixReset      = regexp.MustCompile(`^unix (\d+)`)
)

// Read parses EXPECT.tsv in dir, with a capture instant for each form of the reset column:
// "HH:MM ZONE next occurrence": one hour before that time on 2026-11-21 (also after every
// turn-summary clock on these screens, such as pos-16's "done 10:58 PM"); "Mon D HH:MM ZONE":
// two days earlier, in 2026; "YYYY-MM-DD HH:MM ZONE": three days earlier; "unix N": one hour
// before N; "none…" and "unknown…": 2026-11-20 22:00. Any other form is an error, so a new
// row cannot pass unread.
func Read(dir string) ([]Case, error) {
	f, err := os.Open(filepath.Join(dir, "EXPECT.tsv"))
	if err != nil {
		return nil, fmt.Errorf("golden: %w (clone shared/ beside the repository or set CAC_FIXTURES)", err)
	}
	defer f.Close()
	host, err := time.LoadLocation(HostZone)
	if err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	var out []Case
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 {
			return nil, fmt.Errorf("golden: EXPECT.tsv row %q: %d columns, want at least 3", line, len(cols))
		}
		c := Case{File: cols[0], Path: filepath.Join(dir, cols[0]), Limited: cols[1] == "yes", Zone: host, Note: cols[2]}
		if err := c.resolve(cols[2], host); err != nil {
			return nil, fmt.Errorf("golden: %s: %w", c.File, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("golden: EXPECT.tsv: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("golden: EXPECT.tsv in %s has no rows", dir)
	}
	return out, nil
}

func (c *Case) resolve(reset string, host *time.Location) error {
	var bad error
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil && bad == nil {
			bad = fmt.Errorf("reset %q: %w", reset, err)
		}
		return n
	}
	zone := func(name string) *time.Location {
		if name == "local" {
			return host
		}
		l, err := time.LoadLocation(name)
		if err != nil && bad == nil {
			bad = fmt.Errorf("reset %q: %w", reset, err)
			return host
		}
		return l
	}
	switch {
	case strings.HasPrefix(reset, "none"), strings.HasPrefix(reset, "unknown"):
		c.Now = time.Date(2026, 11, 20, 22, 0, 0, 0, host)
		return nil
	case nextOccurrence.MatchString(reset):
		m := nextOccurrence.FindStringSubmatch(reset)
		c.Reset = time.Date(2026, 11, 21, atoi(m[1]), atoi(m[2]), 0, 0, zone(m[3]))
		c.Now = c.Reset.Add(-time.Hour)
	case monthDay.MatchString(reset):
		m := monthDay.FindStringSubmatch(reset)
		mon, err := time.Parse("Jan", m[1])
		if err != nil {
			return fmt.Errorf("reset %q: unknown month %q", reset, m[1])
		}
		c.Reset = time.Date(2026, mon.Month(), atoi(m[2]), atoi(m[3]), atoi(m[4]), 0, 0, zone(m[5]))
		c.Now = c.Reset.Add(-48 * time.Hour)
	case fullDate.MatchString(reset):
		m := fullDate.FindStringSubmatch(reset)
		c.Reset = time.Date(atoi(m[1]), time.Month(atoi(m[2])), atoi(m[3]), atoi(m[4]), atoi(m[5]), 0, 0, zone(m[6]))
		c.Now = c.Reset.Add(-72 * time.Hour)
	case unixReset.MatchString(reset):
		c.Reset = time.Unix(int64(atoi(unixReset.FindStringSubmatch(reset)[1])), 0)
		c.Now = c.Reset.Add(-time.Hour)
	default:
		return fmt.Errorf("reset %q: unknown form; teach golden.Read to read it", reset)
	}
	c.Known = true
	return bad
}
