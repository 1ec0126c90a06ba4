//go:build linux

package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The plot: CPU % of one core vs N, cac-tmux and the naive poller, both axes log10, medians
// with min–max bars, the naive/cac-tmux ratio over each naive point. Text is drawn with font,
// a 5×7 bitmap font of digits, capitals and a few signs (lower case is drawn as capitals).

const (
	plotW, plotH = 900, 580
	left, right  = 110, 40 // margins around the plot area
	top, bottom  = 104, 84
)

var (
	white  = color.RGBA{255, 255, 255, 255}
	black  = color.RGBA{0, 0, 0, 255}
	dark   = color.RGBA{70, 70, 70, 255}
	grid   = color.RGBA{215, 215, 215, 255}
	faint  = color.RGBA{238, 238, 238, 255}
	blue   = color.RGBA{31, 119, 180, 255}
	orange = color.RGBA{230, 110, 0, 255}
)

type point struct{ n, med, lo, hi float64 }

type series struct {
	name   string
	color  color.RGBA
	square bool // marker: square, else disc
	pts    []point
}

func writePlot(path, agent string, res map[int][]result) error {
	ns := slices.Sorted(slices.Values(opt.ns))
	mk := func(key string) []point {
		q := quantityByKey(key)
		var ps []point
		for _, n := range ns {
			s := q.of(res[n])
			ps = append(ps, point{float64(n), s.med, s.lo, s.hi})
		}
		return ps
	}
	ss := []series{
		{"CAC-TMUX WATCH + THE TMUX SERVER CPU IT ADDS", blue, true, mk("total_cpu_pct")},
		{"NAIVE POLLER (CAPTURE-PANE OF EVERY PANE EVERY TICK) + SERVER", orange, false, mk("naive_total_cpu_pct")},
	}
	ratios := map[float64]float64{}
	rq := quantityByKey("ratio_cpu_with_server")
	for _, n := range ns {
		if s := rq.of(res[n]); s.n > 0 {
			ratios[float64(n)] = s.med
		}
	}
	panes := map[string]string{agentClaude: "CLAUDE", agentCodex: "CODEX", agentBoth: "CLAUDE AND CODEX"}[agent]
	title := fmt.Sprintf("CPU %% OF ONE CORE VS N %s PANES, TICK %s", panes, strings.ToUpper(opt.interval.String()))
	if opt.servers > 1 {
		title = fmt.Sprintf("CPU %% OF ONE CORE VS N %s PANES OVER %d SERVERS, TICK %s", panes, opt.servers, strings.ToUpper(opt.interval.String()))
	}
	sub := fmt.Sprintf("MEDIANS OF %d RUN(S), BARS MIN-MAX, LABELS NAIVE/CAC-TMUX; %d BUSY PANES + 1 STOPPED, THE REST IDLE", opt.runs, opt.busy)
	img := plot(title, sub, ss, ratios)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// plot draws the plot of the series, with the ratios (naive/cac-tmux by N) over the last
// series' points.
func plot(title, sub string, ss []series, ratios map[float64]float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, plotW, plotH))
	fill(img, 0, 0, plotW, plotH, white)
	ax := newAxes(ss)
	drawGrid(img, ax, ss)
	drawSeries(img, ax, ss)
	drawRatios(img, ax, ss[len(ss)-1], ratios)
	drawHeader(img, ax, title, sub, ss)
	return img
}

// axes maps N and CPU % to pixels of the plot area, both log10.
type axes struct {
	x0, x1, y0, y1     int // plot area; y0 is its top
	xlo, xhi, ylo, yhi float64
}

// newAxes fits the ranges: x over the Ns, y over every positive value, whole decades.
func newAxes(ss []series) axes {
	ax := axes{x0: left, x1: plotW - right, y0: top, y1: plotH - bottom}
	var xs, ys []float64
	for _, s := range ss {
		for _, p := range s.pts {
			xs = append(xs, math.Log10(p.n))
			for _, v := range []float64{p.med, p.lo, p.hi} {
				if v > 0 {
					ys = append(ys, math.Log10(v))
				}
			}
		}
	}
	xlo, xhi := slices.Min(xs), slices.Max(xs)
	pad := max(0.12*(xhi-xlo), 0.15)
	ax.xlo, ax.xhi = xlo-pad, xhi+pad
	ax.ylo, ax.yhi = -2.0, 0.0
	if len(ys) > 0 {
		ax.ylo, ax.yhi = math.Floor(slices.Min(ys)), math.Ceil(slices.Max(ys))
		if ax.yhi-slices.Max(ys) < 0.2 { // room for the ratio label over the top point
			ax.yhi++
		}
	}
	return ax
}

