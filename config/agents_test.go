package config

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/detector"
)

// [claude] and [codex] from the file and from tmux options, with their rules: enabled is a
// bool (on by default), message is "" (the [watch] message) or follows watch.message's rule.
// AgentSettings holds every agent, the ones the file leaves out at their defaults.
func TestParseAgents(t *testing.T) {
	all := map[agent.Name]agent.Settings{agent.Claude: {}, agent.Codex: {}}
	if got := Default().AgentSettings(); !maps.Equal(got, all) {
		t.Errorf("Default().AgentSettings() = %v, want every agent on with the [watch] message", got)
	}
	if got := (Config{}).AgentSettings(); !maps.Equal(got, all) {
		t.Errorf("Config{}.AgentSettings() = %v, want every agent at its default", got)
	}
	c, err := parseNamed("cfg.toml", []byte("[codex]\nenabled = false\nmessage = \"go on\"\n[claude]\nmessage = \"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[agent.Name]agent.Settings{agent.Claude: {}, agent.Codex: {Off: true, Message: "go on"}}
	if got := c.AgentSettings(); !maps.Equal(got, want) {
		t.Errorf("AgentSettings() = %v, want %v", got, want)
	}
	if c.MessageOf(agent.Codex) != "go on" || c.MessageOf(agent.Claude) != "continue" {
		t.Errorf("MessageOf = %q, %q; want codex's own and watch.message", c.MessageOf(agent.Codex), c.MessageOf(agent.Claude))
	}
	c.AgentSettings()[agent.Claude] = agent.Settings{Off: true}
	if c.Agents[agent.Claude].Off || Default().Agents[agent.Claude].Off {
		t.Errorf("AgentSettings() shares its map")
	}
	for _, tc := range []struct{ data, want string }{
		{"[codex]\nmessage = \"-continue\"", `codex.message: must not start with "-" (claude would read it as an option)`},
		{"[claude]\nmessage = \"/compact\"", `claude.message: must not start with "/"`},
		{"[codex]\nmessage = \"  \"", `codex.message: must not be blank`},
		{"[codex]\nmessage = \"a\\nb\"", `codex.message: must be one line (cfg.toml line 2, got "a\nb")`},
		{"[codex]\nenabled = \"false\"", `codex.enabled: must be true or false, without quotes (cfg.toml line 2, got "false")`},
		{"[codex]\nenable = false", `codex.enable: unknown key (did you mean enabled?); the known keys of [codex] are enabled, message`},
		{"[gemini]\nenabled = false", `unknown table [gemini]`},
	} {
		if _, err := parseNamed("cfg.toml", []byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseNamed(%q) = %v\nwant %s", tc.data, err, tc.want)
		}
	}
	e, err := Resolve(File{}, []Option{{Name: "@cac-tmux-codex-enabled", Value: "false"}, {Name: "@cac-tmux-claude-message", Value: "keep going"}}, nil)
	want = map[agent.Name]agent.Settings{agent.Claude: {Message: "keep going"}, agent.Codex: {Off: true}}
	if got := e.Config.AgentSettings(); err != nil || !maps.Equal(got, want) {
		t.Errorf("Resolve(tmux options) = %v, %v; want %v", got, err, want)
	}
	if _, err := Resolve(File{}, []Option{{Name: "@cac-tmux-codex-message", Value: "!rm"}}, nil); err == nil ||
		!strings.Contains(err.Error(), `tmux option @cac-tmux-codex-message: must not start with "!"`) {
		t.Errorf("Resolve(a bad message as a tmux option) = %v, want the same rule", err)
	}
	ex := Example()
	for _, s := range []string{"[claude]\n", "[codex]\n", "# tmux option @cac-tmux-codex-enabled\nenabled = true\n", "# tmux option @cac-tmux-codex-message\nmessage = \"\"\n"} {
		if !strings.Contains(ex, s) {
			t.Errorf("Example() lacks %q", s)
		}
	}
}

// policy.AGENT holds every stop of that agent, whatever its kind's action; resume leaves the
// kind's action (and max_wait) to decide.
func TestPolicyForAgent(t *testing.T) {
	now := time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)
	c, err := parseNamed("cfg.toml", []byte("[policy]\ncodex = \"never\"\nweekly = \"notify\"\nmax_wait = \"1h\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		who  agent.Name
		kind detector.Kind
		want Action
		why  string
	}{
		{agent.Codex, detector.KindUsage, ActionNever, `policy.codex is "never"`},
		{agent.Codex, detector.KindWeekly, ActionNever, `policy.codex is "never"`},
		{agent.Claude, detector.KindUsage, ActionResume, ""},
		{agent.Claude, detector.KindWeekly, ActionNotify, `policy.weekly is "notify"`},
	} {
		if got, why := c.Policy.For(tc.who, tc.kind, now.Add(time.Minute), now); got != tc.want || why != tc.why {
			t.Errorf("For(%s, %s) = %q, %q; want %q, %q", tc.who, tc.kind, got, why, tc.want, tc.why)
		}
	}
	if got, _ := c.Policy.For(agent.Claude, detector.KindUsage, now.Add(2*time.Hour), now); got != ActionNotify {
		t.Errorf("For(claude, a reset past max_wait) = %q, want notify", got)
	}
	e, err := Resolve(File{}, []Option{{Name: "@cac-tmux-policy-codex", Value: "notify"}}, nil)
	if got, why := e.Config.Policy.For(agent.Codex, detector.KindSession, now, now); err != nil || got != ActionNotify || why != `policy.codex is "notify"` {
		t.Errorf("Resolve(@cac-tmux-policy-codex notify).For(codex) = %q, %q, %v", got, why, err)
	}
	if _, err := parseNamed("cfg.toml", []byte("[policy]\ncodex = \"hold\"")); err == nil || !strings.Contains(err.Error(), "policy.codex: must be resume, notify or never") {
		t.Errorf("policy.codex = \"hold\": %v, want the action's rule", err)
	}
}
