package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/detector"
)

func TestOptionNames(t *testing.T) {
	for key, want := range map[string]string{
		"watch.interval":      "@cac-tmux-interval",
		"watch.margin":        "@cac-tmux-margin",
		"watch.message":       "@cac-tmux-message",
		"watch.native_grace":  "@cac-tmux-native-grace",
		"watch.stagger":       "@cac-tmux-stagger",
		"watch.max_per_reset": "@cac-tmux-max-per-reset",
		"watch.max_attempts":  "@cac-tmux-max-attempts",
		"watch.log_level":     "@cac-tmux-log-level",
		"policy.weekly":       "@cac-tmux-policy-weekly",
		"policy.5-hour":       "@cac-tmux-policy-5-hour",
		"policy.extra-usage":  "@cac-tmux-policy-extra-usage",
		"policy.max_wait":     "@cac-tmux-policy-max-wait",
		"panes.include":       "@cac-tmux-panes-include",
		"panes.exclude":       "@cac-tmux-panes-exclude",
		"watch.colour":        "",
		"margin":              "",
	} {
		if got := OptionName(key); got != want {
			t.Errorf("OptionName(%q) = %q, want %q", key, got, want)
		}
	}
	// One option per key, none shared with the plugin's own.
	seen := map[string]bool{}
	for _, o := range append(optionNames(), PluginOptions()...) {
		if seen[o] || !strings.HasPrefix(o, OptionPrefix) {
			t.Errorf("option %q: a duplicate, or not under %s", o, OptionPrefix)
		}
		seen[o] = true
	}
	if len(optionNames()) != len(Keys()) {
		t.Errorf("optionNames() has %d names for %d keys", len(optionNames()), len(Keys()))
	}
}

// file writes data to a file and reads it.
func file(t *testing.T, data string) File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil || !f.Found {
		t.Fatalf("ReadFile(%q) = %+v, %v", data, f, err)
	}
	return f
}

// TestResolvePrecedence: flags > tmux options > file > defaults, key by key, with the source
// of each value.
func TestResolvePrecedence(t *testing.T) {
	f := file(t, "[watch]\nmargin = \"10s\"\ninterval = \"3s\"\nstagger = \"7s\"\n[policy]\nweekly = \"notify\"\n")
	opts := []Option{
		{"@cac-tmux-margin", "20s"},
		{"@cac-tmux-interval", "4s"},
		{"@cac-tmux-policy-weekly", "never"},
		{"@cac-tmux-panes-exclude", "scratch, tmp-*,"},
		{"@cac-tmux-key", "C"},        // the plugin's: left alone
		{"@cac-tmux-autostart", "on"}, // the plugin's
		{"@other-plugin", "x"},        // not ours
	}
	flags := []Flag{{"--margin", "watch.margin", "30s"}}
	e, err := Resolve(f, opts, flags)
	if err != nil {
		t.Fatal(err)
	}
	want := withC(func(c *Config) {
		c.Watch.Margin, c.Watch.Interval, c.Watch.Stagger = 30*time.Second, 4*time.Second, 7*time.Second
		act(c, detector.KindWeekly, ActionNever)
		c.Panes.Exclude = []string{"scratch", "tmp-*"}
	})
	if !reflect.DeepEqual(e.Config, want) {
		t.Errorf("Resolve().Config = %+v\nwant %+v", e.Config, want)
	}
	wantSrc := map[string]string{
		"watch.margin":        "flag --margin",
		"watch.interval":      "tmux option @cac-tmux-interval",
		"watch.stagger":       "file " + f.Path + ":4",
		"policy.weekly":       "tmux option @cac-tmux-policy-weekly",
		"panes.exclude":       "tmux option @cac-tmux-panes-exclude",
		"watch.message":       "default",
		"policy.max_wait":     "default",
		"watch.max_attempts":  "default",
		"panes.include":       "default",
		"policy.spending-cap": "default",
	}
	for key, w := range wantSrc {
		if got := e.Sources[key].String(); got != w {
			t.Errorf("Sources[%s] = %q, want %q", key, got, w)
		}
	}
	// Each layer alone.
	for _, tc := range []struct {
		f     File
		opts  []Option
		flags []Flag
		want  time.Duration
		src   string
	}{
		{File{}, nil, nil, Default().Watch.Margin, "default"},
		{f, nil, nil, 10 * time.Second, "file " + f.Path + ":2"},
		{File{}, opts[:1], nil, 20 * time.Second, "tmux option @cac-tmux-margin"},
		{File{}, nil, flags, 30 * time.Second, "flag --margin"},
		{f, opts[:1], nil, 20 * time.Second, "tmux option @cac-tmux-margin"},
		{f, nil, flags, 30 * time.Second, "flag --margin"},
		{File{Path: "/none", Found: false}, nil, nil, Default().Watch.Margin, "default"},
	} {
		e, err := Resolve(tc.f, tc.opts, tc.flags)
		if err != nil || e.Config.Watch.Margin != tc.want || e.Sources["watch.margin"].String() != tc.src {
			t.Errorf("Resolve(%v, %v, %v) margin = %s from %s, %v; want %s from %s", tc.f.Found, tc.opts, tc.flags,
				e.Config.Watch.Margin, e.Sources["watch.margin"], err, tc.want, tc.src)
		}
	}
}

