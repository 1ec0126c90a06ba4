//go:build linux

package main

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// pingEvery is how often ping asks the server; pingWindow how long the baseline pings last.
const (
	pingEvery  = 20 * time.Millisecond
	pingWindow = time.Second
)

// ping asks the tmux server `display-message -p x` every pingEvery, each by its own tmux
// process as a user's status line or key binding would, and appends each answer's latency
// (ms, the exec of the client included) to *into until stop is called.
func ping(sock string, into *[]float64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for t := time.NewTicker(pingEvery); ; {
			select {
			case <-done:
				t.Stop()
				return
			case <-t.C:
			}
			start := time.Now()
			if err := exec.Command(realTmux, "-S", sock, "display-message", "-p", "x").Run(); err == nil {
				*into = append(*into, float64(time.Since(start).Microseconds())/1000)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// firstLooks waits for the watcher's log line that it has looked at every pane once, one
// per server of g (the line carries the server's label with -servers > 1), and returns their
// times, in the order of g: the start-up ends at the latest, when every pane of every server
// has been looked at. A count of Claude panes in those lines other than the panes made is
// noted.
func (w *watcher) firstLooks(n, run int, g group, deadline time.Time) ([]time.Time, error) {
	for ; time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		looks := map[string]logLine{}
		for _, l := range w.lines() {
			if _, seen := looks[l.Server]; !seen && l.Message == "looked at every pane" {
				looks[l.Server] = l
			}
		}
		if at, claude, ok, err := lookTimes(looks, g); err != nil || ok {
			if ok && claude != g.panes() {
				note(n, run, "the first looks counted %d Claude panes of the %d made", claude, g.panes())
			}
			return at, err
		}
		select {
		case <-w.exited:
			return nil, fmt.Errorf("the watcher (%s) exited: %s", strings.Join(watchArgv("SOCK"), " "), w.tail())
		default:
		}
	}
	return nil, fmt.Errorf("no first look at every pane of every server by %s: %s", deadline.Format(time.TimeOnly), w.tail())
}

// lookTimes are the times of the first-look lines of g's servers, in g's order, and the sum
// of their counts of Claude panes; ok is false while a server has none.
func lookTimes(looks map[string]logLine, g group) (at []time.Time, claude int, ok bool, err error) {
	for _, s := range g {
		l, seen := looks[s.label]
		if !seen {
			return nil, 0, false, nil
		}
		t, err := time.Parse(time.RFC3339Nano, l.Time)
		if err != nil {
			return nil, 0, false, fmt.Errorf("watcher log time %q: %v", l.Time, err)
		}
		at, claude = append(at, t), claude+l.ClaudePanes
	}
	return at, claude, true, nil
}

// trialPanes is how many idle panes the detection trials use at once.
const trialPanes = 5

// trials measures detection latency opt.trials times on the N-pane server, with its busy
// panes spinning, by the watcher of the CPU window: up to trialPanes idle sessions at a time
// are replaced (respawn-pane -k) by sessions that hit a limit at T, a random point of the
// watcher's tick once it has taken them on (2 ticks and a half later, then up to one tick
// more), resetting two hours later; the latency of each is the time of the watcher's
// "waiting" line for its pane after T, minus T. Afterwards they are idle sessions again.
func trials(s *server, w *watcher, n, run int, r *result) error {
	panes, err := s.idlePanes(trialPanes)
	if err != nil {
		return err
	}
	if len(panes) == 0 {
		note(n, run, "no idle pane for the detection trials")
		return nil
	}
	reset := time.Now().Add(2 * time.Hour).Truncate(time.Minute).UTC().Format(time.RFC3339)
	for done := 0; done < opt.trials; {
		batch := panes[:min(len(panes), opt.trials-done)]
		at := make([]time.Time, len(batch))
		base := time.Now().Add(2*opt.interval + opt.interval/2)
		for i, p := range batch {
			at[i] = base.Add(time.Duration(rand.Float64() * float64(opt.interval)))
			args := append([]string{"respawn-pane", "-k", "-t", p.id}, fakeCmd(p.codex, "--scenario", "idle",
				"--limit-at", at[i].Format(time.RFC3339Nano), "--reset", reset)...)
			if _, err := tmuxCmd(s.sock, args...); err != nil {
				return err
			}
		}
		for i, p := range batch {
			seen, err := w.waitLogged(s.label, p.id, "waiting", at[i], at[i].Add(5*opt.interval+5*time.Second))
			if err != nil {
				return err
			}
			if seen.IsZero() {
				r.trialMissed++
				note(n, run, "detection trial on %s: no \"waiting\" line within %s of its limit", p.id, 5*opt.interval+5*time.Second)
				continue
			}
			r.trialMs = append(r.trialMs, float64(seen.Sub(at[i]).Microseconds())/1000)
		}
		done += len(batch)
	}
	for _, p := range panes {
		if _, err := tmuxCmd(s.sock, append([]string{"respawn-pane", "-k", "-t", p.id}, fakeCmd(p.codex, "--scenario", "idle")...)...); err != nil {
			return err
		}
	}
	return nil
}

// waitLogged waits until deadline for the first log line with this message about pane of the
// server labelled server ("" with one server) at or after after, and returns its time (zero:
// none).
func (w *watcher) waitLogged(server, pane, message string, after, deadline time.Time) (time.Time, error) {
	for {
		for _, l := range w.lines() {
			if l.Server != server || l.Pane != pane || l.Message != message {
				continue
			}
			t, err := time.Parse(time.RFC3339Nano, l.Time)
			if err != nil {
				return t, fmt.Errorf("watcher log time %q: %v", l.Time, err)
			}
			// The log has millisecond times: a line in the millisecond of after counts.
			if !t.Before(after.Truncate(time.Millisecond)) {
				return t, nil
			}
		}
		if time.Now().After(deadline) {
			return time.Time{}, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// idlePane is a pane of an idle session, and whether it runs Codex.
type idlePane struct {
	id    string
	codex bool
}

// idlePanes returns up to k panes of idle sessions made with the server (not busy, not the
// stopped one, not the probe).
func (s *server) idlePanes(k int) ([]idlePane, error) {
	out, err := tmuxCmd(s.sock, "list-panes", "-a", "-F", "#{pane_id}\t#{pane_start_command}")
	if err != nil {
		return nil, err
	}
	var ids []idlePane
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		id, cmd, _ := strings.Cut(l, "\t")
		if len(ids) < k && id != s.stopped && strings.Contains(cmd, "--scenario idle") &&
			!strings.Contains(cmd, "--name busy") && !strings.Contains(cmd, "--limit-at") {
			ids = append(ids, idlePane{id, strings.Contains(cmd, filepath.Join(bin, "codex"))})
		}
	}
	return ids, nil
}
