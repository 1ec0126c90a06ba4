//go:build linux

// The counting tmux wrapper (wrapperScript) and where it counts.

package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// The wrapper is what the counting watcher finds first in its PATH as "tmux": per call it
// appends to tmp/count/execs the tmux command (the first argument that is not a global flag or
// its value), or "control-mode-client" for `tmux -C`, whose input it tees to tmp/count/control,
// then runs the real tmux. That input is, per command, its command line and a sync line
// `display-message -p cac-sync-NONCE-SEQ`; count tells the two apart (controlLine).
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
