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
	"bufio"
	"bytes"
	"encoding/json"
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
	var n, watchArgs, readme string
	defineFlags(&n, &watchArgs, &readme)
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
	if err := setOptions(n, watchArgs); err != nil {
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

// defineFlags defines the command's flags. Most set opt directly; -n, -watch-args and -readme
// go into the strings given, which main reads after parsing.
func defineFlags(n, watchArgs, readme *string) {
	flag.StringVar(n, "n", "10,100,1000", "numbers of Claude panes per server, comma separated")
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
func setOptions(n, watchArgs string) error {
	if opt.servers < 1 {
		return errors.New("-servers must be at least 1")
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

	res := map[int][]result{}
	for r := 1; r <= opt.runs; r++ { // runs outermost: drift over time spreads over every N
		for _, n := range opt.ns {
			x, err := measure(n, r)
			if err != nil {
				return fmt.Errorf("N=%d run %d: %w", n, r, err)
			}
			res[n] = append(res[n], x)
		}
	}
	took := time.Since(opt.started)
	report(res, took)
	return writeResults(res)
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

// build builds cac-tmux and the fake Claude Code into bin, and notes what from.
func build() error {
	logf("building into %s", bin)
	revision = describe(root)
	for _, b := range [][2]string{{"cac-tmux", "./cmd/cac-tmux"}, {"claude", "./internal/fakeclaude"}} {
		// -buildvcs=false: no `git status` (which may write .git/index) in a repository others use
		cmd := exec.Command("go", "build", "-buildvcs=false", "-o", filepath.Join(bin, b[0]), b[1])
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	return nil
}

// writeResults writes the CSV and the PNG plot of the results into the output directory,
// named for the start of the run.
func writeResults(res map[int][]result) error {
	stamp := opt.started.Format("20060102-150405")
	csvPath := filepath.Join(opt.outDir, "watchcost-"+stamp+".csv")
	pngPath := filepath.Join(opt.outDir, "watchcost-"+stamp+".png")
	if err := writeCSV(csvPath, res); err != nil {
		return err
	}
	if err := writePlot(pngPath, res); err != nil {
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
	return d * time.Duration(opt.runs)
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

// ---- the counting tmux wrapper --------------------------------------------------------------

// The wrapper is what the counting watcher finds first in its PATH as "tmux". Per call it
// appends one line to tmp/count/execs: the tmux command (the first argument that is not a
// global flag or a flag's value), or "control-mode-client" for a `tmux -C` client (the
// watcher's is `tmux -u -N -S SOCK -C attach-session -f no-output,ignore-size`), whose input
// it copies to tmp/count/control with tee; then it runs the real tmux. That input is what the
// watcher writes: per command, its command line (every argument single-quoted, several
// commands joined by " ; ") and then a sync line, `display-message -p cac-sync-NONCE-SEQ`,
// whose reply marks the end of the command's; count tells the two apart (controlLine).
const wrapperScript = `#!/bin/sh
# watchcost: log the tmux command of this call, then run the real tmux.
sub= cc= skip=
for a in "$@"; do
	if [ -n "$skip" ]; then skip=; continue; fi
	case $a in
	-[LSfTc]) skip=1 ;;
	-*C*) cc=1 ;;
	-*) ;;
	*) sub=$a; break ;;
	esac
done
if [ -n "$cc" ]; then
	printf 'control-mode-client\n' >>'%[1]s/execs'
	tee -a '%[1]s/control' | '%[2]s' "$@"
	exit $?
fi
printf '%%s\n' "${sub:-(none)}" >>'%[1]s/execs'
exec '%[2]s' "$@"
`

func countDir() string   { return filepath.Join(tmp, "count") }
func wrapperDir() string { return filepath.Join(tmp, "wrap") }

func writeWrapper() error {
	for _, d := range []string{countDir(), wrapperDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, f := range []string{"execs", "control"} {
		if err := os.WriteFile(filepath.Join(countDir(), f), nil, 0o644); err != nil {
			return err
		}
	}
	script := fmt.Sprintf(wrapperScript, countDir(), realTmux)
	return os.WriteFile(filepath.Join(wrapperDir(), "tmux"), []byte(script), 0o755)
}

// ---- tmux servers -------------------------------------------------------------------------

var sockSeq int

// tmuxCmd runs tmux against the server at sock (always -S) and returns its stdout.
func tmuxCmd(sock string, args ...string) (string, error) {
	if sock == "" {
		panic("tmux without a socket")
	}
	cmd := exec.Command(realTmux, append([]string{"-S", sock}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args[:min(len(args), 3)], " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

type server struct {
	sock    string
	label   string // its "server" field in the watcher's log: "" with one server, else "s0", "s1", …
	pid     int
	panes   int      // fake sessions made at the start
	stopped string   // the pane id of the session stopped at a limit ("" but on the home server)
	busy    []string // the panes whose session runs a turn in the busy phases (spin)
}

// userSocketDir is $TMUX_TMPDIR/tmux-UID: where tmux puts the sockets of the user's servers, and
// where `cac-tmux watch --all-servers` looks for them. With -servers > 1 the servers are there.
func userSocketDir() string { return filepath.Join(tmp, "tmux-"+strconv.Itoa(os.Getuid())) }

// socketFor is the socket of the i-th server of a run, and its label in the watcher's log:
// tmp/sK (K counts every server made) and no label with one server; with -servers > 1,
// s0, s1, … in userSocketDir, labelled by that name (the servers of the previous run are
// killed by then, so their names are free again).
func socketFor(i int) (sock, label string) {
	if opt.servers == 1 {
		sockSeq++
		return filepath.Join(tmp, "s"+strconv.Itoa(sockSeq)), ""
	}
	label = "s" + strconv.Itoa(i)
	return filepath.Join(userSocketDir(), label), label
}

// newServer starts a tmux server on sock with n fake Claude Code sessions, one window (120x40)
// each in one session. On the home server the first is stopped at a limit an hour away
// (`--scenario plain`) and the next opt.busy are named busy (spin makes them run a turn);
// every other session is idle (`--scenario idle`). It waits until every one has drawn its
// screen.
func newServer(sock, label string, n int, home bool) (*server, error) {
	mu.Lock()
	s := &server{sock: sock, label: label, panes: n}
	if cleaned {
		mu.Unlock()
		return s, errors.New("interrupted")
	}
	sockets[s.sock] = 0
	claude := filepath.Join(bin, "claude")
	first := []string{claude, "--scenario", "idle"}
	if home {
		reset := time.Now().Add(time.Hour).Truncate(time.Minute).UTC().Format(time.RFC3339)
		first = []string{claude, "--scenario", "plain", "--reset", reset}
	}
	args := append([]string{"-f", filepath.Join(tmp, "tmux.conf"), "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "bench", "-x", "120", "-y", "40"}, first...)
	out, err := tmuxCmd(s.sock, args...) // under mu: cleanup cannot run between the start and its registration
	mu.Unlock()
	if err != nil {
		return s, err
	}
	if home {
		s.stopped = strings.TrimSpace(out)
	}
	if err := s.fill(n, home); err != nil {
		return s, err
	}
	if err := s.findPID(); err != nil {
		return s, err
	}
	return s, s.waitDrawn(n)
}

// fill makes the server's windows after the first, up to n, batch at a time, the first
// opt.busy of them named busy on the home server, and notes the busy panes.
func (s *server) fill(n int, home bool) error {
	claude := filepath.Join(bin, "claude")
	for made := 1; made < n; {
		var args []string
		for k := 0; k < batch && made < n; k, made = k+1, made+1 {
			if k > 0 {
				args = append(args, ";")
			}
			args = append(args, "new-window", "-d", "-t", "bench:", claude, "--scenario", "idle")
			if home && made <= opt.busy {
				args = append(args, "--name", "busy") // idle until spin
			}
		}
		if _, err := tmuxCmd(s.sock, args...); err != nil {
			return err
		}
	}
	out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_id}\t#{pane_start_command}")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, cmd, _ := strings.Cut(l, "\t"); strings.Contains(cmd, "--name busy") {
			s.busy = append(s.busy, id)
		}
	}
	return nil
}

// findPID reads the server's pid, and registers it for cleanup.
func (s *server) findPID() error {
	out, err := tmuxCmd(s.sock, "display-message", "-p", "#{pid}")
	if err != nil {
		return err
	}
	if s.pid, err = strconv.Atoi(strings.TrimSpace(out)); err != nil {
		return fmt.Errorf("tmux server pid %q: %v", out, err)
	}
	mu.Lock()
	if _, ok := sockets[s.sock]; ok {
		sockets[s.sock] = s.pid
	}
	mu.Unlock()
	return nil
}

// waitDrawn waits until the n fake sessions have drawn their screen.
func (s *server) waitDrawn(n int) error {
	deadline := time.Now().Add(30*time.Second + time.Duration(n)*100*time.Millisecond)
	for {
		drawn, err := s.drawn()
		if err != nil {
			return err
		}
		if drawn >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: only %d of %d fake sessions drew their screen", s.sock, drawn, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// drawn counts the panes whose command is claude and whose screen shows its session.
func (s *server) drawn() (int, error) {
	out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_current_command}\t#{C:Worked for}\t#{C:hit your session limit}")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, "\t"); len(f) == 3 && f[0] == "claude" && (f[1] != "0" || f[2] != "0") {
			n++
		}
	}
	return n, nil
}

// spin makes the busy panes' sessions run a turn with an animated spinner (--spinner,
// redrawn every 100 ms), or idle again: each is replaced by a new fake (respawn-pane -k).
func (s *server) spin(on bool) error {
	claude := filepath.Join(bin, "claude")
	for _, p := range s.busy {
		args := []string{"respawn-pane", "-k", "-t", p, claude, "--scenario", "idle", "--name", "busy"}
		if on {
			args = append(args, "--spinner")
		}
		if _, err := tmuxCmd(s.sock, args...); err != nil {
			return err
		}
	}
	return nil
}

func (s *server) paneIDs() ([]string, error) {
	out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_id}")
	return strings.Fields(out), err
}

// kill ends the server (and with it every fake in its panes).
func (s *server) kill() {
	mu.Lock()
	defer mu.Unlock()
	killServer(s.sock)
}

// group is the servers of one N and run: opt.servers of them, the N panes split evenly. The
// first is the home server: it holds the stopped session, the busy ones, the probe and the
// detection trials, and the display-message pings ask it.
type group []*server

// newGroup starts the servers of n panes in all (the probe, made later, is the home server's
// last pane with -latency). On an error it returns the servers started so far, to be killed.
func newGroup(n int) (group, error) {
	var g group
	for i := range opt.servers {
		k := n / opt.servers
		if i < n%opt.servers {
			k++
		}
		if i == 0 && opt.latency {
			k-- // the probe
		}
		sock, label := socketFor(i)
		s, err := newServer(sock, label, k, i == 0)
		g = append(g, s)
		if err != nil {
			return g, err
		}
	}
	return g, nil
}

// panes counts the fake sessions made with the servers.
func (g group) panes() int {
	n := 0
	for _, s := range g {
		n += s.panes
	}
	return n
}

func (g group) labels() []string {
	var l []string
	for _, s := range g {
		l = append(l, s.label)
	}
	return l
}

func (g group) kill() {
	for _, s := range g {
		s.kill()
	}
}

// cpu reads each server's own CPU (utime+stime), in clock ticks.
func (g group) cpu() ([]float64, error) {
	var c []float64
	for _, s := range g {
		t, err := readCPU(s.pid)
		if err != nil {
			return nil, fmt.Errorf("tmux server %s: %w", s.sock, err)
		}
		c = append(c, t.own)
	}
	return c, nil
}

// pcts turns each server's CPU from a to b (clock ticks) over el seconds into % of one core.
func pcts(a, b []float64, el float64) []float64 {
	p := make([]float64, len(a))
	for i := range a {
		p[i] = (b[i] - a[i]) / clkTck / el * 100
	}
	return p
}

func sum(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t
}

// killServer kills the server at sock, makes sure its process is gone, and kills any fake
// left behind. Called with mu held.
func killServer(sock string) {
	if _, ok := sockets[sock]; !ok {
		return
	}
	delete(sockets, sock)
	tmuxCmd(sock, "kill-server")
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) && len(ours()) > 0 {
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range ours() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// ours lists the processes this program started that outlive their server: fakes (their exe
// is tmp/bin/claude) and tmux processes whose command line names a socket in tmp.
func ours() []int {
	ents, _ := os.ReadDir("/proc")
	fake := filepath.Join(bin, "claude")
	liveServer := map[int]bool{}
	for _, pid := range sockets {
		if pid > 0 {
			liveServer[pid] = true
		}
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		if exe == fake {
			if !liveServer[parent(pid)] { // a fake of a server still in use is not left over
				pids = append(pids, pid)
			}
			continue
		}
		if filepath.Base(exe) != "tmux" {
			continue
		}
		cl, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		args := strings.Split(string(cl), "\x00")
		if i := slices.Index(args, "-S"); i >= 0 && i+1 < len(args) && strings.HasPrefix(args[i+1], tmp+"/") {
			if _, live := sockets[args[i+1]]; !live { // a server still in use is not left over
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// parent is the ppid of pid, 0 when unknown.
func parent(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// ---- the watcher ---------------------------------------------------------------------------

type watcher struct {
	cmd    *exec.Cmd
	pid    int
	log    string
	done   chan error    // its Wait result, for stop
	exited chan struct{} // closed when it has exited
}

var watchSeq int

// watchArgv is the watcher's command line after the binary: the harness's flags, then
// -watch-args (later flags win in pflag, so -watch-args can override the harness's). With
// -servers > 1 it is `watch --all-servers`, which finds the servers in userSocketDir
// (TMUX_TMPDIR=tmp), instead of `watch -S sock`.
func watchArgv(sock string) []string {
	if opt.servers > 1 {
		return watchArgvOf("--all-servers")
	}
	return watchArgvOf("-S", sock)
}

// watchArgvOf is `watch WHICH… --log-format json --interval I --margin M -watch-args…`.
func watchArgvOf(which ...string) []string {
	args := append([]string{"watch"}, which...)
	args = append(args, "--log-format", "json", "--interval", opt.interval.String(), "--margin", margin.String())
	return append(args, opt.watchArgs...)
}

// startWatcher runs `cac-tmux watch -S sock --log-format json --interval I --margin 5s` (with
// -servers > 1 `watch --all-servers …`, sock unused), then -watch-args, with its own XDG config, state and runtime directories in tmp (no configuration
// file, a fresh state file and lock), and with the counting wrapper first in its PATH when
// counting.
func startWatcher(sock string, counting bool) (*watcher, error) {
	return startWatcherArgv(watchArgv(sock), counting)
}

// startWatcherArgv is startWatcher with the command line after the binary.
func startWatcherArgv(argv []string, counting bool) (*watcher, error) {
	mu.Lock()
	defer mu.Unlock()
	if cleaned {
		return nil, errors.New("interrupted")
	}
	watchSeq++
	w := &watcher{log: filepath.Join(tmp, fmt.Sprintf("watch%d.log", watchSeq)), done: make(chan error, 1), exited: make(chan struct{})}
	xdg := filepath.Join(tmp, fmt.Sprintf("x%d", watchSeq))
	for _, d := range []string{"config", "state", "run"} {
		if err := os.MkdirAll(filepath.Join(xdg, d), 0o700); err != nil {
			return nil, err
		}
	}
	f, err := os.Create(w.log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w.cmd = exec.Command(filepath.Join(bin, "cac-tmux"), argv...)
	path := os.Getenv("PATH")
	if counting {
		path = wrapperDir() + string(os.PathListSeparator) + path
	}
	var env []string
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch k {
		case "PATH", "TMUX", "TMUX_PANE", "TMUX_TMPDIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR":
		default:
			env = append(env, e)
		}
	}
	w.cmd.Env = append(env, "PATH="+path, "TMUX_TMPDIR="+tmp,
		"XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"), "XDG_RUNTIME_DIR="+filepath.Join(xdg, "run"))
	w.cmd.Stdout, w.cmd.Stderr = f, f
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C reaches it through cleanup only
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	w.pid = w.cmd.Process.Pid
	children[w.cmd] = w.done
	go func() {
		err := w.cmd.Wait()
		close(w.exited)
		w.done <- err
	}()
	return w, nil
}

// stop sends SIGINT and waits (SIGKILL after 10s).
func (w *watcher) stop() {
	mu.Lock()
	defer mu.Unlock()
	stopChild(w.cmd, w.done)
}

// stopChild is stop with mu held.
func stopChild(cmd *exec.Cmd, done chan error) {
	if _, ok := children[cmd]; !ok {
		return
	}
	delete(children, cmd)
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// logLine is what watchcost reads of the watcher's zerolog JSON lines.
type logLine struct {
	Time        string `json:"time"`
	Level       string `json:"level"`
	Server      string `json:"server"` // with --all-servers: the server's label (s0, …); pane ids repeat across servers
	Pane        string `json:"pane"`
	Message     string `json:"message"`
	Error       string `json:"error"`
	ClaudePanes int    `json:"claude_panes"`
}

func (w *watcher) lines() []logLine {
	b, _ := os.ReadFile(w.log)
	var ls []logLine
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l logLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			ls = append(ls, l)
		}
	}
	return ls
}

// tail is the end of the watcher's output, for an error message.
func (w *watcher) tail() string {
	b, _ := os.ReadFile(w.log)
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = "…" + s[len(s)-600:]
	}
	if s == "" {
		return "no output"
	}
	return s
}

// supervised counts the panes the watcher took on (of every server: a pane is its server's
// label and its id), and returns its error and warning lines (with the server's label, if any).
func (w *watcher) supervised() (n int, problems []string, panes map[string]bool) {
	panes = map[string]bool{}
	for _, l := range w.lines() {
		switch {
		case l.Message == "supervising claude":
			panes[l.Server+" "+l.Pane] = true
		case l.Level == "error" || l.Level == "warn":
			where := ""
			if l.Server != "" {
				where = l.Server + ": "
			}
			problems = append(problems, where+l.Message+": "+l.Error)
		}
	}
	return len(panes), problems, panes
}

// logged returns the time of the first log line with this message about pane of the server
// labelled server ("" with one server) (zero: none).
func (w *watcher) logged(server, pane, message string) (time.Time, error) {
	for _, l := range w.lines() {
		if l.Server == server && l.Pane == pane && l.Message == message {
			t, err := time.Parse(time.RFC3339Nano, l.Time)
			if err != nil {
				return t, fmt.Errorf("watcher log time %q: %v", l.Time, err)
			}
			return t, nil
		}
	}
	return time.Time{}, nil
}

// waitSupervised waits until the watcher supervises want panes.
func (w *watcher) waitSupervised(want int, timeout time.Duration) error {
	t0 := time.Now()
	for deadline := t0.Add(timeout); ; time.Sleep(100 * time.Millisecond) {
		got, problems, _ := w.supervised()
		if got >= want {
			return nil
		}
		select {
		case <-w.exited: // a bad -watch-args, most likely
			return fmt.Errorf("the watcher (%s) exited: %s", strings.Join(watchArgv("SOCK"), " "), w.tail())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the watcher supervises %d of %d panes after %s (%v)", got, want, time.Since(t0).Round(time.Second), problems)
		}
	}
}

// ---- /proc ---------------------------------------------------------------------------------

// cpuTicks is a process's CPU in clock ticks: own (utime+stime) and children (cutime+cstime
// of the children it waited for, plus all CPU of its live descendants).
type cpuTicks struct{ own, children float64 }

func (c cpuTicks) total() float64 { return c.own + c.children }

func readCPU(pid int) (cpuTicks, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTicks{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 15 {
		return cpuTicks{}, fmt.Errorf("/proc/%d/stat: short", pid)
	}
	v := make([]float64, 4)
	for k := range v {
		if v[k], err = strconv.ParseFloat(f[11+k], 64); err != nil { // fields 14–17
			return cpuTicks{}, err
		}
	}
	return cpuTicks{own: v[0] + v[1], children: v[2] + v[3]}, nil
}

// treeCPU is readCPU of pid with the CPU of its live descendants added to children: a tmux
// client running at a window's edge (or a persistent one, such as a control-mode client) is
// counted for the part of its CPU inside the window. The descendants are read first: one that
// ends in between is counted twice rather than missed (one tmux call, about 1 ms).
//
// The watcher's control-mode client (`tmux -C`, started with Setpgid, waited for only when the
// watcher closes it) is such a live child for the whole window: its own utime+stime are read
// from /proc/CHILD/stat at both ends of the window and the difference lands in children, so in
// both "watcher CPU (with its tmux clients)" and "its tmux client processes". A process group
// changes nothing here: the children lists follow the parent, not the group. Were it to end
// and be reaped within the window (a reconnect), its CPU moves to the watcher's cutime+cstime,
// still in children. Expect it near 0: a tmux 3.3a client hands its stdin and stdout to the
// server, which reads the command lines and writes the replies itself, so the work of the
// control connection shows up in the tmux server's CPU.
func treeCPU(pid int) (cpuTicks, error) {
	var live float64
	for _, k := range descendants(pid) {
		if c, err := readCPU(k); err == nil {
			live += c.total() // its reaped children included; its live ones are in the list too
		}
	}
	c, err := readCPU(pid)
	c.children += live
	return c, err
}

// descendants lists pid's children and theirs, from /proc/PID/task/*/children (every thread's:
// a child is listed under the thread that forked it), or from every process's ppid when the
// kernel lacks those files (CONFIG_PROC_CHILDREN off).
func descendants(pid int) []int {
	if !opt.liveChildren {
		return descendantsByPPID(pid)
	}
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(f); err == nil {
				out = append(out, k)
				out = append(out, descendants(k)...)
			}
		}
	}
	return out
}

// descendantsByPPID is descendants from a scan of /proc/*/stat.
func descendantsByPPID(pid int) []int {
	kids := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if k, err := strconv.Atoi(e.Name()); err == nil {
			if pp := parent(k); pp > 0 {
				kids[pp] = append(kids[pp], k)
			}
		}
	}
	var out []int
	for todo := kids[pid]; len(todo) > 0; {
		k := todo[0]
		todo = append(todo[1:], kids[k]...)
		out = append(out, k)
	}
	return out
}

// peakRSS is VmHWM in MB.
func peakRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", pid)
}

func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }

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
