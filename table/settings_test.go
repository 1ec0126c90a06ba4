package table

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cac-tmux/cac-tmux/config"
)

// The settings in effect: what they were read from, an empty line, then a column each for the
// key, its value and its source, one row per key, a file's line named.
func TestSettings(t *testing.T) {
	l, err := config.Load(context.Background(), filepath.Join(t.TempDir(), "none.toml"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := Settings(l)
	n := len(l.Describe())
	if !slices.Equal(lines[:n], l.Describe()) || lines[n] != "" || !strings.HasPrefix(lines[n+1], "KEY ") {
		t.Fatalf("Settings = %q, want Describe, an empty line, then the header", lines[:n+2])
	}
	if rows := lines[n+2:]; len(rows) != len(l.Settings()) || !strings.HasPrefix(rows[0], l.Settings()[0].Key+" ") || !strings.HasSuffix(rows[0], "default") {
		t.Errorf("rows = %q, want one per setting, its source last", rows)
	}
}
