package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cac-tmux/cac-tmux/agent"
	"github.com/cac-tmux/cac-tmux/config"
	"github.com/cac-tmux/cac-tmux/internal/clocktest"
	"github.com/cac-tmux/cac-tmux/proc"
	"github.com/cac-tmux/cac-tmux/records"
	"github.com/cac-tmux/cac-tmux/tmuxctl"
)

// fakeFinder answers for pane pids and claude pids as a test sets it.
type fakeFinder struct {
	found   map[int]proc.Found   // by pane pid
	why     map[int][]string     // by pane pid
	beneath map[int]proc.Beneath // by pane pid
	env     map[int]records.Env  // by claude pid
	err     error                // of Find
	xerr    error                // of Diagnose
}

func (f *fakeFinder) Find(_ context.Context, pid int) (proc.Found, bool, error) {
	fd, ok := f.found[pid]
	return fd, ok, f.err
}

func (f *fakeFinder) Diagnose(_ context.Context, pid int) (proc.Diagnosis, error) {
	d := proc.Diagnosis{Why: f.why[pid]}
	if b, ok := f.beneath[pid]; ok {
		d.Beneath = &b
		d.Why = append([]string{b.String()}, d.Why...)
	}
	return d, f.xerr
}

// watchedNone is classify's watched when no watcher runs on any other server.
func watchedNone(string) (int, bool) { return 0, false }

func (f *fakeFinder) Env(_ context.Context, id proc.Identity) (records.Env, error) {
	e, ok := f.env[id.PID]
	if !ok {
		return records.Env{}, fmt.Errorf("proc: environment of pid %d: the process is gone", id.PID)
	}
	return e, nil
}

func TestClassify(t *testing.T) {
	claude := proc.Found{Identity: proc.Identity{PID: 200, Start: "ticks:1"}, How: "foreground group 200 of pane pid 100: executable \"/x/claude\""}
	f := &fakeFinder{
		found: map[int]proc.Found{100: claude},
		why: map[int][]string{
			101: {`pid 300: comm "sleep", argv[0] "claude", executable "/usr/bin/sleep": not Claude Code`, "b", "c", "d", "e"},
			102: {`pid 102: comm "bash": not Claude Code`, "a child"},
		},
	}
	sel := config.Panes{Exclude: []string{"scratch"}}
	pane := func(id string, pid int, session, command, title string) tmuxctl.Pane {
		return tmuxctl.Pane{ID: id, PID: pid, Session: session, WindowIndex: 1, Command: command, Title: title}
	}
	for _, tc := range []struct {
		tp   tmuxctl.Pane
		f    *fakeFinder
		want Pane
		err  bool
	}{
		{pane("%1", 100, "work", "claude", "✳ Claude Code"), f, Pane{Pane: "%1", Target: "work:1.0", Command: "claude", Claude: true, Agent: agent.Claude, How: claude.How, Supervised: true, LooksLike: true, id: claude.Identity}, false},
		{pane("%2", 100, "scratch", "claude", ""), f, Pane{Pane: "%2", Target: "scratch:1.0", Command: "claude", Claude: true, Agent: agent.Claude, How: claude.How,
			Note: `session "scratch" matches panes.exclude "scratch"`, LooksLike: true, id: claude.Identity}, false},
		{pane("%3", 101, "work", "claude", ""), f, Pane{Pane: "%3", Target: "work:1.0", Command: "claude", LooksLike: true, Why: f.why[101][0] + "; b; c; and 2 more", Problem: true, Fix: lookAlikeFix}, false},
		{pane("%4", 102, "work", "bash", "host"), f, Pane{Pane: "%4", Target: "work:1.0", Command: "bash", Why: f.why[102][0]}, false},
		{pane("%5", 102, "work", "node", "dev server"), f, Pane{Pane: "%5", Target: "work:1.0", Command: "node", Why: f.why[102][0]}, false},                                                                     // node alone: no look-alike
		{pane("%6", 102, "work", "node", "✳ Claude Code"), f, Pane{Pane: "%6", Target: "work:1.0", Command: "node", LooksLike: true, Why: f.why[102][0] + "; a child", Problem: true, Fix: lookAlikeFix}, false}, // the title tells
		{pane("%7", 102, "work", "2.1.329", ""), &fakeFinder{xerr: errors.New("proc: explain pane pid 102: /proc not usable")},
			Pane{Pane: "%7", Target: "work:1.0", Command: "2.1.329", LooksLike: true, Why: "not explained: proc: explain pane pid 102: /proc not usable", Problem: true, Fix: lookAlikeFix}, false},
		// the process table cannot tell: command and title decide, as in the watcher
		{pane("%8", 105, "work", "claude", ""), &fakeFinder{err: errors.New("ps: failed")},
			Pane{Pane: "%8", Target: "work:1.0", Command: "claude", Claude: true, Agent: agent.Claude, How: "by command and title only (the process table cannot be read)", Supervised: true, LooksLike: true}, true},
	} {
		got, err := classify(context.Background(), tc.f, watchedNone, tc.tp, config.Config{Panes: sel})
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("classify(%s) = %+v, %v\nwant %+v", tc.tp.ID, got, err, tc.want)
		}
	}
}

