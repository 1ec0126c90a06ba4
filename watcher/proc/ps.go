package proc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// psArgs is the ps command line of the fallback, valid for procps-ng (Linux) and BSD ps (macOS):
// every column is one token except lstart, five tokens in the C locale ("Fri Nov 20 10:00:00
// 2026", the day padded with a space before 10), and args, the free text, is last. No header
// (the "=" suffixes). -ww: no truncation of args (BSD ps cuts at the terminal width, or 79
// columns, without it). comm is not asked for: on macOS it is a full path that may contain
// spaces, so it could not be a middle column; base(argv[0]) of args serves instead.
var psArgs = []string{"-ww", "-A",
	"-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "tpgid=", "-o", "stat=", "-o", "lstart=", "-o", "args="}

// psEnv is ps's whole environment: the C locale for five English lstart tokens, and UTC so that
// lstart, part of an Identity, does not depend on the watcher's TZ. Nothing else of ours leaks
// in (procps reads PS_PERSONALITY, PS_FORMAT, COLUMNS, CMD_ENV, POSIXLY_CORRECT, …).
var psEnv = []string{"LC_ALL=C", "TZ=UTC0"}

// psTimeout bounds one ps run when the context has no deadline.
const psTimeout = 5 * time.Second

// runPS returns the output of ps (psArgs), from f.PS when set.
func (f *Finder) runPS(ctx context.Context) (string, error) {
	if f.PS != nil {
		out, err := f.PS(ctx)
		if err != nil {
			return "", fmt.Errorf("ps: %w", err)
		}
		return out, nil
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, psTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "ps", psArgs...)
	cmd.Env = psEnv
	cmd.WaitDelay = time.Second
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("ps: %w", ctx.Err())
		}
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("ps: %w: %s", err, msg)
		}
		return "", fmt.Errorf("ps: %w", err)
	}
	return stdout.String(), nil
}

// psRow is one line of ps output.
type psRow struct {
	pid, ppid, pgid, tpgid int
	stat                   string // state: "Ss+", "S", "Z" …
	lstart                 string // its five tokens joined by one space
	args                   string
}

// psTable is a parsed ps listing.
type psTable struct {
	rows     []psRow
	byPID    map[int]int   // pid → index in rows
	byParent map[int][]int // ppid → child pids, in listing order
}

// parsePS parses the output of ps with psArgs. Lines that do not have the expected shape are
// skipped; output with no valid line at all is an error.
func parsePS(out string) (*psTable, error) {
	t := &psTable{byPID: make(map[int]int), byParent: make(map[int][]int)}
	bad := ""
	for line := range strings.Lines(out) {
		row, ok := parsePSLine(strings.TrimRight(line, "\r\n"))
		if !ok {
			if bad == "" && strings.TrimSpace(line) != "" {
				bad = line
			}
			continue
		}
		t.byPID[row.pid] = len(t.rows)
		t.rows = append(t.rows, row)
		t.byParent[row.ppid] = append(t.byParent[row.ppid], row.pid)
	}
	if len(t.rows) == 0 {
		if bad == "" {
			return nil, errors.New("ps: empty output")
		}
		return nil, fmt.Errorf("ps: unreadable output: %.80q", bad)
	}
	return t, nil
}

// parsePSLine parses "pid ppid pgid tpgid stat Www Mmm d hh:mm:ss yyyy args…".
func parsePSLine(line string) (psRow, bool) {
	var tok [10]string
	rest := line
	for i := range tok {
		rest = strings.TrimLeft(rest, " \t")
		n := strings.IndexAny(rest, " \t")
		if n < 0 {
			n = len(rest)
		}
		tok[i], rest = rest[:n], rest[n:]
		if tok[i] == "" {
			return psRow{}, false
		}
	}
	var r psRow
	ints := [4]*int{&r.pid, &r.ppid, &r.pgid, &r.tpgid}
	for i, p := range ints {
		v, ok := atoi([]byte(tok[i]))
		if !ok {
			return psRow{}, false
		}
		*p = v
	}
	if r.pid <= 0 {
		return psRow{}, false
	}
	r.stat = tok[4]
	// lstart: weekday, month, day, time, year.
	if _, ok := atoi([]byte(tok[7])); !ok || strings.Count(tok[8], ":") != 2 {
		return psRow{}, false
	}
	if _, ok := atoi([]byte(tok[9])); !ok {
		return psRow{}, false
	}
	r.lstart = strings.Join(tok[5:10], " ")
	r.args = strings.TrimSpace(rest)
	return r, true
}

// find is Finder.Find on a ps listing: the same walk as on /proc (procfs.find).
func (t *psTable) find(panePID int) (Found, bool) {
	i, ok := t.byPID[panePID]
	if !ok {
		return Found{}, false // the pane's process is gone
	}
	if j, ok := t.byPID[t.rows[i].ppid]; ok && t.rows[j].args == t.rows[i].args {
		// Still the tmux server's fork (procfs.forked): ps shows its parent's argv.
		return Found{Starting: true}, false
	}
	tpgid := t.rows[i].tpgid
	if tpgid <= 0 {
		return Found{}, false // no controlling terminal (procps prints -1, BSD ps 0)
	}
	type candidate struct{ pid, depth int }
	queue := []candidate{{tpgid, 0}}
	if j, ok := t.byPID[tpgid]; !ok || t.rows[j].pgid != tpgid || zombie(t.rows[j].stat[0]) {
		// The leader has exited (gone, a zombie, or its pid reused); the group lives on
		// while a member does.
		queue = queue[:0]
		for _, r := range t.rows {
			if r.pgid == tpgid && len(queue) < maxCandidates {
				queue = append(queue, candidate{r.pid, -1})
			}
		}
	}
	for n := 0; n < len(queue); n++ {
		c := queue[n]
		j, ok := t.byPID[c.pid]
		if !ok {
			continue
		}
		r := t.rows[j]
		if r.pgid != tpgid || zombie(r.stat[0]) {
			continue // not in the foreground (a job suspended with Ctrl-Z, a background job)
		}
		if why, ok := isClaude("", strings.Fields(r.args), "", nil); ok {
			return Found{
				Identity: Identity{PID: r.pid, Start: lstartPrefix + r.lstart},
				How:      how(" (ps)", panePID, tpgid, r.pid, c.depth, why),
			}, true
		}
		if c.depth >= 0 && c.depth < maxDepth {
			for _, kid := range t.byParent[c.pid] {
				if len(queue) == maxCandidates {
					break
				}
				queue = append(queue, candidate{kid, c.depth + 1})
			}
		}
	}
	return Found{}, false
}

// alive is Finder.Alive on a ps listing for an identity from ps.
func (t *psTable) alive(id Identity) bool {
	i, ok := t.byPID[id.PID]
	if !ok {
		return false
	}
	r := t.rows[i]
	return !zombie(r.stat[0]) && lstartPrefix+r.lstart == id.Start
}
