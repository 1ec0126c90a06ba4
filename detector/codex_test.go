package detector

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// codexNow is a capture instant for the hand-made screens: 07:45 in New York.
var codexNow = time.Date(2026, 11, 28, 12, 45, 0, 0, time.UTC)

func codexFacts(t *testing.T) Facts {
	t.Helper()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	return Facts{Now: codexNow, Appeared: codexNow, Zone: ny}
}

// Codex's rows as 0.171.0 draws them (capture-pane -p -J -e).
const (
	cxRed         = "\x1b[38;5;1m"
	cxReset       = "\x1b[39m"
	cxPrompt      = "\x1b[38;5;255m\x1b[48;5;238m \n\x1b[1;2m› \x1b[0m\x1b[38;5;255m\x1b[48;5;238m%s\n \x1b[39m\n\x1b[49m\n"
	cxPlaceholder = "\x1b[1m›\x1b[0m\x1b[39m\x1b[49m \x1b[2mAsk Codex to do anything\x1b[0m\x1b[39m\x1b[49m\n\n"
	cxFooter      = "  \x1b[38;5;223mGPT-6.2-Sol default\x1b[39m · \x1b[38;5;151m/tmp/w\x1b[39m\n  \x1b[1m←\x1b[0m for agents · \x1b[1m?\x1b[0m for shortcuts\n"
	cxStop        = cxRed + "■ You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro),\nvisit https://chatgpt.com/settings/usage to purchase more credits or try again\nat 9:52 AM." + cxReset + "\n\n"
	cxPlusWording = "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at "
)

func cxPromptCell(text string) string { return strings.Replace(cxPrompt, "%s", text, 1) }

// TestCodexNotStops: screens that show the wording, or a stop with something newer below it,
// are not stopped.
func TestCodexNotStops(t *testing.T) {
	f := codexFacts(t)
	cases := []struct {
		name, screen, reason string
		resumed, busy        bool
	}{
		{"a reply quotes the stop", cxPromptCell("what did it say") +
			"• The banner said: ■ You’ve hit your usage limit. Try again at 3:00 PM.\n\n" + cxPlaceholder + cxFooter,
			"outside an error cell", false, false},
		{"a reply wraps the quote to its own row", cxPromptCell("quote") +
			"• It said:\n  ■ You’ve hit your usage limit. Try again at 3:00 PM.\n\n" + cxPlaceholder + cxFooter,
			"outside an error cell", false, false},
		{"the wording at column 0, not red", cxPromptCell("cat notes") +
			"■ You’ve hit your usage limit. Try again at 3:00 PM.\n\n" + cxPlaceholder + cxFooter,
			"outside an error cell", false, false},
		{"a reply below the stop", cxPromptCell("do more") + cxStop + cxPromptCell("continue") +
			"• Resumed.\n\n  Worked for <1s • 07:45\n\n" + cxPlaceholder + cxFooter,
			"a prompt was submitted", true, false},
		{"a reply below the stop, no prompt cell", cxPromptCell("do more") + cxStop +
			"• Resumed.\n\n" + cxPlaceholder + cxFooter,
			"the agent replied", true, false},
		{"a turn running below the stop", cxPromptCell("do more") + cxStop +
			"\x1b[2m◦\x1b[0m \x1b[2mWorking\x1b[0m \x1b[2m(17s • \x1b[0;1mesc\x1b[0;2m to interrupt)\x1b[0m\n\n" + cxPlaceholder + cxFooter,
			"a turn is running", true, true},
		{"another error after the stop", cxPromptCell("do more") + cxStop +
			cxRed + "■ stream disconnected before completion: error sending request" + cxReset + "\n\n" + cxPlaceholder + cxFooter,
			"a newer error", true, false},
		{"tool output after the stop", cxPromptCell("do more") + cxStop +
			"  └ Tip: Use /agents to open the agent command center.\n\n" + cxPlaceholder + cxFooter,
			"tool output", true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := DetectCodex(c.screen, f)
			if v.Limited || !strings.Contains(v.Reason, c.reason) || v.Resumed != c.resumed || v.Busy != c.busy {
				t.Errorf("DetectCodex = limited %v, resumed %v, busy %v (%s); want not limited, resumed %v, busy %v, reason with %q",
					v.Limited, v.Resumed, v.Busy, v.Reason, c.resumed, c.busy, c.reason)
			}
		})
	}
}

