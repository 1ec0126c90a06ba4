package config

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// OptionPrefix starts the name of every global tmux user option of cac-tmux.
const OptionPrefix = "@cac-tmux-"

// pluginOptions are the tmux options the plugin (cac-tmux.tmux) reads itself: Resolve leaves
// them alone, and suggests them for a mistyped option.
var pluginOptions = []string{"@cac-tmux-bin", "@cac-tmux-key", "@cac-tmux-status", "@cac-tmux-autostart"}

// PluginOptions returns the tmux options the plugin reads itself (@cac-tmux-key, …), which are
// no setting of the configuration. The slice is the caller's to keep.
func PluginOptions() []string { return slices.Clone(pluginOptions) }

// OptionName is the global tmux user option that sets a key: OptionPrefix and the key's name
// with "_" written "-", after the table's name for a table other than [watch]:
// watch.margin → @cac-tmux-margin, watch.native_grace → @cac-tmux-native-grace,
// policy.weekly → @cac-tmux-policy-weekly, policy.max_wait → @cac-tmux-policy-max-wait,
// panes.include → @cac-tmux-panes-include. "" for a key that is not known.
func OptionName(key string) string {
	s := lookupKey(key)
	if s == nil {
		return ""
	}
	return optionName(s.base())
}

func optionName(m *meta) string {
	name := strings.ReplaceAll(m.name, "_", "-")
	if m.table != "watch" {
		name = strings.ReplaceAll(m.table, ".", "-") + "-" + name
	}
	return OptionPrefix + name
}

// Option is a global tmux user option: its name with the "@", and its value.
type Option struct{ Name, Value string }

// Flag is a flag given on the command line that sets a key (GivenFlags).
type Flag struct {
	Name string // "--margin"
	Key  string // "watch.margin"
	// Value is the text given, exactly: Resolve reads it by the key's rule, as it reads a tmux
	// option's value.
	Value string
}

// Source is where an effective value came from: a flag, a tmux option, a line of the file,
// or (all empty) the default.
type Source struct {
	path   string // the file
	line   int    // the line in path
	option string // the tmux option
	flag   string // the flag
}

// String reads "flag --margin", "tmux option @cac-tmux-margin", "file PATH:4" or "default".
func (s Source) String() string {
	switch {
	case s.flag != "":
		return "flag " + s.flag
	case s.option != "":
		return "tmux option " + s.option
	case s.path != "":
		return "file " + s.path + ":" + strconv.Itoa(s.line)
	}
	return "default"
}

// Effective is the configuration in effect and where each value came from.
type Effective struct {
	Config Config
	// Sources is where each key's value came from, by full key ("watch.margin"); a key that
	// is not in it has its default.
	Sources map[string]Source
}

// Setting is one key of an Effective configuration.
type Setting struct {
	Key    string // "watch.margin"
	option string // its tmux option
	flag   string // its flag of `cac-tmux watch`, "" when none
	Value  string // as it is written in the file
	Source Source
	help   string // what it does
}

// Settings lists every key of e in file order, with its value and where it came from.
func (e Effective) Settings() []Setting {
	var out []Setting
	for _, t := range tables {
		for _, s := range t.keys {
			m := s.base()
			out = append(out, Setting{Key: m.key(), option: optionName(m), flag: m.flag,
				Value: s.format(&e.Config), Source: e.Sources[m.key()], help: m.help})
		}
	}
	return out
}

// Resolve computes the configuration in effect: each key takes its value from the first of
// flags, options (global tmux user options), the file and the defaults that sets it (Sources
// says which); options without OptionPrefix and PluginOptions are left alone. A flag or option
// that breaks its key's rule, or an option of cac-tmux's that sets no key, is an *Error naming
// it and the fix; all are returned joined, in order, with a zero Effective. f is taken as
// read: the file's mistakes are ReadFile's, and f.Found false means no file.
func Resolve(f File, options []Option, flags []Flag) (Effective, error) {
	e := Effective{Config: Default(), Sources: map[string]Source{}}
	if f.Found {
		for _, t := range tables {
			for _, s := range t.keys {
				if line, ok := f.lines[s.base().key()]; ok {
					s.copyTo(&e.Config, &f.config)
					e.Sources[s.base().key()] = Source{path: f.Path, line: line}
				}
			}
		}
	}
	var errs []error
	for _, o := range options {
		if !strings.HasPrefix(o.Name, OptionPrefix) || slices.Contains(pluginOptions, o.Name) {
			continue
		}
		s := optionKey(o.Name)
		if s == nil {
			errs = append(errs, unknownOption(o.Name))
			continue
		}
		if err := e.set(s, o.Value, Source{option: o.Name}); err != nil {
			errs = append(errs, err)
		}
	}
	for _, fl := range flags {
		s := lookupKey(fl.Key)
		if s == nil {
			errs = append(errs, &Error{Key: fl.Key, flag: fl.Name, Msg: "sets no key of the configuration"})
			continue
		}
		if err := e.set(s, fl.Value, Source{flag: fl.Name}); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 {
		for _, err := range checkTables(&e.Config) { // named by where its key's value came from
			src := e.Sources[err.Key]
			err.Option, err.flag, err.Path, err.Line = src.option, src.flag, src.path, src.line
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return Effective{}, errors.Join(errs...)
	}
	return e, nil
}

// set puts a value given as text (a tmux option, a flag) in e by the key's rule.
func (e *Effective) set(s setting, text string, src Source) *Error {
	key := s.base().key()
	msg := s.fromText(&e.Config, text)
	if msg == "" {
		msg = s.check(&e.Config)
	}
	if msg != "" {
		return &Error{Key: key, Option: src.option, flag: src.flag, Msg: msg, Got: tomlString(text)}
	}
	e.Sources[key] = src
	return nil
}

// optionKey is the key a tmux option sets, nil when none.
func optionKey(name string) setting {
	for _, t := range tables {
		for _, s := range t.keys {
			if optionName(s.base()) == name {
				return s
			}
		}
	}
	return nil
}

// optionNames returns the tmux options of every key, in file order. The slice is the caller's
// to keep.
func optionNames() []string {
	var names []string
	for _, t := range tables {
		for _, s := range t.keys {
			names = append(names, optionName(s.base()))
		}
	}
	return names
}

// unknownOption is the *Error of a tmux option named like cac-tmux's that is not one.
func unknownOption(name string) *Error {
	known := append(optionNames(), pluginOptions...)
	suffixes := make([]string, len(known))
	for i, k := range known {
		suffixes[i] = strings.TrimPrefix(k, OptionPrefix)
	}
	hint := "; `cac-tmux config check` lists the options of every setting"
	short := strings.TrimPrefix(name, OptionPrefix)
	s := closest(short, suffixes)
	if s == "" { // @cac-tmux-max-wait for @cac-tmux-policy-max-wait: the table left out
		for _, k := range suffixes {
			if strings.HasSuffix(k, "-"+short) {
				s = k
			}
		}
	}
	if s != "" {
		hint = " (did you mean " + OptionPrefix + s + "?); rename it"
	}
	return &Error{Option: name, Msg: "unknown option" + hint + ", or unset it with: tmux set-option -gu " + shellWord(name)}
}

// shellWord quotes s for a shell when it is not one plain word (a tmux option, a path).
func shellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@_-./", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