// TestClassifyBeneath: a pane whose foreground runs Claude Code out of its reach is not
// Claude Code to doctor either, but says where it runs, as a problem with its fix: under
// script, run it directly; in another tmux server, start a watcher there, unless one runs.
// A Claude Code pane whose agent the configuration turns off is not supervised, and says so.
func TestClassifyAgentOff(t *testing.T) {
	claude := proc.Found{Identity: proc.Identity{PID: 200, Start: "ticks:1"}, How: "H"}
	f := &fakeFinder{found: map[int]proc.Found{100: claude}}
	cfg := config.Default()
	cfg.Agents = map[agent.Name]agent.Settings{agent.Claude: {Off: true}}
	got, err := classify(context.Background(), f, watchedNone, tmuxctl.Pane{ID: "%1", PID: 100, Session: "work", Command: "claude"}, cfg)
	if err != nil || !got.Claude || got.Agent != agent.Claude || got.Supervised || got.Note != "claude.enabled is false" {
		t.Errorf("classify with claude.enabled false = %+v, %v; want a Claude Code pane not supervised, saying why", got, err)
	}
	if !strings.HasPrefix(strings.TrimSpace(got.line()), "%1 work:0.0 (claude): Claude Code, not supervised: claude.enabled is false; H") {
		t.Errorf("line = %q", got.line())
	}
}

func TestClassifyBeneath(t *testing.T) {
	script := proc.Beneath{Claude: proc.Found{Identity: proc.Identity{PID: 301}}, Via: 200, ViaComm: "script", Terminal: "/dev/pts/9"}
	nested := proc.Beneath{Claude: proc.Found{Identity: proc.Identity{PID: 61}}, Via: 210, ViaComm: "tmux", Socket: "/tmp/inner/s"}
	f := &fakeFinder{
		why:     map[int][]string{100: {`pid 200: comm "script": not Claude Code`}, 110: {`pid 210: comm "tmux": not Claude Code`}},
		beneath: map[int]proc.Beneath{100: script, 110: nested},
	}
	watched := func(socket string) (int, bool) { return 4242, socket == "/tmp/inner/s" }
	tp := func(id string, pid int, command string) tmuxctl.Pane {
		return tmuxctl.Pane{ID: id, PID: pid, Session: "work", WindowIndex: 1, Command: command}
	}
	for _, tc := range []struct {
		tp      tmuxctl.Pane
		watched func(string) (int, bool)
		want    Pane
	}{
		{tp("%1", 100, "script"), watchedNone, Pane{Pane: "%1", Target: "work:1.0", Command: "script", Beneath: 301, Why: script.String(), Problem: true,
			Fix: "run claude directly in the pane, not under script or another program that gives it a terminal of its own " +
				"(cac-tmux types only into a pane's own terminal; tmux pipe-pane keeps a log of a pane)"}},
		{tp("%2", 110, "tmux"), watchedNone, Pane{Pane: "%2", Target: "work:1.0", Command: "tmux", Beneath: 61, OtherServer: "/tmp/inner/s", Why: nested.String(), Problem: true,
			Fix: "start a watcher on that server: cac-tmux watch -S /tmp/inner/s"}},
		{tp("%3", 110, "tmux"), watched, Pane{Pane: "%3", Target: "work:1.0", Command: "tmux", Beneath: 61, OtherServer: "/tmp/inner/s", Why: nested.String(),
			Note: "a watcher (pid 4242) supervises that server"}},
	} {
		got, err := classify(context.Background(), f, tc.watched, tc.tp, config.Config{})
		if got != tc.want || err != nil {
			t.Errorf("classify(%s) = %+v, %v\nwant %+v", tc.tp.ID, got, err, tc.want)
		}
	}
	if !strings.HasPrefix(script.String(), "claude (pid 301) runs under script (pid 200) on its own terminal /dev/pts/9, not in this pane's terminal") {
		t.Errorf("the sentence for script: %q", script.String())
	}
}

