package detector

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is the JSON form of a verdict (cac-tmux inspect --json): stable snake_case names,
// RFC3339 instants and null for what is unknown.
type Report struct {
	Limited        bool        `json:"limited"`
	Reset          *string     `json:"reset"`
	Message        *string     `json:"message"`
	Row            *int        `json:"row"`
	Kind           *string     `json:"kind"`
	Waitable       bool        `json:"waitable"`
	ResetKnown     bool        `json:"reset_known"`
	ResetPrinted   string      `json:"reset_printed,omitempty"`
	ResetForm      string      `json:"reset_form,omitempty"`
	ResetSource    string      `json:"reset_source,omitempty"`
	Account        string      `json:"account,omitempty"`
	ResetZone      string      `json:"reset_zone,omitempty"`
	ZonePrinted    bool        `json:"zone_printed"`
	ResetAnchor    string      `json:"reset_anchor,omitempty"`
	ResetAmbiguous bool        `json:"reset_ambiguous"`
	ResetHow       string      `json:"reset_how,omitempty"`
	Native         string      `json:"native"`
	Menu           MenuReport  `json:"menu"`
	Input          InputReport `json:"input"`
	Busy           bool        `json:"busy"`
	Resumed        bool        `json:"resumed"`
	Exited         bool        `json:"exited"`
	Reason         string      `json:"reason"`
	Now            string      `json:"now"`
}

// MenuReport is the options menu in a Report.
type MenuReport struct {
	Open      bool      `json:"open"`
	Rows      []MenuRow `json:"rows"`
	Focused   *int      `json:"focused"`
	StopDigit *int      `json:"stop_digit"`
}

// InputReport is the input box in a Report.
type InputReport struct {
	Visible bool   `json:"visible"`
	Draft   string `json:"draft"`
}

// NewReport is the report of v, decided at now; source says where a known reset comes from
// ("screen", "transcript") and account is the claude process's config directory, "" when
// unknown.
func NewReport(v Verdict, now time.Time, source, account string) Report {
	j := Report{
		Limited:        v.Limited,
		Waitable:       v.Waitable,
		ResetKnown:     v.Reset.Known,
		ResetPrinted:   v.Reset.printed,
		ResetForm:      string(v.Reset.Source),
		ResetZone:      v.Reset.Zone,
		ZonePrinted:    v.Reset.zonePrinted,
		ResetAnchor:    string(v.Reset.anchor),
		ResetAmbiguous: v.Reset.Ambiguous,
		ResetHow:       v.Reset.How,
		Native:         string(v.Native),
		Menu:           MenuReport{Open: v.Menu.Open, Rows: v.Menu.Rows},
		Input:          InputReport{Visible: v.Input.Visible, Draft: v.Input.Draft},
		Busy:           v.Busy,
		Resumed:        v.Resumed,
		Exited:         v.Exited,
		Reason:         v.Reason,
		Now:            now.Format(time.RFC3339),
	}
	if j.Menu.Rows == nil {
		j.Menu.Rows = []MenuRow{}
	}
	if v.Menu.Focused != 0 {
		j.Menu.Focused = &v.Menu.Focused
	}
	if v.Menu.StopDigit != 0 {
		j.Menu.StopDigit = &v.Menu.StopDigit
	}
	if v.Line >= 0 {
		row, msg, kind := v.Line+1, v.Message, string(v.Kind)
		j.Row, j.Message, j.Kind = &row, &msg, &kind
	}
	if v.Limited && v.Reset.Known {
		r := v.Reset.At.Format(time.RFC3339)
		j.Reset, j.ResetSource = &r, source
	}
	j.Account = account
	return j
}

// Explain prints the verdict for a person: the decision, the matched line, the kind,
// the reset in the printed zone and in local time, and why.
func Explain(w io.Writer, v Verdict, now time.Time) {
	yes := map[bool]string{true: "yes", false: "no"}
	fmt.Fprintf(w, "limited:   %s\n", yes[v.Limited])
	fmt.Fprintf(w, "why:       %s\n", v.Reason)
	if v.Line >= 0 {
		fmt.Fprintf(w, "message:   %s  (row %d)\n", v.Message, v.Line+1)
		clears := "waiting for the reset clears it"
		if !v.Waitable {
			clears = "waiting cannot clear it: notify, do not resume"
		}
		fmt.Fprintf(w, "kind:      %s (%s)\n", v.Kind, clears)
		if v.Reset.Known {
			at := v.Reset.At
			fmt.Fprintf(w, "reset:     %s (%s)\n", at.Format("Mon 2006-01-02 15:04 MST"), v.Reset.Zone)
			fmt.Fprintf(w, "local:     %s, %s\n", at.Local().Format("Mon 2006-01-02 15:04 MST"), relative(at.Sub(now)))
		} else {
			fmt.Fprintf(w, "reset:     unknown\n")
		}
		if v.Reset.How != "" {
			fmt.Fprintf(w, "derived:   %s\n", v.Reset.How)
		}
		if v.Reset.Ambiguous {
			fmt.Fprintf(w, "           (the appearance instant is unknown; pass --now with the capture instant to resolve it exactly)\n")
		}
	}
	fmt.Fprintf(w, "auto:      %s\n", nativeText(v.Native))
	switch {
	case v.Menu.Open:
		fmt.Fprintf(w, "menu:      open, focused row %d\n", v.Menu.Focused)
		for _, r := range v.Menu.Rows {
			mark := " "
			if r.Focused {
				mark = "❯"
			}
			fmt.Fprintf(w, "           %s %d. %s\n", mark, r.Digit, r.Label)
		}
		switch {
		case v.Menu.StopDigit != 0:
			fmt.Fprintf(w, "           Stop row: %d (the only key to press)\n", v.Menu.StopDigit)
		case v.Menu.Escape:
			fmt.Fprintf(w, "           Esc closes it (the only key to press; a row or Enter switches the model)\n")
		default:
			fmt.Fprintf(w, "           Stop row: none readable: press nothing, report the pane\n")
		}
	default:
		fmt.Fprintf(w, "menu:      not open\n")
	}
	switch {
	case !v.Input.Visible:
		fmt.Fprintf(w, "input:     not visible\n")
	case v.Input.Draft == "":
		fmt.Fprintf(w, "input:     empty\n")
	default:
		fmt.Fprintf(w, "input:     draft %q (hold: never overwrite it)\n", v.Input.Draft)
	}
	fmt.Fprintf(w, "busy:      %s   resumed after the stop: %s   exited: %s\n", yes[v.Busy], yes[v.Resumed], yes[v.Exited])
}

// nativeText says what Claude Code's own auto-continue does, for Explain.
func nativeText(n Native) string {
	switch n {
	case NativeArmed:
		return "armed: Claude Code will continue by itself; send nothing"
	case NativeFired:
		return "fired: Claude Code continued by itself"
	case NativeCancelled:
		return "cancelled: take over"
	case NativeStopped:
		return "stopped: Claude Code gave up; take over"
	case NativePressEnter:
		return "press-enter: the limit has reset; a bare Enter resumes"
	}
	return "none"
}

// relative says how far d is, to the minute: "in 1h52m", "3m ago".
func relative(d time.Duration) string {
	d = d.Round(time.Minute)
	ago := d < 0
	if ago {
		d = -d
	}
	s := strings.TrimSuffix(d.String(), "0s")
	if d >= time.Hour {
		s = strings.TrimSuffix(s, "0m")
	}
	if s == "" {
		s = "0m"
	}
	if ago {
		return s + " ago"
	}
	return "in " + s
}
