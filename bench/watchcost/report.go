//go:build linux

package main

import (
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// quantity is one measured figure: a row of a table and of the CSV.
type quantity struct {
	key, unit, label string
	prec             int
	ratio            bool                   // printed with ×
	get              func(result) []float64 // a run's values (none: not measured)
}

func one(f func(r result) float64) func(result) []float64 {
	return func(r result) []float64 { return []float64{f(r)} }
}

// ratio divides, and measures nothing when the denominator is 0.
func ratio(num, den float64) []float64 {
	if den <= 0 {
		return nil
	}
	return []float64{num / den}
}

var quantities = []quantity{
	{"total_cpu_pct", "%", "what watching costs: cac-tmux watch + the tmux server CPU it adds, % of one core", 3, false, one(result.totalPct)},
	{"watcher_cpu_pct", "%", "cac-tmux watch CPU, % of one core (with its tmux clients)", 3, false, one(func(r result) float64 { return r.watcherPct })},
	{"watcher_clients_cpu_pct", "%", "… of which its tmux client processes", 3, false, one(func(r result) float64 { return r.clientsPct })},
	{"tmux_server_idle_cpu_pct", "%", "tmux server CPU % with nothing watching (baseline)", 3, false, one(func(r result) float64 { return r.serverIdlePct })},
	{"tmux_server_cpu_pct", "%", "tmux server CPU % while it watches", 3, false, one(func(r result) float64 { return r.serverPct })},
	{"tmux_server_added_cpu_pct", "%", "tmux server CPU % added by the watcher", 3, false, one(result.serverAddedPct)},
	{"watcher_peak_rss_mb", "MB", "watcher peak RSS, MB", 1, false, one(func(r result) float64 { return r.rssMB })},
	{"watcher_startup_cpu_s", "s", "watcher start-up CPU, s (to the end of the warm-up)", 2, false, one(func(r result) float64 { return r.startupS })},
	{"first_look_s", "s", "start-up: exec to the first look at every pane, s (wall)", 2, false, one(func(r result) float64 { return r.startupWallS })},
	{"idle_display_ms", "ms", "tmux server latency to display-message (a tmux process) with nothing watching, ms (all pings)", 1, false, func(r result) []float64 { return r.idlePing }},
	{"startup_display_ms", "ms", "… while the watcher starts, ms (all pings, exec to a second after the first look)", 1, false, func(r result) []float64 { return r.startPingMs }},
	{"tmux_cmds_per_tick", "commands", "tmux commands per tick at idle (separate counting watcher)", 2, false, one(result.cmdsPerTick)},
	{"tmux_execs_per_tick", "processes", "… tmux processes started per tick", 2, false, one(func(r result) float64 { return float64(r.execs) / r.ticks })},
	{"control_cmds_per_tick", "lines", "… control-mode command lines per tick", 2, false, one(func(r result) float64 { return float64(r.control) / r.ticks })},
	{"control_sync_per_tick", "lines", "control-mode sync lines per tick (one after each command line; not counted above)", 2, false, one(func(r result) float64 { return float64(r.syncs) / r.ticks })},
	{"naive_total_cpu_pct", "%", "naive poller + the tmux server CPU it adds, % of one core", 2, false, one(result.naiveTotalPct)},
	{"naive_cpu_pct", "%", "naive poller CPU, % of one core (its tmux clients)", 2, false, one(func(r result) float64 { return r.naivePct })},
	{"naive_server_cpu_pct", "%", "tmux server CPU % while the naive poller runs", 2, false, one(func(r result) float64 { return r.naiveServerPct })},
	{"naive_server_added_cpu_pct", "%", "tmux server CPU % added by the naive poller", 2, false, one(result.naiveServerAddedPct)},
	{"naive_pass_ms", "ms", "naive poller: one pass over every pane, ms", 0, false, one(func(r result) float64 { return float64(r.naivePass.Microseconds()) / 1000 })},
	{"ratio_cpu", "x", "CPU ratio naive / cac-tmux", 0, true, func(r result) []float64 { return ratio(r.naivePct, r.watcherPct) }},
	{"ratio_cpu_with_server", "x", "CPU ratio naive / cac-tmux, with the tmux server CPU each adds", 1, true, func(r result) []float64 {
		return ratio(r.naiveTotalPct(), r.totalPct())
	}},
	{"detection_trials_ms", "ms", "detection latency over the trials, ms (limit drawn at a random point of the tick → \"waiting\" logged)", 0, false, func(r result) []float64 { return r.trialMs }},
	{"detection_latency_ms", "ms", "detection latency of the resume probe, ms", 0, false, func(r result) []float64 { return r.latencyMs }},
	{"resume_punctuality_ms", "ms", "resume punctuality, ms (due instant → first key read)", 0, false, func(r result) []float64 { return r.delayMs }},
	{"cpu_window_s", "s", "CPU window, s", 0, false, one(func(r result) float64 { return r.window.Seconds() })},
}

// withCodex are the quantities of a run with Codex panes only (-agent other than claude), so
// that the output of a Claude Code run stays what it was.
var withCodex = []quantity{
	{"resume_message_ms", "ms", "resume: due instant → first read of the message's text, ms (Codex: after its menu's Esc, the first key)", 0, false, func(r result) []float64 { return r.messageMs }},
}

// perServer are the quantities of each server of a run, with -servers > 1 only (so that the
// output with one server stays what it was): a run gives one sample per server.
var perServer = []quantity{
	{"tmux_server_added_each_cpu_pct", "%", "tmux server CPU % added by the watcher, each server (its own baseline off)", 3, false, result.serverAddedEach},
	{"tmux_server_idle_each_cpu_pct", "%", "tmux server CPU % with nothing watching, each server", 3, false, func(r result) []float64 { return r.serverIdleEach }},
	{"first_look_each_s", "s", "start-up: exec to the first look at every pane of each server, s (wall)", 2, false, func(r result) []float64 { return r.firstLookEach }},
}

// shown are the quantities of the tables and the CSV: perServer too with -servers > 1, and
// withCodex with an -agent other than claude.
func shown() []quantity {
	q := quantities
	if opt.servers > 1 {
		q = append(slices.Clone(q), perServer...)
	}
	if !slices.Equal(opt.agents, []string{agentClaude}) {
		q = append(slices.Clone(q), withCodex...)
	}
	return q
}

func quantityByKey(key string) quantity {
	for _, q := range shown() {
		if q.key == key {
			return q
		}
	}
	panic("no quantity " + key)
}

type stat struct {
	med, lo, hi, p99 float64
	n                int
}

// summarize gives the median, min, max and 99th percentile (nearest rank: the value at rank
// ⌈0.99·n⌉, so the maximum for n ≤ 100) of the samples.
func summarize(v []float64) stat {
	if len(v) == 0 {
		return stat{}
	}
	s := slices.Sorted(slices.Values(v))
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	rank := int(math.Ceil(0.99 * float64(len(s))))
	return stat{m, s[0], s[len(s)-1], s[rank-1], len(s)}
}

// of summarizes a quantity over the runs of one N.
func (q quantity) of(rs []result) stat {
	var v []float64
	for _, r := range rs {
		v = append(v, q.get(r)...)
	}
	return summarize(v)
}

func (q quantity) num(v float64) string {
	s := strconv.FormatFloat(v, 'f', q.prec, 64)
	if q.ratio {
		s += "×"
	}
	return s
}

// cells are the median and the min–max of a stat ("–" when not measured, or when one run).
func (q quantity) cells(s stat) (string, string) {
	if s.n == 0 {
		return "–", "–"
	}
	if s.n == 1 {
		return q.num(s.med), "–"
	}
	return q.num(s.med), q.num(s.lo) + " – " + q.num(s.hi)
}

func (q quantity) format(s stat) string {
	med, rng := q.cells(s)
	if rng == "–" {
		return med
	}
	return med + " (" + rng + ")"
}

func report(agent string, res map[int][]result, took time.Duration) {
	tv, _ := exec.Command(realTmux, "-V").Output()
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	tick := opt.interval.String()

	fmt.Println()
	fmt.Printf("## cac-tmux watch vs a naive poller, tick %s%s\n\n", tick, agentHeading(agent))
	fmt.Printf("%s, %s, Linux %s, %d CPUs, CLK_TCK %.0f; cac-tmux built from %s; %d run(s) per figure (a fresh server each); took %s.\n\n",
		strings.TrimSpace(string(tv)), runtime.Version(), strings.TrimSpace(string(kernel)), runtime.NumCPU(), clkTck,
		revision, opt.runs, took.Round(time.Second))
	describeSetup(agent)
	fmt.Printf("tmux server: its own CPU from /proc, first over %s with nothing watching, right after the server is set up and before any watcher starts (the baseline: the busy panes' spinners and N processes cost it CPU even then), then during the watcher's window and the naive poller's; \"added by\" is that minus the baseline, measured on the same server in the same run (noise can make it slightly negative), and the CPU ratio with the server uses the added figures. ", opt.baselineWindow)
	fmt.Printf("Commands: a second watcher with a counting `tmux` wrapper first in its PATH, over %s: each tmux process, or each command line the watcher writes to a control-mode client, counts once (several commands joined by \";\" too); the sync line tmuxctl writes after each control-mode command line (`display-message -p cac-sync-…`, which the server also runs) is counted apart. ", opt.countWindow)
	fmt.Printf("Naive poller: `tmux capture-pane -p -t %%N` for every pane every %s (passes back to back when one overruns), its tmux clients' CPU, over %s on the same panes with the watcher stopped.", tick, opt.naiveWindow)
	if opt.latency {
		where := "the N-pane server itself"
		if opt.servers > 1 {
			where = "s0"
		}
		fmt.Printf(" Detection and keys: measured on %s, by the watcher of the CPU window: the probe's limit at T, its reset R a whole minute ≥ %s after T, due = R + %s.", where, probeGap(), margin)
	}
	if opt.servers > 1 {
		describeServers()
	}
	fmt.Printf("\n")

	for _, n := range opt.ns {
		rs := res[n]
		idle := n - opt.busy - 1
		fmt.Printf("\n### N = %d%s%s: %d idle, %d busy (spinner), 1 stopped at a limit\n\n", n, split(n), agentHeading(agent), idle, opt.busy)
		fmt.Println("| quantity | median | min – max |")
		fmt.Println("|---|---:|---:|")
		for _, q := range shown() {
			if !opt.latency && (q.key == "detection_latency_ms" || q.key == "resume_punctuality_ms" || q.key == "resume_message_ms") || opt.trials == 0 && q.key == "detection_trials_ms" {
				continue
			}
			med, rng := q.cells(q.of(rs))
			fmt.Printf("| %s | %s | %s |\n", q.label, med, rng)
		}
		if d := quantityByKey("detection_trials_ms").of(rs); d.n > 0 {
			fmt.Printf("\nDetection trials: p99 %.0f ms of %d (nearest rank), one tick = %d ms.\n", d.p99, d.n, opt.interval.Milliseconds())
		}
		fmt.Printf("\nCommands per tick by tmux command, all runs (%s): %s.", commandsNote(rs), breakdown(rs))
		if p := quantityByKey("naive_pass_ms").of(rs); p.med > float64(opt.interval.Milliseconds()) {
			fmt.Printf(" A naive pass took longer than the tick: its passes ran back to back, so it polled less often than every %s.", opt.interval)
		}
		fmt.Println()
	}

	targets(agent, res)
	if len(notes) > 0 {
		fmt.Println()
		for _, n := range notes {
			fmt.Printf("- note: %s\n", n)
		}
	}
	wa := ""
	if len(opt.watchArgs) > 0 {
		wa = " -watch-args=" + shellQuote(strings.Join(opt.watchArgs, " "))
	}
	if opt.servers > 1 {
		wa = fmt.Sprintf(" -servers %d", opt.servers) + wa
	}
	if !slices.Equal(opt.agents, []string{agentClaude}) {
		wa = " -agent " + strings.Join(opt.agents, ",") + wa
	}
	fmt.Printf("\nReproduce (from the repository root): `go run ./bench/watchcost -n %s -busy %d -interval %s -runs %d -window %s -warmup %s -baseline-window %s -count-window %s -naive-window %s -latency=%v%s`\n",
		joinInts(opt.ns), opt.busy, opt.interval, opt.runs, opt.window, opt.warmup, opt.baselineWindow, opt.countWindow, opt.naiveWindow, opt.latency, wa)
}

// describeSetup prints what the servers hold and how the watcher runs, in the text above the
// tables.
func describeSetup(agent string) {
	if agent != agentClaude {
		describeAgent(agent)
		return
	}
	if opt.servers > 1 {
		fmt.Printf("N fake Claude Code sessions (internal/fakeclaude) split evenly over %d tmux servers (sockets s0 … s%d in $TMUX_TMPDIR/tmux-UID, a fresh set each run), one 120x40 window each: 1 stopped at a limit an hour away and %d running a turn with an animated spinner, all on s0, the rest idle", opt.servers, opt.servers-1, opt.busy)
	} else {
		fmt.Printf("Each server: N fake Claude Code sessions (internal/fakeclaude), one 120x40 window each: 1 stopped at a limit an hour away, %d running a turn with an animated spinner, the rest idle", opt.busy)
	}
	if opt.latency {
		fmt.Printf(" (one of them the probe, which hits a limit after the CPU window)")
	}
	fmt.Printf(". Watcher: `%s`, CPU over ≥ %s after a ≥ %s warm-up, from /proc (its own, its waited-for and live tmux clients, a control-mode client among them). ", watcherCommand(), opt.window, opt.warmup)
}

// describeServers prints, after the text above the tables, how the figures read with
// -servers > 1.
func describeServers() {
	fmt.Printf(" Several servers: one watcher process supervises all %d, with a control-mode client per server (all in its CPU figure); every tmux server figure is the sum over the %d servers (\"added\": each minus its own baseline, over the same windows), and the \"each server\" rows take one sample per server and run. The start-up ends at the last of the watcher's %d \"looked at every pane\" lines (one per server, by its \"server\" field): every pane of every server looked at once. The display-message pings, the probe and the detection trials are on s0; the tmux commands are those of all %d control-mode clients; the naive poller captures every pane of every server.", opt.servers, opt.servers, opt.servers, opt.servers)
}

// split is ", over S servers (K each)" with -servers > 1, else "".
func split(n int) string {
	if opt.servers == 1 {
		return ""
	}
	if n%opt.servers == 0 {
		return fmt.Sprintf(" over %d servers (%d each)", opt.servers, n/opt.servers)
	}
	return fmt.Sprintf(" over %d servers (%d–%d each)", opt.servers, n/opt.servers, n/opt.servers+1)
}

// watcherCommand is the watcher's command line as the harness runs it, -watch-args included.
func watcherCommand() string {
	args := watchArgv("SOCK")
	for i, a := range args {
		if a != "SOCK" {
			args[i] = shellQuote(a)
		}
	}
	return "cac-tmux " + strings.Join(args, " ")
}

// shellQuote quotes s for sh when it holds anything but plain characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/@%+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}

// breakdown lists the commands per tick by tmux command, over every run of one N.
func breakdown(rs []result) string {
	sum, ticks := map[string]int{}, 0.0
	for _, r := range rs {
		for k, v := range r.bySub {
			sum[k] += v
		}
		ticks += r.ticks
	}
	if len(sum) == 0 || ticks == 0 {
		return "none"
	}
	keys := slices.SortedFunc(maps.Keys(sum), func(a, b string) int { return sum[b] - sum[a] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, float64(sum[k])/ticks))
	}
	return strings.Join(parts, ", ")
}

