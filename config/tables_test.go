package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
)

// withC returns Default() changed by f.
func withC(f func(c *Config)) Config {
	c := Default()
	f(&c)
	return c
}

// act sets the action of one kind (the map is copied: Default's is shared by nobody, but the
// test should not rely on it).
func act(c *Config, k detector.Kind, a Action) {
	m := make(map[detector.Kind]Action)
	for kk, v := range c.Policy.Actions {
		m[kk] = v
	}
	m[k] = a
	c.Policy.Actions = m
}

func TestDefaultPolicyAndPanes(t *testing.T) {
	d := Default()
	if len(d.Policy.Actions) != len(detector.Kinds()) || d.Policy.MaxWait != 0 {
		t.Errorf("Default().Policy = %+v, want every kind and no max_wait", d.Policy)
	}
	for _, k := range detector.Kinds() {
		if d.Policy.Actions[k] != ActionResume {
			t.Errorf("Default().Policy.Actions[%q] = %q, want resume", k, d.Policy.Actions[k])
		}
	}
	if d.Panes.Include != nil || d.Panes.Exclude != nil {
		t.Errorf("Default().Panes = %+v, want none", d.Panes)
	}
	if err := d.validate(); err != nil {
		t.Errorf("Default().validate() = %v", err)
	}
	// Each call has its own map.
	d.Policy.Actions[detector.KindWeekly] = ActionNever
	if Default().Policy.Actions[detector.KindWeekly] != ActionResume {
		t.Errorf("Default() shares its Policy.Actions map")
	}
}

func TestParseTables(t *testing.T) {
	for _, tc := range []struct {
		data string
		want Config
	}{
		{"[policy]\nweekly = \"notify\"\nmax_wait = \"12h\"\n", withC(func(c *Config) {
			act(c, detector.KindWeekly, ActionNotify)
			c.Policy.MaxWait = 12 * time.Hour
		})},
		{"[policy]\n5-hour = \"never\"\nextra-usage = 'notify'\nmax_wait = \"0\"", withC(func(c *Config) {
			act(c, detector.KindFiveHour, ActionNever)
			act(c, detector.KindExtraUsage, ActionNotify)
		})},
		{"policy.weekly = \"never\"", withC(func(c *Config) { act(c, detector.KindWeekly, ActionNever) })},
		{"policy = { weekly = \"never\", max_wait = \"1h30m\" }", withC(func(c *Config) {
			act(c, detector.KindWeekly, ActionNever)
			c.Policy.MaxWait = 90 * time.Minute
		})},
		{"[policy]\nweekly = \"resume\"", Default()},
		{"[panes]\ninclude = [\"work*\", \"notes\"]\nexclude = []", withC(func(c *Config) { c.Panes.Include = []string{"work*", "notes"} })},
		{"[panes]\nexclude = [\n  \"scratch\",  # old\n  'tmp-\\*',\n]\n", withC(func(c *Config) { c.Panes.Exclude = []string{"scratch", `tmp-\*`} })},
		{"panes.include = [\"[a-c]?x\"]", withC(func(c *Config) { c.Panes.Include = []string{"[a-c]?x"} })},
		{"[watch]\nmargin = \"2m\"\n[policy]\nopus = \"notify\"\n[panes]\ninclude = [\"*\"]\n", withC(func(c *Config) {
			c.Watch.Margin = 2 * time.Minute
			act(c, detector.KindOpus, ActionNotify)
			c.Panes.Include = []string{"*"}
		})},
		{"watch = { margin = \"2m\" }", withC(func(c *Config) { c.Watch.Margin = 2 * time.Minute })},
	} {
		got, err := parseNamed("cfg.toml", []byte(tc.data))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseNamed(%q) = %+v, %v\nwant %+v", tc.data, got, err, tc.want)
		}
	}
}

