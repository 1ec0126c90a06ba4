//go:build linux

// The agents the panes run (-agent): fake Claude Code sessions, simulated Codex CLI sessions,
// or both on one server.

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The values of -agent: what the panes of a server run.
const (
	agentClaude = "claude" // every pane a fake Claude Code (internal/fakeclaude)
	agentCodex  = "codex"  // every pane a simulated Codex CLI (internal/fakecodex), but the busy ones
	agentBoth   = "both"   // the first and every even pane Claude Code, every odd pane Codex, the busy ones Claude Code
)

var agentModes = []string{agentClaude, agentCodex, agentBoth}

// parseAgents reads -agent: a comma-separated list of modes, each measured in turn on a server
// of its own for every N within each run.
func parseAgents(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(agentModes, f) {
			return nil, fmt.Errorf("-agent: %q is not one of %s (a comma-separated list)", f, strings.Join(agentModes, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// agentTitle names a mode's panes in the output.
func agentTitle(mode string) string {
	switch mode {
	case agentCodex:
		return "Codex CLI"
	case agentBoth:
		return "Claude Code and Codex CLI, half each"
	}
	return "Claude Code"
}

// codexAt says whether pane i (0: the first, the stopped one on the home server) of a server
// of that mode runs Codex. The busy panes (1 to -busy on the home server) always run Claude
// Code: the simulated Codex has no animated spinner to run a turn with.
func codexAt(mode string, i int, home bool) bool {
	if home && i >= 1 && i <= opt.busy {
		return false
	}
	switch mode {
	case agentCodex:
		return true
	case agentBoth:
		return i%2 == 1
	}
	return false
}

// probeCodex says whether the probe and the detection trials' sessions run Codex: with
// -agent codex and both (the trials take the agent of the idle pane they replace).
func probeCodex(mode string) bool { return mode != agentClaude }

var codexHomes int

// fakeCmd is the command of a fake session, after the tmux command's own flags: fakeclaude's
// (bin/claude) with args, or with codex the simulated Codex (bin/codex, run under that name:
// the watcher recognises Codex by its executable's name). For Codex, fakeclaude's plain
// scenario is simcodex's stop (with its menu, as at a session's first stop), --name is
// dropped, and a session that stops (--reset given) keeps its records (--records) under a
// CODEX_HOME of its own (-e, before the command), as a Codex whose records the watcher reads
// at the stop; the others run in the run's CODEX_HOME (the server's environment), empty.
func fakeCmd(codex bool, args ...string) []string {
	if !codex {
		return append([]string{filepath.Join(bin, "claude")}, args...)
	}
	var out []string
	records := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--name":
			i++
		case a == "plain" && i > 0 && args[i-1] == "--scenario":
			out = append(out, "stop")
		default:
			records = records || a == "--reset"
			out = append(out, a)
		}
	}
	if !records {
		return append([]string{filepath.Join(bin, "codex")}, out...)
	}
	codexHomes++
	home := filepath.Join(tmp, "codex"+strconv.Itoa(codexHomes))
	return append([]string{"-e", "CODEX_HOME=" + home, filepath.Join(bin, "codex"), "--records"}, out...)
}

// codexHome is the run's CODEX_HOME, set in the environment the tmux servers start with, so
// that no simulated Codex ever reads or writes the user's.
func codexHome() string { return filepath.Join(tmp, "codex-home") }

func setCodexHome() error {
	if err := os.Mkdir(codexHome(), 0o700); err != nil {
		return err
	}
	return os.Setenv("CODEX_HOME", codexHome())
}

// fakeExe says whether exe is one of the fakes' executables.
func fakeExe(exe string) bool {
	return exe == filepath.Join(bin, "claude") || exe == filepath.Join(bin, "codex")
}

// agentHeading is what a heading adds for a mode: nothing for claude alone (the output of a
// run without -agent stays what it was).
func agentHeading(mode string) string {
	if slices.Equal(opt.agents, []string{agentClaude}) {
		return ""
	}
	if mode == agentBoth {
		return ", Claude Code and Codex CLI panes, half each"
	}
	return ", " + agentTitle(mode) + " panes"
}

// describeAgent is describeSetup's first sentence for a mode with Codex panes.
func describeAgent(mode string) {
	where := "Each server"
	if opt.servers > 1 {
		where = fmt.Sprintf("N split evenly over %d tmux servers (sockets s0 … s%d in $TMUX_TMPDIR/tmux-UID, a fresh set each run); on s0", opt.servers, opt.servers-1)
	}
	which := "simulated Codex CLI sessions (internal/fakecodex, built as `codex`)"
	if mode == agentBoth {
		which = "sessions, every odd one a simulated Codex CLI (internal/fakecodex, built as `codex`), the others fake Claude Code (internal/fakeclaude)"
	}
	fmt.Printf("%s: N %s, one 120x40 window each, CODEX_HOME a directory of the run: 1 stopped at a limit an hour away (%s), %d fake Claude Code sessions running a turn with an animated spinner (the simulated Codex has none), the rest idle; a Codex session that stops keeps its records (--records) under a CODEX_HOME of its own", where, which, map[bool]string{true: "Codex's, its \"Approaching rate limits\" menu open", false: "Claude Code's"}[codexAt(mode, 0, true)], opt.busy)
	if opt.latency {
		fmt.Printf(" (the probe, a Codex session, hits a limit after the CPU window, its menu open; its keys are the first read of its terminal other than the menu's Esc)")
	}
	fmt.Printf(". Watcher: `%s`, CPU over ≥ %s after a ≥ %s warm-up, from /proc (its own, its waited-for and live tmux clients, a control-mode client among them). ", watcherCommand(), opt.window, opt.warmup)
}

// sideBySide prints the main figures of every mode next to each other, by N: medians over the
// runs, which interleaved the modes.
func sideBySide(res map[string]map[int][]result) {
	keys := []string{"total_cpu_pct", "watcher_cpu_pct", "tmux_server_added_cpu_pct", "watcher_peak_rss_mb", "watcher_startup_cpu_s",
		"first_look_s", "tmux_cmds_per_tick", "detection_trials_ms", "detection_latency_ms", "resume_punctuality_ms", "resume_message_ms", "naive_total_cpu_pct"}
	fmt.Printf("\n## Side by side: medians (min – max) over %d run(s), the agents measured in turn within each run\n\n| quantity |", opt.runs)
	sep := "|---|"
	for _, n := range opt.ns {
		for _, a := range opt.agents {
			fmt.Printf(" N=%d %s |", n, a)
			sep += "---:|"
		}
	}
	fmt.Printf("\n%s\n", sep)
	for _, k := range keys {
		q := quantityByKey(k)
		fmt.Printf("| %s |", q.label)
		for _, n := range opt.ns {
			for _, a := range opt.agents {
				s := q.of(res[a][n])
				cell := q.format(s)
				if k == "detection_trials_ms" && s.n > 0 {
					cell += ", p99 " + q.num(s.p99)
				}
				fmt.Printf(" %s |", cell)
			}
		}
		fmt.Println()
	}
}
