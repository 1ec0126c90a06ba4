//go:build linux

package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// printTable prints the markdown table of one server's modes.
func printTable(s *server, ms []mode, skipped []string, res map[string][]sample, load0, load1 string) {
	fmt.Printf("### N = %d idle panes, %s\n\n", s.n, layoutNames[s.layout])
	fmt.Printf("Load average %s at the start of this table, %s at its end.\n\n", load0, load1)
	fmt.Println("| mode | server CPU % (utime+stime) median (min–max) | server CPU % (schedstat) median (min–max) | added to baseline (schedstat) | per pane | control client CPU % | received in the window (per run) | signal of a pane that prints |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---|---|")
	base, hasBase := medianOf(res["baseline"], sample.serverNsPct)
	for _, m := range ms {
		ss := res[m.name]
		added, perPane := "—", "—"
		if hasBase && m.name != "baseline" {
			v, _ := medianOf(ss, sample.serverNsPct)
			d := v - base
			added = fmt.Sprintf("%+.3f %%", d)
			// percent of a core is 10 ms per second per percent: µs per pane per second.
			perPane = fmt.Sprintf("%.2f µs/s", d*1e4/float64(s.n))
		}
		client := "—"
		if m.client {
			client = spread(ss, sample.clientPct)
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", m.name,
			spread(ss, sample.serverPct), spread(ss, sample.serverNsPct), added, perPane, client,
			received(m, ss), checks(m, ss))
	}
	fmt.Println()
	for _, m := range ms {
		fmt.Printf("- %s: %s.\n", m.name, m.about)
	}
	for _, sk := range skipped {
		fmt.Printf("- not measured on this server: %s.\n", sk)
	}
	fmt.Println()
}

// medianOf is the median of f over ss.
func medianOf(ss []sample, f func(sample) float64) (float64, bool) {
	if len(ss) == 0 {
		return 0, false
	}
	return median(values(ss, f)), true
}

// values is f over ss, sorted.
func values(ss []sample, f func(sample) float64) []float64 {
	var v []float64
	for _, s := range ss {
		v = append(v, f(s))
	}
	slices.Sort(v)
	return v
}

// median of sorted v (the mean of the middle two for an even count).
func median(v []float64) float64 {
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// spread is "median (min–max)" of f over ss, in percent.
func spread(ss []sample, f func(sample) float64) string {
	if len(ss) == 0 {
		return "—"
	}
	v := values(ss, f)
	return fmt.Sprintf("**%.3f** (%.3f–%.3f)", median(v), v[0], v[len(v)-1])
}

// received says what the mode's client got in the window, summed over runs and per run.
func received(m mode, ss []sample) string {
	var ticks, rows, pushes, events int64
	for _, s := range ss {
		ticks, rows, pushes, events = ticks+s.ticks, rows+s.rows, pushes+s.pushes, events+s.events
	}
	r := int64(len(ss))
	switch m.name {
	case "list-activity", "list-output":
		return fmt.Sprintf("%.1f listings, %d rows", float64(ticks)/float64(r), rows)
	case "subscribe":
		return fmt.Sprintf("%d pushes", pushes)
	case "wait-event":
		return fmt.Sprintf("%d events", events)
	}
	return "—"
}

// checks summarises the signal checks: how many runs saw the poked pane, and how fast.
func checks(m mode, ss []sample) string {
	if !m.client || m.name == "attached" {
		return "—"
	}
	var seen []time.Duration
	var other []string
	for _, s := range ss {
		if s.seen {
			seen = append(seen, s.latency)
		} else {
			other = append(other, s.check)
		}
	}
	slices.Sort(seen)
	out := fmt.Sprintf("seen %d/%d", len(seen), len(ss))
	if len(seen) > 0 {
		out += fmt.Sprintf(", after %d–%d ms", seen[0].Milliseconds(), seen[len(seen)-1].Milliseconds())
	}
	if len(other) > 0 {
		out += " (" + strings.Join(other, "; ") + ")"
	}
	return out
}
