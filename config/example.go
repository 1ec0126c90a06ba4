package config

import "strings"

// Example returns the configuration file with every key set to its default, each with what
// it does, its tmux option and its flag, as comments. ReadFile reads it as Default().
func Example() string {
	var b strings.Builder
	b.WriteString(`# The configuration of cac-tmux: $XDG_CONFIG_HOME/cac-tmux/config.toml, else
# ~/.config/cac-tmux/config.toml (cac-tmux watch --config PATH reads another file).
# Every key is shown with its default: keep only the ones you change.
#
# Each key is also a global tmux option (set -g @cac-tmux-margin 90s), which wins over this
# file; a flag of cac-tmux watch wins over both. cac-tmux config check validates the file and
# the options and prints every setting in effect and where it came from. kill -HUP of a
# running watcher reads the file and the options again.
`)
	def := Default()
	for _, t := range tables {
		b.WriteString("\n")
		for _, h := range t.help {
			b.WriteString("# " + h + "\n")
		}
		b.WriteString("[" + t.name + "]\n")
		for _, s := range t.keys {
			m := s.base()
			b.WriteString("\n# " + m.help + "\n# tmux option " + optionName(m))
			if m.flag != "" {
				b.WriteString(", flag " + m.flag)
			}
			b.WriteString("\n" + m.name + " = " + s.format(&def) + "\n")
		}
	}
	return b.String()
}
