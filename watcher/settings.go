package watcher

import "github.com/cac-tmux/cac-tmux/config"

// ConfigFrom is the watcher's Config for the configuration in effect c (config.Resolve): its
// [watch] keys, the schedule's among them, its [policy], its [panes] and each agent's table
// ([claude], [codex]) over Defaults. What the
// configuration does not hold is Defaults' (the pause between keys, the settle time, the
// retry waits) or the caller's to set (the store, the log, the notifier, a dry run);
// watch.log_level is the caller's logger's, and [notify] becomes the Notifier. The command
// calls it at start and on every SIGHUP, so the two cannot differ.
func ConfigFrom(c config.Config) Config {
	w := c.Watch
	cfg := Defaults
	cfg.Interval, cfg.Message = w.Interval, w.Message
	cfg.Schedule.Margin, cfg.Schedule.ExactMargin = w.Margin, w.ExactMargin
	cfg.Schedule.NativeGrace, cfg.Schedule.Stagger = w.NativeGrace, w.Stagger
	cfg.Schedule.MaxPerReset, cfg.Schedule.MaxAttempts = w.MaxPerReset, w.MaxAttempts
	cfg.Policy, cfg.Panes, cfg.Agents = c.Policy, c.Panes, c.AgentSettings()
	return cfg
}
