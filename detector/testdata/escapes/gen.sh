#!/bin/sh
# Regenerates testdata/escapes/*.ansi: each shared screen is printed, with SGR colours added,
# into a PRIVATE tmux server (its own socket in a short temp dir, no config) and captured with
# `capture-pane -e -p -J`, exactly as a watcher would capture a pane. The default tmux server is
# never used: every tmux call passes -S. Run from this directory:
#
#   sh gen.sh [FIXTURE_DIR]
#
# FIXTURE_DIR defaults to ../../../../shared/fixtures/claude-screens (the shared checkout
# beside the repository). Needs tmux (3.3a was used) and python3.
set -eu
fixtures=${1:-../../../../shared/fixtures/claude-screens}
names="pos-13-v2.1.112-menu-dialog
pos-16-v2.1.250-session-limit-autocontinue-armed
pos-20-v2.1.329-weekly-date-menu
neg-02-v2.1.112-assistant-quotes-limit-line
neg-05-v2.0.76-exited-shell-prompt"

dir=$(mktemp -d /tmp/cx.XXXX) # short: a unix socket path must stay under ~100 bytes
sock=$dir/s
cleanup() {
	tmux -S "$sock" kill-server 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM
export LC_ALL=C.UTF-8

for name in $names; do
	src=$fixtures/$name.txt
	# Colourise without changing the visible text: SGR sequences only.
	#   "  ⎿ …" result lines: dim 256-colour 244 marker, message in bold truecolour red
	#   "● …" / "⏺ …" assistant lines: bullet in 256-colour 75, text default
	#   "───" rules: 256-colour 240; "❯ …" / "> …" prompt and focused-menu lines: bold truecolour
	#   the other indented lines: italic grey; everything else untouched
	python3 - "$src" >"$dir/in" <<'PY'
import sys
E = "\x1b["
out = []
for line in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    s = line.lstrip(" ")
    pad = line[: len(line) - len(s)]
    if s.startswith("⎿"):
        line = pad + E + "2;38;5;244m⎿" + E + "22;39m" + E + "1;38;2;215;119;87m" + s[1:] + E + "0m"
    elif s.startswith(("●", "⏺")):
        line = pad + E + "38;5;75m" + s[0] + E + "39m" + s[1:]
    elif s.startswith("─"):
        line = E + "38;5;240m" + line + E + "0m"
    elif s.startswith(("❯", ">")):
        line = pad + E + "1;38;2;177;185;249m" + s + E + "m"
    elif pad and s:
        line = pad + E + "3;38;5;246m" + s + E + "23;39m"
    out.append(line)
sys.stdout.write("\n".join(out))
PY
	last=$(grep -v '^[[:space:]]*$' "$src" | tail -n 1 | cut -c1-20)
	tmux -S "$sock" -f /dev/null new-session -d -x 120 -y 45 -s gen "cat '$dir/in'; exec sleep 600"
	# Wait (with a deadline, not a fixed sleep) until the last non-blank line is drawn.
	i=0
	until tmux -S "$sock" capture-pane -p -t gen | grep -qF -- "$last"; do
		i=$((i + 1))
		[ "$i" -lt 100 ] || { echo "gen.sh: $name never appeared" >&2; exit 1; }
		sleep 0.1
	done
	tmux -S "$sock" capture-pane -e -p -J -t gen >"$name.ansi"
	tmux -S "$sock" kill-server
	echo "wrote $name.ansi"
done
