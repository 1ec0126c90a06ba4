//go:build linux

// Command watchcost measures what `cac-tmux watch` costs on a tmux server full of Claude Code
// sessions (its own CPU and the tmux server CPU it adds), how fast it starts and sees a usage
// limit, and how punctually it resumes, next to a naive poller that captures every pane every
// tick. It builds cac-tmux and the fake Claude Code (internal/fakeclaude, installed as
// "claude") into a temporary directory, starts private tmux servers there (tmux -S,
// TMUX_TMPDIR private, TMUX unset) and, for each N of -n and each of -runs runs, on one server
// of N fake sessions (one stopped at a limit an hour away, -busy of them running a turn with
// an animated spinner in the detection phases, the rest idle):
//
//  0. measures the tmux server's own CPU over -baseline-window with nothing watching (the
//     baseline), so that the server CPU each poller adds can be told from what the server
//     spends anyway, and its latency to display-message;
//  1. starts the watcher (--interval -interval, --margin 5s, then -watch-args), times its
//     first look at every pane and the server's latency to display-message meanwhile, then
//     reads its CPU from /proc (utime+stime, cutime+cstime for the tmux clients it waited for,
//     plus any live child), the tmux server's CPU and the watcher's VmHWM over a window of at
//     least -window, every pane idle;
//  2. with the busy panes spinning and the same watcher, measures resume punctuality on a
//     probe pane that hits a limit just after the window (the fake's first read of its
//     terminal minus the due instant), and detection latency over -trials limits drawn at
//     random points of the tick on idle panes (the watcher's "waiting" line minus the instant);
//  3. runs a second watcher with a counting `tmux` wrapper first in its PATH and counts the
//     tmux commands it runs per tick over -count-window (a separate phase: the wrapper's cost
//     never reaches the CPU figures);
//  4. runs the naive poller (capture-pane -p of every pane every -interval) on the same panes
//     for -naive-window.
//
// It prints a markdown table per N (medians, min–max), checks the targets (bench/README.md),
// and writes a CSV and a PNG plot (CPU % vs N, log–log, drawn with a built-in 5×7 bitmap font)
// under -out; -readme CSV prints the table in docs/costs.md from such a CSV. Every tmux server is
// killed and the temporary directory removed at the end, on error and on
// SIGINT/SIGTERM/SIGHUP.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	margin = 5 * time.Second // the watcher's --margin: the probe is due at its reset + margin
	batch  = 50              // new-window commands per tmux call
	settle = time.Second     // after the server is set up, before its baseline window
)

type options struct {
	ns                       []int
	busy                     int
	servers                  int // tmux servers the N panes are split over (-servers)
	interval                 time.Duration
	runs                     int
	window, warmup           time.Duration
	baselineWindow           time.Duration
	countWindow, naiveWindow time.Duration
	latency, quick, compare  bool
	trials                   int      // detection trials per N and run
	watchArgs                []string // -watch-args split on blanks: appended to every watch command line
	agents                   []string // -agent: what the panes run, each measured in turn for every N of each run
	out                      string
	outDir                   string // out made absolute (relative paths are to the repository root)
	started                  time.Time
	liveChildren             bool // /proc/PID/task/TID/children exists
}

var (
	opt      options
	root     string  // the repository root
	tmp      string  // the temporary directory: binaries, sockets, logs, the watchers' XDG dirs
	bin      string  // tmp/bin
	realTmux string  // the tmux binary, resolved before any PATH change
	revision string  // what the binaries were built from
	clkTck   = 100.0 // clock ticks per second, from getconf CLK_TCK

	mu       sync.Mutex
	sockets  = map[string]int{}           // tmux servers that may be running, by socket: their pid (0: not known yet)
	children = map[*exec.Cmd]chan error{} // watchers that may be running, and their Wait result
	cleaned  bool
)

