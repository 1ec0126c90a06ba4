package phone

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/cac-tmux/cac-tmux/clock"
	"github.com/cac-tmux/cac-tmux/watcher"
)

// Actor carries out what a link asks, with the same code and the same gates as the
// commands: the wiring implements it with watcher.Ask (cmd/cac-tmux), AskConfig.Binding set
// to the session's binding, so that the watcher refuses any other session in the pane.
type Actor interface {
	// Act resumes, skips or unskips the session through watcher.Ask: the gates of `cac-tmux
	// resume`. A refusal is an Outcome (neither Done nor Sent), not an error.
	Act(ctx context.Context, s Session, a watcher.Action) (watcher.Outcome, error)
	// Screen is the pane's text, only while it runs the session (watcher.Bound).
	Screen(ctx context.Context, s Session) (string, error)
	// Prompt types text into the session, idle, then Enter.
	Prompt(ctx context.Context, s Session, text string) (watcher.Outcome, error)
	// Where is where the session runs (watcher.Bound), for the reply form; why says why the
	// pane does not run it now ("" when it does).
	Where(ctx context.Context, s Session) (p watcher.Place, why string, err error)
}

// Session is the Claude Code session a token was minted for.
type Session struct {
	// Server is the tmux server's socket path (Signer.Socket of the token's server ID).
	Server string
	// Pane is its pane id, "%3".
	Pane string
	// Binding is its process and conversation (watcher.BindingOf), as the notification told.
	Binding string
}

// Config is what a Handler is made of.
type Config struct {
	// Signer checks the tokens: the one that signed the Links' tokens.
	Signer *Signer
	// Actor carries out what a token allows.
	Actor Actor
	// Report tells the phone how an accepted action went (the wiring sends it to the ntfy
	// topic): a title and a body of plain text.
	Report func(ctx context.Context, title, body string)
	// Log gets a line per request accepted (info) or refused (warn, with the reason; beyond
	// refusalBurst in refusalWindow, one line that counts them); never a token, a prompt or a
	// screen.
	Log zerolog.Logger
	// Clock is the watcher's clock (required): it times the windows of the refusals' log.
	Clock clock.Clock
	// Screen and Prompts are [phone] screen and prompts: without them, a request for the
	// screen or a reply is refused whatever its token. PromptMax is [phone] prompt_max, in
	// characters.
	Screen, Prompts bool
	PromptMax       int
}

// Limits of a request.
const (
	// maxActBody bounds the body of POST /v1/act: a token is well under it.
	maxActBody = 4 << 10
	// maxScreenReport is how much of the end of a screen a report carries: ntfy keeps a
	// message up to 4096 bytes as text and makes a longer one an attachment.
	maxScreenReport = 3500
)

// Handler is the endpoint the phone's buttons reach:
//
//   - POST /v1/act?server=ID&pane=%25N&action=A, the body the token (text/plain): the token
//     is redeemed for exactly that server, pane and action, the answer is 202 at once, and
//     the action runs in the background; its outcome is Reported.
//   - GET /v1/reply?server=ID&pane=%25N&token=T (with [phone] prompts): the token is checked,
//     not consumed, and a form is served; GET never acts (link previewers fetch GETs).
//   - POST /v1/reply (the form: server, pane, token, text): the text is checked, then the
//     token redeemed, and the prompt typed in the background; its outcome is Reported.
//
// A refusal is 400 (a malformed request or token, a reply's text), 403 (a token forged,
// expired, used or for another target; screen or replies off), 409 (the form of a link whose
// pane no longer runs its session), 503 (too many tokens used, the pane unreadable, or the
// watcher is stopping); its text never echoes the token. Other paths are 404, other methods
// 405. The session a token is bound to is checked by the watcher when it acts (Actor).
type Handler struct {
	c       Config
	ctx     context.Context
	mux     *http.ServeMux
	wg      sync.WaitGroup
	form    *template.Template
	refused refusals
}

// NewHandler returns the Handler of c. ctx is the base of every action it starts: they end
// when it is canceled (the watcher's shutdown), and Wait waits for them; the count of the
// refusals not logged one by one is logged at the end of each window until then.
func NewHandler(ctx context.Context, c Config) *Handler {
	h := &Handler{c: c, ctx: ctx, mux: http.NewServeMux(), form: replyForm}
	h.mux.HandleFunc("POST /v1/act", h.act)
	h.mux.HandleFunc("GET /v1/reply", h.showReply)
	h.mux.HandleFunc("POST /v1/reply", h.reply)
	go h.summariseEvery(ctx, c.Clock)
	return h
}

