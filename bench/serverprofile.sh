#!/bin/bash
# serverprofile: where the tmux server's time goes while `cac-tmux watch` watches N idle fake
# Claude Code panes (one session, one 120x40 window each, the bench's tmux.conf). Uses the
# tmux first on PATH (build it with symbols: ../shared/tools/tmux-build.sh keeps them) and
# perf(1) on the server's process (user space; perf_event_paranoid ≤ 2 suffices for one's own
# process). Prints the server's CPU with nothing watching and while watched, then perf's
# flat profile of the watched window. Extra arguments go to `cac-tmux watch`.
# Run: bash bench/serverprofile.sh [N [SECONDS [WATCH ARGS…]]]
set -eu
N=${1:-1000}; SECS=${2:-30}; shift $(( $# > 2 ? 2 : $# ))
root=$(cd "$(dirname "$0")/.." && pwd)
d=$(mktemp -d /tmp/sp.XXXX); S=$d/s
cleanup() { [ -n "${w:-}" ] && kill "$w" 2>/dev/null; tmux -S "$S" kill-server 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT
export TMUX_TMPDIR=$d XDG_STATE_HOME=$d/state XDG_RUNTIME_DIR=$d/run; unset TMUX
mkdir -m 700 "$d/state" "$d/run"
(cd "$root" && go build -o "$d/bin/cac-tmux" ./cmd/cac-tmux && go build -o "$d/bin/claude" ./internal/fakeclaude)
printf 'set -g exit-empty off\nset -g default-shell /bin/sh\nset -g history-limit 100\n' > "$d/tmux.conf"
tmux -S "$S" -f "$d/tmux.conf" new-session -d -s bench -x 120 -y 40 "$d/bin/claude" --scenario idle
for i in $(seq 2 "$N"); do echo "new-window -d -t bench: '$d/bin/claude' --scenario idle"; done > "$d/cmds"
[ "$N" -gt 1 ] && tmux -S "$S" source-file "$d/cmds"
pid=$(tmux -S "$S" display -p '#{pid}')
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
pct() { echo "scale=3; ($2-$1)*100/$hz/$3" | bc; }
sleep 10 # every fake draws its screen, then prints nothing
a=$(cpu "$pid"); sleep 10; b=$(cpu "$pid")
echo "tmux $(tmux -V | cut -d' ' -f2), N=$(tmux -S "$S" list-panes -a | wc -l) panes: server alone $(pct "$a" "$b" 10) % of a core"
"$d/bin/cac-tmux" watch -S "$S" --interval 1s "$@" > "$d/watch.log" 2>&1 & w=$!
sleep 15 # its first look at every pane
grep -E "piped|signal|error" "$d/watch.log" | head -3 || true # how it learns of output
a=$(cpu "$pid"); wa=$(cpu "$w")
perf record -q -F 4999 -o "$d/perf.data" -p "$pid" -- sleep "$SECS" 2>/dev/null
b=$(cpu "$pid"); wb=$(cpu "$w")
echo "watched: server $(pct "$a" "$b" "$SECS") %, watcher $(pct "$wa" "$wb" "$SECS") % of a core over ${SECS}s"
perf report -q -i "$d/perf.data" --no-children --sort symbol --percent-limit 1 2>/dev/null | grep -v "^$" | head -40
