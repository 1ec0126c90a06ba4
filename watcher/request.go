package watcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/store"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// The @cac_request protocol, both halves: how a command (`cac-tmux resume`, `skip`, `unskip`,
// the popup's r and s, a phone's action) has an action carried out on a pane (Ask), and how
// the running watcher answers (answer).
//
//  1. The command takes the pane's lock (store.LockPane: one action on a pane at a time), then
//     tries the server's (store.Open). Free: no watcher runs, and the command acts itself with
//     the watcher's own code, holding that lock (actHere). Held: it hands the action over
//     (handOver).
//  2. It sets the pane's @cac_request to "ACTION NONCE" ("prompt NONCE TEXT" for a Prompt) and
//     the server's @cac_requests, which a listing of changes sees (tmuxctl.Client.Request),
//     and reads @cac_reply every 100 ms (awaitReply).
//  3. The watcher, at its next tick, withdraws the request, carries it out (do) and answers
//     "NONCE VERDICT MESSAGE" in @cac_reply (answer). A resume whose keys went out is answered
//     "sent", and @cac_request says "await NONCE PID" until its outcome is answered too
//     (answerAwait).
//  4. A request the watcher does not take in time, or before it stops, is withdrawn by the
//     command: nothing was sent.

// Action is what a user asks of one Claude Code session (`cac-tmux resume`, `skip`,
// `unskip`, the popup's r and s).
type Action string

// The actions.
const (
	// ResumeNow resumes the session at once: every gate of SAFETY.md but the reset.
	ResumeNow Action = "resume"
	// Skip leaves the session alone until its next stop.
	Skip Action = "skip"
	// Unskip takes a skip back: the session waits for its reset again, as it would have
	// without the skip.
	Unskip Action = "unskip"
	// Handover is the skip an automatic switch ([accounts] auto) asks for before it respawns
	// the pane: refused when a person typed at the stop, which is then theirs.
	Handover Action = "handover"
)

// parseAction reads an action's name.
func parseAction(s string) (Action, error) {
	switch a := Action(s); a {
	case ResumeNow, Skip, Unskip, Prompt, Handover:
		return a, nil
	}
	return "", fmt.Errorf("watcher: parse action %q: not resume, skip, unskip, prompt or handover", s)
}

// Outcome is the answer to an action. Done: carried out (a skip; a resume whose session
// resumed, or, with Pending, whose keys went out and whose effect is not seen yet). Sent: a
// resume's keys went out but the session did not resume; Held says the pane is held. Neither:
// refused, nothing sent. Message says what was seen, or which gate refused.
type Outcome struct {
	Done    bool
	Pending bool
	Sent    bool
	Held    bool
	Message string
}

func refused(format string, a ...any) Outcome { return Outcome{Message: fmt.Sprintf(format, a...)} }

// The verdicts of an answer in @cac_reply ("NONCE VERDICT MESSAGE"): ok, refused, and for a
// resume whose keys went out, sent (an answer with the outcome follows), then held or failed
// (not resumed) or ok (resumed). An older watcher answered a resume ok once its keys went
// out.
const (
	verdictOK      = "ok"
	verdictSent    = "sent"
	verdictHeld    = "held"
	verdictFailed  = "failed"
	verdictRefused = "refused"
)

// verdict is the word of @cac_reply that stands for o.
func (o Outcome) verdict() string {
	switch {
	case o.Done && o.Pending:
		return verdictSent
	case o.Done:
		return verdictOK
	case o.Held:
		return verdictHeld
	case o.Sent:
		return verdictFailed
	}
	return verdictRefused
}

// replyValue is the value of @cac_reply that answers the request of nonce with o.
func (o Outcome) replyValue(nonce string) string {
	return oneLine(nonce + " " + o.verdict() + " " + o.Message)
}

// parseReply reads a value of @cac_reply; ok is false when it does not answer the request of
// nonce. An unknown verdict reads as a refusal.
func parseReply(reply, nonce string) (o Outcome, ok bool) {
	rest, ok := strings.CutPrefix(reply, nonce+" ")
	if !ok {
		return Outcome{}, false
	}
	verdict, msg, _ := strings.Cut(rest, " ")
	o.Message = msg
	switch verdict {
	case verdictOK:
		o.Done = true
	case verdictSent:
		o.Done, o.Pending = true, true
	case verdictHeld:
		o.Sent, o.Held = true, true
	case verdictFailed:
		o.Sent = true
	}
	return o, true
}

