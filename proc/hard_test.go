package proc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// findWithin runs f.Find with a deadline on the whole call: a walk that loops fails the test
// instead of hanging it.
func findWithin(t *testing.T, f *Finder, pane int) (Found, bool, error) {
	t.Helper()
	type result struct {
		found Found
		ok    bool
		err   error
	}
	done := make(chan result, 1)
	go func() {
		found, ok, err := f.Find(context.Background(), pane)
		done <- result{found, ok, err}
	}()
	select {
	case r := <-done:
		return r.found, r.ok, r.err
	case <-time.After(5 * time.Second):
		t.Fatalf("Find(%d) did not return within 5s", pane)
		return Found{}, false, nil
	}
}

// writeFile writes a file of a fake /proc tree, creating its directory.
func writeFile(t *testing.T, root, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// claudeTree is a fake /proc where Claude Code leads the foreground group of pane 100.
func claudeTree(t *testing.T) string {
	return fakeTree(t, true, shell(200),
		fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000})
}

// TestFindUnreadableProc: with a /proc that cannot be read (missing, not a directory, mode
// 000, the pane's stat unreadable) and a ps that cannot answer (fails, is missing, exits
// non-zero, prints garbage), Find returns an error: never a panic, never Claude Code. A ps
// that answers is believed, and a Claude Code in the background is not taken.
func TestFindUnreadableProc(t *testing.T) {
	base := t.TempDir()
	regular := filepath.Join(base, "file")
	if err := os.WriteFile(regular, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	statDir := claudeTree(t) // the pane's stat is a directory: unreadable even for root
	if err := os.Remove(filepath.Join(statDir, "100", "stat")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(statDir, "100", "stat"), 0o755); err != nil {
		t.Fatal(err)
	}
	closed := claudeTree(t)
	if err := os.Chmod(closed, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(closed, 0o755) })
	_, err := os.ReadDir(closed)
	closedReadable := err == nil // root reads a mode 000 directory

	failing := filepath.Join(base, "ps-fails")
	if err := os.WriteFile(failing, []byte("#!/bin/sh\necho 'ps: cannot read /proc' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(bin string) func(context.Context) (string, error) {
		return func(ctx context.Context) (string, error) {
			out, err := exec.CommandContext(ctx, bin).Output()
			return string(out), err
		}
	}
	pses := map[string]func(context.Context) (string, error){
		"ps returns an error": func(context.Context) (string, error) { return "", errors.New("no ps") },
		"ps does not exist":   run(filepath.Join(base, "no-such-ps")),
		"ps exits 1":          run(failing),
		"ps prints garbage": func(context.Context) (string, error) {
			return "ps: illegal option -- w\nusage: ps [-AaCcEefhjlMmrSTvwXx]\n\x00\xff\n", nil
		},
		"ps prints nothing": func(context.Context) (string, error) { return "", nil },
	}
	roots := map[string]string{
		"missing root":       filepath.Join(base, "none"),
		"root is a file":     regular,
		"pane stat is a dir": statDir,
		"mode 000 root":      closed,
	}
	for rname, root := range roots {
		for pname, ps := range pses {
			t.Run(rname+"/"+pname, func(t *testing.T) {
				if root == closed && closedReadable {
					t.Skip("running as root: a mode 000 directory stays readable")
				}
				f := &Finder{procRoot: root, ps: ps}
				got, ok, err := findWithin(t, f, 100)
				if err == nil || ok || got != (Found{}) {
					t.Errorf("Find(100) = %+v, %v, %v; want an error and nothing found", got, ok, err)
				}
				alive, err := f.alive(context.Background(), Identity{PID: 100, Start: "ticks:1000"})
				if err == nil || alive {
					t.Errorf("alive(100) = %v, %v; want an error", alive, err)
				}
			})
		}
		t.Run(rname+"/ps shows claude in the background", func(t *testing.T) {
			if root == closed && closedReadable {
				t.Skip("running as root: a mode 000 directory stays readable")
			}
			const listing = `  100     1   100   100 Ss+  Fri Nov 20 22:54:00 2026 -bash
  300   100   300   100 T    Fri Nov 20 22:54:10 2026 claude
`
			f := &Finder{procRoot: root, ps: func(context.Context) (string, error) { return listing, nil },
				lsof: lsofOf(map[int]lsofFake{100: {exe: "/usr/bin/bash"}, 300: {exe: nativeExe}}), args: noExactArgs}
			got, ok, err := findWithin(t, f, 100)
			if err != nil || ok {
				t.Errorf("Find(100) = %+v, %v, %v; want not Claude Code from ps", got, ok, err)
			}
		})
	}
}

// failPS is a Finder.PS that fails: whatever Find says comes from the fake /proc.
func failPS(context.Context) (string, error) { return "", errors.New("no ps in this test") }

// TestFindGarbageProc: a fake /proc with garbage in its files (truncated, non-numeric, empty
// or huge stat files, a comm with ") (" and newlines, huge pids, children files with junk
// and cycles, odd directory names) makes Find fail or say "not Claude Code", never panic,
// hang or find Claude Code where there is none; and garbage next to a real Claude Code does
// not hide it.
func TestFindGarbageProc(t *testing.T) {
	const tail = " 0 0 0 0 0 0 0 0 20 0 1 0 5000 5124096 895 0\n" // fields 10–25
	stat := func(pid int, comm string, state string, ppid, pgrp, tpgid string) []byte {
		return []byte(strconv.Itoa(pid) + " (" + comm + ") " + state + " " + ppid + " " + pgrp + " " + pgrp + " 34816 " + tpgid + " 4194560" + tail)
	}
	tests := []struct {
		name    string
		pane    int
		setup   func(t *testing.T) string // returns the root
		wantErr bool                      // Find must fail (the pane's own stat is unusable)
		wantPID int                       // Claude Code that must be found; 0: none
	}{
		{name: "pane stat truncated", pane: 100, wantErr: true, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "100/stat", []byte("100 (bash) S 1 100"))
			return r
		}},
		{name: "pane stat empty", pane: 100, wantErr: true, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "100/stat", nil)
			return r
		}},
		{name: "pane stat cut inside comm", pane: 100, wantErr: true, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "100/stat", []byte("100 (claude"))
			return r
		}},
		{name: "pane stat non-numeric tpgid", pane: 100, wantErr: true, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "100/stat", stat(100, "bash", "S", "1", "100", "two hundred"))
			return r
		}},
		{name: "pane stat 20-digit pid", pane: 100, wantErr: true, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "100/stat", []byte("99999999999999999999 (bash) S 1 100 100 34816 200 4194560"+tail))
			return r
		}},
		{name: "pane stat 19-digit tpgid", pane: 100, wantErr: true, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "100/stat", stat(100, "bash", "S", "1", "100", "9223372036854775807"))
			return r
		}},
		{name: "pane stat 1 MB of garbage", pane: 100, wantErr: true, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "100/stat", bytes.Repeat([]byte("(claude) )( \n\x00\xff"), 1<<16))
			return r
		}},
		{name: "huge tpgid that no process has", pane: 100, setup: func(t *testing.T) string {
			return fakeTree(t, true, shell(999999999999999999),
				fake{pid: 300, ppid: 100, pgrp: 300, tpgid: 999999999999999999, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000})
		}},
		{name: "leader stat garbage, cmdline claude", pane: 100, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "200/stat", []byte("200 (claude) S x y z\n"))
			return r
		}},
		{name: "leader stat empty", pane: 100, setup: func(t *testing.T) string {
			r := claudeTree(t)
			writeFile(t, r, "200/stat", nil)
			return r
		}},
		{name: "comm with ) ( and newlines", pane: 100, setup: func(t *testing.T) string {
			r := fakeTree(t, true, shell(200),
				fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "x.sh"}, start: 4000},
				fake{pid: 300, ppid: 200, pgrp: 300, tpgid: 200, state: 'T', comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000})
			writeFile(t, r, "200/stat", stat(200, "bash) (claude\n) (claude", "S", "100", "200", "200"))
			return r
		}},
		{name: "comm faking fields of a foreground claude", pane: 100, setup: func(t *testing.T) string {
			// Read up to the first ')', this would be comm "claude" in group 200; its real
			// fields, after the last ')', put it in group 777.
			r := fakeTree(t, true, shell(200))
			writeFile(t, r, "200/stat", stat(200, "claude) S 100 200 200 34816 200 4194560 0 0 0 0 0 0 0 0 20 0 1 0 5000 1 1 0\n(x", "S", "100", "777", "200"))
			writeFile(t, r, "200/cmdline", []byte("x\x00"))
			return r
		}},
		{name: "cmdline of NULs and an empty argv[0]", pane: 100, setup: func(t *testing.T) string {
			r := fakeTree(t, true, shell(200),
				fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", start: 5000})
			writeFile(t, r, "200/cmdline", []byte("\x00\x00claude\x00\x00\x00"))
			return r
		}},
		{name: "children files with junk and cycles", pane: 100, setup: func(t *testing.T) string {
			r := fakeTree(t, true, shell(200),
				fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "a.sh"}, start: 4000},
				fake{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "b.sh"}, start: 4000},
				fake{pid: 300, ppid: 1, pgrp: 300, tpgid: -1, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000})
			writeFile(t, r, "200/task/200/children", []byte("abc -5 0 99999999999999999999 200 201 201 201 \n\n 300x"))
			writeFile(t, r, "201/task/201/children", []byte("200 201 100 "))
			return r
		}},
		{name: "junk and cycles do not hide claude", pane: 100, wantPID: 202, setup: func(t *testing.T) string {
			r := fakeTree(t, true, shell(200),
				fake{pid: 200, ppid: 100, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "a.sh"}, start: 4000},
				fake{pid: 201, ppid: 200, pgrp: 200, tpgid: 200, comm: "bash", argv: []string{"bash", "b.sh"}, start: 4000},
				fake{pid: 202, ppid: 201, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000})
			writeFile(t, r, "200/task/200/children", []byte("abc -5 0 99999999999999999999 200 201 201 201 \n\n 300x"))
			writeFile(t, r, "201/task/201/children", []byte("201 200 202 "))
			return r
		}},
		{name: "scan over odd entries, leader gone", pane: 100, setup: func(t *testing.T) string {
			return garbageScanTree(t, false)
		}},
		{name: "scan over odd entries finds the group's claude", pane: 100, wantPID: 302, setup: func(t *testing.T) string {
			return garbageScanTree(t, true)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &Finder{procRoot: tt.setup(t), ps: failPS}
			got, ok, err := findWithin(t, f, tt.pane)
			switch {
			case tt.wantErr:
				if err == nil || ok {
					t.Errorf("Find(%d) = %+v, %v, %v; want an error", tt.pane, got, ok, err)
				}
			case tt.wantPID == 0:
				if ok {
					t.Errorf("Find(%d) = %+v; want not Claude Code", tt.pane, got)
				}
			default:
				if err != nil || !ok || got.PID != tt.wantPID || got.Start != "ticks:5000" {
					t.Errorf("Find(%d) = %+v, %v, %v; want Claude Code pid %d", tt.pane, got, ok, err, tt.wantPID)
				}
			}
		})
	}
}