func main() {
	var n, watchArgs, readme, agents string
	defineFlags(&n, &watchArgs, &readme, &agents)
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "watchcost: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if readme != "" {
		if err := readmeTable(os.Stdout, readme); err != nil {
			fmt.Fprintln(os.Stderr, "watchcost:", err)
			os.Exit(1)
		}
		return
	}
	if opt.quick {
		quickDefaults()
	}
	if err := setOptions(n, watchArgs, agents); err != nil {
		fmt.Fprintln(os.Stderr, "watchcost:", err)
		os.Exit(2)
	}
	os.Unsetenv("TMUX") // every tmux call names its server with -S anyway
	os.Unsetenv("TMUX_PANE")

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sigs
		fmt.Fprintf(os.Stderr, "\nwatchcost: %v: cleaning up\n", s)
		cleanup()
		os.Exit(130)
	}()
	err := run()
	cleanup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "watchcost:", err)
		os.Exit(1)
	}
}

// defineFlags defines the command's flags. Most set opt directly; -n, -watch-args, -readme and
// -agent go into the strings given, which main reads after parsing.
func defineFlags(n, watchArgs, readme, agents *string) {
	flag.StringVar(n, "n", "10,100,1000", "numbers of agent panes per server, comma separated")
	flag.StringVar(agents, "agent", agentClaude, "what the panes run, comma separated, each measured in turn for every N of each run: claude (fake Claude Code), codex (simulated Codex CLI), both (half each)")
	flag.IntVar(&opt.trials, "trials", 20, "detection trials per N and run: limits drawn at random points of the tick on idle sessions (0: none)")
	flag.StringVar(readme, "readme", "", "print the table in docs/costs.md of what watching costs from this CSV of an earlier run, and exit")
	flag.IntVar(&opt.servers, "servers", 1, "tmux servers each N is split over (sockets tmux-UID/s0, s1, … in TMUX_TMPDIR), watched by one `cac-tmux watch --all-servers` when more than 1")
	flag.IntVar(&opt.busy, "busy", 3, "panes of the N whose fake runs a turn and animates a spinner (--spinner) in the detection phases")
	flag.DurationVar(&opt.interval, "interval", time.Second, "the watcher's --interval (its tick), also the naive poller's")
	flag.IntVar(&opt.runs, "runs", 3, "repetitions of every measurement (a fresh server each)")
	flag.DurationVar(&opt.window, "window", 60*time.Second, "minimum CPU window of the watcher (extended to the probe's limit instant, 0–60s more)")
	flag.DurationVar(&opt.warmup, "warmup", 10*time.Second, "start-up time excluded from the window (extended until every pane is supervised)")
	flag.DurationVar(&opt.countWindow, "count-window", 30*time.Second, "window of the tmux command count (30s: one revisit of the stopped pane)")
	flag.DurationVar(&opt.naiveWindow, "naive-window", 10*time.Second, "window of the naive poller (its cost per pass is steady)")
	flag.DurationVar(&opt.baselineWindow, "baseline-window", 15*time.Second, "window of the tmux server's baseline CPU, with nothing watching (before the watcher starts)")
	flag.StringVar(watchArgs, "watch-args", "", "extra arguments appended to every `cac-tmux watch` command line, split on blanks (e.g. --transport=exec)")
	flag.BoolVar(&opt.latency, "latency", true, "measure detection latency and resume punctuality (adds 0–60s per N and run: the probe's reset is a whole minute)")
	flag.StringVar(&opt.out, "out", "bench/results", "directory for the CSV and the PNG (relative: to the repository root)")
	flag.BoolVar(&opt.compare, "compare", false, "with -servers S > 1: one `watch --all-servers` against S separate `watch -S` watchers on the same servers, measured alternately over -window after -warmup, -runs times; CPU and peak RSS only (compare-*.csv)")
	flag.BoolVar(&opt.quick, "quick", false, "a quick try: -n 10,50 -runs 1 -window 10s -warmup 3s -count-window 10s -naive-window 5s -baseline-window 5s -trials 10 (flags given win), 2–3 minutes")
}

// quickDefaults sets -quick's values of the flags not given on the command line.
func quickDefaults() {
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for name, v := range map[string]string{"n": "10,50", "runs": "1", "window": "10s", "warmup": "3s", "count-window": "10s", "naive-window": "5s", "baseline-window": "5s", "trials": "10"} {
		if !set[name] {
			flag.Set(name, v)
		}
	}
}

