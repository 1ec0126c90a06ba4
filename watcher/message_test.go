package watcher

import (
	"testing"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// TestMessageOfAgent: the message typed into a pane is its @cac_message, else its own
// agent's message, else watch.message; an agent's "" is watch.message.
func TestMessageOfAgent(t *testing.T) {
	t.Parallel()
	w := &Watcher{cfg: Config{Message: "continue", Log: zerolog.Nop(),
		Agents: map[agent.Name]agent.Settings{agent.Codex: {Message: "go on, codex"}, agent.Claude: {}}}}
	for _, tc := range []struct {
		who    agent.Name
		option string
		want   string
	}{
		{agent.Codex, "", "go on, codex"},
		{agent.Claude, "", "continue"},
		{agent.Codex, "keep going", "keep going"},
		{agent.Codex, "!ls", "go on, codex"},
		{agent.Claude, "!ls", "continue"},
	} {
		p := &pane{agent: tc.who, info: tmuxctl.Pane{ID: "%1", Message: tc.option}}
		if got := w.message(p); got != tc.want {
			t.Errorf("message(%s pane, @cac_message %q) = %q, want %q", tc.who, tc.option, got, tc.want)
		}
	}
}