func TestParseTablesErrors(t *testing.T) {
	policyKeys := "session, 5-hour, weekly, opus, sonnet, model, usage, extra-usage, usage-credits, spending-cap, team, legacy, unknown, claude, codex, max_wait, untouched_after"
	for _, tc := range []struct{ data, want string }{
		{"[policy]\nweekly = \"hold\"", `policy.weekly: must be resume, notify or never (cfg.toml line 2, got "hold")`},
		{"[policy]\nweekly = \"Notify\"", `policy.weekly: must be resume, notify or never (cfg.toml line 2, got "Notify")`},
		{"[policy]\nweekly = 1", `policy.weekly: must be one of "resume", "notify", "never" (cfg.toml line 2, got 1)`},
		{"[policy]\nweekly = notify", `policy.weekly: must be one of "resume", "notify", "never"; expected keyword "nan" (cfg.toml line 2, got notify)`},
		{"[policy]\nweekley = \"notify\"", `policy.weekley: unknown key (did you mean weekly?); the known keys of [policy] are ` + policyKeys + ` (cfg.toml line 2)`},
		{"[policy]\nfive_hour = \"notify\"", `policy.five_hour: unknown key (did you mean 5-hour?); the known keys of [policy] are ` + policyKeys + ` (cfg.toml line 2)`},
		{"[policy]\nseven-day = \"notify\"", `policy.seven-day: unknown key (did you mean weekly?); the known keys of [policy] are ` + policyKeys + ` (cfg.toml line 2)`},
		{"[policy]\nmax-wait = \"1h\"", `policy.max-wait: unknown key (did you mean max_wait?); the known keys of [policy] are ` + policyKeys + ` (cfg.toml line 2)`},
		{"[policy]\nmonthly = \"never\"", `policy.monthly: unknown key; the known keys of [policy] are ` + policyKeys + ` (cfg.toml line 2)`},
		{"[policy]\nmax_wait = \"-1h\"", `policy.max_wait: must not be negative (cfg.toml line 2, got "-1h")`},
		{"[policy]\nmax_wait = 12", `policy.max_wait: must be a duration like "90s" (cfg.toml line 2, got 12)`},
		{"[policy]\nmax_wait = \"12 hours\"", `policy.max_wait: must be a duration like "90s" (cfg.toml line 2, got "12 hours")`},
		{"[polcy]\nweekly = \"notify\"", `unknown table [polcy] (did you mean [policy]?); the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 1)`},
		{"[policy.weekly]", `unknown table [policy.weekly]; the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 1)`},
		{"weekly = \"notify\"", `weekly: is outside any table; put it under [policy] or write policy.weekly (cfg.toml line 1)`},
		{"policy = { weekly = \"hold\" }", `policy.weekly: must be resume, notify or never (cfg.toml line 1, got "hold")`},
		{"policy = 1", `policy must be one table: write [policy] once, with every setting under it (cfg.toml line 1)`},
		{"[policy]\n[policy]", `policy must be one table: write [policy] once, with every setting under it (cfg.toml line 2)`},
		{"[panes]\ninclude = \"work*\"", `panes.include: must be an array of patterns like ["work*", "notes"] (cfg.toml line 2, got "work*")`},
		{"[panes]\nexclude = [\"a\", 1]", `panes.exclude: must be an array of patterns like ["scratch", "tmp-*"] (cfg.toml line 2, got ["a", 1])`},
		{"[panes]\ninclude = [\"wor[k\"]", `panes.include: "wor[k" is not a valid pattern: a [ opens a class that no ] closes; close it, or write \[ for a [ (cfg.toml line 2, got ["wor[k"])`},
		{"[panes]\nexclude = ['x\\']", `panes.exclude: "x\\" is not a valid pattern: it ends with a \ that quotes nothing; remove it, or write \\ for a \ (cfg.toml line 2, got ['x\'])`},
		{"[panes]\ninclude = [\"[]x\"]", `panes.include: "[]x" is not a valid pattern: a [] class is empty; put the characters to match between the brackets, or write \[ for a [ (cfg.toml line 2, got ["[]x"])`},
		{"[panes]\ninclude = [\"a[b-]\"]", `panes.include: "a[b-]" is not a valid pattern: see the pattern syntax: * any text, ? one character, [a-z] a class, \ quotes the next character (cfg.toml line 2, got ["a[b-]"])`},
		{"[panes]\ninclude = [\"ok\", \"\"]", `panes.include: must not hold an empty pattern (it matches no session); remove it, or write "*" for every session (cfg.toml line 2, got ["ok", ""])`},
		{"[panes]\nincluded = []", `panes.included: unknown key (did you mean include?); the known keys of [panes] are include, exclude (cfg.toml line 2)`},
		{"[pane]", `unknown table [pane] (did you mean [panes]?); the known tables are [watch], [policy], [panes], [claude], [codex], [notify], [servers], [hosts], [phone], [accounts] (cfg.toml line 1)`},
		// every mistake, by line whatever the table, and as written on one line
		{"[panes]\ninclude = [\"ok\"]\n[policy]\nweekly = \"x\"\n[watch]\nmargin = \"soon\"", `policy.weekly: must be resume, notify or never (cfg.toml line 4, got "x")` + "\n" +
			`watch.margin: must be a duration like "90s" (cfg.toml line 6, got "soon")`},
		{"watch = { stagger = \"x\", margin = \"y\" }", `watch.stagger: must be a duration like "90s" (cfg.toml line 1, got "x")` + "\n" +
			`watch.margin: must be a duration like "90s" (cfg.toml line 1, got "y")`},
	} {
		_, err := parseNamed("cfg.toml", []byte(tc.data))
		var got string
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("parseNamed(%q) = %v\nwant %v", tc.data, got, tc.want)
		}
		if e := (*Error)(nil); err != nil && !errors.As(err, &e) {
			t.Errorf("parseNamed(%q) = %T, want *Error", tc.data, err)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Default(), ""},
		{withC(func(c *Config) { c.Watch.Margin = -1 }), `watch.margin: must not be negative (got "-1ns")`},
		{withC(func(c *Config) { act(c, detector.KindTeam, "hold") }), `policy.team: must be resume, notify or never (got "hold")`},
		{withC(func(c *Config) { c.Policy.MaxWait = -time.Hour }), `policy.max_wait: must not be negative (got "-1h")`},
		{withC(func(c *Config) { c.Panes.Exclude = []string{"a", "b\\"} }), `panes.exclude: "b\\" is not a valid pattern: it ends with a \ that quotes nothing; remove it, or write \\ for a \ (got ["a", "b\\"])`},
	} {
		err := tc.c.validate()
		var got string
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("validate() = %v, want %v", got, tc.want)
		}
	}
}

