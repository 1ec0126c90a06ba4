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