func TestPaneRecords(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.MkdirAll(filepath.Join(good, "sessions"), 0o700)
	os.WriteFile(filepath.Join(good, "sessions", "200.json"), []byte(`{"pid":200,"sessionId":"s-1","procStart":"5","version":"2.1.330"}`), 0o600)
	badEntry := filepath.Join(dir, "bad-entry")
	os.MkdirAll(filepath.Join(badEntry, "sessions"), 0o700)
	os.WriteFile(filepath.Join(badEntry, "sessions", "200.json"), []byte(`{"pid":`), 0o600)
	fileSessions := filepath.Join(dir, "file")
	os.MkdirAll(fileSessions, 0o700)
	os.WriteFile(filepath.Join(fileSessions, "sessions"), nil, 0o600)
	noRegistry := filepath.Join(dir, "old")
	os.MkdirAll(noRegistry, 0o700)
	id := proc.Identity{PID: 200, Start: "ticks:5"}
	for _, tc := range []struct {
		env         *records.Env // nil: not readable
		detail, fix string
	}{
		{&records.Env{ConfigDir: good}, filepath.Join(good, "sessions") + " readable; registry entry of Claude Code 2.1.330, session s-1", ""},
		{&records.Env{Home: dir}, filepath.Join(dir, ".claude") + " does not exist (yet)", ""},
		{&records.Env{ConfigDir: noRegistry}, noRegistry + " has no session registry (sessions/; older Claude Code keeps none)", ""},
		{&records.Env{ConfigDir: badEntry}, filepath.Join(badEntry, "sessions") + " readable; its entry is not: records: read " + filepath.Join(badEntry, "sessions", "200.json") + ": unexpected end of JSON input", ""},
		{&records.Env{ConfigDir: fileSessions}, filepath.Join(fileSessions, "sessions") + " cannot be read: open " + filepath.Join(fileSessions, "sessions") + ": not a directory",
			"make " + filepath.Join(fileSessions, "sessions") + " a directory this user can read: cac-tmux must run as the user who runs Claude Code"},
		{nil, "not read: proc: environment of pid 200: the process is gone", ""},
	} {
		f := &fakeFinder{env: map[int]records.Env{}}
		if tc.env != nil {
			f.env[200] = *tc.env
		}
		detail, fix := paneRecords(context.Background(), f, id)
		if detail != tc.detail || fix != tc.fix {
			t.Errorf("paneRecords(%+v) = %q, %q\nwant %q, %q", tc.env, detail, fix, tc.detail, tc.fix)
		}
	}
	// an entry of an earlier process with the same pid: none for this one
	f := &fakeFinder{env: map[int]records.Env{200: {ConfigDir: good}}}
	stale := proc.Identity{PID: 200, Start: "ticks:4"}
	if detail, _ := paneRecords(context.Background(), f, stale); !strings.HasPrefix(detail, filepath.Join(good, "sessions")+" readable; no registry entry for pid 200") {
		t.Errorf("paneRecords with a stale entry = %q", detail)
	}
	// a registry without an entry for this pid
	os.Remove(filepath.Join(good, "sessions", "200.json"))
	if detail, _ := paneRecords(context.Background(), f, id); detail != filepath.Join(good, "sessions")+" readable; no registry entry for pid 200 (older Claude Code writes none)" {
		t.Errorf("paneRecords without an entry = %q", detail)
	}
}