// awaitRequest is what answer leaves in @cac_request once a resume's keys went out ("await
// NONCE PID", PID the claude process typed into): the pane carries it, so each tick hands it
// to answer again, until the outcome is known and answered (answerAwait). It survives a
// restart of the watcher with the pane option.
const awaitRequest = "await"

// bindingSep joins an action's name and its binding in a request ("resume~BINDING NONCE"),
// when the command asks for one session (AskConfig.Binding).
const bindingSep = "~"

// The client half: a command asks.

// AskConfig is what Ask needs of the command that asks, besides the pane and the action.
type AskConfig struct {
	// Getenv reads the environment: where the locks and the state file are (store.Open,
	// store.LockPane).
	Getenv func(string) string
	// Settings reads the watcher's settings (the configuration file and the tmux options) for
	// acting without a watcher; it is not called while one runs.
	Settings func(ctx context.Context) (Config, error)
	// Finder finds the Claude Code process in the pane when Ask acts itself.
	Finder Finder
	// Notices receives what Ask waits for, and the warnings of the watcher's code when Ask
	// acts itself; nil discards them.
	Notices io.Writer
	// Text is the prompt a Prompt types (CheckPrompt); unused by the other actions.
	Text string
	// Binding, when set, is the session the action is for (BindingOf): the action is refused
	// unless the pane runs it (Bound). A phone's button sets it; the commands do not.
	Binding string
	// Clock dates the request and times the wait for its answer; nil is clock.Real.
	Clock clock.Clock
}

// notices is where the notices go.
func (cfg AskConfig) notices() io.Writer {
	if cfg.Notices == nil {
		return io.Discard
	}
	return cfg.Notices
}

// The bounds of the wait for the running watcher: it takes a request at its next tick (the
// interval is at most a minute), and once the keys went out it sees their effect within
// seconds (Settle, after a menu's digit the message first).
const (
	answerWithin  = 75 * time.Second
	outcomeWithin = time.Minute
)

// Ask carries out action a on pane id of the server of c for a command, and says how it
// went: through the running watcher when there is one (handOver), else here, holding its
// lock (actHere). One action on a pane at a time: while another command's resume, skip or
// unskip of the pane runs (it holds the pane's lock), the action is refused at once and
// nothing is sent; that command reports the outcome.
func Ask(ctx context.Context, c *tmuxctl.Client, id string, a Action, cfg AskConfig) (Outcome, error) {
	server, err := c.SocketFileHere()
	if err != nil {
		return Outcome{}, err
	}
	var locked *store.LockedError
	busy, err := store.LockPane(cfg.Getenv, server, id)
	switch {
	case errors.As(err, &locked):
		return Outcome{Message: inProgress(id, locked.PID)}, nil
	case err != nil:
		return Outcome{}, err
	}
	defer busy.Release()
	st, lock, err := store.Open(cfg.Getenv, server, false)
	switch {
	case errors.As(err, &locked): // a watcher runs: it does it
		return handOver(ctx, c, id, a, locked.PID, cfg)
	case err != nil:
		return Outcome{}, err
	}
	defer lock.Release()
	return actHere(ctx, c, st, id, a, cfg)
}

// inProgress says that another command acts on pane id (pid 0: not known yet).
func inProgress(id string, pid int) string {
	who := "another cac-tmux command"
	if pid > 0 {
		who += " (pid " + strconv.Itoa(pid) + ")"
	}
	return "a resume, skip or unskip of " + id + " is already in progress in " + who + ", which reports its outcome; nothing was sent"
}

// Why a wait for the running watcher's answer ended without it.
var (
	errNoAnswer    = errors.New("no answer in time")
	errWatcherGone = errors.New("the watcher stopped")
)