// ServeHTTP answers one request (see Handler).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	h.mux.ServeHTTP(w, r)
}

// Wait returns once every action started has ended and been reported.
func (h *Handler) Wait() { h.wg.Wait() }

// act is POST /v1/act.
func (h *Handler) act(w http.ResponseWriter, r *http.Request) {
	t, err := actTarget(r.URL.Query())
	switch {
	case err != nil:
		h.refuse(w, r, t, http.StatusBadRequest, err)
		return
	case h.ctx.Err() != nil:
		h.refuse(w, r, t, http.StatusServiceUnavailable, errStopping)
		return
	case t.Action == screen && !h.c.Screen:
		h.refuse(w, r, t, http.StatusForbidden, errScreenOff)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxActBody))
	if err != nil {
		h.refuse(w, r, t, http.StatusBadRequest, fmt.Errorf("%w: body: %w", errMalformed, err))
		return
	}
	c, s, err := h.redeem(strings.TrimSpace(string(body)), t)
	if err != nil {
		h.refuse(w, r, t, statusOf(err), err)
		return
	}
	h.accept(w, c, "accepted: %s of %s; the outcome follows as a notification\n", c.Action, c.Pane)
	h.start(func(ctx context.Context) (string, string) {
		if c.Action == screen {
			return h.screen(ctx, c, s)
		}
		o, err := h.c.Actor.Act(ctx, s, watcher.Action(c.Action))
		return h.outcome(c, o, err)
	})
}

// showReply is GET /v1/reply: the form of a Reply link, its token checked but not consumed.
func (h *Handler) showReply(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	t, err := replyTarget(q, false)
	switch {
	case !h.c.Prompts:
		h.refuse(w, r, t, http.StatusForbidden, errPromptsOff)
		return
	case err != nil:
		h.refuse(w, r, t, http.StatusBadRequest, err)
		return
	}
	token := q.Get("token")
	s, err := h.check(token, t)
	if err != nil {
		h.refuse(w, r, t, statusOf(err), err)
		return
	}
	place, why, err := h.c.Actor.Where(r.Context(), s)
	switch {
	case err != nil:
		h.refuse(w, r, t, http.StatusServiceUnavailable, fmt.Errorf("%w: %w", errUnreadable, err))
		return
	case why != "":
		h.refuse(w, r, t, http.StatusConflict, fmt.Errorf("%w: %s", errGone, why))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	err = h.form.Execute(w, replyPage{Server: t.ServerID, Pane: t.Pane, Token: token, Max: h.c.PromptMax,
		Target: place.Target, Project: projectOf(place.Dir), Agent: place.Agent.Title()})
	if err != nil {
		h.c.Log.Warn().Err(err).Str("pane", t.Pane).Msg("phone: the reply form was not written whole")
	}
}

// check checks token for t without consuming it (Signer.Check) and returns the session it
// names, the server mapped back to its socket (as redeem).
func (h *Handler) check(token string, t target) (Session, error) {
	socket, ok := h.c.Signer.Socket(t.ServerID)
	if !ok {
		return Session{}, errOtherTarget
	}
	c, err := h.c.Signer.Check(token, t)
	if err != nil {
		return Session{}, err
	}
	return Session{Server: socket, Pane: c.Pane, Binding: c.Binding}, nil
}

// reply is POST /v1/reply: the form sent. The text is checked before the token is redeemed,
// so that a text refused leaves the link usable after a fix.
func (h *Handler) reply(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, int64(maxActBody+12*max(h.c.PromptMax, 0)))
	if !h.c.Prompts {
		h.refuse(w, r, target{Action: reply}, http.StatusForbidden, errPromptsOff)
		return
	}
	if err := r.ParseForm(); err != nil {
		h.refuse(w, r, target{Action: reply}, http.StatusBadRequest, fmt.Errorf("%w: form: %w", errMalformed, err))
		return
	}
	f := r.PostForm
	t, err := replyTarget(f, true)
	if err != nil {
		h.refuse(w, r, t, http.StatusBadRequest, err)
		return
	}
	text, msg := checkPrompt(f.Get("text"), h.c.PromptMax)
	switch {
	case msg != "":
		h.refuse(w, r, t, http.StatusBadRequest, fmt.Errorf("%w: %s", errPrompt, msg))
		return
	case h.ctx.Err() != nil:
		h.refuse(w, r, t, http.StatusServiceUnavailable, errStopping)
		return
	}
	c, s, err := h.redeem(f.Get("token"), t)
	if err != nil {
		h.refuse(w, r, t, statusOf(err), err)
		return
	}
	h.accept(w, c, "accepted: the reply to %s is being typed; the outcome follows as a notification\n", c.Pane)
	h.start(func(ctx context.Context) (string, string) {
		o, err := h.c.Actor.Prompt(ctx, s, text)
		return h.outcome(c, o, err)
	})
}

