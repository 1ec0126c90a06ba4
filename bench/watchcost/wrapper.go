//go:build linux

// The counting tmux wrapper (wrapperScript) and where it counts.

package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// The wrapper is what the counting watcher finds first in its PATH as "tmux". Per call it
// appends one line to tmp/count/execs: the tmux command (the first argument that is not a
// global flag or a flag's value), or "control-mode-client" for a `tmux -C` client (the
// watcher's is `tmux -u -N -S SOCK -C attach-session -f no-output,ignore-size`), whose input
// it copies to tmp/count/control with tee; then it runs the real tmux. That input is what the
// watcher writes: per command, its command line (every argument single-quoted, several
// commands joined by " ; ") and then a sync line, `display-message -p cac-sync-NONCE-SEQ`,
// whose reply marks the end of the command's; count tells the two apart (controlLine).
const wrapperScript = `#!/bin/sh
# watchcost: log the tmux command of this call, then run the real tmux.
sub= cc= skip=
for a in "$@"; do
	if [ -n "$skip" ]; then skip=; continue; fi
	case $a in
	-[LSfTc]) skip=1 ;;
	-*C*) cc=1 ;;
	-*) ;;
	*) sub=$a; break ;;
	esac
done
if [ -n "$cc" ]; then
	printf 'control-mode-client\n' >>'%[1]s/execs'
	tee -a '%[1]s/control' | '%[2]s' "$@"
	exit $?
fi
printf '%%s\n' "${sub:-(none)}" >>'%[1]s/execs'
exec '%[2]s' "$@"
`

func countDir() string   { return filepath.Join(tmp, "count") }
func wrapperDir() string { return filepath.Join(tmp, "wrap") }

func writeWrapper() error {
	for _, d := range []string{countDir(), wrapperDir()} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for _, f := range []string{"execs", "control"} {
		if err := os.WriteFile(filepath.Join(countDir(), f), nil, 0o644); err != nil {
			return err
		}
	}
	script := fmt.Sprintf(wrapperScript, countDir(), realTmux)
	return os.WriteFile(filepath.Join(wrapperDir(), "tmux"), []byte(script), 0o755)
}