// TestCodexLatestStop: of two stops the latest counts; one that scrolled off the top leaves
// only its wrapped rows, which are not a stop.
func TestCodexLatestStop(t *testing.T) {
	f := codexFacts(t)
	second := strings.Replace(cxStop, "9:52 AM", "11:07 AM", 1)
	v := DetectCodex(cxPromptCell("do more")+cxStop+cxPromptCell("again")+second+cxPlaceholder+cxFooter, f)
	if !v.Limited || !strings.Contains(v.Message, "11:07 AM") || v.Reset.At.Format("15:04") != "11:07" || v.Line != 12 {
		t.Errorf("two stops: limited %v, line %d, message %q, reset %v; want the second (row 13, 11:07)", v.Limited, v.Line, v.Message, v.Reset.At)
	}
	cut := "visit https://chatgpt.com/settings/usage to purchase more credits or try again\nat 9:52 AM." + cxReset + "\n\n" + cxPlaceholder + cxFooter
	if v := DetectCodex(cxRed+cut, f); v.Limited || v.Line != -1 {
		t.Errorf("the tail of a stop scrolled off: limited %v, line %d (%s)", v.Limited, v.Line, v.Reason)
	}
}

// TestCodexWrapsAndResizes: the stop reads the same at every width and after a resize as on
// the one row it takes at 200 columns, and that is Codex's wording, URLs whole.
func TestCodexWrapsAndResizes(t *testing.T) {
	want := DetectCodex(readCodexScreen(t, "codex-stop-resized-200.txt"), codexFacts(t)).Message
	if !strings.HasPrefix(want, cxPlusWording) {
		t.Fatalf("200 columns: Message = %q, want it to start %q", want, cxPlusWording)
	}
	for _, file := range []string{"codex-stop-after-esc-80.txt", "codex-stop-resized-wider-120.txt",
		"codex-stop-resized-narrower-60.txt", "codex-stop-menu-first-80.txt"} {
		if got := DetectCodex(readCodexScreen(t, file), codexFacts(t)).Message; got != want {
			t.Errorf("%s: Message = %q, want %q", file, got, want)
		}
	}
}

// TestCodexMenu: the menu over the first stop may get Esc; the same menu as a warning, with
// no stop, may not; no digit is ever offered.
func TestCodexMenu(t *testing.T) {
	labels := []string{"Switch to gpt-6-luna", "Keep current model", "Keep current model (never show again)"}
	for _, c := range []struct {
		file             string
		limited, escape  bool
		inputVisible     bool
		wantRows, wantOn int
	}{
		{"codex-stop-menu-first-80.txt", true, true, false, 3, 1},
		{"codex-stop-menu-tokyo-pane-120.txt", true, true, false, 3, 1},
		{"codex-menu-warning-no-stop-120.txt", false, false, false, 3, 1},
		{"codex-stop-after-esc-80.txt", true, false, true, 0, 0},
	} {
		v := DetectCodex(readCodexScreen(t, c.file), codexFacts(t))
		var got []string
		for _, r := range v.Menu.Rows {
			got = append(got, r.Label)
		}
		if v.Limited != c.limited || v.Menu.Escape != c.escape || v.Menu.Open != (c.wantRows > 0) ||
			v.Input.Visible != c.inputVisible || len(v.Menu.Rows) != c.wantRows || v.Menu.Focused != c.wantOn || v.Menu.StopDigit != 0 {
			t.Errorf("%s: limited %v, menu %+v, input %+v; want limited %v, escape %v, %d rows, focused %d, input visible %v",
				c.file, v.Limited, v.Menu, v.Input, c.limited, c.escape, c.wantRows, c.wantOn, c.inputVisible)
		}
		if c.wantRows > 0 && !slices.Equal(got, labels) {
			t.Errorf("%s: labels %q, want %q", c.file, got, labels)
		}
	}
}

// TestCodexComposer: the dim placeholder is never a draft; typed text is, on one line or more,
// over a stop too. Without escapes (a capture without -e) the placeholder cannot be told from
// text, and reads as a draft: held, never typed over.
func TestCodexComposer(t *testing.T) {
	for _, c := range []struct{ file, draft string }{
		{"codex-composer-placeholder-80.txt", ""},
		{"codex-composer-draft-80.txt", "hello"},
		{"codex-composer-draft-multiline-80.txt", "hello\nsecond line"},
		{"codex-stop-with-draft-80.txt", "wait"},
		{"codex-stop-after-esc-80.txt", ""},
		{"codex-busy-after-stop-80.txt", ""},
	} {
		v := DetectCodex(readCodexScreen(t, c.file), codexFacts(t))
		if !v.Input.Visible || v.Input.Draft != c.draft {
			t.Errorf("%s: Input = %+v, want visible with draft %q", c.file, v.Input, c.draft)
		}
	}
	plain := CleanScreen(readCodexScreen(t, "codex-stop-after-esc-80.txt"))
	if v := DetectCodex(plain, codexFacts(t)); !v.Limited || v.Input.Draft != "Ask Codex to do anything" {
		t.Errorf("without escapes: limited %v, draft %q; want limited, the placeholder read as a draft", v.Limited, v.Input.Draft)
	}
	mixed := cxPromptCell("x") + "\x1b[1m›\x1b[0m fix the \x1b[2mAsk Codex to do anything\x1b[0m\n\n" + cxFooter
	if v := DetectCodex(mixed, codexFacts(t)); v.Input.Draft != "fix the" {
		t.Errorf("typed text before dim text: draft %q, want %q", v.Input.Draft, "fix the")
	}
	digits := "\x1b[1m›\x1b[0m 1. fix the tests\n\n" + cxFooter
	if v := DetectCodex(digits, codexFacts(t)); !v.Input.Visible || v.Input.Draft != "1. fix the tests" || v.Menu.Open {
		t.Errorf("a draft that reads like a menu row: input %+v, menu open %v", v.Input, v.Menu.Open)
	}
}

