//go:build linux

package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// -compare: what one `watch --all-servers` costs against S separate `watch -S SOCK` watchers,
// one a server, on the same S servers and the same panes, measured alternately (run 1: one
// process then S; run 2: S then one; …) so that what else loads the machine falls on both
// alike. Each measurement starts its watchers afresh, waits until every one has looked at
// every pane and the warm-up is over, then reads the CPU of every watcher (with its tmux
// clients) and of every server over opt.window. Latency, counting and the naive poller are
// not measured: -compare is about the one question.

// modeCost is one measurement of one mode.
type modeCost struct {
	watcherPct, serverPct, rssMB float64 // rssMB: the sum of the watchers' peak RSS
}

func (c modeCost) total() float64 { return c.watcherPct + c.serverPct }

// compareModes runs the comparison for every N and writes its CSV.
func compareModes() error {
	type key struct {
		n   int
		all bool
	}
	res := map[key][]modeCost{}
	for _, n := range opt.ns {
		g, err := newGroup(n, agentClaude)
		if err != nil {
			g.kill()
			return fmt.Errorf("N=%d: %w", n, err)
		}
		for run := 1; run <= opt.runs; run++ {
			order := []bool{true, false}
			if run%2 == 0 {
				order = []bool{false, true}
			}
			for _, all := range order {
				c, err := measureMode(g, all)
				if err != nil {
					g.kill()
					return fmt.Errorf("N=%d run %d (%s): %w", n, run, modeName(all, len(g)), err)
				}
				logf("run %d/%d N=%d %s: watchers %.3f%%, tmux servers %.3f%%, total %.3f%%, peak RSS %.1f MB",
					run, opt.runs, n, modeName(all, len(g)), c.watcherPct, c.serverPct, c.total(), c.rssMB)
				res[key{n, all}] = append(res[key{n, all}], c)
			}
		}
		g.kill()
	}
	path := filepath.Join(opt.outDir, "compare-"+opt.started.Format("20060102-150405")+".csv")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := csv.NewWriter(f)
	w.Write([]string{"n", "servers", "mode", "runs", "quantity", "median", "min", "max"})
	for _, n := range opt.ns {
		for _, all := range []bool{true, false} {
			cs := res[key{n, all}]
			for _, q := range []struct {
				name string
				of   func(modeCost) float64
			}{{"total_cpu_pct", modeCost.total}, {"watcher_cpu_pct", func(c modeCost) float64 { return c.watcherPct }},
				{"tmux_servers_cpu_pct", func(c modeCost) float64 { return c.serverPct }}, {"peak_rss_mb", func(c modeCost) float64 { return c.rssMB }}} {
				v := make([]float64, len(cs))
				for i, c := range cs {
					v[i] = q.of(c)
				}
				st := summarize(v)
				med, lo, hi := st.med, st.lo, st.hi
				w.Write([]string{strconv.Itoa(n), strconv.Itoa(opt.servers), modeName(all, opt.servers), strconv.Itoa(len(cs)), q.name,
					strconv.FormatFloat(med, 'f', 4, 64), strconv.FormatFloat(lo, 'f', 4, 64), strconv.FormatFloat(hi, 'f', 4, 64)})
				logf("N=%d %s: %s median %.3f (%.3f–%.3f) of %d", n, modeName(all, opt.servers), q.name, med, lo, hi, len(cs))
			}
		}
	}
	w.Flush()
	logf("wrote %s", path)
	return w.Error()
}

func modeName(all bool, servers int) string {
	if all {
		return "one watch --all-servers"
	}
	return strconv.Itoa(servers) + " separate watchers"
}

// measureMode starts the watchers of a mode on g, waits for their first looks and the warm-up,
// and measures them over opt.window.
func measureMode(g group, all bool) (modeCost, error) {
	var ws []*watcher
	defer func() {
		for _, w := range ws {
			w.stop()
		}
	}()
	t0 := time.Now()
	argvs := [][]string{watchArgvOf("--all-servers")}
	if !all {
		argvs = nil
		for _, s := range g {
			argvs = append(argvs, watchArgvOf("-S", s.sock))
		}
	}
	for _, argv := range argvs {
		w, err := startWatcherArgv(argv, false)
		if err != nil {
			return modeCost{}, err
		}
		ws = append(ws, w)
	}
	deadline := t0.Add(2*time.Minute + time.Duration(g.panes())*50*time.Millisecond)
	for _, w := range ws {
		if err := w.waitLooks(len(g)/len(ws), deadline); err != nil {
			return modeCost{}, err
		}
	}
	sleepUntil(t0.Add(opt.warmup))
	a, err := watchersCPU(ws)
	if err != nil {
		return modeCost{}, err
	}
	sa, err := g.cpu()
	if err != nil {
		return modeCost{}, err
	}
	ta := time.Now()
	time.Sleep(opt.window)
	b, err := watchersCPU(ws)
	if err != nil {
		return modeCost{}, err
	}
	sb, err := g.cpu()
	if err != nil {
		return modeCost{}, err
	}
	el := time.Since(ta).Seconds()
	c := modeCost{watcherPct: (b - a) / clkTck / el * 100, serverPct: sum(pcts(sa, sb, el))}
	for _, w := range ws {
		rss, err := peakRSS(w.pid)
		if err != nil {
			return modeCost{}, err
		}
		c.rssMB += rss
	}
	return c, nil
}

// watchersCPU is the sum of treeCPU over ws, in clock ticks.
func watchersCPU(ws []*watcher) (float64, error) {
	t := 0.0
	for _, w := range ws {
		c, err := treeCPU(w.pid)
		if err != nil {
			return 0, err
		}
		t += c.total()
	}
	return t, nil
}

// waitLooks waits until the watcher logged "looked at every pane" for n servers.
func (w *watcher) waitLooks(n int, deadline time.Time) error {
	for ; time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		seen := map[string]bool{}
		for _, l := range w.lines() {
			if l.Message == "looked at every pane" {
				seen[l.Server] = true
			}
		}
		if len(seen) >= n {
			return nil
		}
		select {
		case <-w.exited:
			return fmt.Errorf("a watcher exited: %s", w.tail())
		default:
		}
	}
	return fmt.Errorf("no first look at every pane by %s: %s", deadline.Format(time.TimeOnly), strings.TrimSpace(w.tail()))
}
