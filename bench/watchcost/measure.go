//go:build linux

package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// result is one run on one server of N panes.
type result struct {
	// the watcher
	watcherPct, clientsPct, serverPct, rssMB, startupS float64
	warmup, window                                     time.Duration
	// start-up: from exec to the log line of the first look at every pane, and the tmux
	// server's latency to display-message meanwhile and before (ms)
	startupWallS          float64
	startPingMs, idlePing []float64
	// the probe
	latencyMs, delayMs []float64 // ms; empty when not measured
	messageMs          []float64 // ms from due to the first read of the message's text (after a Codex menu's Esc)
	resumed            bool
	// detection trials: limits drawn at random points of the tick (ms)
	trialMs     []float64
	trialMissed int
	// the counting watcher
	execs, control int            // tmux processes started, control-mode command lines, in the window
	syncs          int            // control-mode sync lines (display-message -p cac-sync-…) in the window
	ticks          float64        // window / interval
	bySub          map[string]int // execs by tmux command; control-mode lines by their first command
	// the tmux server with nothing watching
	serverIdlePct float64
	// with -servers > 1: each server's CPU with nothing watching and during the window (%),
	// and each server's first look at every pane (s from the watcher's exec)
	serverIdleEach, serverEach, firstLookEach []float64
	// the naive poller
	naivePct, naiveServerPct float64
	naivePass                time.Duration
	naiveFailed              int
}

// cmdsPerTick counts the watcher's tmux calls: a tmux process, or a command line written to its
// control-mode client (the sync line after it is not counted). Either may hold several
// commands joined by ";", and counts once.
func (r result) cmdsPerTick() float64 { return float64(r.execs+r.control) / r.ticks }

// serverAddedPct is the tmux server CPU the watcher adds to its baseline: noise can make it
// slightly negative.
func (r result) serverAddedPct() float64 { return r.serverPct - r.serverIdlePct }

// serverAddedEach is the tmux server CPU the watcher adds to each server's own baseline
// (-servers > 1; none with one server, whose figure is serverAddedPct).
func (r result) serverAddedEach() []float64 {
	var v []float64
	for i := range r.serverEach {
		v = append(v, r.serverEach[i]-r.serverIdleEach[i])
	}
	return v
}

// naiveServerAddedPct is serverAddedPct for the naive poller.
func (r result) naiveServerAddedPct() float64 { return r.naiveServerPct - r.serverIdlePct }

// totalPct is what watching costs the machine: the watcher with its tmux clients, and the
// tmux server CPU it adds.
func (r result) totalPct() float64 { return r.watcherPct + r.serverAddedPct() }

// naiveTotalPct is totalPct for the naive poller.
func (r result) naiveTotalPct() float64 { return r.naivePct + r.naiveServerAddedPct() }

var notes []string // problems met, printed under the tables

func note(n, run int, format string, a ...any) {
	s := fmt.Sprintf("N=%d run %d: ", n, run) + fmt.Sprintf(format, a...)
	notes = append(notes, s)
	logf("  note: %s", s)
}

