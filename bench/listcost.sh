#!/bin/bash
# listcost: what the tmux server spends on the watcher's tmux commands at N panes (sleep 1d,
# one window each; default N=1000), each command sent through a control-mode client as the
# watcher sends it (the command, then its sync line `display-message -p`), 50 times back to
# back ("hot") and then 20 times one a second ("cold", as a watcher ticks: the server's data
# has left the CPU caches in between), 3 rounds. A private server in /tmp; killed after.
# Run: bash bench/listcost.sh [N]
set -eu
N=${1:-1000}
d=$(mktemp -d /tmp/fm.XXXX); S=$d/s
trap 'tmux -S $S kill-server 2>/dev/null; rm -rf $d' EXIT
tmux -S $S -f /dev/null new -d -s a -x 120 -y 40 'sleep 1d'
tmux -S $S set -g exit-empty off
for i in $(seq 2 "$N"); do echo "new-window -d 'sleep 1d'"; done > $d/cmds
[ "$N" -gt 1 ] && tmux -S $S source-file $d/cmds
pid=$(tmux -S $S display -p '#{pid}')
cpu() { awk '{print $14+$15}' /proc/$pid/stat; }
SEP=$'\x1f'
CL='#{s/[\x01-\x1f]/?/:'
NOW=$(( $(date +%s) + 3600 )) # a listing of changes after every activity: no row
FULL="#{pane_id}${SEP}#{pane_pid}${SEP}#{window_id}${SEP}#{window_index}${SEP}#{pane_index}${SEP}#{pane_width}${SEP}#{pane_height}${SEP}#{pane_dead}${SEP}#{pane_in_mode}${SEP}#{pane_input_off}${SEP}#{pane_synchronized}${SEP}#{window_activity}${SEP}#{?#{e|>=:#{window_activity},$NOW},x,-2}${SEP}#{session_name}${SEP}${CL}pane_current_command}${SEP}${CL}@cac_state}${SEP}${CL}@cac_reset}${SEP}${CL}@cac_due}${SEP}${CL}@cac_kind}${SEP}${CL}@cac_zone}${SEP}${CL}@cac_note}${SEP}#{pane_title}"
q() { printf "'%s'" "${1//\'/\'\"\'\"\'}"; }
# name, command line (control-mode syntax); hot: 50 in a row; cold: 20, one a second
measure() {
  mkfifo $d/in
  tmux -u -N -S $S -C attach-session -f no-output,ignore-size < $d/in > /dev/null & cc=$!
  exec 3> $d/in
  sleep 0.5
  local a=$(cpu)
  for i in $(seq 50); do printf '%s\ndisplay-message -p sync\n' "$2" >&3; done
  sleep 1; local b=$(cpu)
  for i in $(seq 20); do printf '%s\ndisplay-message -p sync\n' "$2" >&3; sleep 1; done
  local c=$(cpu)
  exec 3>&-; wait $cc 2>/dev/null || true; rm -f $d/in
  echo "$1: hot $(( (b-a)*10*1000/50 )) us, cold $(( (c-b)*10*1000/20 )) us of server CPU a command"
}
echo "N=$N panes: $(tmux -S $S list-panes -a | wc -l)"
for r in 1 2 3; do
  measure "sync line only (display-message)" "display-message -p x"
  measure "listing of changes, quiet (list-panes -a -f, no row; + @cac_requests)" "list-panes -a -f $(q "#{>=:#{window_activity},$NOW}") -F $(q "$FULL") ; display-message -p $(q '#{@cac_requests}')"
  measure "full listing (list-panes -a, the watcher's format)" "list-panes -a -F $(q "$FULL")"
done
