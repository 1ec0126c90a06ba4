package config

import (
	"maps"

	"github.com/cac-tmux/cac-tmux/agent"
)

// The agents' tables, [claude] and [codex]: one per agent.Names(), each with enabled and
// message. Config.Agents holds them as agent.Settings, whose zero value is the default (on,
// the [watch] message), keyed by agent.

// defaultAgents is every agent on, with the [watch] message.
func defaultAgents() map[agent.Name]agent.Settings {
	m := make(map[agent.Name]agent.Settings)
	for _, n := range agent.Names() {
		m[n] = agent.Settings{}
	}
	return m
}

// AgentSettings are the settings of each agent in c, for the watcher (watcher.Config.Agents);
// the map is the caller's to keep.
func (c Config) AgentSettings() map[agent.Name]agent.Settings {
	m := defaultAgents()
	maps.Copy(m, c.Agents)
	return m
}

// MessageOf is what is typed into a stopped session of agent n under c: its table's message
// ([codex] message), else watch.message.
func (c Config) MessageOf(n agent.Name) string {
	if m := c.Agents[n].Message; m != "" {
		return m
	}
	return c.Watch.Message
}

// setAgent changes the settings of agent n in c by f; the map is copied first (a Config's
// copies share it).
func setAgent(c *Config, n agent.Name, f func(*agent.Settings)) {
	m := maps.Clone(c.Agents)
	if m == nil {
		m = make(map[agent.Name]agent.Settings)
	}
	s := m[n]
	f(&s)
	m[n] = s
	c.Agents = m
}

// agentTables are the tables of the agents, in the order of agent.Names().
func agentTables() []*table {
	var ts []*table
	for _, n := range agent.Names() {
		name := string(n)
		ts = append(ts, &table{name: name, help: []string{
			"The " + n.Title() + " panes: whether they are supervised, and what is typed into them."}, keys: []setting{
			accessKey(meta{table: name, name: "enabled", want: "true or false",
				help: "supervise the " + n.Title() + " panes; false: leave them alone (not listed, typed into or told about)"},
				boolKind,
				func(c *Config) bool { return !c.Agents[n].Off },
				func(c *Config, on bool) { setAgent(c, n, func(s *agent.Settings) { s.Off = !on }) }, nil),
			accessKey(meta{table: name, name: "message", want: `a string like "continue"`,
				help: "what is typed into a stopped " + n.Title() + " session instead of watch.message; \"\": watch.message"},
				textKind,
				func(c *Config) string { return c.Agents[n].Message },
				func(c *Config, m string) { setAgent(c, n, func(s *agent.Settings) { s.Message = m }) },
				func(m string) string {
					if m == "" {
						return ""
					}
					return CheckMessage(m)
				}),
		}})
	}
	return ts
}
