//go:build linux

// Command watchcost measures what `cac-tmux watch` costs on a tmux server full of idle Claude
// Code sessions, and how quickly it reacts to a usage limit. It builds cac-tmux and the fake
// Claude Code (watcher/fakeclaude, installed as "claude") into a temporary directory, starts
// private tmux servers there (tmux -S, never the default server) and prints a markdown table:
//
//  1. For each N (-n): N idle fake sessions, one window each. The watcher runs at its defaults
//     (interval 2s, margin 60s); after -warmup (start-up: every pane identified and captured
//     once) its CPU is read from /proc/PID/stat (utime+stime+cutime+cstime: the tmux clients
//     it waits for land in cutime/cstime) over -window, with the tmux server's own
//     utime+stime and the watcher's VmHWM. Then, on the same server with the watcher stopped,
//     a naive poller (capture-pane -p of every pane every 2s) runs for -naive-window and its
//     children's CPU is read with getrusage(RUSAGE_CHILDREN).
//  2. Detection latency: on a server with -latency-n idle sessions and a watcher with
//     --margin 5s, one more fake hits the limit at T (--limit-at): latency is the time of the
//     watcher's JSON log line "waiting" for that pane minus T.
//  3. Key delay: that fake's reset is a whole minute at least 12s after T, so it is due at
//     reset+5s; delay is the time of the first read of its terminal (its --log) minus due.
//
// Every measurement is repeated -runs times; the table shows medians and min–max. Nothing is
// written into the repository; the temporary directory is removed and every tmux server is
// killed at the end, on error and on SIGINT/SIGTERM.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	interval = 2 * time.Second // the watcher's default interval, also the naive poller's
	margin   = 5 * time.Second // the watcher's --margin for the latency part
	batch    = 50              // new-window commands per tmux call
)

type options struct {
	ns          []int
	runs        int
	window      time.Duration
	warmup      time.Duration
	naiveWindow time.Duration
	latencyN    int
	latency     bool
}

var (
	opt      options
	tmp      string  // the temporary directory: binaries, sockets, logs
	revision string  // what the binaries were built from
	bin      string  // tmp/bin
	clkTck   = 100.0 // clock ticks per second, from getconf CLK_TCK

	mu       sync.Mutex
	sockets  = map[string]int{}           // tmux servers that may be running, by socket: their pid (0: not known yet)
	children = map[*exec.Cmd]chan error{} // watchers that may be running, and their Wait result
	cleaned  bool
)

func main() {
	var n string
	flag.StringVar(&n, "n", "10,100,500", "numbers of idle Claude panes, comma separated")
	flag.IntVar(&opt.runs, "runs", 5, "repetitions of every measurement")
	flag.DurationVar(&opt.window, "window", 60*time.Second, "steady-state measurement window of the watcher")
	flag.DurationVar(&opt.warmup, "warmup", 10*time.Second, "start-up time excluded from the window (extended until every pane is supervised)")
	flag.DurationVar(&opt.naiveWindow, "naive-window", 10*time.Second, "measurement window of the naive poller (its cost per pass is steady)")
	flag.IntVar(&opt.latencyN, "latency-n", 10, "idle panes on the server of the latency and key-delay runs")
	flag.BoolVar(&opt.latency, "latency", true, "measure detection latency and key delay (about one minute per run)")
	flag.Parse()
	for _, f := range strings.Split(n, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			fmt.Fprintf(os.Stderr, "watchcost: -n: %q is not a positive number\n", f)
			os.Exit(2)
		}
		opt.ns = append(opt.ns, v)
	}
	if opt.runs < 1 || opt.window <= 0 || opt.warmup < 0 || opt.naiveWindow <= 0 || opt.latencyN < 0 {
		fmt.Fprintln(os.Stderr, "watchcost: -runs, -window, -naive-window must be positive, -warmup and -latency-n not negative")
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

func run() error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	if tmp, err = os.MkdirTemp("/tmp", "cb."); err != nil { // short: socket paths must stay < ~100 bytes
		return err
	}
	bin = filepath.Join(tmp, "bin")
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err == nil && v > 0 {
			clkTck = v
		}
	}
	conf := "set -g exit-empty off\nset -g default-shell /bin/sh\nset -g history-limit 100\n"
	if err := os.WriteFile(filepath.Join(tmp, "tmux.conf"), []byte(conf), 0o644); err != nil {
		return err
	}
	logf("building into %s", bin)
	revision = describe(root)
	for _, b := range [][2]string{{"cac-tmux", "./cmd/cac-tmux"}, {"claude", "./watcher/fakeclaude"}} {
		// -buildvcs=false: no `git status` (which may write .git/index) in a repository others use
		cmd := exec.Command("go", "build", "-buildvcs=false", "-o", filepath.Join(bin, b[0]), b[1])
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	logf("estimated runtime: %s", estimate().Round(10*time.Second))
	start := time.Now()

	res := map[int][]idleResult{}
	for r := 1; r <= opt.runs; r++ { // runs outermost: drift over time spreads over every N
		for _, n := range opt.ns {
			x, err := measureIdle(n, r)
			if err != nil {
				return fmt.Errorf("N=%d run %d: %w", n, r, err)
			}
			res[n] = append(res[n], x)
		}
	}
	var lat latencyResult
	if opt.latency {
		if lat, err = measureLatency(); err != nil {
			return fmt.Errorf("latency: %w", err)
		}
	}
	report(res, lat, time.Since(start))
	return nil
}

