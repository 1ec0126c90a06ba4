package table

import (
	"io"
	"strings"
	"text/template"
	"time"

	"github.com/cac-tmux/cac-tmux/watcher"
)

// The status line of `cac-tmux status`: the servers' paused panes counted together, through
// a template the user may give.

// Status is what a `status --format` template sees.
type Status struct {
	// Count is the number of paused panes: every published state but running.
	Count int
	// Waiting are the panes the watcher resumes on its own (waiting, native, resuming,
	// verifying); Held those left to the user (held, limited, skipped); Failed those it
	// will not resume (failed, unwaitable). Waiting + Held + Failed = Count (watcher.StatusOf
	// counts them).
	Waiting, Held, Failed int
	// Next is the countdown to the soonest due instant among them, as `list` shows it
	// ("1h12m", "4m05s", "40s", "now"); "" when none is due.
	Next string
	// NextAt is that due instant (a time.Time, e.g. {{.NextAt.Format "15:04"}}); zero when
	// none is due.
	NextAt time.Time
	// Watching is true when a watcher runs on the server: without one, what was published is
	// what the last watcher saw, and nothing is resumed.
	Watching bool
}

// DefaultStatusFormat prints nothing when nothing is paused, else "⏸ 2 · 1h12m", or
// "⏸ 2 · no watcher" when no watcher runs (the countdown of a watcher that is gone would
// promise a resume nobody makes).
const DefaultStatusFormat = `{{if .Count}}⏸ {{.Count}}{{if not .Watching}} · no watcher{{else}}{{with .Next}} · {{.}}{{end}}{{end}}{{end}}`

// ParseStatus parses a status template and runs it once on a sample, so that a template
// that cannot run (an unknown field) fails now rather than on every status-interval.
func ParseStatus(format string) (*template.Template, error) {
	tmpl, err := template.New("status").Parse(format)
	if err == nil {
		sample := Status{Count: 3, Waiting: 1, Held: 1, Failed: 1, Next: "1h12m", NextAt: time.Unix(0, 0), Watching: true}
		err = tmpl.Execute(io.Discard, sample)
	}
	if err != nil {
		return nil, err
	}
	return tmpl, nil
}

// StatusLine is the line of the servers whose status is each of servers, at now, ending in
// a newline; "" when no server answered (a status line shows no error) or the template gives
// nothing. A server nobody watches with paused panes makes Watching false.
func StatusLine(servers []watcher.Status, tmpl *template.Template, now time.Time) (string, error) {
	if len(servers) == 0 {
		return "", nil
	}
	d := Status{Watching: true}
	for _, st := range servers {
		d.Count, d.Waiting, d.Held, d.Failed = d.Count+st.Paused, d.Waiting+st.Waiting, d.Held+st.Held, d.Failed+st.Failed
		if !st.Next.IsZero() && (d.NextAt.IsZero() || st.Next.Before(d.NextAt)) {
			d.NextAt = st.Next
		}
		d.Watching = d.Watching && (st.Paused == 0 || st.Watching)
	}
	if !d.NextAt.IsZero() {
		d.Next = Countdown(d.NextAt.Sub(now))
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, d); err != nil {
		return "", err
	}
	line := b.String()
	if line != "" && !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	return line, nil
}
