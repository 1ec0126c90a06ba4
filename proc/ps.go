package proc

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// psArgs is the ps command line of the path without /proc, valid for procps-ng (Linux) and
// BSD ps (macOS): every column is one token except lstart, five tokens in the C locale ("Fri
// Nov 20 10:00:00 2026", the day padded with a space before 10), and args, the free text, is
// last. No header (the "=" suffixes). -ww: no truncation of args (BSD ps cuts at the terminal
// width, or 79 columns, without it). comm is not asked for: on macOS it is a full path that
// may contain spaces, so it could not be a middle column; lsof gives it (lsofArgs).
var psArgs = []string{"-ww", "-A",
	"-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "tpgid=", "-o", "stat=", "-o", "lstart=", "-o", "args="}

// psEnv is ps's whole environment: the C locale for five English lstart tokens, and UTC so that
// lstart, part of an Identity, does not depend on the watcher's TZ. Nothing else of ours leaks
// in (procps reads PS_PERSONALITY, PS_FORMAT, COLUMNS, CMD_ENV, POSIXLY_CORRECT, …).
var psEnv = []string{"LC_ALL=C", "TZ=UTC0"}

// runPS returns the output of ps (psArgs), from f.ps when set.
func (f *Finder) runPS(ctx context.Context) (string, error) {
	if f.ps != nil {
		out, err := f.ps(ctx)
		if err != nil {
			return "", fmt.Errorf("ps: %w", err)
		}
		return out, nil
	}
	out, _, err := runTool(ctx, "ps", psArgs, psEnv)
	return out, err
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

// psWalk is what the listing tells of a pane's foreground: the candidates Find looks at, in
// the order it looks at them, or why there are none.
type psWalk struct {
	tpgid    int
	cands    []psCand
	off      []psRow // below the candidates, on terminals of their own (procfs.keepOff)
	gone     bool    // the pane's process is not in the listing
	starting bool    // the pane's process is still the tmux server's fork (procfs.forked)
	noTTY    bool    // the pane's process has no controlling terminal
}

// psCand is one candidate of a walk: a process of the foreground group and its depth below
// the group leader (-1: the leader has exited and the group was scanned).
type psCand struct {
	row   psRow
	depth int
}

// walk lists the candidates for the pane whose first process is panePID, the same walk as
// procfs.find: the foreground group's leader, then its descendants in the group breadth-first
// up to maxDepth, at most maxCandidates looked at; or, with the leader gone, every member of
// the group. Find stops at the first that is Claude Code, so listing them all first changes
// nothing but lets one lsof run answer for all.
func (t *psTable) walk(panePID int) psWalk {
	i, ok := t.byPID[panePID]
	if !ok {
		return psWalk{gone: true}
	}
	if j, ok := t.byPID[t.rows[i].ppid]; ok && t.rows[j].args == t.rows[i].args {
		// Still the tmux server's fork (procfs.forked): ps shows its parent's argv.
		return psWalk{starting: true}
	}
	w := psWalk{tpgid: t.rows[i].tpgid}
	if w.tpgid <= 0 {
		w.noTTY = true // procps prints -1, BSD ps 0
		return w
	}
	type candidate struct{ pid, depth int }
	queue := []candidate{{w.tpgid, 0}}
	if j, ok := t.byPID[w.tpgid]; !ok || t.rows[j].pgid != w.tpgid || zombie(t.rows[j].stat[0]) {
		// The leader has exited (gone, a zombie, or its pid reused); the group lives on
		// while a member does.
		queue = queue[:0]
		for _, r := range t.rows {
			if r.pgid == w.tpgid && len(queue) < maxCandidates {
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
		if r.pgid != w.tpgid || zombie(r.stat[0]) {
			// Not in the foreground (a job suspended with Ctrl-Z, a background job), or on a
			// terminal of its own (script(1)'s child), which explain looks under.
			if c.depth > 0 && len(w.off) < maxCandidates && ownTerminal(r.stat[0], r.tpgid, w.tpgid) {
				w.off = append(w.off, r)
			}
			continue
		}
		w.cands = append(w.cands, psCand{row: r, depth: c.depth})
		if c.depth >= 0 && c.depth < maxDepth {
			for _, kid := range t.byParent[c.pid] {
				if len(queue) == maxCandidates {
					break
				}
				queue = append(queue, candidate{kid, c.depth + 1})
			}
		}
	}
	return w
}

// alive is Finder.alive on a ps listing for an identity from ps.
func (t *psTable) alive(id Identity) bool {
	i, ok := t.byPID[id.PID]
	if !ok {
		return false
	}
	r := t.rows[i]
	return !zombie(r.stat[0]) && lstartPrefix+r.lstart == id.Start
}
