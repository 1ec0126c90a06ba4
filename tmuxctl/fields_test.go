package tmuxctl

import "testing"

func TestExpandTabs(t *testing.T) {
	for in, want := range map[string]string{
		"":             "",
		"no tab\n":     "no tab\n",
		"\t":           "        ",
		"a\tb\n\tc\n":  "a       b\n        c\n",
		"1234567\tx":   "1234567 x",
		"12345678\tx":  "12345678        x",
		"日本\tc":        "日本    c",
		"é\t✳\t|":      "é       ✳       |",
		"a\t\tb\r\n\t": "a               b\r\n        ",
		"x\xff\ty":     "x\xff      y",
	} {
		if got := expandTabs(in); got != want {
			t.Errorf("expandTabs(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCommandLinesFitTmux37: tmux 3.7 refuses a command line of more than 1,000 arguments
// ("command too long"); the longest ones cac-tmux builds, a batch of captures and a full set of
// pane options with the request, stay under it.
func TestCommandLinesFitTmux37(t *testing.T) {
	var captures []string
	for i := range captureBatch {
		if i > 0 {
			captures = append(captures, ";")
		}
		captures = append(captures, "capture-pane", "-p", "-J", "-t", "%1")
	}
	if n := len(captures); n > 1000 {
		t.Errorf("a batch of %d captures is %d arguments, more than tmux 3.7 takes", captureBatch, n)
	}
	if n := 7*len(OptionNames) + 12; n > 1000 {
		t.Errorf("setting every pane option is %d arguments", n)
	}
}
