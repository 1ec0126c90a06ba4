package phone

import (
	"context"
	"errors"
	"testing"

	"github.com/cac-tmux/cac-tmux/tmuxctl"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// none supervises no server.
type none struct{}

func (none) Client(string) (*tmuxctl.Client, bool) { return nil, false }

// A link to a server no watcher of this process supervises (it stopped, or it is another
// process's) does nothing: each action says so, and nothing is asked of any tmux server.
func TestAskActorOutsideTheFleet(t *testing.T) {
	asked := false
	a := AskActor{Servers: none{}, Asking: func(*tmuxctl.Client) watcher.AskConfig { asked = true; return watcher.AskConfig{} }}
	s := Session{Server: "/tmp/gone", Pane: "%1", Binding: "b"}
	ctx := context.Background()
	_, errAct := a.Act(ctx, s, watcher.ResumeNow)
	_, errPrompt := a.Prompt(ctx, s, "go on")
	_, errScreen := a.Screen(ctx, s)
	_, _, errWhere := a.Where(ctx, s)
	for name, err := range map[string]error{"Act": errAct, "Prompt": errPrompt, "Screen": errScreen, "Where": errWhere} {
		if !errors.Is(err, errNotSupervised) {
			t.Errorf("%s = %v, want %v", name, err, errNotSupervised)
		}
	}
	if asked {
		t.Error("an action outside the fleet was asked")
	}
}