// setOptions checks the flags and completes opt from them: the Ns of -n (each large enough
// for the busy panes, the stopped pane and the probe on the home server when split over
// -servers) and the words of -watch-args.
func setOptions(n, watchArgs, agents string) error {
	if opt.servers < 1 {
		return errors.New("-servers must be at least 1")
	}
	var err error
	if opt.agents, err = parseAgents(agents); err != nil {
		return err
	}
	if opt.compare && !slices.Equal(opt.agents, []string{agentClaude}) {
		return errors.New("-compare measures Claude Code panes only: leave -agent out")
	}
	if opt.compare && opt.servers < 2 {
		return errors.New("-compare needs -servers of 2 or more")
	}
	if opt.compare {
		opt.latency = false // -compare measures CPU and memory only: no probe pane
	}
	least := opt.busy + 1 // the stopped pane
	if opt.latency {
		least++ // the probe
	}
	for _, f := range strings.Split(n, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v/opt.servers < least {
			return fmt.Errorf("-n: %q is not a number ≥ %d (-busy, the stopped pane and the probe on each of -servers %d)", f, least*opt.servers, opt.servers)
		}
		opt.ns = append(opt.ns, v)
	}
	if opt.runs < 1 || opt.window <= 0 || opt.warmup < 0 || opt.countWindow <= 0 || opt.naiveWindow <= 0 || opt.baselineWindow <= 0 || opt.busy < 0 || opt.trials < 0 || opt.interval < 100*time.Millisecond {
		return errors.New("-runs, -window, -count-window, -naive-window, -baseline-window must be positive, -warmup, -busy and -trials not negative, -interval ≥ 100ms")
	}
	opt.watchArgs = strings.Fields(watchArgs)
	return nil
}

func run() error {
	opt.started = time.Now()
	if err := prepare(); err != nil {
		return err
	}
	if err := build(); err != nil {
		return err
	}
	if opt.compare {
		return compareModes()
	}
	logf("watcher: %s", watcherCommand())
	logf("estimated runtime: about %s", estimate().Round(time.Minute))

	res := map[string]map[int][]result{}
	for _, a := range opt.agents {
		res[a] = map[int][]result{}
	}
	// Runs outermost, then N, then the agents: drift over time and the load of anything else
	// running spread over every N and every agent alike.
	for r := 1; r <= opt.runs; r++ {
		for _, n := range opt.ns {
			for _, a := range opt.agents {
				x, err := measure(n, r, a)
				if err != nil {
					return fmt.Errorf("N=%d run %d -agent %s: %w", n, r, a, err)
				}
				res[a][n] = append(res[a][n], x)
			}
		}
	}
	took := time.Since(opt.started)
	for _, a := range opt.agents {
		report(a, res[a], took)
		if err := writeResults(a, res[a]); err != nil {
			return err
		}
	}
	if len(opt.agents) > 1 {
		sideBySide(res)
	}
	return nil
}