func measure(n, run int, agent string) (r result, err error) {
	t := time.Now()
	g, err := newGroup(n, agent) // the probe, the N-th pane, is made later
	defer g.kill()
	if err != nil {
		return r, err
	}
	setup := time.Since(t)
	if err := baseline(g, &r); err != nil {
		return r, err
	}
	if err := watch(g, n, run, &r); err != nil {
		return r, err
	}

	if err := count(n, run, g[0].sock, &r); err != nil {
		return r, err
	}
	if err := naive(g, &r); err != nil {
		return r, err
	}
	lat, del := "–", "–"
	if len(r.latencyMs) > 0 {
		lat = fmt.Sprintf("%.0f ms", r.latencyMs[0])
	}
	if len(r.delayMs) > 0 {
		del = fmt.Sprintf("%.0f ms", r.delayMs[0])
	}
	trials := summarize(r.trialMs)
	logf("run %d/%d N=%d %s: setup %s, warm-up %s, window %s: tmux server idle %.3f%%; watcher+clients %.3f%% (clients %.3f%%), tmux server %.3f%% (%+.3f%%), total %.3f%%, peak RSS %.1f MB; first look %.2fs; detection %s (trials: median %.0f ms, max %.0f ms of %d, %d missed), keys %s after due; %.2f tmux commands/tick (+ %.2f sync lines); naive %.2f%% (server %.2f%% (%+.2f%%), pass %s)",
		run, opt.runs, n, agent, setup.Round(100*time.Millisecond), r.warmup.Round(100*time.Millisecond), r.window.Round(100*time.Millisecond),
		r.serverIdlePct, r.watcherPct, r.clientsPct, r.serverPct, r.serverAddedPct(), r.totalPct(), r.rssMB, r.startupWallS, lat, trials.med, trials.hi, trials.n, r.trialMissed, del, r.cmdsPerTick(), float64(r.syncs)/r.ticks,
		r.naivePct, r.naiveServerPct, r.naiveServerAddedPct(), r.naivePass.Round(time.Millisecond))
	return r, nil
}

// baseline measures the tmux servers' own CPU over opt.baselineWindow with nothing watching
// (after settle: the fakes have just drawn, and newServer polled each server until they had),
// every server over the same window: what each spends anyway on its idle panes (the busy ones
// spin only after the watcher's CPU window). The probe pane is not there yet; it is idle until
// its limit, after the watcher's window, and costs the server next to nothing. Then the home
// server's latency to display-message, with nothing watching.
func baseline(g group, r *result) error {
	time.Sleep(settle)
	a, err := g.cpu()
	if err != nil {
		return err
	}
	t := time.Now()
	time.Sleep(opt.baselineWindow)
	b, err := g.cpu()
	if err != nil {
		return err
	}
	each := pcts(a, b, time.Since(t).Seconds())
	r.serverIdlePct = sum(each)
	if len(g) > 1 {
		r.serverIdleEach = each
	}
	stop := ping(g[0].sock, &r.idlePing)
	time.Sleep(pingWindow)
	stop()
	return nil
}

// watch runs the watcher on the servers: warm-up, the probe pane, the CPU window, and the
// probe's detection and keys on the home server.
func watch(g group, n, run int, r *result) error {
	home := g[0]
	stopPing := ping(home.sock, &r.startPingMs)
	t0 := time.Now()
	w, err := startWatcher(home.sock, false)
	if err != nil {
		stopPing()
		return err
	}
	defer w.stop()
	looks, err := w.firstLooks(n, run, g, t0.Add(2*time.Minute+time.Duration(g.panes())*50*time.Millisecond))
	time.Sleep(pingWindow / 2) // and a little after it
	stopPing()
	if err != nil {
		return err
	}
	for _, at := range looks {
		r.startupWallS = max(r.startupWallS, at.Sub(t0).Seconds())
		if len(g) > 1 {
			r.firstLookEach = append(r.firstLookEach, at.Sub(t0).Seconds())
		}
	}
	a, err := warmUp(g, w, n, run, t0, r)
	if err != nil {
		return err
	}
	var p limitProbe
	end := time.Now().Add(3*opt.interval + time.Second + opt.window)
	if opt.latency {
		if p, end, err = startProbe(home, w, n, run, end); err != nil {
			return err
		}
		if a, err = treeCPU(w.pid); err != nil {
			return err
		}
	}
	if err := cpuWindow(g, w, n, run, a, end, r); err != nil {
		return err
	}
	if err := amongSpinners(home, w, n, run, p, r); err != nil {
		return err
	}
	if _, problems, _ := w.supervised(); len(problems) > 0 {
		note(n, run, "the watcher logged: %s", strings.Join(problems, "; "))
	}
	return nil
}