func TestPolicyFor(t *testing.T) {
	now := time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)
	p := withC(func(c *Config) {
		act(c, detector.KindWeekly, ActionNotify)
		act(c, detector.KindOpus, ActionNever)
		c.Policy.MaxWait = 12 * time.Hour
	}).Policy
	for _, tc := range []struct {
		p     Policy
		kind  detector.Kind
		reset time.Time
		want  Action
		why   string
	}{
		{p, detector.KindSession, now.Add(time.Hour), ActionResume, ""},
		{p, detector.KindSession, now.Add(12 * time.Hour), ActionResume, ""}, // exactly max_wait
		{p, detector.KindSession, now.Add(12*time.Hour + time.Second), ActionNotify, "the reset is 12h away, more than policy.max_wait 12h"},
		{p, detector.KindFiveHour, now.Add(3*24*time.Hour + 2*time.Hour + 20*time.Second), ActionNotify, "the reset is 74h away, more than policy.max_wait 12h"},
		{p, detector.KindWeekly, now.Add(time.Minute), ActionNotify, `policy.weekly is "notify"`},
		{p, detector.KindOpus, now.Add(time.Minute), ActionNever, `policy.opus is "never"`},
		{p, detector.KindOpus, now.Add(48 * time.Hour), ActionNever, `policy.opus is "never"`}, // never stays never
		{p, detector.KindSession, time.Time{}, ActionResume, ""},                               // unknown reset: max_wait cannot tell
		{p, detector.KindSession, now.Add(-time.Hour), ActionResume, ""},                       // already past
		{p, detector.KindNone, now.Add(48 * time.Hour), ActionNotify, "the reset is 48h away, more than policy.max_wait 12h"},
		{Policy{}, detector.KindWeekly, now.Add(100 * time.Hour), ActionResume, ""}, // zero policy: resume, no limit
		{Default().Policy, detector.KindWeekly, now.Add(7 * 24 * time.Hour), ActionResume, ""},
	} {
		got, why := tc.p.For(agent.Claude, tc.kind, tc.reset, now)
		if got != tc.want || why != tc.why {
			t.Errorf("For(%q, %s) = %q, %q; want %q, %q", tc.kind, tc.reset.Sub(now), got, why, tc.want, tc.why)
		}
	}
}