// redeem redeems token for t (Signer.redeem) and returns its claim and the session it names,
// the server mapped back to its socket. A server ID whose links the Signer never made is
// refused before the token is looked at, as one for another target.
func (h *Handler) redeem(token string, t target) (claim, Session, error) {
	socket, ok := h.c.Signer.Socket(t.ServerID)
	if !ok {
		return claim{}, Session{}, errOtherTarget
	}
	c, err := h.c.Signer.redeem(token, t)
	if err != nil {
		return claim{}, Session{}, err
	}
	return c, Session{Server: socket, Pane: c.Pane, Binding: c.Binding}, nil
}

// checkPrompt is the rule of a reply typed from the phone: the text trimmed of spaces
// around it, from 1 to limit characters, one line (Claude Code's input box takes a newline
// as Enter, which would send the first line alone) without control characters. It returns
// the trimmed text and "", or what is wrong.
func checkPrompt(text string, limit int) (string, string) {
	text = strings.TrimSpace(text)
	switch n := utf8.RuneCountInString(text); {
	case !utf8.ValidString(text):
		return "", "the reply must be UTF-8 text"
	case n == 0:
		return "", "the reply is empty"
	case n > limit:
		return "", fmt.Sprintf("the reply is %d characters long; at most %d are typed ([phone] prompt_max)", n, limit)
	}
	if msg := watcher.CheckPrompt(text); msg != "" {
		return "", msg
	}
	return text, ""
}

// start runs do under the Handler's base context and Reports its title and body.
func (h *Handler) start(do func(ctx context.Context) (title, body string)) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		title, body := do(h.ctx)
		if h.c.Report != nil {
			h.c.Report(h.ctx, title, body)
		}
	}()
}

// outcome is the report of an action's outcome (or of its error), and its log line.
func (h *Handler) outcome(c claim, o watcher.Outcome, err error) (string, string) {
	what := fmt.Sprintf("cac-tmux: %s of %s", c.Action, c.Pane)
	if c.Action == reply {
		what = "cac-tmux: reply to " + c.Pane
	}
	if err != nil {
		h.c.Log.Warn().Err(err).Str("pane", c.Pane).Str("action", string(c.Action)).Msg("phone: the action failed")
		return what + " failed", err.Error()
	}
	verdict := "refused"
	switch {
	case o.Done && o.Pending:
		verdict = "keys sent"
	case o.Done:
		verdict = "done"
	case o.Held:
		verdict = "not resumed: held"
	case o.Sent:
		verdict = "not resumed"
	}
	h.c.Log.Info().Str("pane", c.Pane).Str("action", string(c.Action)).Str("outcome", verdict).Msg("phone: action carried out")
	return what + ": " + verdict, o.Message
}

// screen is the report of a Screen action: the end of the pane's text.
func (h *Handler) screen(ctx context.Context, c claim, s Session) (string, string) {
	text, err := h.c.Actor.Screen(ctx, s)
	if err != nil {
		h.c.Log.Warn().Err(err).Str("pane", c.Pane).Msg("phone: the screen was not read")
		return "cac-tmux: screen of " + c.Pane + " not read", err.Error()
	}
	h.c.Log.Info().Str("pane", c.Pane).Str("action", string(c.Action)).Msg("phone: screen sent")
	return "cac-tmux: screen of " + c.Pane, tail(text, maxScreenReport)
}

// tail is the end of text, its trailing blank lines dropped, within n bytes: whole lines
// when they fit, else whole runes.
func tail(text string, n int) string {
	text = strings.TrimRight(text, " \t\r\n")
	if len(text) <= n {
		return text
	}
	cut := text[len(text)-n:]
	if i := strings.IndexByte(cut, '\n'); i >= 0 && i < len(cut)-1 {
		return cut[i+1:]
	}
	for len(cut) > 0 && !utf8.RuneStart(cut[0]) {
		cut = cut[1:]
	}
	return cut
}

// accept answers 202 with the text of format and logs the accepted request.
func (h *Handler) accept(w http.ResponseWriter, c claim, format string, a ...any) {
	h.c.Log.Info().Str("pane", c.Pane).Str("action", string(c.Action)).Str("event", c.Event).Msg("phone: request accepted")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, format, a...)
}

