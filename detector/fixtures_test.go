package detector

import (
	"os"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/internal/golden"
)

// TestFixtures runs every shared Claude Code screen against its EXPECT.tsv row (see
// golden.Read for how a consistent capture instant is chosen), once with the appearance
// instant known and once unknown (a watcher that starts with the message already on screen):
// both must give the exact reset.
func TestFixtures(t *testing.T) {
	cases, err := golden.Read(golden.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			raw, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			for _, appeared := range []bool{true, false} {
				f := Facts{Now: c.Now, Appeared: c.Now, Zone: c.Zone}
				if !appeared {
					f.Appeared = time.Time{}
				}
				v := Detect(string(raw), f)
				if v.Limited != c.Limited {
					t.Fatalf("Detect(%s, appeared=%v).Limited = %v, want %v (reason: %s)", c.File, appeared, v.Limited, c.Limited, v.Reason)
				}
				if !c.Limited {
					continue
				}
				if v.Reset.Known != c.Known {
					t.Fatalf("Detect(%s, appeared=%v).Reset.Known = %v, want %v (%s)", c.File, appeared, v.Reset.Known, c.Known, v.Reset.How)
				}
				if c.Known && !v.Reset.At.Equal(c.Reset) {
					t.Errorf("Detect(%s, appeared=%v).Reset.At = %v, want %v (%s)", c.File, appeared, v.Reset.At, c.Reset.In(v.Reset.At.Location()), v.Reset.How)
				}
			}
		})
	}
}
