package phone

import (
	"html/template"
	"path/filepath"
)

// replyPage is what the reply form shows and sends back.
type replyPage struct {
	Server, Pane, Token string
	Max                 int
	// Target and Project name the session as the popup does: session:window.pane and the base
	// name of the directory Claude Code runs in ("" when unknown). Agent is the agent's
	// title: "Claude Code", "Codex".
	Target, Project, Agent string
}

// projectOf is the name of the project in dir, as a person knows it: its base name.
func projectOf(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Base(dir)
}

// replyForm is the page of a Reply link: the session named (target, project, its agent), one
// text field and a button, sent back with the token to POST /v1/reply (relative, so that a
// base URL with a path prefix works). Laid out for a phone held in one hand: text of 18 px (a
// phone's browser zooms into a field under 16 px) and a button as wide as the page and 56 px
// high (a thumb needs 44 px at least; TestReplyFormFitsAThumb measures it in Chromium).
var replyForm = template.Must(template.New("reply").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Reply to {{.Agent}} in {{.Target}}</title>
<style>
body{font-family:system-ui,sans-serif;font-size:18px;line-height:1.4;margin:0;padding:16px;max-width:40em}
h1{font-size:1.3em;margin:0 0 .2em}
.where{margin:0 0 .8em}
.where small{color:#555}
.rule{color:#333;font-size:.9em;margin:0 0 .8em}
textarea{display:block;width:100%;box-sizing:border-box;font:inherit;padding:10px;min-height:7em}
button{display:block;width:100%;min-height:56px;margin:16px 0 0;font:inherit;font-size:1.15em;font-weight:600;border:0;border-radius:10px;background:#1c5fb0;color:#fff}
</style>
</head><body>
<h1>Reply to {{.Agent}}</h1>
<p class="where"><strong id="target">{{.Target}}</strong>{{if .Project}} · <span id="project">{{.Project}}</span>{{end}}<br><small>pane {{.Pane}}</small></p>
<p class="rule">Typed into this {{.Agent}} session when it is idle, then Enter: one line of at most {{.Max}} characters. A prompt, not a command: a reply that starts with ! or / is refused.</p>
<form method="post" action="reply">
<input type="hidden" name="server" value="{{.Server}}">
<input type="hidden" name="pane" value="{{.Pane}}">
<input type="hidden" name="token" value="{{.Token}}">
<textarea name="text" rows="5" maxlength="{{.Max}}" aria-label="Your reply" required autofocus></textarea>
<button type="submit" id="send">Send</button>
</form>
</body></html>
`))