// TestCodexResets: each reset form, and what is not known.
func TestCodexResets(t *testing.T) {
	f := codexFacts(t)
	stop := func(text string) string { return cxRed + "■ " + text + cxReset + "\n\n" + cxPlaceholder + cxFooter }
	in := DetectCodex(stop("You’ve hit your usage limit. Try again in 4 days 20 hours 9 minutes."), f)
	if !in.Limited || !in.Reset.Known || !in.Reset.At.Equal(codexNow.Add(116*time.Hour+9*time.Minute)) || in.Reset.Source != SourceRelative {
		t.Errorf("relative: %+v", in.Reset)
	}
	f.Appeared = time.Time{}
	in = DetectCodex(stop("You’ve hit your usage limit. Try again in 4 days 20 hours 9 minutes."), f)
	if in.Reset.Known || !strings.Contains(in.Reset.How, "not known") {
		t.Errorf("relative, appearance unknown: %+v, want not known and said so", in.Reset)
	}
	f = codexFacts(t)
	at := DetectCodex(stop("You’ve hit your usage limit. Try again at 12:44 AM."), f)
	if want := time.Date(2026, 11, 29, 5, 44, 0, 0, time.UTC); !at.Reset.At.Equal(want) || at.Reset.Zone != "America/New_York" {
		t.Errorf("time only: %v in %s, want %v (the next 12:44 AM in New York)", at.Reset.At, at.Reset.Zone, want)
	}
	later := DetectCodex(stop("You’ve hit your usage limit. To get more access now, send a request to your admin or try again later."), f)
	if !later.Limited || later.Reset.Known || !later.Waitable {
		t.Errorf("later: limited %v, waitable %v, reset %+v", later.Limited, later.Waitable, later.Reset)
	}
	credits := DetectCodex(stop("Your workspace is out of credits. Add credits to continue."), f)
	if !credits.Limited || credits.Waitable || credits.Kind != KindUsageCredits {
		t.Errorf("credits: limited %v, waitable %v, kind %s", credits.Limited, credits.Waitable, credits.Kind)
	}
}

// TestCodexExited: after /quit the shell's prompt is there and Codex's screen is gone.
func TestCodexExited(t *testing.T) {
	v := DetectCodex(readCodexScreen(t, "codex-exited-shell-80.txt"), codexFacts(t))
	if !v.Exited || v.Limited || v.Input.Visible || !strings.Contains(v.Reason, "exited") {
		t.Errorf("exited: %+v", v)
	}
	v = DetectCodex(readCodexScreen(t, "codex-composer-placeholder-80.txt"), codexFacts(t))
	if v.Exited {
		t.Errorf("Codex's own screen read as exited (%s)", v.Reason)
	}
}

// The prompt above a stop is read when it fits one row (it tells the pane's thread in Codex's
// rollouts); a prompt wrapped over rows is not read at all.
func TestCodexPromptAboveTheStop(t *testing.T) {
	for name, want := range map[string]string{
		"codex-stop-after-esc-80.txt":  "do more",
		"codex-stop-menu-first-80.txt": "do more",
		"codex-stop-second-80.txt":     "next plus",
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "codex-screens", name))
		if err != nil {
			t.Fatal(err)
		}
		if v := DetectCodex(string(b), Facts{Now: time.Now()}); v.Prompt != want {
			t.Errorf("%s: Prompt = %q, want %q", name, v.Prompt, want)
		}
	}
	wrapped := "› a prompt long enough to wrap\n  onto a second row\n\n\x1b[38;5;1m■ You’ve hit your usage limit. Try again at 9:33 PM.\x1b[39m\n"
	if v := DetectCodex(wrapped, Facts{Now: time.Now()}); v.Prompt != "" || !strings.Contains(v.Message, "usage limit") {
		t.Errorf("wrapped prompt: Prompt = %q, message %q; want no prompt read", v.Prompt, v.Message)
	}
}