// prepare finds the repository root and tmux, makes the output and temporary directories,
// reads what the kernel offers (CLK_TCK, /proc/PID/task/TID/children) and writes the tmux
// configuration and the counting wrapper into tmp.
func prepare() error {
	var err error
	if root, err = repoRoot(); err != nil {
		return err
	}
	if realTmux, err = exec.LookPath("tmux"); err != nil {
		return fmt.Errorf("tmux is not installed: %w", err)
	}
	if realTmux, err = filepath.Abs(realTmux); err != nil {
		return err
	}
	opt.outDir = opt.out
	if !filepath.IsAbs(opt.outDir) {
		opt.outDir = filepath.Join(root, opt.outDir)
	}
	if err := os.MkdirAll(opt.outDir, 0o755); err != nil {
		return err
	}
	if tmp, err = os.MkdirTemp("/tmp", "cb."); err != nil { // short: socket paths must stay < ~100 bytes
		return err
	}
	if err := setCodexHome(); err != nil {
		return err
	}
	os.Setenv("TMUX_TMPDIR", tmp) // even a tmux call without -S cannot reach the default server
	bin = filepath.Join(tmp, "bin")
	if opt.servers > 1 { // where the watcher of every server looks for them
		if err := os.Mkdir(userSocketDir(), 0o700); err != nil {
			return err
		}
	}
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err == nil && v > 0 {
			clkTck = v
		}
	}
	_, err = os.Stat(fmt.Sprintf("/proc/self/task/%d/children", os.Getpid()))
	opt.liveChildren = err == nil
	conf := "set -g exit-empty off\nset -g default-shell /bin/sh\nset -g history-limit 100\n"
	if err := os.WriteFile(filepath.Join(tmp, "tmux.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	return writeWrapper()
}

// build builds cac-tmux, the fake Claude Code and the simulated Codex into bin, and notes what
// from.
func build() error {
	logf("building into %s", bin)
	revision = describe(root)
	for _, b := range [][2]string{{"cac-tmux", "./cmd/cac-tmux"}, {"claude", "./internal/fakeclaude"}, {"codex", "./internal/fakecodex"}} {
		// -buildvcs=false: no `git status` (which may write .git/index) in a repository others use
		cmd := exec.Command("go", "build", "-buildvcs=false", "-o", filepath.Join(bin, b[0]), b[1])
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	return nil
}

// writeResults writes the CSV and the PNG plot of an agent mode's results into the output
// directory, named for the start of the run, and for the mode unless it is claude.
func writeResults(agent string, res map[int][]result) error {
	stamp := opt.started.Format("20060102-150405")
	if agent != agentClaude {
		stamp += "-" + agent
	}
	csvPath := filepath.Join(opt.outDir, "watchcost-"+stamp+".csv")
	pngPath := filepath.Join(opt.outDir, "watchcost-"+stamp+".png")
	if err := writeCSV(csvPath, res); err != nil {
		return err
	}
	if err := writePlot(pngPath, agent, res); err != nil {
		return err
	}
	fmt.Printf("\nWritten: %s\nWritten: %s\n", csvPath, pngPath)
	return nil
}

// estimate is the expected runtime at the flags given.
func estimate() time.Duration {
	var d time.Duration
	for _, n := range opt.ns {
		perN := time.Duration(n) * 20 * time.Millisecond
		d += time.Second + perN + settle + opt.baselineWindow + pingWindow // server, baseline
		d += opt.warmup + opt.window                                       // watcher
		if opt.trials > 0 {
			cycles := (opt.trials + trialPanes - 1) / trialPanes
			d += time.Duration(cycles) * (4*opt.interval + time.Second)
		}
		if opt.latency {
			d += 3*opt.interval + 30*time.Second + probeGap() + margin + 3*time.Second // the probe: its whole minute is 30s away on average
		}
		d += 2*time.Second + perN + 2*opt.interval + opt.countWindow // the counting watcher
		d += opt.naiveWindow + time.Second
	}
	return d * time.Duration(opt.runs*len(opt.agents))
}

// probeGap is the least time between the probe's limit T and its reset R: the watcher must
// have seen the stop (one tick) well before R, or it would read the printed clock time as
// tomorrow's.
func probeGap() time.Duration { return max(6*time.Second, 3*opt.interval+3*time.Second) }

// describe names the commit the binaries were built from, read-only ("git status" may write
// the index): HEAD, and whether tracked files differ from it.
func describe(root string) string {
	head, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "(no git)"
	}
	rev := strings.TrimSpace(string(head))
	if exec.Command("git", "-C", root, "diff-index", "--quiet", "HEAD", "--").Run() != nil {
		rev += " + uncommitted changes"
	}
	return rev
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run from the cac-tmux repository (go env GOMOD is empty)")
	}
	b, err := os.ReadFile(mod)
	if err != nil || !bytes.Contains(b, []byte("module github.com/cac-tmux/cac-tmux\n")) {
		return "", fmt.Errorf("%s is not cac-tmux's go.mod", mod)
	}
	return filepath.Dir(mod), nil
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
}

// cleanup stops every watcher, kills every tmux server and fake, removes the temporary
// directory. Safe to call twice and from the signal handler.
func cleanup() {
	mu.Lock()
	defer mu.Unlock()
	if cleaned {
		return
	}
	cleaned = true
	for cmd, done := range children {
		stopChild(cmd, done)
	}
	for sock := range sockets {
		killServer(sock)
	}
	if tmp != "" {
		for _, pid := range ours() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		os.RemoveAll(tmp)
	}
}