// warmUp waits out the warm-up (from t0, the watcher's start) until the watcher supervises
// every pane of every server, and has piped each of them where it pipes them, checks that it waits on the stopped one, and returns its CPU so
// far.
func warmUp(g group, w *watcher, n, run int, t0 time.Time, r *result) (cpuTicks, error) {
	sleepUntil(t0.Add(opt.warmup))
	if err := w.waitSupervised(g.panes(), 2*time.Minute+time.Duration(g.panes())*50*time.Millisecond); err != nil {
		return cpuTicks{}, err
	}
	if err := w.waitPiped(g, 2*time.Minute); err != nil {
		return cpuTicks{}, err
	}
	s := g[0]
	if at, err := w.logged(s.label, s.stopped, "waiting"); err != nil {
		return cpuTicks{}, err
	} else if at.IsZero() {
		note(n, run, "the session stopped at a limit (%s) is not \"waiting\" after the warm-up", s.stopped)
	}
	a, err := treeCPU(w.pid)
	if err != nil {
		return cpuTicks{}, err
	}
	r.warmup = time.Since(t0)
	r.startupS = a.total() / clkTck
	return a, nil
}

// limitProbe is the probe pane: its server's label in the watcher's log, its pane id, the
// fake's log, its limit instant T and its reset R.
type limitProbe struct {
	server, pane, fakeLog string
	T, R                  time.Time
}

// startProbe makes the probe and returns it with the end of the CPU window: end is the
// earliest the window may end, the window ends 300 ms before T.
//
// The probe: an idle fake that hits the limit at T, just after the window, with a reset R
// a whole minute (the stop prints the clock to the minute) at least probeGap after T. T
// falls at a random point of the watcher's tick. It is made now, so that the watcher has
// taken it on before the window starts.
func startProbe(s *server, w *watcher, n, run int, end time.Time) (limitProbe, time.Time, error) {
	var p limitProbe
	phase := time.Duration(rand.Float64() * float64(opt.interval))
	lead := probeGap() + phase + 300*time.Millisecond
	p.R = end.Add(lead).Truncate(time.Minute)
	if p.R.Before(end.Add(lead)) {
		p.R = p.R.Add(time.Minute)
	}
	p.T = p.R.Add(-probeGap() - phase)
	p.server = s.label
	end = p.T.Add(-300 * time.Millisecond)
	p.fakeLog = filepath.Join(tmp, fmt.Sprintf("probe%d.log", watchSeq))
	args := append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "bench:"}, fakeCmd(probeCodex(s.agent), "--scenario", "idle", "--log", p.fakeLog,
		"--limit-at", p.T.Format(time.RFC3339Nano), "--reset", p.R.UTC().Format(time.RFC3339))...)
	out, err := tmuxCmd(s.sock, args...)
	if err != nil {
		return p, end, err
	}
	p.pane = strings.TrimSpace(out)
	if err := w.waitSupervised(n, 3*opt.interval+5*time.Second); err != nil {
		note(n, run, "the probe pane: %v", err)
	}
	time.Sleep(opt.interval + 200*time.Millisecond) // the watcher's first look at it
	return p, end, nil
}

// cpuWindow measures the CPU of the watcher (a: its CPU at the start) and of the tmux servers
// (their sum, and each with -servers > 1) from now to end (to now + opt.window without
// -latency), every pane idle, and the watcher's peak RSS.
func cpuWindow(g group, w *watcher, n, run int, a cpuTicks, end time.Time, r *result) error {
	sa, err := g.cpu()
	if err != nil {
		return err
	}
	ta := time.Now()
	if !opt.latency {
		end = ta.Add(opt.window)
	}
	sleepUntil(end)
	b, err := treeCPU(w.pid)
	if err != nil {
		return err
	}
	sb, err := g.cpu()
	if err != nil {
		return err
	}
	r.window = time.Since(ta)
	el := r.window.Seconds()
	if r.window < opt.window*9/10 {
		note(n, run, "the CPU window was %s only", r.window.Round(100*time.Millisecond))
	}
	if r.rssMB, err = peakRSS(w.pid); err != nil {
		return err
	}
	r.watcherPct = (b.total() - a.total()) / clkTck / el * 100
	r.clientsPct = (b.children - a.children) / clkTck / el * 100
	each := pcts(sa, sb, el)
	r.serverPct = sum(each)
	if len(g) > 1 {
		r.serverEach = each
	}
	return nil
}

