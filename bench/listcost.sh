#!/bin/bash
# listcost: tmux server CPU per `list-panes -a` of 500 panes (sleep 1d) for the format the
# watcher uses and cheaper variants, 50 listings each, 3 rounds; figures include the exec of
# one tmux client per listing (the "id" row: about 2-4 ms). A private server in /tmp; killed after.
# Run: bash bench/listcost.sh
set -eu
d=$(mktemp -d /tmp/fm.XXXX); S=$d/s
tmux -S $S -f /dev/null new -d -s a -x 120 -y 40 'sleep 1d'
tmux -S $S set -g exit-empty off
for i in $(seq 2 500); do echo "new-window -d 'sleep 1d'"; done > $d/cmds
tmux -S $S source-file $d/cmds
pid=$(tmux -S $S display -p '#{pid}')
cpu() { awk '{print $14+$15}' /proc/$pid/stat; }
SEP=$'\x1f'
measure() { # name format
  local a=$(cpu); for i in $(seq 50); do tmux -S $S list-panes -a -F "$2" >/dev/null; done; local b=$(cpu)
  echo "$1: $(( (b-a)*10*1000/50 )) us/listing (server, $(tmux -S $S list-panes -a -F "$2" | wc -c) bytes)"
}
tmux -S $S list-panes -a | wc -l
CL='#{s/[\x01-\x1f]/?/:'
NOW=$(( $(date +%s) + 100 ))
FULL="#{pane_id}${SEP}#{pane_pid}${SEP}#{window_id}${SEP}#{window_index}${SEP}#{pane_index}${SEP}#{pane_width}${SEP}#{pane_height}${SEP}#{pane_dead}${SEP}#{pane_in_mode}${SEP}#{pane_input_off}${SEP}#{pane_synchronized}${SEP}#{window_activity}${SEP}#{?#{e|>=:#{window_activity},$NOW},x,-2}${SEP}#{session_name}${SEP}${CL}pane_current_command}${SEP}${CL}@cac_state}${SEP}${CL}@cac_reset}${SEP}${CL}@cac_due}${SEP}${CL}@cac_kind}${SEP}${CL}@cac_zone}${SEP}${CL}@cac_note}${SEP}#{pane_title}"
NOCLEAN="${FULL//\#\{s\/\[\\x01-\\x1f\]\/?\/:/#\{}"
NOCMD="${NOCLEAN//\#\{pane_current_command\}/x}"
for r in 1 2 3; do
measure full "$FULL"
measure noclean "$NOCLEAN"
measure noclean-nocmd "$NOCMD"
measure brief "#{?#{e|>=:#{window_activity},$NOW},$FULL,#{pane_id}}"
measure id "#{pane_id}"
done
tmux -S $S kill-server; rm -rf $d
