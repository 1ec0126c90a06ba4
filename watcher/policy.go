package watcher

import (
	"context"

	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The user's say over which panes are supervised, what is typed into them and which stops
// are resumed by themselves: [panes] include/exclude by session name, the pane
// options @cac_ignore and @cac_message, and [policy].

// outOfScope says why the watcher keeps its hands off a listed pane, "" when it does not: its
// session is not selected by [panes], or the pane says "@cac_ignore on". Any other value of
// @cac_ignore than "off", "0" or "" counts as on: a typo never leads to keys.
func (w *Watcher) outOfScope(info tmuxctl.Pane) string {
	switch info.Ignore {
	case "", "off", "0":
	default:
		return "the pane option @cac_ignore is " + info.Ignore
	}
	if ok, why := w.cfg.Panes.Match(info.Session); !ok {
		return why
	}
	return ""
}

// leave forgets a pane the watcher keeps its hands off, and clears what it published on it.
func (w *Watcher) leave(ctx context.Context, info tmuxctl.Pane, why string) error {
	if p := w.panes[info.ID]; p != nil {
		w.cfg.Log.Info().Str("pane", info.ID).Str("target", info.Target()).Str("why", why).Msg("the pane is left alone")
		delete(w.panes, info.ID)
	}
	if info.Options != (tmuxctl.Options{}) && !w.cfg.DryRun {
		return w.tmux.SetPaneOptions(ctx, info.ID, tmuxctl.OptionNames, tmuxctl.Options{}.Values())
	}
	return nil
}

// message is what is typed into the pane: its @cac_message when set and valid
// (config.CheckMessage), else its agent's message ([codex] message), else the configured
// message. A pane whose @cac_message breaks the rule is told once in the log, and gets the
// agent's or the configured one.
func (w *Watcher) message(p *pane) string {
	configured := w.cfg.Message
	if m := w.cfg.Agents[p.agent].Message; m != "" {
		configured = m
	}
	m := p.info.Message
	if m == "" {
		return configured
	}
	if why := config.CheckMessage(m); why != "" {
		if p.badMessage != m {
			p.badMessage = m
			p.event(w.cfg.Log.Warn()).Str("fix", "tmux set -p -t "+p.info.ID+" @cac_message 'continue'").
				Msg("the pane option @cac_message " + why + "; the configured message is typed instead")
		}
		return configured
	}
	return m
}

// byPolicy decides once per stop whether [policy] lets it be resumed by itself. A stop held
// by the policy is held until `cac-tmux resume` (p.manual), with the policy's reason in its
// note; "never" holds it without telling.
func (p *pane) byPolicy() (held bool, note string) {
	if !p.policy.decided {
		a, why := p.pol.For(p.agent, p.kind, p.reset.At, p.stopped)
		p.policy = decision{decided: true, action: a, why: why}
	}
	if p.policy.action == config.ActionResume || p.policy.action == "" || p.manual {
		return false, ""
	}
	p.silent = p.policy.action == config.ActionNever
	return true, p.policy.why + "; held until `cac-tmux resume " + p.info.ID + "`"
}

// decision is what [policy] said of the pane's stop.
type decision struct {
	decided bool
	action  config.Action
	why     string
}
