//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// logLine matches a measurement line of the progress log (stderr):
// "15:04:05 N=1000, 1, run 2, subscribe: server 0.899 % (0.930 % by schedstat), …".
var logLine = regexp.MustCompile(`N=(\d+), (\S+), run (\d+), ([a-z-]+): server [0-9.]+ % \(([0-9.]+) % by schedstat\)`)

// printRatios prints, from progress logs, each mode's server CPU (schedstat) over that of
// list-activity in the same run on the same server: consecutive windows, so that the
// machine's drift from run to run cancels out.
func printRatios(paths []string) error {
	fmt.Println("| log | N | layout | mode | ÷ list-activity, per run | median |")
	fmt.Println("|---|---:|---|---|---|---:|")
	for _, p := range paths {
		if err := ratiosOf(p); err != nil {
			return err
		}
	}
	return nil
}

func ratiosOf(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	type key struct{ n, layout, run string }
	pct := map[key]map[string]float64{}
	var keys []key
	var modes []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := logLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		k := key{m[1], m[2], m[3]}
		if pct[k] == nil {
			pct[k] = map[string]float64{}
			keys = append(keys, k)
		}
		pct[k][m[4]], _ = strconv.ParseFloat(m[5], 64)
		if !slices.Contains(modes, m[4]) {
			modes = append(modes, m[4])
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	type group struct{ n, layout string }
	var groups []group
	for _, k := range keys {
		if g := (group{k.n, k.layout}); !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		for _, mode := range modes {
			if mode == "list-activity" || mode == "baseline" {
				continue
			}
			var rs []float64
			var txt []string
			for _, k := range keys {
				v, ok := pct[k][mode]
				base := pct[k]["list-activity"]
				if k.n != g.n || k.layout != g.layout || !ok || base == 0 {
					continue
				}
				rs = append(rs, v/base)
				txt = append(txt, fmt.Sprintf("%.2f", v/base))
			}
			if len(rs) == 0 {
				continue
			}
			slices.Sort(rs)
			fmt.Printf("| %s | %s | %s | %s | %s | **%.2f** |\n", path, g.n, g.layout, mode, strings.Join(txt, ", "), median(rs))
		}
	}
	return nil
}