// amongSpinners measures the probe's detection and keys (with -latency) and runs the
// detection trials (with -trials) while the busy panes spin.
func amongSpinners(s *server, w *watcher, n, run int, p limitProbe, r *result) error {
	// The busy panes run a turn from here to the end of the trials: the stops are seen among
	// spinners.
	if err := s.spin(true); err != nil {
		return err
	}
	if opt.latency {
		if err := detect(w, n, run, p, r); err != nil {
			return err
		}
	}
	if opt.trials > 0 {
		if err := trials(s, w, n, run, r); err != nil {
			return err
		}
	}
	return s.spin(false)
}

// detect waits for the watcher's "waiting" line about the probe (detection latency: its time
// minus T) and for the first read of the probe's terminal (resume punctuality: its time minus
// due, R + margin), then for the session to resume. The first read that is not Esc alone is
// the message's text: after a Codex menu's Esc (pressed at due), it comes a look later.
func detect(w *watcher, n, run int, p limitProbe, r *result) error {
	probe, fakeLog, T, due := p.pane, p.fakeLog, p.T, p.R.Add(margin)
	logf("  probe %s: limit at %s, due %s", probe, T.Format("15:04:05.000"), due.Format("15:04:05"))
	var seen time.Time
	for deadline := T.Add(20 * time.Second); seen.IsZero() && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var err error
		if seen, err = w.logged(p.server, probe, "waiting"); err != nil {
			return err
		}
	}
	if seen.IsZero() {
		note(n, run, "no \"waiting\" line for the probe %s within 20s of its limit", probe)
	} else {
		r.latencyMs = append(r.latencyMs, float64(seen.Sub(T).Microseconds())/1000)
	}
	var typed, text time.Time
	for deadline := due.Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		typed, text, r.resumed = readFakeLog(fakeLog)
		if !typed.IsZero() && (r.resumed || time.Now().After(typed.Add(5*time.Second))) {
			break
		}
	}
	if typed.IsZero() {
		note(n, run, "no key reached the probe %s within 20s of due", probe)
	} else {
		r.delayMs = append(r.delayMs, float64(typed.Sub(due).Microseconds())/1000)
	}
	if !text.IsZero() {
		r.messageMs = append(r.messageMs, float64(text.Sub(due).Microseconds())/1000)
	}
	if !r.resumed {
		note(n, run, "the probe %s did not resume", probe)
	}
	return nil
}

// readFakeLog returns the time of the first read of the fake's terminal and of the first that
// is not Esc alone (zero: none yet), and whether the session resumed.
func readFakeLog(path string) (first, text time.Time, resumed bool) {
	b, _ := os.ReadFile(path)
	for _, l := range strings.Split(string(b), "\n") {
		if l == "# state resumed" {
			resumed = true
		}
		ts, read, ok := strings.Cut(l, "\t")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			if first.IsZero() {
				first = t
			}
			if text.IsZero() && read != `"\x1b"` {
				text = t
			}
		}
	}
	return first, text, resumed
}

// count runs a second watcher with the counting wrapper first in its PATH and counts the
// tmux commands it runs over opt.countWindow, after it took every pane on and looked at each
// once: with -servers > 1 a watcher of every server, whose control-mode clients (one per
// server) all write to the same count files, so the figures are the sum over the servers.
func count(n, run int, sock string, r *result) error {
	w, err := startWatcher(sock, true)
	if err != nil {
		return err
	}
	defer w.stop()
	if err := w.waitSupervised(n, 2*time.Minute+time.Duration(n)*50*time.Millisecond); err != nil {
		return fmt.Errorf("counting watcher: %w", err)
	}
	time.Sleep(2 * opt.interval)
	execs, control := filepath.Join(countDir(), "execs"), filepath.Join(countDir(), "control")
	e0, c0 := size(execs), size(control)
	t := time.Now()
	time.Sleep(opt.countWindow)
	e1, c1 := size(execs), size(control)
	el := time.Since(t)
	w.stop()
	r.ticks = el.Seconds() / opt.interval.Seconds()
	r.bySub = map[string]int{}
	for _, l := range segment(execs, e0, e1) {
		r.execs++
		r.bySub[l]++
	}
	for _, l := range segment(control, c0, c1) {
		first, sync := controlLine(l)
		switch {
		case sync:
			r.syncs++
		case first != "":
			r.control++
			r.bySub["-C "+first]++
		}
	}
	if _, problems, _ := w.supervised(); len(problems) > 0 {
		note(n, run, "the counting watcher logged: %s", strings.Join(problems, "; "))
	}
	return nil
}