// px is the x pixel of n panes.
func (ax axes) px(n float64) int {
	return ax.x0 + int(math.Round((math.Log10(n)-ax.xlo)/(ax.xhi-ax.xlo)*float64(ax.x1-ax.x0)))
}

// py is the y pixel of v %; a v not positive or below the range is drawn on the bottom edge.
func (ax axes) py(v float64) int {
	l := ax.ylo
	if v > 0 {
		l = max(math.Log10(v), ax.ylo)
	}
	return ax.y1 - int(math.Round((l-ax.ylo)/(ax.yhi-ax.ylo)*float64(ax.y1-ax.y0)))
}

// drawGrid draws the grid with its labels, the axes and their titles.
func drawGrid(img *image.RGBA, ax axes, ss []series) {
	x0, x1, y0, y1 := ax.x0, ax.x1, ax.y0, ax.y1
	// grid and y labels: decades, and 2 and 5 between them when there are few decades
	decades := int(ax.yhi - ax.ylo)
	for d := int(ax.ylo); d <= int(ax.yhi); d++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, float64(d))
			if math.Log10(v) > ax.yhi+1e-9 || m != 1 && decades > 4 {
				continue
			}
			y := ax.py(v)
			c := grid
			if m != 1 {
				c = faint
			}
			hline(img, x0, x1, y, c)
			if m == 1 || decades <= 2 {
				label := strconv.FormatFloat(v, 'f', -1, 64)
				text(img, x0-10-textWidth(label, 2), y-7, label, 2, dark, false)
			}
		}
	}
	for _, s := range ss {
		for _, p := range s.pts {
			x := ax.px(p.n)
			vline(img, x, y0, y1, grid)
			label := strconv.Itoa(int(p.n))
			text(img, x-textWidth(label, 2)/2, y1+10, label, 2, dark, false)
		}
		break
	}
	// axes
	fill(img, x0-1, y0, x0+1, y1+2, black)
	fill(img, x0-1, y1, x1+1, y1+2, black)
	xt := "N CLAUDE PANES (LOG SCALE)"
	text(img, (x0+x1)/2-textWidth(xt, 2)/2, y1+42, xt, 2, black, false)
	yt := "CPU % OF ONE CORE (LOG SCALE)"
	text(img, 18, (y0+y1)/2+textWidth(yt, 2)/2, yt, 2, black, true)
}

// drawSeries draws each series: min–max bars, lines, markers.
func drawSeries(img *image.RGBA, ax axes, ss []series) {
	px, py := ax.px, ax.py
	for _, s := range ss {
		for _, p := range s.pts {
			x := px(p.n)
			if p.hi > p.lo {
				line(img, x, py(p.lo), x, py(p.hi), 2, s.color)
				line(img, x-6, py(p.lo), x+6, py(p.lo), 2, s.color)
				line(img, x-6, py(p.hi), x+6, py(p.hi), 2, s.color)
			}
		}
		for i := 1; i < len(s.pts); i++ {
			a, b := s.pts[i-1], s.pts[i]
			line(img, px(a.n), py(a.med), px(b.n), py(b.med), 3, s.color)
		}
		for _, p := range s.pts {
			marker(img, px(p.n), py(p.med), s.square, s.color)
		}
	}
}

// drawRatios writes the ratio over each point of the naive series, under it when there is no
// room above.
func drawRatios(img *image.RGBA, ax axes, naive series, ratios map[float64]float64) {
	for _, p := range naive.pts {
		if r, ok := ratios[p.n]; ok {
			label := strconv.FormatFloat(r, 'f', 0, 64) + "X"
			x, y := ax.px(p.n)-textWidth(label, 2)/2, ax.py(p.med)-28
			if y < ax.y0+2 {
				y = ax.py(p.med) + 14
			}
			text(img, x, y, label, 2, dark, false)
		}
	}
}

// drawHeader draws the title, the subtitle and the legend above the plot area.
func drawHeader(img *image.RGBA, ax axes, title, sub string, ss []series) {
	text(img, plotW/2-textWidth(title, 2)/2, 12, title, 2, black, false)
	text(img, plotW/2-textWidth(sub, 1)/2, 34, sub, 1, dark, false)
	for i, s := range ss {
		y := 56 + 22*i
		line(img, ax.x0, y+7, ax.x0+36, y+7, 3, s.color)
		marker(img, ax.x0+18, y+7, s.square, s.color)
		text(img, ax.x0+48, y, s.name, 2, black, false)
	}
}

