#!/bin/sh
# cac-tmux.tmux: the tmux plugin of cac-tmux, which resumes Claude Code sessions in tmux panes
# after a usage limit lifts. With TPM, in ~/.tmux.conf:
#
#   set -g @plugin 'cac-tmux/cac-tmux'
#
# Without TPM: run-shell /path/to/cac-tmux/cac-tmux.tmux, after the @cac-tmux-* options (it
# reads them when it runs; TPM runs its plugins at its own last line)
#
# It runs the cac-tmux binary named by @cac-tmux-bin, else cac-tmux on the tmux server's PATH,
# else PLUGIN_DIR/bin/cac-tmux (PLUGIN_DIR: the directory of this file). With none of them,
# scripts/install.sh installs PLUGIN_DIR/bin/cac-tmux in the background (run-shell -b, bounded
# in time): the release for the platform, verified against its checksums.txt; else a build
# with the go on PATH; else it shows the one command to run, kept in @cac_install_hint. Then
# this file runs again and binds its keys. $CAC_TMUX_RELEASE_URL in the server's environment
# replaces https://github.com/cac-tmux/cac-tmux/releases. Or install the binary yourself:
#   make build    (in a clone, Go 1.26: no release or module is published yet)
#
# Options, set before the plugin line:
#   set -g @cac-tmux-key C            prefix + KEY opens the popup of every Claude pane (default C)
#   set -g @cac-tmux-status on        append #(cac-tmux status) to status-right: "⏸ 2 · 1h12m"
#                                     while panes of this server are paused, nothing otherwise
#                                     (default off; the job's $TMUX names this server)
#   set -g @cac-tmux-autostart on     start `cac-tmux watch` in a detached session "_cac-tmux"
#                                     when no watcher runs (default off)
#   set -g @cac-tmux-bin PATH         the cac-tmux binary (default: cac-tmux on PATH, else
#                                     PLUGIN_DIR/bin/cac-tmux, installed when missing)
#
# The settings of cac-tmux itself are tmux options too, read by `cac-tmux watch` at start and
# on SIGHUP; they win over ~/.config/cac-tmux/config.toml (and the flags of watch over them):
#   set -g @cac-tmux-margin 30s                  wait after the reset before resuming
#   set -g @cac-tmux-message 'please continue'   what is typed into a stopped session
#   set -g @cac-tmux-policy-weekly notify        hold weekly stops until cac-tmux resume
#   set -g @cac-tmux-panes-exclude 'scratch, tmp-*'
# `cac-tmux config example` lists every one, `cac-tmux config check` shows what is in effect
# and where it came from, and `cac-tmux doctor` says why a pane is not supervised.
#
# The state of each pane on its border needs no plugin and no process, only the pane options
# a watcher publishes:
#   set -g pane-border-status top
#   set -g pane-border-format ' #{pane_current_command} #{?@cac_state,⏸ #{@cac_state} #{@cac_due},}'

# Every setting in one tmux call, one a line (-u: tmux keeps the newlines only for a UTF-8
# client). A user option set in no scope reads as "".
{
	read -r bin
	read -r key
	read -r status
	read -r autostart
	read -r watcher
	read -r length
	read -r hint
} <<EOF
$(tmux -u display-message -p '#{@cac-tmux-bin}
#{@cac-tmux-key}
#{@cac-tmux-status}
#{@cac-tmux-autostart}
#{@cac_watcher}
#{status-right-length}
#{@cac_install_hint}')
EOF

# show MESSAGE: MESSAGE until the next message or a key press, where display-message has -d
# (tried, not read from tmux -V). stay MESSAGE: the same, kept in @cac_install_hint.
show() {
	tmux display-message -d 0 "$1" 2>/dev/null || tmux display-message "$1"
}
stay() {
	tmux set-option -gq @cac_install_hint "$1"
	show "$1"
}

# The binary, and how tmux command lines name it: plain "cac-tmux" when it is on PATH.
dir=$(CDPATH= cd "$(dirname "$0")" && pwd)
if [ -n "$bin" ]; then
	cmd="'$bin'"
	if [ ! -x "$bin" ]; then
		stay "cac-tmux: no cac-tmux binary at $bin (@cac-tmux-bin); install it with: make -C '$dir' build (Go 1.26; no release is published yet) and point @cac-tmux-bin at $dir/bin/cac-tmux, or unset @cac-tmux-bin"
		exit 0
	fi
elif bin=$(command -v cac-tmux 2>/dev/null) && [ -x "$bin" ]; then
	cmd=cac-tmux
elif [ -x "$dir/bin/cac-tmux" ]; then
	bin=$dir/bin/cac-tmux
	cmd="'$bin'"
elif [ -z "${CAC_TMUX_INSTALLED:-}" ] && [ -f "$dir/scripts/install.sh" ]; then
	# Installed in the background, which then runs this file again; install.sh reports.
	show "cac-tmux: no cac-tmux binary on the tmux server's PATH; installing $dir/bin/cac-tmux in the background"
	tmux run-shell -b "sh '$dir/scripts/install.sh' >/dev/null 2>&1"
	exit 0
else
	stay "cac-tmux: no cac-tmux binary on the tmux server's PATH nor at $dir/bin/cac-tmux; install it with: make -C '$dir' build (Go 1.26; no release is published yet), or set @cac-tmux-bin"
	exit 0
fi
# A binary: the hint of an install that failed before is stale.
[ -z "$hint" ] || tmux set-option -gu @cac_install_hint

# prefix + KEY: the popup on the client that pressed it. display-popup does not expand formats
# in its command (tmux 3.3a), run-shell -C does: #{client_name} becomes the client's name.
tmux bind-key "${key:-C}" run-shell -C "display-popup -E -w 80% -h 60% \"$cmd popup --client '#{client_name}'\""

# The status segment, once: a reload finds it already there.
if [ "$status" = on ]; then
	segment="#($cmd status)"
	case "$(tmux show-option -gqv status-right)" in
	*"$segment"*) ;;
	*) tmux set-option -ga status-right " $segment" \; set-option -g status-right-length $((${length:-40} + 16)) ;;
	esac
fi

# A watcher, unless one runs: a live @cac_watcher pid, or the session this plugin starts it in.
# A second watcher of the server would exit at once anyway (one watcher per server).
if [ "$autostart" = on ]; then
	if ! { [ -n "$watcher" ] && kill -0 "$watcher" 2>/dev/null; } && ! tmux has-session -t '=_cac-tmux' 2>/dev/null; then
		tmux new-session -d -s _cac-tmux -n watch "exec $cmd watch"
	fi
fi
