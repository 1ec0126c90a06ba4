//go:build linux

// Command changecost measures what each way of learning which tmux panes changed costs the
// tmux server per second of watching, on a private server of N idle panes (see README.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// options are the command-line flags.
type options struct {
	ns      []int
	layouts []string
	modes   []string
	window  time.Duration
	settle  time.Duration
	runs    int
}

var opt options

func main() {
	if len(os.Args) > 2 && os.Args[1] == "-ratios" {
		if err := printRatios(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "changecost:", err)
			os.Exit(1)
		}
		return
	}
	if err := parseFlags(); err != nil {
		fmt.Fprintln(os.Stderr, "changecost:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "changecost:", err)
		os.Exit(1)
	}
}

func parseFlags() error {
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: changecost [flags] > table.md 2> progress.log\n       changecost -ratios progress.log...   (each mode over list-activity, run by run)")
		flag.PrintDefaults()
	}
	n := flag.String("n", "1000", "numbers of idle panes, comma-separated")
	layouts := flag.String("layouts", "1,4", "layouts, comma-separated: 1 (one pane per window), 4 (four panes per window), s (one pane per session)")
	modes := flag.String("modes", strings.Join(modeNames(), ","), "modes, comma-separated (those the server cannot do are skipped)")
	flag.DurationVar(&opt.window, "window", 20*time.Second, "CPU window per measurement")
	flag.DurationVar(&opt.settle, "settle", 2*time.Second, "wait after a mode starts (client attached, subscription made) before its window")
	flag.IntVar(&opt.runs, "runs", 3, "runs: each mode is measured once per run, in an order rotated per run")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	for _, f := range strings.Split(*n, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 4 || v%4 != 0 {
			return fmt.Errorf("-n: %q is not a multiple of 4 of at least 4", f)
		}
		opt.ns = append(opt.ns, v)
	}
	for _, l := range strings.Split(*layouts, ",") {
		if _, ok := layoutNames[l]; !ok {
			return fmt.Errorf("-layouts: unknown layout %q", l)
		}
		opt.layouts = append(opt.layouts, l)
	}
	for _, m := range strings.Split(*modes, ",") {
		if _, ok := modeByName(m); !ok {
			return fmt.Errorf("-modes: unknown mode %q (known: %s)", m, strings.Join(modeNames(), ", "))
		}
		opt.modes = append(opt.modes, m)
	}
	if opt.runs < 1 || opt.window < time.Second {
		return fmt.Errorf("-runs must be at least 1 and -window at least 1s")
	}
	return nil
}

// run measures every N and layout on a fresh server each, and prints a table for each.
func run(ctx context.Context) error {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		return err
	}
	version, err := exec.Command(tmux, "-V").Output()
	if err != nil {
		return fmt.Errorf("%s -V: %v", tmux, err)
	}
	start := time.Now()
	load0 := loadavg()
	fmt.Printf("## %s (`%s`)\n\n", strings.TrimSpace(string(version)), tmux)
	fmt.Printf("Started %s; load average at start %s; %d cores; window %s, %d runs.\n\n",
		start.Format(time.RFC3339), load0, numCPU(), opt.window, opt.runs)
	for _, n := range opt.ns {
		for _, layout := range opt.layouts {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := one(ctx, tmux, n, layout); err != nil {
				return fmt.Errorf("N=%d layout %s: %w", n, layout, err)
			}
		}
	}
	fmt.Printf("Finished after %s; load average at end %s.\n\n", time.Since(start).Round(time.Second), loadavg())
	return nil
}

// one measures every mode on one fresh server of n panes in a layout.
func one(ctx context.Context, tmux string, n int, layout string) error {
	logf("N=%d, %s: making the server", n, layoutNames[layout])
	s, err := newServer(tmux, n, layout)
	if err != nil {
		return err
	}
	defer s.kill()
	res := map[string][]sample{}
	modes, skipped := s.usable(opt.modes)
	load0 := loadavg()
	for r := 0; r < opt.runs; r++ {
		for i := range modes {
			m := modes[(i+r)%len(modes)]
			if err := ctx.Err(); err != nil {
				return err
			}
			sm, err := measure(ctx, s, m, r)
			if err != nil {
				return fmt.Errorf("%s, run %d: %w", m.name, r+1, err)
			}
			logf("N=%d, %s, run %d, %s: server %.3f %% (%.3f %% by schedstat), client %.3f %%, %s",
				n, layout, r+1, m.name, sm.serverPct(), sm.serverNsPct(), sm.clientPct(), sm.check)
			res[m.name] = append(res[m.name], sm)
		}
	}
	printTable(s, modes, skipped, res, load0, loadavg())
	return nil
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
}

// loadavg is the first three fields of /proc/loadavg.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