func size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// segment returns the lines of path whose newline lies between the byte offsets from and to:
// a line tee was copying at an edge of the window counts once, in the window where it ends.
func segment(path string, from, to int64) []string {
	b, _ := os.ReadFile(path)
	to = min(to, int64(len(b)))
	if from >= to {
		return nil
	}
	start := bytes.LastIndexByte(b[:from], '\n') + 1
	end := bytes.LastIndexByte(b[:to], '\n') + 1
	if start >= end {
		return nil
	}
	return strings.Split(string(b[start:end-1]), "\n")
}

// syncPrefix starts the line tmuxctl writes after each control-mode command line: its reply
// marks the end of the command's reply. It is a tmux command too (the server runs it), but
// not one the watcher asked for.
const syncPrefix = "display-message -p cac-sync-"

// controlLine reads a line the watcher wrote to its control-mode client: whether it is a sync
// line, else the name of its first command, unquoted (tmuxctl single-quotes every argument:
// 'capture-pane' '-p' …); "" for an empty line.
func controlLine(l string) (first string, sync bool) {
	l = strings.TrimSpace(l)
	if strings.HasPrefix(l, syncPrefix) {
		return "", true
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case quote == 0 && (c == ' ' || c == '\t' || c == ';'):
			if b.Len() > 0 {
				return b.String(), false
			}
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		case quote == '"' && c == '\\' && i+1 < len(l):
			i++
			b.WriteByte(l[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), false
}

// naive runs `tmux capture-pane -p -t %N` for every pane of every server, a pass every
// opt.interval (back to back when a pass takes longer), for opt.naiveWindow, and reads the CPU
// of those tmux clients with getrusage(RUSAGE_CHILDREN): no other child of this process ends
// meanwhile, and the servers' CPU (their sum). A pass still running at the end of the window
// stops there; the time of a pass is the time of its captures times the panes.
func naive(g group, r *result) error {
	var ids [][2]string // socket, pane
	for _, s := range g {
		panes, err := s.paneIDs()
		if err != nil {
			return err
		}
		for _, id := range panes {
			ids = append(ids, [2]string{s.sock, id})
		}
	}
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru0)
	s0, err := g.cpu()
	if err != nil {
		return err
	}
	t0 := time.Now()
	end := t0.Add(opt.naiveWindow)
	captures, busy := 0, time.Duration(0)
	for next := t0; next.Before(end); {
		p := time.Now()
		for _, id := range ids {
			if time.Now().After(end) {
				break
			}
			cmd := exec.Command(realTmux, "-S", id[0], "capture-pane", "-p", "-t", id[1])
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				r.naiveFailed++
			}
			captures++
		}
		busy += time.Since(p)
		next = next.Add(opt.interval)
		if now := time.Now(); next.Before(now) {
			next = now // overran: the next pass starts at once
		}
		if next.Before(end) {
			sleepUntil(next)
		}
	}
	sleepUntil(end)
	el := time.Since(t0).Seconds()
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru1)
	s1, err := g.cpu()
	if err != nil {
		return err
	}
	cpu := func(ru syscall.Rusage) float64 {
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	r.naivePct = (cpu(ru1) - cpu(ru0)) / el * 100
	r.naiveServerPct = sum(pcts(s0, s1, el))
	if captures > 0 {
		r.naivePass = busy / time.Duration(captures) * time.Duration(len(ids))
	}
	if r.naiveFailed > 0 {
		logf("  warning: %d naive captures failed", r.naiveFailed)
	}
	return nil
}