func TestParseAction(t *testing.T) {
	for _, s := range []string{"resume", "notify", "never"} {
		if a, err := parseAction(s); err != nil || string(a) != s {
			t.Errorf("parseAction(%q) = %q, %v", s, a, err)
		}
	}
	for _, s := range []string{"", "Resume", "hold", " never"} {
		if _, err := parseAction(s); err == nil || !strings.Contains(err.Error(), "must be resume, notify or never") {
			t.Errorf("parseAction(%q) = %v, want an error", s, err)
		}
	}
}

func TestPanesAllows(t *testing.T) {
	for _, tc := range []struct {
		p       Panes
		session string
		want    bool
		why     string
	}{
		{Panes{}, "anything", true, ""},
		{Panes{}, "", true, ""},
		{Panes{Include: []string{"work*"}}, "work", true, ""},
		{Panes{Include: []string{"work*"}}, "work-2", true, ""},
		{Panes{Include: []string{"work*"}}, "homework", false, `session "homework" matches none of panes.include "work*"`},
		{Panes{Include: []string{"work*", "notes"}}, "notes", true, ""},
		{Panes{Include: []string{"work*", "notes"}}, "notes2", false, `session "notes2" matches none of panes.include "work*", "notes"`},
		{Panes{Include: []string{"work*"}}, "work/a", false, `session "work/a" matches none of panes.include "work*"`}, // * does not cross a /
		{Panes{Exclude: []string{"scratch"}}, "scratch", false, `session "scratch" matches panes.exclude "scratch"`},
		{Panes{Exclude: []string{"scratch"}}, "work", true, ""},
		{Panes{Include: []string{"*"}, Exclude: []string{"tmp-?"}}, "tmp-1", false, `session "tmp-1" matches panes.exclude "tmp-?"`}, // exclude wins
		{Panes{Include: []string{"*"}, Exclude: []string{"tmp-?"}}, "tmp-10", true, ""},
		{Panes{Include: []string{`notes\*`}}, "notes*", true, ""},
		{Panes{Include: []string{`notes\*`}}, "notesX", false, `session "notesX" matches none of panes.include "notes\\*"`},
		{Panes{Include: []string{"[a-c]x"}}, "bx", true, ""},
		{Panes{Include: []string{"wor[k"}}, "work", false, `session "work" matches none of panes.include "wor[k"`}, // malformed: matches nothing
		{Panes{Include: []string{"a b"}}, "a b", true, ""},
		{Panes{Include: []string{"café*"}}, "café ☕", true, ""},
	} {
		ok, why := tc.p.Match(tc.session)
		if ok != tc.want || why != tc.why || tc.p.allows(tc.session) != tc.want {
			t.Errorf("%+v.Match(%q) = %v, %q; want %v, %q", tc.p, tc.session, ok, why, tc.want, tc.why)
		}
	}
}

func TestExample(t *testing.T) {
	ex := Example()
	c, err := parseNamed("example", []byte(ex))
	if err != nil || !reflect.DeepEqual(c, Default()) {
		t.Fatalf("parseNamed(Example()) = %+v, %v; want Default()", c, err)
	}
	for _, k := range Keys() {
		if !strings.Contains(ex, "\n"+k[strings.IndexByte(k, '.')+1:]+" = ") || !strings.Contains(ex, OptionName(k)+"\n") && !strings.Contains(ex, OptionName(k)+", flag") {
			t.Errorf("Example() lacks the key %s or its option %s", k, OptionName(k))
		}
	}
	for _, flag := range []string{"--interval", "--margin", "--message", "--log-level"} {
		if !strings.Contains(ex, "flag "+flag+"\n") {
			t.Errorf("Example() lacks the flag %s", flag)
		}
	}
}
