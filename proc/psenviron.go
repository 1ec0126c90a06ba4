package proc

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cac-tmux/cac-tmux/records"
)

// psEnvironArgs asks ps for one process's arguments followed by its environment: the BSD
// option "e" (procps, and the BSDs, which read a first argument without "-" as BSD options),
// no truncation (ww), and the command column alone, without header.
func psEnvironArgs(pid int) []string {
	return []string{"eww", "-p", strconv.Itoa(pid), "-o", "command="}
}

// parsePSEnviron reads records.Env from the output of ps with psEnvironArgs, given the
// process's args column from the listing (psEnvVars).
func parsePSEnviron(out, args string) (records.Env, error) {
	vars, err := psEnvVars(out, args, "CLAUDE_CONFIG_DIR", "HOME", "CODEX_HOME")
	if err != nil {
		return records.Env{}, err
	}
	return records.Env{ConfigDir: vars["CLAUDE_CONFIG_DIR"], Home: vars["HOME"], CodexHome: vars["CODEX_HOME"]}, nil
}

// psEnvVars reads the variables names from ps's output with psEnvironArgs, given the process's
// args column; a variable not set is missing from the map. procps prints the environment after
// argv, FreeBSD before, so args must be found whole at one end or the output is not trusted
// (pid reused, argv changed). An entry starts at each space followed by NAME= (a letter or "_",
// then letters, digits, "_", "." or "-"): a value holding " NAME=" splits there and trailing
// spaces are lost. So a name seen twice is an error, and a wrong value can only point at
// records that do not name the process.
func psEnvVars(out, args string, names ...string) (map[string]string, error) {
	line := strings.TrimSpace(strings.TrimSuffix(out, "\n"))
	args = strings.TrimSpace(args)
	if strings.ContainsAny(line, "\n\x00") {
		return nil, errors.New("ps: more than one line")
	}
	var text string
	switch {
	case args == "":
		return nil, errors.New("ps: no arguments to find")
	case line == args:
		return map[string]string{}, nil
	case strings.HasPrefix(line, args+" "):
		text = line[len(args)+1:]
	case strings.HasSuffix(line, " "+args):
		text = line[:len(line)-len(args)-1]
	default:
		return nil, fmt.Errorf("ps: %.80q does not show the arguments %.80q", line, args)
	}
	vars := make(map[string]string)
	key := ""
	var value strings.Builder
	flush := func() error {
		if slices.Contains(names, key) {
			if _, seen := vars[key]; seen {
				return fmt.Errorf("ps: %s twice in the environment", key)
			}
			vars[key] = value.String()
		}
		value.Reset()
		return nil
	}
	for i, tok := range strings.Split(text, " ") {
		name, val, ok := strings.Cut(tok, "=")
		switch {
		case ok && isEnvName(name):
			if err := flush(); err != nil {
				return nil, err
			}
			key = name
			value.WriteString(val)
		case i == 0:
			return nil, fmt.Errorf("ps: environment %.40q does not start with NAME=", text)
		default:
			value.WriteString(" " + tok)
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return vars, nil
}

// isEnvName reports whether s reads as the name of an environment variable in ps's output.
func isEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}
