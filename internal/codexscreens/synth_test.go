//go:build codexscreens

package codexscreens

import (
	"strings"
	"testing"
	"time"
)

// synthSource is the real capture the synthesised screens are made from: at 200 columns the
// stop is one row, so another wording replaces it without re-wrapping.
const synthSource = "codex-stop-resized-200.txt"

// plusStop is the wording of synthSource's stop, up to its printed time.
const plusStop = "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at "

// synth writes the stops the mock cannot produce offline: synthSource with its message
// replaced by a wording found in the 0.171.0 binary (strings of the native codex), or, for
// "Try again in …", by the older builds' wording (SPEC §11).
func (c *capture) synth(t *testing.T) {
	var src expect
	for _, e := range c.b.rows {
		if e.file == synthSource {
			src = e
		}
	}
	raw, err := readScreen(c.b.dir, synthSource)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(raw, plusStop)
	if i < 0 {
		t.Fatalf("%s: no plus wording on one row", synthSource)
	}
	end := i + len(plusStop) + strings.Index(raw[i+len(plusStop):], ".") + 1
	printed := raw[i+len(plusStop) : end-1]
	in := src.appeared.Add(4*24*time.Hour + 20*time.Hour + 9*time.Minute).Truncate(time.Second).In(c.zone).Format(time.RFC3339)
	for _, v := range []struct {
		file, text, kind, reset, note string
	}{
		{"codex-synth-stop-model-200.txt", "You’ve hit your usage limit for gpt-6-luna. Switch to another model now, or try again at " + printed + ".", "model", src.reset, "per-model limit (rate_limits.limit_name not codex): waitable, reset as printed"},
		{"codex-synth-stop-credits-owner-200.txt", "Your workspace is out of credits. Add credits to continue.", "usage-credits", "none", "workspace out of credits (owner): waiting does not help"},
		{"codex-synth-stop-credits-member-200.txt", "Your workspace is out of credits. Ask your workspace owner to refill in order to continue.", "usage-credits", "none", "workspace out of credits (member): waiting does not help"},
		{"codex-synth-stop-spend-cap-200.txt", "You hit your spend cap set in your workspace. Increase your spend cap to continue.", "spending-cap", "none", "workspace spend cap: waiting does not help"},
		{"codex-synth-stop-spend-cap-owner-200.txt", "You hit your spend cap set by the owner of your workspace. Ask an owner to increase your spend cap to continue.", "spending-cap", "none", "spend cap set by the workspace owner: waiting does not help"},
		{"codex-synth-stop-try-again-in-200.txt", "You’ve hit your usage limit. Try again in 4 days 20 hours 9 minutes.", "usage", in, "older builds' relative reset: appeared + 4d20h9m"},
	} {
		screen := raw[:i] + v.text + raw[end:]
		e := src
		e.file, e.kind, e.reset, e.notes = v.file, v.kind, v.reset, v.note
		e.provenance = "synth: " + synthSource + " with the stop's text replaced (wording from the strings of the 0.171.0 native binary; the red ■ cell assumed as for the usage limit)"
		if v.file == "codex-synth-stop-try-again-in-200.txt" {
			e.provenance = "synth: " + synthSource + " with the stop's text replaced by older builds' wording (SPEC §11; not in 0.171.0)"
		}
		if v.reset == "none" {
			e.limited = "yes"
		}
		c.b.save(t, screen, e)
	}
}