func TestResolveOptionValues(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        Config
	}{
		{"@cac-tmux-message", "go on \"now\"", withC(func(c *Config) { c.Watch.Message = `go on "now"` })},
		{"@cac-tmux-message", "café ☕", withC(func(c *Config) { c.Watch.Message = "café ☕" })},
		{"@cac-tmux-native-grace", "0", withC(func(c *Config) { c.Watch.NativeGrace = 0 })},
		{"@cac-tmux-max-per-reset", "2", withC(func(c *Config) { c.Watch.MaxPerReset = 2 })},
		{"@cac-tmux-max-attempts", "100", withC(func(c *Config) { c.Watch.MaxAttempts = 100 })},
		{"@cac-tmux-log-level", "debug", withC(func(c *Config) { c.Watch.LogLevel = "debug" })},
		{"@cac-tmux-policy-5-hour", "notify", withC(func(c *Config) { act(c, detector.KindFiveHour, ActionNotify) })},
		{"@cac-tmux-policy-max-wait", "12h", withC(func(c *Config) { c.Policy.MaxWait = 12 * time.Hour })},
		{"@cac-tmux-panes-include", "work*", withC(func(c *Config) { c.Panes.Include = []string{"work*"} })},
		{"@cac-tmux-panes-include", " a b , c ", withC(func(c *Config) { c.Panes.Include = []string{"a b", "c"} })},
		{"@cac-tmux-panes-include", "", Default()},
		{"@cac-tmux-panes-include", " , ", Default()},
	} {
		e, err := Resolve(File{}, []Option{{tc.name, tc.value}}, nil)
		if err != nil || !reflect.DeepEqual(e.Config, tc.want) {
			t.Errorf("Resolve(%s %q) = %+v, %v\nwant %+v", tc.name, tc.value, e.Config, err, tc.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	for _, tc := range []struct {
		opts  []Option
		flags []Flag
		want  string
	}{
		{[]Option{{"@cac-tmux-margin", "soon"}}, nil, `tmux option @cac-tmux-margin: must be a duration like "90s" (got "soon")`},
		{[]Option{{"@cac-tmux-margin", "-1s"}}, nil, `tmux option @cac-tmux-margin: must not be negative (got "-1s")`},
		{[]Option{{"@cac-tmux-interval", "10ms"}}, nil, `tmux option @cac-tmux-interval: must be at least 100ms (got "10ms")`},
		{[]Option{{"@cac-tmux-message", ""}}, nil, `tmux option @cac-tmux-message: must not be blank; it is the text typed to resume, like "continue" (got "")`},
		{[]Option{{"@cac-tmux-message", "a\nb"}}, nil, `tmux option @cac-tmux-message: must be one line (got "a\nb")`},
		{[]Option{{"@cac-tmux-message", "a\x1bb"}}, nil, `tmux option @cac-tmux-message: must not contain control characters (got "a\u001bb")`},
		{[]Option{{"@cac-tmux-message", "caf\xe9"}}, nil, `tmux option @cac-tmux-message: must be UTF-8 text (got "caf\xe9")`},
		{[]Option{{"@cac-tmux-max-attempts", "3.0"}}, nil, `tmux option @cac-tmux-max-attempts: must be an integer like 3 (got "3.0")`},
		{[]Option{{"@cac-tmux-max-attempts", " 3"}}, nil, `tmux option @cac-tmux-max-attempts: must be an integer like 3 (got " 3")`},
		{[]Option{{"@cac-tmux-max-attempts", "99999999999999999999"}}, nil, `tmux option @cac-tmux-max-attempts: must be from 1 to 100 (got "99999999999999999999")`},
		{[]Option{{"@cac-tmux-max-per-reset", "99999999999999999999"}}, nil, `tmux option @cac-tmux-max-per-reset: is too large (got "99999999999999999999")`},
		{[]Option{{"@cac-tmux-max-per-reset", "-99999999999999999999"}}, nil, `tmux option @cac-tmux-max-per-reset: must not be negative; 0 means no cap (got "-99999999999999999999")`},
		{[]Option{{"@cac-tmux-log-level", "INFO"}}, nil, `tmux option @cac-tmux-log-level: must be one of debug, info, warn, error (got "INFO")`},
		{[]Option{{"@cac-tmux-policy-weekly", "hold"}}, nil, `tmux option @cac-tmux-policy-weekly: must be resume, notify or never (got "hold")`},
		{[]Option{{"@cac-tmux-panes-exclude", "ok,wor[k"}}, nil, `tmux option @cac-tmux-panes-exclude: "wor[k" is not a valid pattern: a [ opens a class that no ] closes; close it, or write \[ for a [ (got "ok,wor[k")`},
		// unknown options: the nearest known one and the exact fix
		{[]Option{{"@cac-tmux-margn", "10s"}}, nil, `tmux option @cac-tmux-margn: unknown option (did you mean @cac-tmux-margin?); rename it, or unset it with: tmux set-option -gu @cac-tmux-margn`},
		{[]Option{{"@cac-tmux-native_grace", "1m"}}, nil, `tmux option @cac-tmux-native_grace: unknown option (did you mean @cac-tmux-native-grace?); rename it, or unset it with: tmux set-option -gu @cac-tmux-native_grace`},
		{[]Option{{"@cac-tmux-policy-weekley", "notify"}}, nil, `tmux option @cac-tmux-policy-weekley: unknown option (did you mean @cac-tmux-policy-weekly?); rename it, or unset it with: tmux set-option -gu @cac-tmux-policy-weekley`},
		{[]Option{{"@cac-tmux-max-wait", "1h"}}, nil, `tmux option @cac-tmux-max-wait: unknown option (did you mean @cac-tmux-policy-max-wait?); rename it, or unset it with: tmux set-option -gu @cac-tmux-max-wait`},
		{[]Option{{"@cac-tmux-include", "work*"}}, nil, `tmux option @cac-tmux-include: unknown option (did you mean @cac-tmux-panes-include?); rename it, or unset it with: tmux set-option -gu @cac-tmux-include`},
		{[]Option{{"@cac-tmux-frobnicate", "1"}}, nil, `tmux option @cac-tmux-frobnicate: unknown option; ` + "`cac-tmux config check`" + ` lists the options of every setting, or unset it with: tmux set-option -gu @cac-tmux-frobnicate`},
		{[]Option{{"@cac-tmux-autostrat", "on"}}, nil, `tmux option @cac-tmux-autostrat: unknown option (did you mean @cac-tmux-autostart?); rename it, or unset it with: tmux set-option -gu @cac-tmux-autostrat`},
		{[]Option{{"@cac-tmux-we ird", "x"}}, nil, `tmux option @cac-tmux-we ird: unknown option; ` + "`cac-tmux config check`" + ` lists the options of every setting, or unset it with: tmux set-option -gu '@cac-tmux-we ird'`},
		// flags
		{nil, []Flag{{"--margin", "watch.margin", "-1s"}}, `--margin: must not be negative (got "-1s")`},
		{nil, []Flag{{"--colour", "watch.colour", "red"}}, `--colour: sets no key of the configuration`},
		// every mistake, in the order given
		{[]Option{{"@cac-tmux-margin", "soon"}, {"@cac-tmux-x", "1"}, {"@cac-tmux-stagger", "1s"}}, []Flag{{"--interval", "watch.interval", "1ms"}},
			`tmux option @cac-tmux-margin: must be a duration like "90s" (got "soon")` + "\n" +
				"tmux option @cac-tmux-x: unknown option; `cac-tmux config check` lists the options of every setting, or unset it with: tmux set-option -gu @cac-tmux-x\n" +
				`--interval: must be at least 100ms (got "1ms")`},
	} {
		e, err := Resolve(File{}, tc.opts, tc.flags)
		if err == nil || err.Error() != tc.want || !reflect.DeepEqual(e, Effective{}) {
			t.Errorf("Resolve(%q, %q) = %v\nwant %s", tc.opts, tc.flags, err, tc.want)
			continue
		}
		var ce *Error
		if !errors.As(err, &ce) || ce.Option == "" && ce.flag == "" {
			t.Errorf("Resolve(%q, %q) = %#v, want an *Error naming the option or the flag", tc.opts, tc.flags, err)
		}
	}
}

func TestSettings(t *testing.T) {
	f := file(t, "[policy]\nweekly = \"notify\"\n")
	e, err := Resolve(f, []Option{{"@cac-tmux-margin", "90s"}}, []Flag{{"--message", "watch.message", "go on"}})
	if err != nil {
		t.Fatal(err)
	}
	got := e.Settings()
	keys := make([]string, len(got))
	for i, s := range got {
		keys[i] = s.Key
	}
	if !reflect.DeepEqual(keys, Keys()) {
		t.Fatalf("Settings() keys = %q, want Keys()", keys)
	}
	want := map[string]Setting{
		"watch.interval": {Key: "watch.interval", option: "@cac-tmux-interval", flag: "--interval", Value: `"1s"`},
		"watch.margin":   {Key: "watch.margin", option: "@cac-tmux-margin", flag: "--margin", Value: `"1m30s"`, Source: Source{option: "@cac-tmux-margin"}},
		"watch.message":  {Key: "watch.message", option: "@cac-tmux-message", flag: "--message", Value: `"go on"`, Source: Source{flag: "--message"}},
		"policy.weekly":  {Key: "policy.weekly", option: "@cac-tmux-policy-weekly", Value: `"notify"`, Source: Source{path: f.Path, line: 2}},
		"policy.opus":    {Key: "policy.opus", option: "@cac-tmux-policy-opus", Value: `"resume"`},
		"panes.include":  {Key: "panes.include", option: "@cac-tmux-panes-include", Value: `[]`},
	}
	for _, s := range got {
		if w, ok := want[s.Key]; ok {
			s.help = ""
			if s != w {
				t.Errorf("Settings()[%s] = %+v, want %+v", s.Key, s, w)
			}
		}
	}
}

// TestTableCheck registers a table with a rule between its keys (as [notify]'s "at most one
// of token_file and token_env"): the file, the tmux options and validate apply it, and its
// error says where the offending value came from.
func TestTableCheck(t *testing.T) {
	pair := &table{name: "pair", keys: []setting{
		newKey(meta{table: "pair", name: "a", want: "an array of strings"}, listKind, func(c *Config) *[]string { return &c.Panes.Include }, nil),
		newKey(meta{table: "pair", name: "b", want: "an array of strings"}, listKind, func(c *Config) *[]string { return &c.Panes.Exclude }, nil),
	}, check: func(c *Config) (string, string, string) {
		if len(c.Panes.Include) > 0 && len(c.Panes.Exclude) > 0 {
			return "pair.b", "set at most one of a and b; remove b", listKind.format(c.Panes.Exclude)
		}
		return "", "", ""
	}}
	saved := tables
	tables = append(slices.Clone(tables), pair)
	t.Cleanup(func() { tables = saved })

	if _, err := parseNamed("f", []byte("[pair]\na = [\"x\"]\n")); err != nil {
		t.Errorf("parseNamed(a only) = %v", err)
	}
	_, err := parseNamed("f", []byte("[pair]\na = [\"x\"]\n\nb = [ 'y' ]\n"))
	if want := `pair.b: set at most one of a and b; remove b (f line 4, got [ 'y' ])`; err == nil || err.Error() != want {
		t.Errorf("parseNamed(a and b) = %v, want %s", err, want)
	}
	f := file(t, "[pair]\na = [\"x\"]\n")
	_, err = Resolve(f, []Option{{"@cac-tmux-pair-b", "y"}}, nil)
	if want := `tmux option @cac-tmux-pair-b: set at most one of a and b; remove b (got ["y"])`; err == nil || err.Error() != want {
		t.Errorf("Resolve(file a, option b) = %v, want %s", err, want)
	}
	c := Default()
	c.Panes.Include, c.Panes.Exclude = []string{"x"}, []string{"y"}
	if err := c.validate(); err == nil || err.Error() != `pair.b: set at most one of a and b; remove b (got ["y"])` {
		t.Errorf("validate() = %v", err)
	}
}