func commandsNote(rs []result) string {
	for _, r := range rs {
		if r.control > 0 || r.syncs > 0 {
			return "tmux processes by command, and control-mode command lines as \"-C command\" (their first command; sync lines not included)"
		}
	}
	return "tmux processes; no control-mode client was used"
}

// targets checks the targets (bench/README.md) at N=1000 (else the largest N): what
// watching costs (watcher + the server CPU it adds) at most 1 % of one core and at most 3× its
// cost at N=100, detection within one tick (p99 of the trials), the first look at every pane
// within 1 s, peak RSS ≤ 20 MB, CPU ≥ 20× lower than the naive poller, keys ≤ 1 s after the
// due instant and never before.
func targets(agent string, res map[int][]result) {
	n := slices.Max(opt.ns)
	where := fmt.Sprintf("N=%d", n)
	if n != 1000 {
		where += " (the targets are for N=1000, which this run did not measure)"
	}
	if opt.interval != time.Second {
		where += fmt.Sprintf(" (the targets are for a 1s tick, this run used %s)", opt.interval)
	}
	rs := res[n]
	fmt.Printf("\n### Targets, at %s%s\n\n", where, agentHeading(agent))
	check := func(what string, ok bool, got string) {
		verdict := "met"
		if !ok {
			verdict = "MISSED"
		}
		fmt.Printf("- %s: %s — %s\n", what, got, verdict)
	}
	tq := quantityByKey("total_cpu_pct")
	c := tq.of(rs)
	check("watcher + the tmux server CPU it adds ≤ 1 % of one core (median)", c.n > 0 && c.med <= 1, tq.format(c)+" %")
	if rs100, ok := res[100]; ok && n != 100 {
		c100 := tq.of(rs100)
		check(fmt.Sprintf("… at most 3× its cost at N=100 (medians, %s %%)", tq.num(c100.med)), c100.med > 0 && c.med <= 3*c100.med,
			fmt.Sprintf("%.1f×", c.med/c100.med))
	}
	dq := quantityByKey("detection_trials_ms")
	d := dq.of(rs)
	missed := 0
	for _, r := range rs {
		missed += r.trialMissed
	}
	check(fmt.Sprintf("detection ≤ 1 tick = %d ms (p99 of %d trials, %d missed)", opt.interval.Milliseconds(), d.n, missed),
		d.n >= 50 && missed == 0 && d.p99 <= float64(opt.interval.Milliseconds()), fmt.Sprintf("p99 %s ms, median %s ms, max %s ms", dq.num(d.p99), dq.num(d.med), dq.num(d.hi)))
	fq := quantityByKey("first_look_s")
	f := fq.of(rs)
	check("start-up: the first look at every pane < 1 s of wall time (max)", f.n > 0 && f.hi < 1, fq.format(f)+" s")
	pi, ps := quantityByKey("idle_display_ms").of(rs), quantityByKey("startup_display_ms").of(rs)
	fmt.Printf("- the server's latency to display-message while the watcher starts: median %.1f ms, max %.1f ms (with nothing watching: median %.1f ms, max %.1f ms)\n", ps.med, ps.hi, pi.med, pi.hi)
	rss := quantityByKey("watcher_peak_rss_mb")
	m := rss.of(rs)
	check("watcher peak RSS ≤ 20 MB (max)", m.hi <= 20, rss.format(m)+" MB")
	rq := quantityByKey("ratio_cpu")
	ra := rq.of(rs)
	check("CPU ≥ 20× lower than the naive poller (median)", ra.n > 0 && ra.med >= 20, rq.format(ra))
	if !opt.latency {
		return
	}
	kq := quantityByKey("resume_punctuality_ms")
	k := kq.of(rs)
	check("keys ≤ 1 s after the due instant, never before (max, min)", k.n == opt.runs && k.hi <= 1000 && k.lo >= 0, kq.format(k)+" ms")
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// writeCSV writes one row per N per quantity: median, min and max over the runs. With
// -servers > 1 a last column, servers, says over how many servers N was split.
func writeCSV(path string, res map[int][]result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	header := []string{"n", "busy", "tick_s", "runs", "quantity", "unit", "median", "min", "max", "p99", "samples"}
	if opt.servers > 1 {
		header = append(header, "servers")
	}
	w.Write(header)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	for _, n := range opt.ns {
		for _, q := range shown() {
			s := q.of(res[n])
			row := []string{strconv.Itoa(n), strconv.Itoa(opt.busy), g(opt.interval.Seconds()), strconv.Itoa(opt.runs), q.key, q.unit, "", "", "", "", strconv.Itoa(s.n)}
			if s.n > 0 {
				row[6], row[7], row[8], row[9] = g(s.med), g(s.lo), g(s.hi), g(s.p99)
			}
			if opt.servers > 1 {
				row = append(row, strconv.Itoa(opt.servers))
			}
			w.Write(row)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