// estimate is the expected runtime at the flags given.
func estimate() time.Duration {
	var d time.Duration
	for _, n := range opt.ns {
		d += opt.warmup + opt.window + opt.naiveWindow + 2*time.Second + time.Duration(n)*8*time.Millisecond
	}
	d *= time.Duration(opt.runs)
	if opt.latency {
		d += time.Duration(opt.runs)*time.Minute + 20*time.Second
	}
	return d
}

// revision names the commit the binaries were built from, read-only ("git status" may write
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

// ---- tmux servers -------------------------------------------------------------------------

var sockSeq int

// tmuxCmd runs tmux against the server at sock (always -S) and returns its stdout.
func tmuxCmd(sock string, args ...string) (string, error) {
	if sock == "" {
		panic("tmux without a socket")
	}
	cmd := exec.Command("tmux", append([]string{"-S", sock}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args[:min(len(args), 3)], " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

type server struct {
	sock string
	pid  int
}

// newServer starts a tmux server with n idle fake Claude Code sessions, one window each, and
// waits until every one has drawn its screen.
func newServer(n int) (*server, error) {
	mu.Lock()
	sockSeq++
	s := &server{sock: filepath.Join(tmp, "s"+strconv.Itoa(sockSeq))}
	if cleaned {
		mu.Unlock()
		return s, errors.New("interrupted")
	}
	sockets[s.sock] = 0
	claude := []string{filepath.Join(bin, "claude"), "--scenario", "idle"}
	args := append([]string{"-f", filepath.Join(tmp, "tmux.conf"), "new-session", "-d", "-s", "bench", "-x", "120", "-y", "40"}, claude...)
	_, err := tmuxCmd(s.sock, args...) // under mu: cleanup cannot run between the start and its registration
	mu.Unlock()
	if err != nil {
		return s, err
	}
	for made := 1; made < n; {
		var args []string
		for k := 0; k < batch && made < n; k, made = k+1, made+1 {
			if k > 0 {
				args = append(args, ";")
			}
			args = append(append(args, "new-window", "-d", "-t", "bench:"), claude...)
		}
		if _, err := tmuxCmd(s.sock, args...); err != nil {
			return s, err
		}
	}
	out, err := tmuxCmd(s.sock, "display-message", "-p", "#{pid}")
	if err != nil {
		return s, err
	}
	if s.pid, err = strconv.Atoi(strings.TrimSpace(out)); err != nil {
		return s, fmt.Errorf("tmux server pid %q: %v", out, err)
	}
	mu.Lock()
	if _, ok := sockets[s.sock]; ok {
		sockets[s.sock] = s.pid
	}
	mu.Unlock()
	deadline := time.Now().Add(30*time.Second + time.Duration(n)*100*time.Millisecond)
	for {
		drawn, err := s.drawn()
		if err != nil {
			return s, err
		}
		if drawn >= n {
			return s, nil
		}
		if time.Now().After(deadline) {
			return s, fmt.Errorf("only %d of %d fake sessions drew their screen", drawn, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// drawn counts the panes whose command is claude and whose screen shows the idle session.
func (s *server) drawn() (int, error) {
	out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_current_command}\t#{C:Worked for}")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if cmd, row, ok := strings.Cut(l, "\t"); ok && cmd == "claude" && row != "0" {
			n++
		}
	}
	return n, nil
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
// is tmp/bin/claude) and tmux servers whose command line names a socket in tmp.
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
	cmd  *exec.Cmd
	pid  int
	log  string
	done chan error
}

var watchSeq int

func startWatcher(sock string, extra ...string) (*watcher, error) {
	mu.Lock()
	defer mu.Unlock()
	if cleaned {
		return nil, errors.New("interrupted")
	}
	watchSeq++
	w := &watcher{log: filepath.Join(tmp, fmt.Sprintf("watch%d.log", watchSeq)), done: make(chan error, 1)}
	f, err := os.Create(w.log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	args := append([]string{"watch", "-S", sock, "--log-format", "json"}, extra...)
	w.cmd = exec.Command(filepath.Join(bin, "cac-tmux"), args...)
	w.cmd.Stdout, w.cmd.Stderr = f, f
	w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a Ctrl-C reaches it through cleanup only
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	w.pid = w.cmd.Process.Pid
	children[w.cmd] = w.done
	go func() { w.done <- w.cmd.Wait() }()
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
	Time    string `json:"time"`
	Level   string `json:"level"`
	Pane    string `json:"pane"`
	Message string `json:"message"`
	Error   string `json:"error"`
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

// supervised counts the panes the watcher took on, and returns its error and warning lines.
func (w *watcher) supervised() (n int, problems []string, panes map[string]bool) {
	panes = map[string]bool{}
	for _, l := range w.lines() {
		switch {
		case l.Message == "supervising claude":
			panes[l.Pane] = true
		case l.Level == "error" || l.Level == "warn":
			problems = append(problems, l.Message+": "+l.Error)
		}
	}
	return len(panes), problems, panes
}

// ---- /proc ---------------------------------------------------------------------------------

// cpuTicks is a process's CPU in clock ticks: own (utime+stime) and waited-for children
// (cutime+cstime).
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

// ---- part 1: idle panes ------------------------------------------------------------------

type idleResult struct {
	watcherPct, serverPct, rssMB, startupS float64
	clientsPct                             float64       // the part of watcherPct spent in its tmux clients
	warmup                                 time.Duration // the warm-up actually used
	naivePct, naiveServerPct               float64
	naivePass                              time.Duration // mean duration of one naive pass
	naiveFailed                            int
}

func measureIdle(n, run int) (r idleResult, err error) {
	t := time.Now()
	s, err := newServer(n)
	defer s.kill()
	if err != nil {
		return r, err
	}
	setup := time.Since(t)
	w, err := startWatcher(s.sock)
	if err != nil {
		return r, err
	}
	defer w.stop()
	t0 := time.Now()
	sleepUntil(t0.Add(opt.warmup))
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		got, problems, _ := w.supervised()
		if got >= n {
			break
		}
		if time.Now().After(deadline) {
			return r, fmt.Errorf("the watcher supervises %d of %d panes after %s (%v)", got, n, time.Since(t0).Round(time.Second), problems)
		}
	}
	a, err := readCPU(w.pid)
	if err != nil {
		return r, err
	}
	sa, err := readCPU(s.pid)
	if err != nil {
		return r, err
	}
	ta := time.Now()
	r.warmup = ta.Sub(t0)
	r.startupS = a.total() / clkTck
	time.Sleep(opt.window)
	b, err := readCPU(w.pid)
	if err != nil {
		return r, err
	}
	sb, err := readCPU(s.pid)
	if err != nil {
		return r, err
	}
	el := time.Since(ta).Seconds()
	if r.rssMB, err = peakRSS(w.pid); err != nil {
		return r, err
	}
	r.watcherPct = (b.total() - a.total()) / clkTck / el * 100
	r.clientsPct = (b.children - a.children) / clkTck / el * 100
	r.serverPct = (sb.own - sa.own) / clkTck / el * 100
	if _, problems, _ := w.supervised(); len(problems) > 0 {
		logf("  warning: the watcher logged: %s", strings.Join(problems, "; "))
	}
	w.stop()

	ids, err := s.paneIDs()
	if err != nil {
		return r, err
	}
	if err := naive(s, ids, &r); err != nil {
		return r, err
	}
	logf("run %d/%d N=%d: setup %s, warm-up %s (start-up %.2f CPU s), watcher+clients %.3f%% (clients %.3f%%), tmux server %.3f%%, peak RSS %.1f MB; naive %.2f%% (server %.2f%%, pass %s)",
		run, opt.runs, n, setup.Round(100*time.Millisecond), r.warmup.Round(100*time.Millisecond), r.startupS,
		r.watcherPct, r.clientsPct, r.serverPct, r.rssMB, r.naivePct, r.naiveServerPct, r.naivePass.Round(time.Millisecond))
	return r, nil
}

// naive runs `tmux capture-pane -p -t %N` for every pane, a pass every 2s (back to back when a
// pass takes longer), for opt.naiveWindow, and reads the CPU of those tmux clients with
// getrusage(RUSAGE_CHILDREN): no other child of this process ends meanwhile.
func naive(s *server, ids []string, r *idleResult) error {
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru0)
	s0, err := readCPU(s.pid)
	if err != nil {
		return err
	}
	t0 := time.Now()
	end := t0.Add(opt.naiveWindow)
	passes, busy := 0, time.Duration(0)
	for next := t0; next.Before(end); {
		p := time.Now()
		for _, id := range ids {
			cmd := exec.Command("tmux", "-S", s.sock, "capture-pane", "-p", "-t", id)
			if _, err := cmd.Output(); err != nil {
				r.naiveFailed++
			}
		}
		passes++
		busy += time.Since(p)
		next = next.Add(interval)
		if now := time.Now(); next.Before(now) {
			next = now // overran: the next pass starts at once
		}
		sleepUntil(next)
	}
	sleepUntil(end)
	el := time.Since(t0).Seconds()
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru1)
	s1, err := readCPU(s.pid)
	if err != nil {
		return err
	}
	cpu := func(ru syscall.Rusage) float64 {
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	r.naivePct = (cpu(ru1) - cpu(ru0)) / el * 100
	r.naiveServerPct = (s1.own - s0.own) / clkTck / el * 100
	r.naivePass = busy / time.Duration(passes)
	if r.naiveFailed > 0 {
		logf("  warning: %d naive captures failed", r.naiveFailed)
	}
	return nil
}

// ---- parts 2 and 3: detection latency and key delay ------------------------------------

type latencyResult struct {
	latency, delay []float64 // ms
	resumed        int
	notes          []string
}

func measureLatency() (res latencyResult, err error) {
	s, err := newServer(opt.latencyN)
	defer s.kill()
	if err != nil {
		return res, err
	}
	w, err := startWatcher(s.sock, "--margin", margin.String())
	if err != nil {
		return res, err
	}
	defer w.stop()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if got, _, _ := w.supervised(); got >= opt.latencyN {
			break
		}
		if time.Now().After(deadline) {
			return res, errors.New("the watcher does not supervise every idle pane")
		}
	}
	// The latency is the wait for the next tick plus a look, so it depends on where T falls in
	// the watcher's 2s tick: the phases are stratified (one random phase in each 1/runs of the
	// tick, in random order) so that a few runs sample the whole tick.
	strata := rand.Perm(opt.runs)
	for k := 1; k <= opt.runs; k++ {
		// reset: the first whole minute at least 22s away; T 12–14s before it (≥ 10s); the
		// pane is made about 8–10s before T.
		phase := time.Duration((float64(strata[k-1]) + rand.Float64()) / float64(opt.runs) * float64(interval))
		const lead = 22 * time.Second
		reset := time.Now().Add(lead).Truncate(time.Minute)
		if reset.Before(time.Now().Add(lead)) {
			reset = reset.Add(time.Minute)
		}
		T := reset.Add(-12*time.Second - phase)
		due := reset.Add(margin)
		logf("latency run %d/%d: limit at %s, reset %s, due %s", k, opt.runs, T.Format("15:04:05.000"), reset.Format("15:04:05"), due.Format("15:04:05"))
		sleepUntil(reset.Add(-lead))
		fakeLog := filepath.Join(tmp, fmt.Sprintf("limit%d.log", k))
		out, err := tmuxCmd(s.sock, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "bench:",
			filepath.Join(bin, "claude"), "--scenario", "idle", "--log", fakeLog,
			"--limit-at", T.Format(time.RFC3339Nano), "--reset", reset.UTC().Format(time.RFC3339))
		if err != nil {
			return res, err
		}
		pane := strings.TrimSpace(out)
		// The watcher must have taken the pane on before T.
		for {
			if _, _, panes := w.supervised(); panes[pane] {
				break
			}
			if time.Now().After(T) {
				res.notes = append(res.notes, fmt.Sprintf("run %d: pane %s was not supervised before T", k, pane))
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		// Detection: the "waiting" line for the pane.
		var seen time.Time
		for deadline := T.Add(20 * time.Second); seen.IsZero() && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			for _, l := range w.lines() {
				if l.Pane == pane && l.Message == "waiting" {
					if seen, err = time.Parse(time.RFC3339Nano, l.Time); err != nil {
						return res, fmt.Errorf("watcher log time %q: %v", l.Time, err)
					}
					break
				}
			}
		}
		if seen.IsZero() {
			res.notes = append(res.notes, fmt.Sprintf("run %d: no \"waiting\" line for %s within 20s of T", k, pane))
		} else {
			res.latency = append(res.latency, float64(seen.Sub(T).Microseconds())/1000)
		}
		// Keys: the first read of the fake's terminal.
		var typed time.Time
		resumed := false
		for deadline := due.Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			typed, resumed = readFakeLog(fakeLog)
			if !typed.IsZero() && (resumed || time.Now().After(typed.Add(5*time.Second))) {
				break
			}
		}
		if typed.IsZero() {
			res.notes = append(res.notes, fmt.Sprintf("run %d: no key reached %s within 20s of due", k, pane))
		} else {
			res.delay = append(res.delay, float64(typed.Sub(due).Microseconds())/1000)
		}
		if resumed {
			res.resumed++
		}
		if len(res.latency) > 0 && len(res.delay) > 0 {
			logf("  latency %.0f ms, key delay %.0f ms, resumed %v", res.latency[len(res.latency)-1], res.delay[len(res.delay)-1], resumed)
		}
		if _, err := tmuxCmd(s.sock, "kill-pane", "-t", pane); err != nil {
			return res, err
		}
	}
	if _, problems, _ := w.supervised(); len(problems) > 0 {
		res.notes = append(res.notes, "the watcher logged: "+strings.Join(problems, "; "))
	}
	return res, nil
}

// readFakeLog returns the time of the first read of the fake's terminal (zero: none yet) and
// whether the session resumed.
func readFakeLog(path string) (first time.Time, resumed bool) {
	b, _ := os.ReadFile(path)
	for _, l := range strings.Split(string(b), "\n") {
		if l == "# state resumed" {
			resumed = true
		}
		if ts, _, ok := strings.Cut(l, "\t"); ok && first.IsZero() && !strings.HasPrefix(l, "#") {
			if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
				first = t
			}
		}
	}
	return first, resumed
}

// ---- output --------------------------------------------------------------------------------

type stat struct{ med, lo, hi float64 }

func summarize(v []float64) stat {
	if len(v) == 0 {
		return stat{}
	}
	s := slices.Sorted(slices.Values(v))
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return stat{m, s[0], s[len(s)-1]}
}

func (s stat) format(prec int) string {
	med, lo, hi := strconv.FormatFloat(s.med, 'f', prec, 64), strconv.FormatFloat(s.lo, 'f', prec, 64), strconv.FormatFloat(s.hi, 'f', prec, 64)
	if lo == hi {
		return med
	}
	return med + " (" + lo + "–" + hi + ")"
}

func pick(rs []idleResult, f func(idleResult) float64) stat {
	v := make([]float64, len(rs))
	for i, r := range rs {
		v[i] = f(r)
	}
	return summarize(v)
}

func report(res map[int][]idleResult, lat latencyResult, took time.Duration) {
	tv, _ := exec.Command("tmux", "-V").Output()
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	cmdline := fmt.Sprintf("go run ./bench/watchcost -n %s -runs %d -window %s -warmup %s -naive-window %s -latency-n %d -latency=%v",
		joinInts(opt.ns), opt.runs, opt.window, opt.warmup, opt.naiveWindow, opt.latencyN, opt.latency)

	fmt.Println()
	fmt.Printf("## cac-tmux watch: cost on idle Claude Code panes\n\n")
	fmt.Printf("%s, %s, Linux %s, %d CPUs, CLK_TCK %.0f; cac-tmux built from %s; %d run(s) per figure; took %s.\n",
		strings.TrimSpace(string(tv)), runtime.Version(), strings.TrimSpace(string(kernel)), runtime.NumCPU(), clkTck,
		revision, opt.runs, took.Round(time.Second))
	fmt.Printf("Fake sessions: watcher/fakeclaude --scenario idle, one window (120x40) per fake in one session. ")
	fmt.Printf("Watcher: `cac-tmux watch -S SOCK --log-format json` (interval 2s, default margin); CPU over %s after a %s warm-up. ", opt.window, opt.warmup)
	fmt.Printf("Naive poller: `tmux capture-pane -p -t %%N` for every pane every 2s (back to back when a pass overruns), tmux clients' CPU only, over %s on the same server with the watcher stopped.\n\n", opt.naiveWindow)
	fmt.Println("| N idle panes | watcher+clients CPU % (median, min–max) | tmux server CPU % | peak RSS MB | start-up CPU s | naive poller CPU % | naive: tmux server CPU % | ratio naive/watcher | ratio with the server |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, n := range opt.ns {
		rs := res[n]
		w := pick(rs, func(r idleResult) float64 { return r.watcherPct })
		nv := pick(rs, func(r idleResult) float64 { return r.naivePct })
		sv := pick(rs, func(r idleResult) float64 { return r.serverPct })
		nsv := pick(rs, func(r idleResult) float64 { return r.naiveServerPct })
		ratio, both := "–", "–"
		if w.med > 0 {
			ratio = fmt.Sprintf("%.0f×", nv.med/w.med)
		}
		if w.med+sv.med > 0 {
			both = fmt.Sprintf("%.0f×", (nv.med+nsv.med)/(w.med+sv.med))
		}
		fmt.Printf("| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", n,
			w.format(3), sv.format(3),
			pick(rs, func(r idleResult) float64 { return r.rssMB }).format(1),
			pick(rs, func(r idleResult) float64 { return r.startupS }).format(2),
			nv.format(2), nsv.format(2), ratio, both)
	}
	fmt.Println()
	for _, n := range opt.ns {
		rs := res[n]
		pass := pick(rs, func(r idleResult) float64 { return r.naivePass.Seconds() * 1000 })
		wu := pick(rs, func(r idleResult) float64 { return r.warmup.Seconds() })
		note := ""
		if pass.med > interval.Seconds()*1000 {
			note = " (longer than the 2s interval: the naive loop ran back to back)"
		}
		perTick := func(f func(idleResult) float64) float64 { return pick(rs, f).med * interval.Seconds() * 10 } // % → ms per tick
		fmt.Printf("- N=%d: per 2s tick (medians) the watcher+clients use %.1f ms CPU, %.1f ms of it in tmux clients; the tmux server %.1f ms. A naive pass took %s ms%s. Warm-up used: %s s.\n",
			n, perTick(func(r idleResult) float64 { return r.watcherPct }), perTick(func(r idleResult) float64 { return r.clientsPct }),
			perTick(func(r idleResult) float64 { return r.serverPct }), pass.format(0), note, wu.format(1))
	}
	if opt.latency {
		fmt.Println()
		fmt.Printf("Detection and keys: %d idle panes + 1 fake that hits the limit at T (`--scenario idle --limit-at T --reset R`, R a whole minute 12–14s after T); watcher with `--margin %s`, due = R + %s.\n\n", opt.latencyN, margin, margin)
		fmt.Printf("- detection latency (T → the watcher's \"waiting\" log line): %s ms over %d run(s)\n", summarize(lat.latency).format(0), len(lat.latency))
		fmt.Printf("- key delay (due → the fake's first read of its terminal): %s ms over %d run(s); resumed %d of %d\n", summarize(lat.delay).format(0), len(lat.delay), lat.resumed, opt.runs)
		for _, n := range lat.notes {
			fmt.Printf("- note: %s\n", n)
		}
	}
	fmt.Printf("\nReproduce (from the repository root): `%s`\n", cmdline)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
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
