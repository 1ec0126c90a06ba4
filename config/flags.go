package config

import (
	"fmt"
	"strings"
)

// KeyFlag is the flag of `cac-tmux watch` that sets one key: what a command needs to define
// it, all of it from the key's entry in the registry (keys.go), and its value. A command
// defines it with pflag's FlagSet.VarPF(f.Value, f.Name, "", f.Help), the flag's NoOptDefVal
// set to f.Bare: the Value's text is the default until the flag is given, so the help shows
// it, and its Type names the value there.
type KeyFlag struct {
	Name string // as pflag names it, without its dashes: "margin"
	Key  string // the key it sets: "watch.margin"
	// Help is the key's help, the one text of it: Example and `config check` show it too.
	Help string
	// Default is the key's default as a flag or a tmux option takes it: "1m", "continue".
	Default string
	// Bare is the value of the flag given alone (pflag's NoOptDefVal): "true" for a key that
	// is true or false (--all-servers), "" when the flag needs a value.
	Bare  string
	Value *FlagValue
}

// KeyFlags returns the flag of every key that has one in the registry, in file order, each
// with a Value of its own: giving a key a flag in keys.go gives `cac-tmux watch` that flag.
func KeyFlags() []KeyFlag {
	def := Default()
	var out []KeyFlag
	for _, t := range tables {
		for _, s := range t.keys {
			m := s.base()
			if m.flag == "" {
				continue
			}
			text, bare := s.text(&def), ""
			if s.typeName() == boolKind.name {
				bare = "true"
			}
			out = append(out, KeyFlag{Name: strings.TrimPrefix(m.flag, "--"), Key: m.key(), Help: m.help, Default: text, Bare: bare,
				Value: &FlagValue{flag: m.flag, key: m.key(), typ: s.typeName(), text: text}})
		}
	}
	return out
}

// GivenFlags returns the flags of fl that were given on the command line (their Value was
// Set), in the order of fl, as Resolve takes them: each with the text given, exactly.
func GivenFlags(fl []KeyFlag) []Flag {
	var out []Flag
	for _, f := range fl {
		if f.Value.given {
			out = append(out, Flag{Name: f.Value.flag, Key: f.Value.key, Value: f.Value.text})
		}
	}
	return out
}

// FlagValue holds the text a key's flag was given, unparsed: Resolve reads it by the key's
// rule, once, with the file and the tmux options, and names the flag in its error. It has the
// methods of pflag.Value (String, Set, Type) without this package importing pflag: package
// config is below the watcher, doctor and the popup, which have no use for a command-line
// library, and three methods do not need one. Set never refuses a text, so a bad value is
// reported by the key's rule, in the words the file and the tmux option get.
type FlagValue struct {
	flag, key string // "--margin", "watch.margin"
	typ       string // the type of the key's value: "duration"
	text      string // the text given, else the default
	given     bool
}

// String is the text given, else the key's default as text.
func (v *FlagValue) String() string { return v.text }

// Set keeps s as it is; it never fails.
func (v *FlagValue) Set(s string) error {
	v.text, v.given = s, true
	return nil
}

// Type names the value in the help: "duration", "string", "int", "strings".
func (v *FlagValue) Type() string { return v.typ }

// Quote is a value given as text (a flag's, a tmux option's) as an error of the configuration
// shows it after "got": a TOML string, control characters escaped, cut after 60 characters.
// A command that checks a flag of its own says "(got " + Quote(value) + ")" in the same words.
func Quote(s string) string { return shorten(tomlString(s)) }

// typeRules are what a value of a flag that sets no key must be, by the flag's type (pflag's
// Value.Type), in the words of the keys' rules ("must be …"). A flag of a type without a rule
// here is caught by TestEveryTypedFlagHasARule of cmd/cac-tmux.
var typeRules = map[string]string{
	"bool": "true or false",
	"int":  "an integer",
}

// BadFlagValue is the mistake of a value that the command line could not read for the flag
// name ("--once") of type typ: the rule of the type, worded and quoted as the configuration's
// mistakes are ("--once: must be true or false (got \"x\")"). A flag that sets a key never
// gets here: FlagValue keeps its text as given, and Resolve reads it by the key's rule.
func BadFlagValue(name, typ, value string) string {
	if want, ok := typeRules[typ]; ok {
		return name + ": must be " + want + " (got " + Quote(value) + ")"
	}
	return fmt.Sprintf("%s: %q is not a valid %s", name, value, typ)
}