// handOver hands the action to the running watcher (pid, 0 when not known) through the pane
// option @cac_request and waits for its answer in @cac_reply: that it took the request, then,
// once a resume's keys went out, their outcome (awaitOutcome). A request the watcher does not
// take is withdrawn, and nothing was sent.
func handOver(ctx context.Context, c *tmuxctl.Client, id string, a Action, pid int, cfg AskConfig) (Outcome, error) {
	nonce := strconv.FormatInt(clock.Or(cfg.Clock).Now().UnixNano(), 36) + "-" + strconv.Itoa(os.Getpid())
	request := string(a) + " " + nonce
	if cfg.Binding != "" {
		request = string(a) + bindingSep + cfg.Binding + " " + nonce // a watcher that does not know it refuses the name
	}
	if a == Prompt {
		request += " " + cfg.Text // "prompt NONCE TEXT": the text is the rest
	}
	if err := c.Request(ctx, id, request); err != nil {
		return Outcome{}, err
	}
	who := "the running watcher"
	if pid > 0 {
		who += " (pid " + strconv.Itoa(pid) + ")"
	}
	fmt.Fprintf(cfg.notices(), "cac-tmux: %s %s: handed to %s; waiting for it to take the request (at most %s)\n", a, id, who, answerWithin)
	out, err := awaitReply(ctx, c, cfg, id, nonce, answerWithin, false)
	if errors.Is(err, errNoAnswer) || errors.Is(err, errWatcherGone) {
		bg := context.WithoutCancel(ctx)
		if v, err := c.PaneOption(bg, id, tmuxctl.RequestOption); err == nil && v == request {
			_ = c.SetPaneOptions(bg, id, []string{tmuxctl.RequestOption}, []string{""})
		}
		why := "within " + answerWithin.String()
		if errors.Is(err, errWatcherGone) {
			why = "before it stopped"
		}
		return Outcome{}, fmt.Errorf("%s did not take the request %s; it is withdrawn, and nothing was sent", who, why)
	}
	if err != nil || !out.Pending {
		return out, err
	}
	fmt.Fprintf(cfg.notices(), "cac-tmux: %s %s: %s; waiting for the watcher to see the outcome (at most %s)\n", a, id, out.Message, outcomeWithin)
	return awaitOutcome(ctx, c, cfg, id, nonce, out)
}

// awaitOutcome waits for the outcome of a resume whose keys went out (sent says so) for the
// request of nonce. Not answered in time, or the watcher gone, it is not known to have resumed.
func awaitOutcome(ctx context.Context, c *tmuxctl.Client, cfg AskConfig, id, nonce string, sent Outcome) (Outcome, error) {
	out, err := awaitReply(ctx, c, cfg, id, nonce, outcomeWithin, true)
	switch {
	case errors.Is(err, errNoAnswer):
		return Outcome{Sent: true, Message: sent.Message + "; the watcher saw no outcome within " + outcomeWithin.String() +
			" (it goes on looking: cac-tmux list shows the pane)"}, nil
	case errors.Is(err, errWatcherGone):
		return Outcome{Sent: true, Message: sent.Message + "; the watcher stopped before it saw the outcome"}, nil
	}
	return out, err
}