// garbageScanTree is a fake /proc without children files whose foreground group (200) has
// lost its leader, full of entries a scan must skip: names that are not pids or overflow, a
// file where a directory should be, a process without stat, garbage and huge stat files, a
// member of the group that is not Claude Code, and Claude Code outside the group. With
// claudeInGroup, a Claude Code in the group too.
func garbageScanTree(t *testing.T, claudeInGroup bool) string {
	procs := []fake{shell(200),
		{pid: 301, ppid: 1, pgrp: 300, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000},
		{pid: 303, ppid: 1, pgrp: 200, tpgid: 200, comm: "make", argv: []string{"make", "-j"}, start: 5000}}
	if claudeInGroup {
		procs = append(procs, fake{pid: 302, ppid: 1, pgrp: 200, tpgid: 200, comm: "claude", argv: []string{"claude"}, exe: nativeExe, start: 5000})
	}
	r := fakeTree(t, false, procs...)
	for _, d := range []string{"abc", "-1", "0", "99999999999999999999", "777", "9223372036854775808"} {
		if err := os.MkdirAll(filepath.Join(r, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, r, "12345", []byte("a file"))
	writeFile(t, r, "778/stat", []byte("778 (claude) S 1 200 ..."))
	writeFile(t, r, "778/cmdline", []byte("claude\x00"))
	writeFile(t, r, "779/stat", append(append([]byte("779 ("), bytes.Repeat([]byte("claude) "), 1<<15)...),
		[]byte(") S 1 200 200 0 200 0 0 0 0 0 0 0 0 0 0 0 1 0 5000 0 0 0\n")...))
	writeFile(t, r, "779/cmdline", []byte("bash\x00"))
	writeFile(t, r, "-1/stat", []byte("-1 (claude) S 1 200 200 0 200 0 0 0 0 0 0 0 0 0 0 0 1 0 5000 0 0 0\n"))
	return r
}

// FuzzParseStat: any stat content parses or fails without panicking; a parse keeps comm
// as the text between the first '(' and the last ')', the state byte after it and a numeric
// start. (A NUL state, testdata, is garbage no kernel writes and harmless: not a zombie.)
func FuzzParseStat(f *testing.F) {
	for _, s := range []string{
		"5026 (bash) S 5025 5026 5026 34816 5100 4194560 1541 26151 2 32 0 1 17 7 20 0 1 0 125573 5124096 895 18446744073709551615 0 0\n",
		"42 (my (odd) prog) x) R 1 42 42 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0",
		"7 () Z 1 7 7 0 0 0 0 0 0 0 0 0 0 0 0 0 1 0 99",
		"", "(", ")", ")(", "()", "1 (a", "1 (a) ", "-1 (x) S -1 -1 -1 -1 -1 0 0 0 0 0 0 0 0 0 0 0 1 0 -5",
		"99999999999999999999 (bash) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"1 (a\nb) (c) S\t1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"1 (x) S 1 2 3 4 999999999999999999 6 7 8 9 10 11 12 13 14 15 16 17 18 1e5",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseStat(b)
		if err != nil {
			return
		}
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if st.comm != string(b[open+1:end]) {
			t.Errorf("parseStat(%q).comm = %q, want %q", b, st.comm, b[open+1:end])
		}
		tok, _, _ := bytes.Cut(bytes.TrimLeft(b[end+1:], " "), []byte(" "))
		if tok = bytes.TrimSpace(tok); len(tok) == 0 || st.state != tok[0] {
			t.Errorf("parseStat(%q).state = %q, want the first byte of the field after comm", b, st.state)
		}
		if _, ok := atoi([]byte(st.start)); !ok {
			t.Errorf("parseStat(%q).start = %q, not a number", b, st.start)
		}
	})
}

// FuzzParsePS: any ps output parses or fails without panicking; parsed rows have a pid and a
// state, and walking the table from any pid ends quickly without panicking, with at most
// maxCandidates candidates, each of the foreground group and not a zombie.
func FuzzParsePS(f *testing.F) {
	f.Add(linuxPS)
	f.Add(macPS)
	for _, s := range []string{"", "\n", "1 1 1 1 Z Fri Nov 20 22:53:55 2026\n",
		"  1 1 1 1 S+ Fri Nov 20 22:53:55 2026 claude\n  2 1 1 1 S Fri Nov 20 22:53:55 2026 claude\n",
		"5 5 5 5 S Fri Nov 20 22:53:55 2026 bash\n6 5 5 5 S Fri Nov 20 22:53:55 2026 node /x/claude\n",
		"99999999999999999999 1 1 1 S Fri Nov 20 22:53:55 2026 x\n-3 1 1 1 S a b 1 1:2:3 4 x\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		tab, err := parsePS(out)
		if err != nil {
			return
		}
		start := time.Now()
		for _, r := range tab.rows {
			if r.pid <= 0 || r.stat == "" {
				t.Fatalf("parsePS(%q): row %+v", out, r)
			}
			for _, pid := range []int{r.pid, r.ppid, r.pgid, r.tpgid} {
				w := tab.walk(pid)
				if len(w.cands) > maxCandidates {
					t.Errorf("walk(%d) has %d candidates", pid, len(w.cands))
				}
				for _, c := range w.cands {
					if c.row.pgid != w.tpgid || zombie(c.row.stat[0]) || c.depth > maxDepth {
						t.Errorf("walk(%d): candidate %+v, foreground group %d", pid, c, w.tpgid)
					}
				}
			}
			tab.alive(Identity{PID: r.pid, Start: lstartPrefix + r.lstart})
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("walking %d rows took %s", len(tab.rows), d)
		}
	})
}
