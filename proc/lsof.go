package proc

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// lsofEnv is lsof's whole environment: the C locale, so that it escapes every byte outside
// printable ASCII in names (a newline in a path is printed as `\n`: one line per field).
var lsofEnv = []string{"LC_ALL=C"}

// lsofArgs asks lsof for the program text (txt) and working directory (cwd) of the pids, and
// their command names, as fields (-F): a line "p<pid>", "c<command>", then per file "f<fd>",
// "t<type>", "n<name>". -w: no warnings on stderr, so that a message there is an error. -b
// and -O: no stat(2) of mount points, and no helper process for the calls that might block,
// which costs lsof 4.95 a close(2) for every possible descriptor (20,000 of them here): it
// runs in a third of the time, and a call that blocks all the same (a hung NFS mount) is
// bounded by runTool's deadline. +c 0: the whole command name.
func lsofArgs(pids []int) []string {
	list := make([]string, len(pids))
	for i, pid := range pids {
		list[i] = strconv.Itoa(pid)
	}
	return []string{"-w", "-b", "-O", "+c", "0", "-a", "-p", strings.Join(list, ","), "-d", "txt,cwd", "-F", "pcftn"}
}

// lsofProc is what lsof tells of one process.
type lsofProc struct {
	comm string // its command name (comm), as lsof escapes it
	exe  string // its program text: the path of its first txt file, "" when not a usable path
	cwd  string // its working directory, "" when not a usable path
}

// runLsof returns what lsof tells of the pids, from f.lsof when set. A pid it does not list
// (gone, another user's process where lsof cannot look) is missing from the map. lsof exits 1
// when a pid it was asked about is gone, and prints nothing on stderr then (-w): that is an
// answer; any other failure is an error.
func (f *Finder) runLsof(ctx context.Context, pids []int) (map[int]lsofProc, error) {
	var out string
	var err error
	if f.lsof != nil {
		if out, err = f.lsof(ctx, pids); err != nil {
			return nil, fmt.Errorf("lsof: %w", err)
		}
	} else {
		var stderr string
		out, stderr, err = runTool(ctx, "lsof", lsofArgs(pids), lsofEnv)
		var exit *exec.ExitError
		if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1 && stderr == "") {
			return nil, err
		}
	}
	procs, err := parseLsof(out)
	if err != nil {
		return nil, fmt.Errorf("lsof: %w", err)
	}
	for pid := range procs {
		if !slices.Contains(pids, pid) {
			return nil, fmt.Errorf("lsof: listed pid %d, which it was not asked about", pid)
		}
	}
	return procs, nil
}

// parseLsof parses the output of lsof with lsofArgs strictly: a line it does not expect
// (another field, a field out of its place, a descriptor it was not asked for, an empty or a
// repeated line) makes the whole output an error, never a guess.
func parseLsof(out string) (map[int]lsofProc, error) {
	l := lsofParser{procs: make(map[int]lsofProc)}
	for line := range strings.Lines(out) {
		if err := l.line(strings.TrimSuffix(line, "\n")); err != nil {
			return nil, err
		}
	}
	if err := l.endProc(); err != nil {
		return nil, err
	}
	return l.procs, nil
}

// lsofParser is parseLsof's state.
type lsofParser struct {
	procs map[int]lsofProc
	pid   int // the process being read; 0 before the first "p" line
	p     lsofProc

	hasComm, txtSeen, cwdSeen bool

	// The file set being read: fd "" when none.
	fd, typ, name   string
	hasTyp, hasName bool
}

func (l *lsofParser) line(line string) error {
	if line == "" {
		return errors.New("an empty line")
	}
	val := line[1:]
	switch line[0] {
	case 'p':
		if err := l.endProc(); err != nil {
			return err
		}
		n, ok := atoi([]byte(val))
		if _, dup := l.procs[n]; !ok || n <= 0 || dup {
			return fmt.Errorf("bad or repeated pid line %.40q", line)
		}
		l.pid, l.p, l.hasComm, l.txtSeen, l.cwdSeen = n, lsofProc{}, false, false, false
	case 'c':
		if l.pid == 0 || l.hasComm || l.fd != "" || l.txtSeen || l.cwdSeen {
			return fmt.Errorf("command line out of place %.40q", line)
		}
		l.p.comm, l.hasComm = val, true
	case 'f':
		if l.pid == 0 || (val != "txt" && val != "cwd") {
			return fmt.Errorf("unexpected file line %.40q", line)
		}
		if err := l.endFile(); err != nil {
			return err
		}
		l.fd = val
	case 't':
		if l.fd == "" || l.hasTyp {
			return fmt.Errorf("type line out of place %.40q", line)
		}
		l.typ, l.hasTyp = val, true
	case 'n':
		if l.fd == "" || l.hasName {
			return fmt.Errorf("name line out of place %.40q", line)
		}
		l.name, l.hasName = val, true
	default:
		return fmt.Errorf("unexpected line %.40q", line)
	}
	return nil
}

// endFile ends the file set being read.
func (l *lsofParser) endFile() error {
	switch {
	case l.fd == "txt" && !l.txtSeen:
		// The first txt is the program text: lsof lists /proc/PID/exe on Linux, the text
		// vnode on the BSDs, and the mapped files in address order on macOS, where the
		// program comes before dyld and the libraries.
		l.txtSeen = true
		if path, ok := lsofPath(l.name); ok && l.typ == "REG" {
			l.p.exe = path
		}
	case l.fd == "cwd":
		if l.cwdSeen {
			return errors.New("two cwd files")
		}
		l.cwdSeen = true
		if path, ok := lsofPath(l.name); ok && l.typ == "DIR" {
			l.p.cwd = path
		}
	}
	l.fd, l.typ, l.name, l.hasTyp, l.hasName = "", "", "", false, false
	return nil
}

// endProc ends the process being read.
func (l *lsofParser) endProc() error {
	if err := l.endFile(); err != nil {
		return err
	}
	if l.pid != 0 {
		l.procs[l.pid] = l.p
	}
	return nil
}

// lsofPath is the path in a name lsof printed, when it is a plain absolute path. lsof
// appends notes to a name: " (deleted)" for a removed file (as /proc/PID/exe does; dropped,
// as procfs.exe drops it), and others such as " (readlink: Permission denied)" or
// " (stat: …)" for a file it could not look at. A name with any other " (" in it is not taken
// for a path, so that a note cannot pass for a part of one; a real path with " (" in it is
// then not known, and never Claude Code's.
func lsofPath(name string) (string, bool) {
	name = strings.TrimSuffix(name, " (deleted)")
	if !strings.HasPrefix(name, "/") || strings.Contains(name, " (") {
		return "", false
	}
	return name, true
}
