package config

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestKeyFlags: the flags are the registry's, each with its key's help, its default as text
// and the type of its value; no flag is written anywhere else.
func TestKeyFlags(t *testing.T) {
	def := Default()
	var want []string
	for _, t := range tables {
		for _, s := range t.keys {
			if s.base().flag != "" {
				want = append(want, s.base().key())
			}
		}
	}
	fl := KeyFlags()
	var got, names []string
	for _, f := range fl {
		s := lookupKey(f.Key)
		if s == nil {
			t.Errorf("KeyFlags(): %s sets no key", f.Name)
			continue
		}
		got, names = append(got, f.Key), append(names, f.Name)
		m := s.base()
		if "--"+f.Name != m.flag || f.Help != m.help || f.Default != s.text(&def) || f.Value.String() != f.Default || f.Value.Type() != s.typeName() {
			t.Errorf("KeyFlags(): %+v (value %q, type %q), want the registry's flag %s, help %q, default %q", f, f.Value, f.Value.Type(), m.flag, m.help, s.text(&def))
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("KeyFlags() keys = %q, want the keys with a flag %q", got, want)
	}
	if w := []string{"interval", "margin", "message", "log-level", "all-servers"}; !reflect.DeepEqual(names, w) {
		t.Errorf("KeyFlags() = %q, want %q", names, w)
	}
	for _, f := range fl {
		if f.Key == "watch.margin" && (f.Default != "1m" || f.Value.Type() != "duration") {
			t.Errorf("KeyFlags(): --margin default %q type %q, want 1m duration", f.Default, f.Value.Type())
		}
	}
	// Each call has values of its own.
	fl[0].Value.Set("5s")
	if again := KeyFlags(); again[0].Value.String() != again[0].Default {
		t.Errorf("KeyFlags() shares its values: %q", again[0].Value)
	}
}

// TestGivenFlags: only the flags given reach Resolve, with the text given, exactly; Resolve
// parses and checks it, and names the flag in its error.
func TestGivenFlags(t *testing.T) {
	fl := KeyFlags()
	if got := GivenFlags(fl); got != nil {
		t.Errorf("GivenFlags(none given) = %q, want none", got)
	}
	byName := map[string]*FlagValue{}
	for _, f := range fl {
		byName[f.Name] = f.Value
	}
	byName["message"].Set(" go on ")
	byName["margin"].Set("90s")
	want := []Flag{{"--margin", "watch.margin", "90s"}, {"--message", "watch.message", " go on "}} // file order
	if got := GivenFlags(fl); !reflect.DeepEqual(got, want) {
		t.Fatalf("GivenFlags() = %q, want %q", got, want)
	}
	e, err := Resolve(File{}, nil, GivenFlags(fl))
	if err != nil || e.Config.Watch.Margin != 90*time.Second || e.Config.Watch.Message != " go on " || e.Sources["watch.margin"].String() != "flag --margin" {
		t.Errorf("Resolve(GivenFlags()) = %+v, %v; want margin 90s from flag --margin", e.Config.Watch, err)
	}
	byName["margin"].Set("-1s")
	byName["interval"].Set("soon")
	_, err = Resolve(File{}, nil, GivenFlags(fl))
	if want := `--interval: must be a duration like "90s" (got "soon")` + "\n" + `--margin: must not be negative (got "-1s")`; err == nil || err.Error() != want {
		t.Errorf("Resolve(bad flags) = %v, want\n%s", err, want)
	}
}

// TestFlagFromRegistryAlone gives watch.stagger a flag the way keys.go would, and nothing
// else: it is a flag with the key's help and default, and its value reaches the key through
// Resolve, by the key's rule.
func TestFlagFromRegistryAlone(t *testing.T) {
	m := watchTable.key("stagger").base()
	if m.flag != "" {
		t.Skipf("watch.stagger has a flag already (%s); the test needs a key without one", m.flag)
	}
	m.flag = "--stagger"
	t.Cleanup(func() { m.flag = "" })
	var stagger *KeyFlag
	fl := KeyFlags()
	for i := range fl {
		if fl[i].Key == "watch.stagger" {
			stagger = &fl[i]
		}
	}
	if stagger == nil || stagger.Name != "stagger" || stagger.Help != m.help || stagger.Default != "5s" || stagger.Value.Type() != "duration" {
		t.Fatalf("KeyFlags() with a flag on watch.stagger = %+v, want --stagger with its help and default 5s", fl)
	}
	stagger.Value.Set("9s")
	e, err := Resolve(File{}, []Option{{"@cac-tmux-stagger", "7s"}}, GivenFlags(fl))
	if err != nil || e.Config.Watch.Stagger != 9*time.Second || e.Sources["watch.stagger"].String() != "flag --stagger" {
		t.Errorf("Resolve(--stagger 9s over the option) = %s from %s, %v; want 9s from flag --stagger", e.Config.Watch.Stagger, e.Sources["watch.stagger"], err)
	}
	stagger.Value.Set("-1s")
	if _, err := Resolve(File{}, nil, GivenFlags(fl)); err == nil || err.Error() != `--stagger: must not be negative (got "-1s")` {
		t.Errorf("Resolve(--stagger -1s) = %v", err)
	}
}

// TestEveryKeyCanHaveAFlag gives every key a flag: each one's default, as the flag shows it,
// reads back as the default by the key's rule, and its help can be a flag's (pflag takes a
// word in backquotes for the name of the value).
func TestEveryKeyCanHaveAFlag(t *testing.T) {
	saved := map[*meta]string{}
	for _, t := range tables {
		for _, s := range t.keys {
			m := s.base()
			saved[m] = m.flag
			m.flag = "--" + strings.ReplaceAll(m.key(), ".", "-")
		}
	}
	t.Cleanup(func() {
		for m, f := range saved {
			m.flag = f
		}
	})
	fl := KeyFlags()
	if len(fl) != len(Keys()) {
		t.Fatalf("KeyFlags() = %d flags for %d keys", len(fl), len(Keys()))
	}
	for _, f := range fl {
		if strings.Contains(f.Help, "`") {
			t.Errorf("%s: help %q has a backquote", f.Key, f.Help)
		}
		f.Value.Set(f.Default)
		e, err := Resolve(File{}, nil, GivenFlags([]KeyFlag{f}))
		if err != nil || !reflect.DeepEqual(e.Config, Default()) || e.Sources[f.Key].String() != "flag --"+f.Name {
			t.Errorf("Resolve(--%s %q) = %v; want the default, from the flag", f.Name, f.Default, err)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"xml":                   `"xml"`,
		"":                      `""`,
		"a\"b":                  `"a\"b"`,
		"go\x1b[2J":             `"go\u001b[2J"`,
		strings.Repeat("x", 70): `"` + strings.Repeat("x", 56) + "...",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

// A flag of a type pflag reads, given a value it cannot read, is refused in the words of the
// keys' rules; a type without a rule is named.
func TestBadFlagValue(t *testing.T) {
	for _, tc := range []struct{ typ, want string }{
		{"bool", `--once: must be true or false (got "x!")`},
		{"int", `--once: must be an integer (got "x!")`},
		{"float64", `--once: "x!" is not a valid float64`},
	} {
		if got := BadFlagValue("--once", tc.typ, "x!"); got != tc.want {
			t.Errorf("BadFlagValue(%s) = %q, want %q", tc.typ, got, tc.want)
		}
	}
}
