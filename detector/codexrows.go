// Codex screens are read with their SGR escapes (`capture-pane -p -J -e`): the red of an error
// cell and the dim of the composer's placeholder are what tell them from text that reads alike.

package detector

import (
	"image/color"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/cellbuf"
)

// codexRow is one row of a Codex capture: its text and, for each of its runes, whether it was
// drawn dim (SGR 2) and in red (SGR 31, 91 or 38;5;1, 38;5;9).
type codexRow struct {
	text  string // without trailing spaces
	runes []rune // text's runes
	dim   []bool
	red   []bool
}

// maxCodexRows bounds the rows read, so that garbled input costs little: a pane taller than
// this shows its composer below the rows read, so none is found and nothing is typed.
const maxCodexRows = 1000

// readCodexRows splits a capture with escapes into rows. The SGR state carries from row to
// row, as capture-pane -e writes it: tmux emits a change only where the attributes change, so
// the rows Codex wrapped a red message into have no escape of their own. cellbuf.ReadStyle
// reads each SGR exactly as a terminal does; every other escape is dropped. styled says
// whether the capture had any SGR at all (one taken without -e has none).
func readCodexRows(screen string) (rows []codexRow, styled bool) {
	p := new(ansi.Parser)
	p.SetParamsSize(32)
	p.SetDataSize(256)
	var (
		pen   cellbuf.Style
		state byte
		cur   codexRow
	)
	for len(screen) > 0 && len(rows) < maxCodexRows {
		seq, _, n, next := ansi.DecodeSequence(screen, state, p)
		state, screen = next, screen[n:]
		switch {
		case n == 0:
			return rows, styled // unreachable: DecodeSequence always advances
		case seq == "\n":
			rows = append(rows, cur.trimmed())
			cur = codexRow{}
		case ansi.HasCsiPrefix(seq) && ansi.Cmd(p.Command()).Final() == 'm' && ansi.Cmd(p.Command()).Prefix() == 0:
			styled = true
			cellbuf.ReadStyle(p.Params(), &pen)
		case seq == "" || seq[0] < ' ' || seq[0] == 0x7f || strings.HasPrefix(seq, "\x1b") || !utf8.ValidString(seq):
			// another control or escape sequence, or bytes that are not text
		default:
			dim, red := pen.Attrs&cellbuf.FaintAttr != 0, isRed(pen.Fg)
			for _, r := range seq {
				cur.runes = append(cur.runes, r)
				cur.dim = append(cur.dim, dim)
				cur.red = append(cur.red, red)
			}
		}
	}
	if len(rows) < maxCodexRows {
		rows = append(rows, cur.trimmed())
	}
	return rows, styled
}

// trimmed drops the row's trailing spaces and sets its text.
func (r codexRow) trimmed() codexRow {
	n := len(r.runes)
	for n > 0 && (r.runes[n-1] == ' ' || r.runes[n-1] == '\u00a0' || r.runes[n-1] == '\r') {
		n--
	}
	r.runes, r.dim, r.red = r.runes[:n], r.dim[:n], r.red[:n]
	r.text = string(r.runes)
	return r
}

// isRed reports the red of the 16-colour palette, however it was set: Codex draws its error
// cells in `\e[38;5;1m` (0.171.0).
func isRed(c color.Color) bool {
	switch c := c.(type) {
	case ansi.BasicColor:
		return c == ansi.Red || c == ansi.BrightRed
	case ansi.IndexedColor:
		return c == 1 || c == 9
	}
	return false
}

// undimmed is the row's text from rune from on, without its dim runes.
func (r codexRow) undimmed(from int) string {
	var b strings.Builder
	for i := from; i < len(r.runes); i++ {
		if !r.dim[i] {
			b.WriteRune(r.runes[i])
		}
	}
	return strings.TrimRight(b.String(), " \u00a0")
}

// startsWith reports a row whose text starts with prefix at column 0.
func (r codexRow) startsWith(prefix string) bool { return strings.HasPrefix(r.text, prefix) }

// blank reports a row with no text.
func (r codexRow) blank() bool { return strings.TrimSpace(r.text) == "" }