func fill(img *image.RGBA, xa, ya, xb, yb int, c color.RGBA) {
	for y := max(ya, 0); y < min(yb, plotH); y++ {
		for x := max(xa, 0); x < min(xb, plotW); x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

func hline(img *image.RGBA, xa, xb, y int, c color.RGBA) { fill(img, xa, y, xb+1, y+1, c) }
func vline(img *image.RGBA, x, ya, yb int, c color.RGBA) { fill(img, x, ya, x+1, yb+1, c) }

// line draws a line w pixels thick (Bresenham with a square brush).
func line(img *image.RGBA, xa, ya, xb, yb, w int, c color.RGBA) {
	dx, dy := abs(xb-xa), -abs(yb-ya)
	sx, sy := 1, 1
	if xa > xb {
		sx = -1
	}
	if ya > yb {
		sy = -1
	}
	e := dx + dy
	for {
		fill(img, xa-w/2, ya-w/2, xa-w/2+w, ya-w/2+w, c)
		if xa == xb && ya == yb {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			xa += sx
		}
		if e2 <= dx {
			e += dx
			ya += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// marker draws a filled square or disc with a white rim at (x, y).
func marker(img *image.RGBA, x, y int, square bool, c color.RGBA) {
	for _, m := range []struct {
		r int
		c color.RGBA
	}{{7, white}, {5, c}} {
		for dy := -m.r; dy <= m.r; dy++ {
			for dx := -m.r; dx <= m.r; dx++ {
				if square || dx*dx+dy*dy <= m.r*m.r {
					fill(img, x+dx, y+dy, x+dx+1, y+dy+1, m.c)
				}
			}
		}
	}
}

// textWidth is the width in pixels of s drawn at scale.
func textWidth(s string, scale int) int {
	n := len([]rune(s))
	if n == 0 {
		return 0
	}
	return (6*n - 1) * scale
}

// text draws s with its top left corner at (x, y), each font pixel scale×scale; vertical
// text reads upwards from (x, y), its bottom left corner.
func text(img *image.RGBA, x, y int, s string, scale int, c color.RGBA, vertical bool) {
	for i, r := range []rune(strings.ToUpper(s)) {
		g, ok := font[r]
		if !ok {
			g = font['?']
		}
		for row := range 7 {
			for col := range 5 {
				if g[row]&(1<<(4-col)) == 0 {
					continue
				}
				gx, gy := (6*i+col)*scale, row*scale
				if vertical {
					fill(img, x+gy, y-gx-scale, x+gy+scale, y-gx, c)
				} else {
					fill(img, x+gx, y+gy, x+gx+scale, y+gy+scale, c)
				}
			}
		}
	}
}

// font is a 5×7 bitmap font: seven rows per glyph, the top first, bit 4 the leftmost pixel.
var font = map[rune][7]uint8{
	' ': {},
	'0': {0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110},
	'1': {0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110},
	'2': {0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111},
	'3': {0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110},
	'4': {0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010},
	'5': {0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110},
	'6': {0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110},
	'7': {0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000},
	'8': {0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110},
	'9': {0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100},
	'A': {0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001},
	'B': {0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110},
	'C': {0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110},
	'D': {0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100},
	'E': {0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111},
	'F': {0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000},
	'G': {0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111},
	'H': {0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001},
	'I': {0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110},
	'J': {0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100},
	'K': {0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001},
	'L': {0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111},
	'M': {0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001},
	'N': {0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001},
	'O': {0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110},
	'P': {0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000},
	'Q': {0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101},
	'R': {0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001},
	'S': {0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110},
	'T': {0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100},
	'U': {0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110},
	'V': {0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100},
	'W': {0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010},
	'X': {0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001},
	'Y': {0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100},
	'Z': {0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111},
	'%': {0b11000, 0b11001, 0b00010, 0b00100, 0b01000, 0b10011, 0b00011},
	'.': {0, 0, 0, 0, 0, 0b01100, 0b01100},
	',': {0, 0, 0, 0, 0b01100, 0b00100, 0b01000},
	':': {0, 0b01100, 0b01100, 0, 0b01100, 0b01100, 0},
	';': {0, 0b01100, 0b01100, 0, 0b01100, 0b00100, 0b01000},
	'-': {0, 0, 0, 0b11111, 0, 0, 0},
	'+': {0, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0},
	'=': {0, 0, 0b11111, 0, 0b11111, 0, 0},
	'/': {0, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0},
	'(': {0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00100, 0b00010},
	')': {0b01000, 0b00100, 0b00010, 0b00010, 0b00010, 0b00100, 0b01000},
	'?': {0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0, 0b00100},
}