// More reasons for a refusal, besides the token's.
var (
	errScreenOff  = errors.New("phone: screen is off ([phone] screen = false)")
	errPromptsOff = errors.New("phone: replies are off ([phone] prompts = false)")
	errPrompt     = errors.New("phone: reply refused")
	// errGone: the pane no longer runs the session the link was sent for; the token is left
	// unused (it is refused at the action too).
	errGone = errors.New("phone: the session of this link is gone")
	// errUnreadable: the pane could not be read to name its session.
	errUnreadable = errors.New("phone: the pane cannot be read now")
	// errStopping: the watcher is shutting down (the Handler's context ended); the token is
	// left unused.
	errStopping = errors.New("phone: the watcher is stopping")
)

// refuse answers status with a short text for err, and logs the refusal at warn with the
// target the request named and the reason, never the token; or, beyond refusalBurst in a
// window, counts it for the window's summary.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, t target, status int, err error) {
	full, summary := h.refused.admit(h.c.Clock.Now(), reasonOf(err))
	if summary != "" {
		h.c.Log.Warn().Msg(summary)
	}
	if full {
		h.c.Log.Warn().Str("pane", t.Pane).Str("action", string(t.Action)).Str("server", t.ServerID).
			Str("path", r.URL.Path).Str("reason", err.Error()).Int("status", status).Msg("phone: request refused")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintln(w, "refused: "+answerOf(err))
}

// statusOf is the HTTP status of a token refused with err.
func statusOf(err error) int {
	switch {
	case errors.Is(err, errMalformed):
		return http.StatusBadRequest
	case errors.Is(err, errFull):
		return http.StatusServiceUnavailable
	}
	return http.StatusForbidden
}

// answerOf is what the phone is told of a refusal: enough to know what to do, nothing that
// helps a guesser (a forged token and one for another target read alike).
func answerOf(err error) string {
	switch {
	case errors.Is(err, errExpired):
		return "this link has expired; use the buttons of a newer notification, or act on the computer"
	case errors.Is(err, errUsed):
		return "this link was used already; each button works once"
	case errors.Is(err, errForged), errors.Is(err, errOtherTarget):
		return "this link is not valid here (a watcher restarted since voids its links)"
	case errors.Is(err, errFull):
		return "too many links were used lately; try again later"
	case errors.Is(err, errScreenOff), errors.Is(err, errPromptsOff), errors.Is(err, errStopping):
		return strings.TrimPrefix(err.Error(), "phone: ")
	case errors.Is(err, errUnreadable):
		return strings.TrimPrefix(errUnreadable.Error(), "phone: ") + "; try again"
	case errors.Is(err, errGone):
		return strings.TrimPrefix(err.Error(), errGone.Error()+": ") + "; this link is not for the session there now"
	case errors.Is(err, errPrompt):
		return strings.TrimPrefix(err.Error(), errPrompt.Error()+": ") + "; go back and change it"
	}
	return "malformed request"
}

// actTarget reads the target of POST /v1/act from its query: server, pane and action, once
// each, and nothing else.
func actTarget(q url.Values) (target, error) {
	t := target{ServerID: q.Get("server"), Pane: q.Get("pane"), Action: action(q.Get("action"))}
	if err := params(q, "server", "pane", "action"); err != nil {
		return t, err
	}
	switch {
	case !t.Action.known():
		return t, fmt.Errorf("%w: unknown action", errMalformed)
	case t.Action == reply:
		return t, fmt.Errorf("%w: a reply is sent from its form (/v1/reply)", errMalformed)
	}
	return t, checkTarget(t)
}

// replyTarget reads the target of /v1/reply from the query of GET (server, pane and token,
// once each, and nothing else) or the form of POST (text too).
func replyTarget(v url.Values, form bool) (target, error) {
	t := target{ServerID: v.Get("server"), Pane: v.Get("pane"), Action: reply}
	names := []string{"server", "pane", "token"}
	if form {
		names = append(names, "text")
	}
	if err := params(v, names...); err != nil {
		return t, err
	}
	return t, checkTarget(t)
}

// params checks that v holds each of names once, and nothing else.
func params(v url.Values, names ...string) error {
	for k, vs := range v {
		if !slices.Contains(names, k) || len(vs) != 1 {
			return fmt.Errorf("%w: unexpected or repeated parameter", errMalformed)
		}
	}
	if len(v) != len(names) {
		return fmt.Errorf("%w: want the parameters %s", errMalformed, strings.Join(names, ", "))
	}
	return nil
}

// checkTarget checks the forms of a target's server ID and pane id.
func checkTarget(t target) error {
	if len(t.ServerID) != 16 || strings.Trim(t.ServerID, "0123456789abcdef") != "" || !paneForm(t.Pane) {
		return fmt.Errorf("%w: bad server or pane", errMalformed)
	}
	return nil
}
