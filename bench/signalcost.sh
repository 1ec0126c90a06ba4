#!/bin/bash
# signalcost: what each way of learning that a pane printed costs the tmux server, side by side
# on one server of N idle panes (one session, one 120x40 window each, `sleep 1d`), with the tmux
# first on PATH. Each way runs alone for SECONDS, first with every pane idle, then with BUSY of
# them printing ten times a second (a spinner); the server's CPU and the CPU of what the way
# runs beside it (its tmux clients, its cat processes) come from /proc. The ways:
#   tick-list   a control client sends, once a second, the watcher's listing of changes on tmux
#               3.2a-3.7 (list-panes -a filtered on window activity, no row printed; the
#               requests option) and its sync line: today's tick;
#   tick-sync   the same client sends only the sync line once a second: the floor of asking;
#   output      one control client attached to the session with output on (ignore-size):
#               tmux writes %output for each pane that prints, unasked (one per session needed);
#   pipe        pipe-pane -O 'exec cat >/dev/null' on every pane: a cat per pane reads what the
#               pane prints (its RSS summed);
#   subscribe   a control client subscribed to every pane's window_activity (refresh-client -B,
#               checked by tmux once a second);
#   wait-E      a control client in `wait-for -E pane-activity`, sent again after each firing
#               (tmux 3.8 only: skipped where wait-for has no -E).
# Run: bash bench/signalcost.sh [N [SECONDS [BUSY]]]
set -eu
N=${1:-1000}; SECS=${2:-20}; BUSY=${3:-3}
d=$(mktemp -d /tmp/sc.XXXX); S=$d/s
cleanup() { jobs -p | xargs -r kill 2>/dev/null; tmux -S "$S" kill-server 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT
export TMUX_TMPDIR=$d; unset TMUX
tmux -S "$S" -f /dev/null new -d -s a -x 120 -y 40 'sleep 1d'
tmux -S "$S" set -g exit-empty off
for i in $(seq 2 "$N"); do echo "new-window -d 'sleep 1d'"; done > "$d/cmds"
[ "$N" -gt 1 ] && tmux -S "$S" source-file "$d/cmds"
pid=$(tmux -S "$S" display -p '#{pid}')
hz=$(getconf CLK_TCK)
ticks() { local t=0 p; for p in "$@"; do [ -r "/proc/$p/stat" ] && t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat"))); done; echo $t; }
pct() { echo "scale=3; $1*100/$hz/$SECS" | bc; }
SEP=$'\x1f'; CL='#{s/[\x01-\x1f]/?/;s/\\/\0\0/:'
FUTURE=$(( $(date +%s) + 86400 ))
FORMAT="#{pane_id}${SEP}#{pane_pid}${SEP}#{window_id}${SEP}#{window_index}${SEP}#{pane_index}${SEP}#{pane_width}${SEP}#{pane_height}${SEP}#{pane_dead}${SEP}#{pane_in_mode}${SEP}#{pane_input_off}${SEP}#{pane_synchronized}${SEP}#{window_activity}${SEP}-1${SEP}${CL}session_name}${SEP}${CL}pane_current_command}${SEP}${CL}@cac_state}${SEP}${CL}pane_title}${SEP}#{?pane_id,#{pane_id},}"
q() { printf "'%s'" "${1//\'/\'\"\'\"\'}"; }
LIST="list-panes -a -f $(q "#{>=:#{window_activity},$FUTURE}") -F $(q "$FORMAT") ; display-message -p $(q "${CL}@cac_requests}")"
has_E() { tmux -S "$S" wait-for -E x 2>&1 | grep -q -v 'unknown flag\|usage' ; }
busy_on() { # BUSY more windows printing ten times a second
  for i in $(seq "$BUSY"); do tmux -S "$S" new-window -d -n busy "while :; do printf '\\r%s' \$RANDOM; sleep 0.1; done"; done; }
busy_off() { tmux -S "$S" list-windows -a -F '#{window_id} #{window_name}' | awk '$2=="busy"{print $1}' | xargs -r -n1 tmux -S "$S" kill-window -t; }
# control client on a fifo; its pid in $cc, its stdin on fd 3
control() { rm -f "$d/in"; mkfifo "$d/in"; tmux -u -N -S "$S" -C attach-session -f "$1" < "$d/in" > "${2:-/dev/null}" & cc=$!; exec 3> "$d/in"; sleep 0.5; }
uncontrol() { exec 3>&-; wait "$cc" 2>/dev/null || true; }
measure() { # way, pids of what runs beside: prints a line
  local a b pa pb; a=$(ticks "$pid"); pa=$(ticks "${@:2}")
  sleep "$SECS"
  b=$(ticks "$pid"); pb=$(ticks "${@:2}")
  printf '%-10s %-5s server %6s %%  beside %6s %%\n' "$1" "$phase" "$(pct $((b-a)))" "$(pct $((pb-pa)))"; }
ticking() { local i; for i in $(seq "$SECS"); do printf '%s\n' "$1" >&3; sleep 1; done; }
way() {
  case $1 in
  none) measure none ;;
  tick-list) control no-output,ignore-size; (ticking "$LIST ; display-message -p sync") & t=$!; measure tick-list "$cc"; wait $t; uncontrol ;;
  tick-sync) control no-output,ignore-size; (ticking "display-message -p sync") & t=$!; measure tick-sync "$cc"; wait $t; uncontrol ;;
  output) control ignore-size; measure output "$cc"; uncontrol ;;
  subscribe) control no-output,ignore-size; printf '%s\n' "refresh-client -B $(q 'act:%*:#{window_activity}')" >&3; measure subscribe "$cc"; uncontrol ;;
  pipe) tmux -S "$S" list-panes -a -F '#{pane_id}' | sed "s/.*/pipe-pane -O -t & 'exec cat >\/dev\/null'/" > "$d/pipes"; tmux -S "$S" source-file "$d/pipes"; sleep 1
    local cats; cats=$(pgrep -P "$pid" -x cat | tr '\n' ' ')
    measure pipe $cats
    echo "           cats: $(echo $cats | wc -w), RSS $(for c in $cats; do awk '/VmRSS/{print $2}' /proc/$c/status; done | awk '{s+=$1} END {printf "%.0f MB", s/1024}'), PSS $(for c in $cats; do awk '/^Pss:/{print $2}' /proc/$c/smaps_rollup 2>/dev/null; done | awk '{s+=$1} END {printf "%.1f MB", s/1024}')"
    tmux -S "$S" list-panes -a -F '#{pane_id}' | sed 's/.*/pipe-pane -t &/' > "$d/pipes"; tmux -S "$S" source-file "$d/pipes" ;;
  wait-E) if ! has_E; then echo "wait-E     (no wait-for -E on this tmux)"; return; fi
    control no-output,ignore-size "$d/out"; (for i in $(seq $((SECS * 20))); do printf 'wait-for -E pane-activity\n' >&3; sleep 0.05; done) & t=$!; measure wait-E "$cc"; kill $t 2>/dev/null; uncontrol ;;
  esac
}
echo "tmux $(tmux -V | cut -d' ' -f2), N=$(tmux -S "$S" list-panes -a | wc -l) panes, ${SECS}s each, busy: $BUSY panes printing 10 times a second"
sleep 3
for phase in idle busy; do
  [ "$phase" = busy ] && busy_on && sleep 1
  for w in none tick-list tick-sync output subscribe pipe wait-E; do way "$w"; done
  [ "$phase" = busy ] && busy_off
done
