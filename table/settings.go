package table

import "github.com/cac-tmux/cac-tmux/config"

// Settings lays out the configuration in effect, as `cac-tmux config check` prints it: what it
// was read from (config.Loaded.Describe), an empty line, then each setting, its value and
// where it came from, in columns.
func Settings(l config.Loaded) []string {
	lines := append(l.Describe(), "")
	cells := [][]string{{"KEY", "VALUE", "SOURCE"}}
	for _, s := range l.Settings() {
		cells = append(cells, []string{s.Key, s.Value, s.Source.String()})
	}
	return append(lines, Format(cells, 0)...)
}