func TestZones(t *testing.T) {
	env := func(tz string) func(string) string {
		return func(k string) string {
			if k == "TZ" {
				return tz
			}
			return ""
		}
	}
	c := checkZones(Env{Getenv: env("Asia/Kolkata")})
	if !c.OK || !strings.Contains(c.Detail, "the local zone is TZ=Asia/Kolkata") {
		t.Errorf("checkZones(TZ=Asia/Kolkata) = %+v", c)
	}
	c = checkZones(Env{Getenv: env("Mars/Olympus")})
	if c.OK || !strings.HasPrefix(c.Detail, `TZ="Mars/Olympus" is not a time zone (`) || !strings.Contains(c.Detail, "local times are taken as UTC") ||
		c.Fix != "set TZ to an IANA zone such as Europe/Berlin, or unset it to use /etc/localtime" {
		t.Errorf("checkZones(TZ=Mars/Olympus) = %+v", c)
	}
	c = checkZones(Env{Getenv: env(":/nonexistent/zone")})
	if c.OK || !strings.HasPrefix(c.Detail, `TZ=":/nonexistent/zone" is not a time zone`) {
		t.Errorf("checkZones(TZ=:/nonexistent/zone) = %+v", c)
	}
	broken := func(name string) (*time.Location, error) {
		if name == "Asia/Kolkata" {
			return nil, errors.New("unknown time zone Asia/Kolkata")
		}
		return time.UTC, nil
	}
	c = checkZones(Env{Getenv: env(""), loadLocation: broken})
	if c.OK || c.Detail != "time zone Asia/Kolkata does not load: unknown time zone Asia/Kolkata" || !strings.Contains(c.Fix, "time/tzdata") {
		t.Errorf("checkZones(no zone data) = %+v", c)
	}
}

// The zone check names the local zone's abbreviation at the instant of the doctor's clock.
func TestZonesOnTheClock(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	local := time.Local
	time.Local = berlin
	t.Cleanup(func() { time.Local = local })
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC), "now CEST (UTC+02:00)"},
		{time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC), "now CET (UTC+01:00)"},
	} {
		c := checkZones(Env{Getenv: func(string) string { return "" }, Clock: clocktest.New(tc.at)})
		if !c.OK || !strings.Contains(c.Detail, tc.want) {
			t.Errorf("checkZones at %v = %+v; want %q in its detail", tc.at, c, tc.want)
		}
	}
}

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o600)
	for _, tc := range []struct {
		dir  string
		err  error
		want Check
	}{
		{dir, nil, Check{Name: "state", OK: true, Detail: "the state directory " + dir + " is writable: a 4096-byte file was written, synced to disk and removed"}},
		{filepath.Join(dir, "a", "b"), nil, Check{Name: "state", OK: true,
			Detail: "the state directory " + filepath.Join(dir, "a", "b") + " does not exist yet; in " + dir + " a 4096-byte file was written, synced to disk and removed, so the watcher can create it"}},
		{filepath.Join(file, "cac-tmux"), nil, Check{Name: "state", Detail: "the state directory " + filepath.Join(file, "cac-tmux") + " cannot be written: " + file + " is not a directory",
			Fix: "make " + file + " a directory this user can write, or set XDG_STATE_HOME to one"}},
		{"", errors.New("store: no state directory: set XDG_STATE_HOME or HOME to an absolute path"), Check{Name: "state",
			Detail: "store: no state directory: set XDG_STATE_HOME or HOME to an absolute path", Fix: "set HOME, or XDG_STATE_HOME, to an absolute path"}},
	} {
		if got := checkDir("state", "the state directory", tc.dir, tc.err, "XDG_STATE_HOME"); got != tc.want {
			t.Errorf("checkDir(%s) = %+v\nwant %+v", tc.dir, got, tc.want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".cac-tmux-*")); len(left) != 0 {
		t.Errorf("checkDir left %q behind", left)
	}
}

// TestCheckDirCannotSave: a directory where a file can be created but not saved (a full
// disk, a quota, a file size limit: the write or the sync fails) is a problem, with the
// error and the fix for each. The probe fails through its seam, as root ignores file modes
// (store.TestProbeFileSizeLimit and cmd's TestDoctorCannotSave fail it for real).
func TestCheckDirCannotSave(t *testing.T) {
	dir := t.TempDir()
	defer func(p func(string) error) { probe = p }(probe)
	space := "free space on the file system of " + dir + " (df -h " + dir + "), or raise this user's quota there: " +
		"until then the watcher cannot record what it does, and refuses to send keys"
	for _, tc := range []struct {
		errno syscall.Errno
		fix   string
	}{
		{syscall.ENOSPC, space},
		{syscall.EDQUOT, space},
		{syscall.EFBIG, "raise the file size limit of the shell that starts cac-tmux (ulimit -f unlimited): no file can be written now"},
		{syscall.EIO, "make " + dir + " a directory this user can write, or set XDG_STATE_HOME to one"},
	} {
		file := filepath.Join(dir, ".cac-tmux-probe-1")
		probe = func(d string) error {
			return fmt.Errorf("store: probe %s: %w", d, &os.PathError{Op: "sync", Path: file, Err: tc.errno})
		}
		c := checkDir("state", "the state directory", dir, nil, "XDG_STATE_HOME")
		want := Check{Name: "state", Detail: "the state directory " + dir + " cannot be written: store: probe " + dir + ": sync " + file + ": " + tc.errno.Error(), Fix: tc.fix}
		if c != want {
			t.Errorf("checkDir with the sync failing (%v) = %+v\nwant %+v", tc.errno, c, want)
		}
	}
}

