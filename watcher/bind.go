package watcher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// A binding names one Claude Code session as the watcher saw it when it told an event: the
// claude process (pid and start) and, when its registry entry could be read, the conversation
// (session id; without it the binding holds for any conversation of that process). An action
// asked with a binding (AskConfig.Binding, a phone's button) is refused unless the pane still
// runs that session: a pane id outlives its program (respawn-pane -k; a restarted server gives
// %0 again), and a conversation changes in the same process (/clear, /resume).

// BindingOf is the binding of the claude process id in the conversation session ("" when
// its records do not say): 24 hex digits of a SHA-256, so that the process's start and the
// session id are not shown by the links that carry it.
func BindingOf(id proc.Identity, session string) string {
	sum := sha256.Sum256([]byte("cac-tmux binding\x00" + strconv.Itoa(id.PID) + "\x00" + id.Start + "\x00" + session))
	return hex.EncodeToString(sum[:12])
}

// binds reports whether binding names the claude process id in the conversation session: the
// binding of both, or of the process alone when the conversation was not known when the
// binding was made.
func binds(binding string, id proc.Identity, session string) bool {
	return binding != "" && (binding == BindingOf(id, session) || binding == BindingOf(id, ""))
}

// sessionIn is the conversation that the records of the agent's process found in env name
// now, and the directory it runs in; "" when they do not say (no records, or an identity
// found without /proc).
func sessionIn(env records.Env, found proc.Found) (session, dir string) {
	pr := agent.Process{PID: found.PID}
	if start, ok := found.ProcStart(); ok {
		pr.ProcStart = start
	}
	return agent.For(found.Agent).Open(env, pr).Conversation()
}

// binding is the binding of session p as the watcher knows it now, "" when its process is not
// known (it is then never acted on from a link). Its records are read only if already located.
func (p *pane) binding() string {
	if p.unknown || p.PID == 0 {
		return ""
	}
	session := ""
	if p.recs.s != nil {
		session, _ = p.recs.s.Conversation()
	}
	return BindingOf(p.Identity, session)
}

// Place is where a session runs, as people name it.
type Place struct {
	// Target is the pane as session:window.pane, "main:1.0".
	Target string
	// Dir is the directory Claude Code runs in, from its registry entry; "" when unknown.
	Dir string
	// Agent is the agent that runs the session.
	Agent agent.Name
}

// Bound says why pane id does not run the session binding names now ("" when it does), and
// where it runs when it does: the claude process in the pane's foreground, found afresh, and
// the conversation its registry entry names now. An empty binding binds nothing and is
// refused.
func Bound(ctx context.Context, t Tmux, f Finder, id, binding string) (Place, string, error) {
	info, err := t.PaneInfo(ctx, id)
	switch {
	case errors.Is(err, tmuxctl.ErrNoTarget):
		return Place{}, "there is no pane " + id, nil
	case err != nil:
		return Place{}, "", err
	}
	found, ok, err := f.Find(ctx, info.PID)
	if err != nil || !ok {
		return Place{}, "Claude Code does not run in pane " + id + " now", nil
	}
	env, _ := f.Env(ctx, found.Identity) // unreadable: no conversation, which a binding with one refuses
	session, dir := sessionIn(env, found)
	if !binds(binding, found.Identity, session) {
		return Place{}, "pane " + id + " now runs another Claude Code session than the one this was asked for (the process or its conversation changed)", nil
	}
	return Place{Target: info.Target(), Dir: dir, Agent: found.Agent}, "", nil
}