// awaitReply reads @cac_reply every 100 ms until it answers the request of nonce (with its
// outcome when final is set), for at most within; every second it checks that a watcher still
// runs (errWatcherGone).
func awaitReply(ctx context.Context, c *tmuxctl.Client, cfg AskConfig, id, nonce string, within time.Duration, final bool) (Outcome, error) {
	clk := clock.Or(cfg.Clock)
	deadline := clk.Now().Add(within)
	for i := 1; clk.Now().Before(deadline); i++ {
		reply, err := c.PaneOption(ctx, id, tmuxctl.ReplyOption)
		if err != nil {
			return Outcome{}, err
		}
		if out, ok := parseReply(reply, nonce); ok && (!final || !out.Pending) {
			return out, nil
		}
		if i%10 == 0 {
			if _, running := Watching(ctx, c, cfg.Getenv); !running {
				return Outcome{}, errWatcherGone
			}
		}
		if err := clk.Sleep(ctx, 100*time.Millisecond); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{}, errNoAnswer
}

// actHere carries out the action without a watcher, holding its lock: the watcher's own code,
// with the command's settings (the configuration file and the tmux options) and the state
// file st. A resume's keys are followed until their effect shows (or 3 × Settle); no watcher
// makes another attempt, and the outcome says so.
func actHere(ctx context.Context, c *tmuxctl.Client, st *store.Store, id string, a Action, cfg AskConfig) (Outcome, error) {
	wcfg, err := cfg.Settings(ctx)
	if err != nil {
		return Outcome{}, err
	}
	wcfg.Store, wcfg.Server = st, st.Server
	wcfg.Log = zerolog.New(cfg.notices()).Level(zerolog.WarnLevel)
	w := New(c, cfg.Finder, wcfg)
	out, err := w.do(ctx, id, a, cfg.Text, cfg.Binding)
	if err == nil && out.Pending {
		out, err = w.follow(ctx, id, 3*wcfg.Settle)
	}
	switch {
	case err == nil && out.Sent:
		out.Message += "; no watcher runs on this server, so nothing more will be tried"
	case err == nil && out.Done && a == Unskip:
		out.Message += "; no watcher runs on this server: the wait is saved, and nothing resumes the session until one starts (cac-tmux watch)"
	}
	return out, err
}

// The server half: the running watcher answers (Tick hands it each pane with a request).

// answer carries out a request a command left in the pane option @cac_request ("ACTION
// NONCE", or "ACTION~BINDING NONCE" for one session only: do checks Bound) and answers it in
// @cac_reply ("NONCE VERDICT MESSAGE", see replyValue). The request is withdrawn first, so it
// is carried out once. A resume whose keys went out is answered "sent", and its outcome later
// (answerAwait).
func (w *Watcher) answer(ctx context.Context, info tmuxctl.Pane) error {
	name, nonce, _ := strings.Cut(info.Request, " ")
	if name == awaitRequest {
		return w.answerAwait(ctx, info.ID, nonce)
	}
	action, binding, bound := strings.Cut(name, bindingSep)
	text := ""
	if action == string(Prompt) {
		nonce, text, _ = strings.Cut(nonce, " ")
	}
	if err := w.tmux.SetPaneOptions(ctx, info.ID, []string{tmuxctl.RequestOption}, []string{""}); err != nil {
		return err
	}
	out := refused("unknown request %q", name)
	a, err := parseAction(action)
	if err == nil && !(bound && binding == "") { // "resume~ NONCE" binds nothing: unknown
		if out, err = w.do(ctx, info.ID, a, text, binding); err != nil {
			out = refused("the watcher failed: %v", err)
		}
	}
	next, p := "", w.panes[info.ID]
	if out.Pending && p != nil {
		next = awaitRequest + " " + nonce + " " + strconv.Itoa(p.PID)
	}
	if err := w.reply(ctx, info.ID, name, nonce, out, next); err != nil {
		return err
	}
	if p != nil {
		p.info.Request = next // a quiet pane is visited with the row it had (visitAll)
	}
	return nil
}

// answerAwait answers the request of nonce with the outcome of its resume once it is known
// (rest is "NONCE PID", see awaitRequest). A check of the keys' effect that is due is made
// now, so the outcome is answered in the tick that sees it.
func (w *Watcher) answerAwait(ctx context.Context, id, rest string) error {
	nonce, pid := rest, ""
	if i := strings.LastIndexByte(rest, ' '); i >= 0 {
		nonce, pid = rest[:i], rest[i+1:]
	}
	p := w.panes[id]
	if p != nil && strconv.Itoa(p.PID) != pid {
		p = nil // another claude session: the one sent the keys is gone
	}
	if p != nil && (p.state == Resuming || p.state == Verifying) {
		if err := w.act(ctx, p, w.now()); err != nil {
			return err
		}
	}
	out := w.outcome(id, p, true)
	if out.Pending {
		return nil
	}
	if p != nil {
		p.info.Request = ""
	}
	return w.reply(ctx, id, awaitRequest, nonce, out, "")
}

// reply answers the request of nonce (named name, for the log) with out in @cac_reply and
// leaves next in @cac_request, in one tmux call.
func (w *Watcher) reply(ctx context.Context, id, name, nonce string, out Outcome, next string) error {
	w.cfg.Log.Info().Str("pane", id).Str("request", name).Bool("done", out.Done && !out.Pending).Str("verdict", out.verdict()).
		Str("outcome", out.Message).Msg("request")
	return w.tmux.SetPaneOptions(ctx, id, []string{tmuxctl.ReplyOption, tmuxctl.RequestOption}, []string{out.replyValue(nonce), next})
}