func TestWrite(t *testing.T) {
	r := Report{Checks: []Check{
		{Name: "tmux", OK: true, Detail: "tmux 3.3a"},
		{Name: "panes", Detail: "1 Claude Code pane of 3, 0 supervised; 1 looks like Claude Code but is not taken for it", Fix: "see the fix under each pane"},
		{Name: "watcher", Detail: "no watcher", Fix: "start one"},
	}, Panes: []Pane{
		{Pane: "%1", Target: "w:1.0", Command: "claude", Claude: true, Agent: agent.Claude, How: "H", Note: "excluded", Records: "R"},
		{Pane: "%6", Target: "w:6.0", Command: "node", Claude: true, Agent: agent.Codex, Supervised: true, How: "C"},
		{Pane: "%2", Target: "w:2.0", Command: "claude", LooksLike: true, Why: "W", Problem: true, Fix: "F"},
		{Pane: "%3", Target: "w:3.0", Command: "bash", Why: "B"},
		{Pane: "%4", Target: "w:4.0", Command: "script", Beneath: 301, Why: "U", Problem: true, Fix: "D"},
		{Pane: "%5", Target: "w:5.0", Command: "tmux", Beneath: 61, OtherServer: "/s", Why: "N", Note: "a watcher (pid 7) supervises that server"},
	}}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `ok      tmux: tmux 3.3a
PROBLEM panes: 1 Claude Code pane of 3, 0 supervised; 1 looks like Claude Code but is not taken for it
          fix: see the fix under each pane
          %1 w:1.0 (claude): Claude Code, not supervised: excluded; H
            records: R
          %6 w:6.0 (node): Codex, supervised; C
          %2 w:2.0 (claude): looks like Claude Code but is not taken for it: W
            fix: F
          %3 w:3.0 (bash): not Claude Code: B
          %4 w:4.0 (script): Claude Code out of this pane's reach: U
            fix: D
          %5 w:5.0 (tmux): Claude Code out of this pane's reach: N; a watcher (pid 7) supervises that server
PROBLEM watcher: no watcher
          fix: start one
`
	if b.String() != want {
		t.Errorf("Write() =\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	(Report{OK: true, Checks: []Check{{Name: "tmux", OK: true, Detail: "tmux 3.3a"}}}).Write(&b)
	if b.String() != "ok      tmux: tmux 3.3a\nall is well\n" {
		t.Errorf("Write(all well) = %q", b.String())
	}
}

// TestCapabilities: the server line names the change signal the watcher uses: wait-for -E
// where the server has it and control mode is used (a second control client), else window
// activity, naming pane_last_output_time where it exists but is not used.
func TestCapabilities(t *testing.T) {
	refused := fmt.Errorf("%w: exit-unattached is on", tmuxctl.ErrRefused)
	for _, tc := range []struct {
		k    tmuxctl.Capabilities
		want string
	}{
		{tmuxctl.Capabilities{}, "control mode, output raw, output of Claude panes piped to the watcher (pipe-pane, a cat per pane; a tick with no output sends tmux nothing)"},
		{tmuxctl.Capabilities{LastOutput: true, OutputSignal: true}, "control mode, output raw, output signalled by wait-for -E (a second control client; a tick with no output sends tmux nothing)"},
		{tmuxctl.Capabilities{LastOutput: true, OutputSignal: true, Control: refused},
			"no control mode (exit-unattached is on), every command a process, output raw, changes seen by window activity (pane_last_output_time exists; not used: no cheaper)"},
	} {
		if got := capabilities(tc.k); got != tc.want {
			t.Errorf("capabilities(%+v) =\n %q, want\n %q", tc.k, got, tc.want)
		}
	}
}
