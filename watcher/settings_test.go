package watcher_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/detector"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// TestConfigFromEveryKey changes each key of [watch], [policy], [panes] and the agents' tables
// ([claude], [codex]) from its default
// (as its tmux option, through config.Resolve) and finds the new value where the watcher reads
// it. A key added to one of these tables fails here until it reaches the watcher, or is said
// to be another's.
func TestConfigFromEveryKey(t *testing.T) {
	type arrival struct {
		value string                   // as the tmux option gives it
		got   func(watcher.Config) any // where the watcher keeps it
		want  any
	}
	cases := map[string]arrival{
		"watch.interval":         {"7s", func(c watcher.Config) any { return c.Interval }, 7 * time.Second},
		"watch.margin":           {"7m", func(c watcher.Config) any { return c.Schedule.Margin }, 7 * time.Minute},
		"watch.exact_margin":     {"7s", func(c watcher.Config) any { return c.Schedule.ExactMargin }, 7 * time.Second},
		"watch.message":          {"go on", func(c watcher.Config) any { return c.Message }, "go on"},
		"watch.native_grace":     {"7m", func(c watcher.Config) any { return c.Schedule.NativeGrace }, 7 * time.Minute},
		"watch.stagger":          {"7s", func(c watcher.Config) any { return c.Schedule.Stagger }, 7 * time.Second},
		"watch.max_per_reset":    {"7", func(c watcher.Config) any { return c.Schedule.MaxPerReset }, 7},
		"watch.max_attempts":     {"7", func(c watcher.Config) any { return c.Schedule.MaxAttempts }, 7},
		"policy.max_wait":        {"7h", func(c watcher.Config) any { return c.Policy.MaxWait }, 7 * time.Hour},
		"policy.untouched_after": {"7m", func(c watcher.Config) any { return c.Policy.UntouchedAfter }, 7 * time.Minute},
		"panes.include":          {"work*", func(c watcher.Config) any { return c.Panes.Include }, []string{"work*"}},
		"panes.exclude":          {"tmp-*, scratch", func(c watcher.Config) any { return c.Panes.Exclude }, []string{"tmp-*", "scratch"}},
	}
	for _, k := range detector.Kinds() {
		cases["policy."+string(k)] = arrival{"never", func(c watcher.Config) any { return c.Policy.Actions[k] }, config.ActionNever}
	}
	for _, n := range agent.Names() {
		cases["policy."+string(n)] = arrival{"never", func(c watcher.Config) any { return c.Policy.Agents[n] }, config.ActionNever}
		cases[string(n)+".enabled"] = arrival{"false", func(c watcher.Config) any { return c.Agents[n].Off }, true}
		cases[string(n)+".message"] = arrival{"go on", func(c watcher.Config) any { return c.Agents[n].Message }, "go on"}
	}
	agents := map[string]bool{}
	for _, n := range agent.Names() {
		agents[string(n)] = true
	}
	others := map[string]string{"watch.log_level": "the command's logger"}

	def := watcher.ConfigFrom(config.Default())
	for _, key := range config.Keys() {
		table, _, _ := strings.Cut(key, ".")
		if table != "watch" && table != "policy" && table != "panes" && !agents[table] || others[key] != "" {
			continue
		}
		a, ok := cases[key]
		if !ok {
			t.Errorf("%s: not seen to reach watcher.Config; add it to ConfigFrom and here, or to others", key)
			continue
		}
		e, err := config.Resolve(config.File{}, []config.Option{{Name: config.OptionName(key), Value: a.value}}, nil)
		if err != nil {
			t.Errorf("%s = %q: %v", key, a.value, err)
			continue
		}
		if got := a.got(watcher.ConfigFrom(e.Config)); !reflect.DeepEqual(got, a.want) || reflect.DeepEqual(a.got(def), a.want) {
			t.Errorf("%s = %q: the watcher has %v (default %v), want %v", key, a.value, got, a.got(def), a.want)
		}
	}
}

// TestConfigFromDefaults: the defaults of the configuration are the watcher's own (Defaults),
// the schedule's (scheduler.Default) among them.
func TestConfigFromDefaults(t *testing.T) {
	got := watcher.ConfigFrom(config.Default())
	if !reflect.DeepEqual(got.Policy, config.Default().Policy) || !reflect.DeepEqual(got.Panes, config.Panes{}) {
		t.Errorf("ConfigFrom(Default()) policy %+v, panes %+v; want the defaults", got.Policy, got.Panes)
	}
	if !reflect.DeepEqual(got.Agents, config.Default().AgentSettings()) {
		t.Errorf("ConfigFrom(Default()) agents %+v, want every agent at its default", got.Agents)
	}
	got.Policy, got.Agents = config.Policy{}, nil
	if !reflect.DeepEqual(got, watcher.Defaults) {
		t.Errorf("ConfigFrom(Default()) = %+v\nwant Defaults %+v", got, watcher.Defaults)
	}
}
