#!/bin/sh
# scripts/install.sh: installs the cac-tmux binary the plugin runs, as PLUGIN_DIR/bin/cac-tmux
# (PLUGIN_DIR is the directory of cac-tmux.tmux, the parent of this script's). The plugin
# (cac-tmux.tmux) starts it in the background (run-shell -b) when it finds no binary; it
# never runs in the foreground of tmux. In order:
#
#  1. the release for this platform: the plugin checkout's tag (git describe --tags
#     --exact-match), else the latest release; its checksums.txt names the archive
#     cac-tmux_VERSION_OS_ARCH.tar.gz (as `make dist` makes them) and its sha256. The archive
#     is fetched with curl or wget, refused unless its sha256 is the one checksums.txt gives,
#     and only its member cac-tmux is unpacked. Nothing downloaded runs but that binary, once
#     verified (`cac-tmux version`, to see that it runs here). A wrong checksum stops the
#     install: nothing is installed, whatever the next steps could do.
#  2. else a build with the go on PATH, when it is as new as go.mod's go line:
#     go build -o PLUGIN_DIR/bin/cac-tmux ./cmd/cac-tmux, in PLUGIN_DIR (GOTOOLCHAIN=local:
#     no toolchain is downloaded).
#  3. else the one command to run, shown until a key is pressed and kept in the global user
#     option @cac_install_hint.
#
# Each step is bounded in time, and the outcome is reported with display-message; after an
# install the plugin runs again and binds its keys. The releases are looked up under
# $CAC_TMUX_RELEASE_URL (the tmux server's environment: set-environment -g), else
# https://github.com/cac-tmux/cac-tmux/releases (.../download/TAG/FILE, .../latest/download/FILE);
# file:// URLs work with curl. (No @cac-tmux-… option: `cac-tmux watch` refuses one it does
# not know, hence also the hint's @cac_ name, as the options the watcher publishes.) The log
# of the last run is PLUGIN_DIR/bin/install.log. It exits 0 whatever happens, having said
# what: tmux shows a job's other exit status in the pane.
set -u

releases=https://github.com/cac-tmux/cac-tmux/releases
fetch_timeout=300 # seconds, each download
build_timeout=900 # seconds, the go build (modules to download on a first build)
run_timeout=10    # seconds, the downloaded binary's `version`

dir=$(CDPATH= cd "$(dirname "$0")/.." && pwd) || exit 0
bindir=$dir/bin
work=$bindir/.install # the lock, and the work directory of the install that holds it
log=$bindir/install.log

# say MESSAGE: a message on the tmux client until the next one or a key press, where
# display-message has -d (3.2 and later; tried, not read from tmux -V), else for display-time.
# Every message before the last is shown so: a message for display-time would clear any
# shown after it before its time is up (its timer survives it, measured on tmux 3.2a to 3.7c).
say() {
	tmux display-message -d 0 "cac-tmux: $1" >/dev/null 2>&1 ||
		tmux display-message "cac-tmux: $1" >/dev/null 2>&1
	note "$1"
}

note() { printf '%s\n' "$1" >>"$log" 2>/dev/null; }

# give_up WHY: the one command to run, then why none of the steps installed a binary, shown
# until a key is pressed and kept in @cac_install_hint; exit. refuse WHY: the same, why
# first.
give_up() {
	hint="run: cd '$dir' && GOBIN='$bindir' go install ./cmd/cac-tmux (Go $need or later, https://go.dev/dl), then prefix + I; $1"
	tmux set-option -gq @cac_install_hint "cac-tmux: $hint" >/dev/null 2>&1
	say "$hint"
	exit 0
}
refuse() {
	hint="$1; or run: cd '$dir' && GOBIN='$bindir' go install ./cmd/cac-tmux (Go $need or later), then prefix + I"
	tmux set-option -gq @cac_install_hint "cac-tmux: $hint" >/dev/null 2>&1
	say "$hint"
	exit 0
}

# bounded SECONDS COMMAND...: COMMAND, terminated once it runs longer than SECONDS; its exit
# status (124 or 143 after a timeout). timeout(1) is not on every system (macOS).
bounded() {
	secs=$1
	shift
	if command -v timeout >/dev/null 2>&1; then
		timeout "$secs" "$@"
		return
	fi
	"$@" &
	pid=$!
	(
		trap 'kill "$sp" 2>/dev/null; exit 0' TERM
		sleep "$secs" &
		sp=$!
		wait "$sp" && kill -TERM "$pid" 2>/dev/null
	) >/dev/null 2>&1 &
	dog=$!
	wait "$pid"
	rc=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	return "$rc"
}

# fetch URL FILE: URL into FILE with curl or wget, bounded; on failure $err says why.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		bounded "$fetch_timeout" curl -fsSL --proto-redir =https --connect-timeout 20 --max-time "$fetch_timeout" -o "$2" "$1" 2>"$work/err"
	elif command -v wget >/dev/null 2>&1; then
		bounded "$fetch_timeout" wget -q -T 30 -O "$2" "$1" 2>"$work/err"
	else
		echo "neither curl nor wget on PATH" >"$work/err"
		false
	fi
	rc=$?
	[ "$rc" -eq 0 ] && return 0
	err=$(grep . "$work/err" | tail -n 1)
	case $rc in
	124 | 143) err="no answer in ${fetch_timeout}s" ;;
	8) [ -n "$err" ] || err="the server answered with an error (wget exit 8)" ;;
	esac
	[ -n "$err" ] || err="exit $rc"
	return 1
}

# sha256 FILE: the file's SHA-256 in lower-case hex.
sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1"
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1"
	elif command -v openssl >/dev/null 2>&1; then
		openssl dgst -sha256 "$1" | sed 's/.*= *//'
	else
		return 1
	fi | sed 's/[^0-9a-fA-F].*//' | tr A-F a-f
}

# gover VERSION: "MAJOR MINOR PATCH" of a Go version (go1.26.8, 1.26.0, go1.20 = 1.20.0); a
# prerelease (go1.26rc1) comes before its .0 (patch -1).
gover() {
	v=${1#go}
	num=${v%%[!0-9.]*}
	major=${num%%.*}
	rest=${num#"$major"}
	rest=${rest#.}
	minor=${rest%%.*}
	patch=${rest#"$minor"}
	patch=${patch#.}
	patch=${patch%%.*}
	if [ -z "$patch" ]; then
		patch=0
		[ "$num" = "$v" ] || patch=-1
	fi
	echo "${major:-0} ${minor:-0} $patch"
}

# goatleast HAVE NEED: whether Go version HAVE is NEED or later.
goatleast() {
	set -- $(gover "$1") $(gover "$2")
	[ "$1" -gt "$4" ] || { [ "$1" -eq "$4" ] && { [ "$2" -gt "$5" ] || { [ "$2" -eq "$5" ] && [ "$3" -ge "$6" ]; }; }; }
}

# installed HOW: the binary in $work/cac-tmux becomes bin/cac-tmux; the plugin runs again
# (CAC_TMUX_INSTALLED: it starts no other install) and binds its keys.
installed() {
	mv -f "$work/cac-tmux" "$bindir/cac-tmux" || give_up "cannot move the binary into $bindir"
	tmux set-option -gqu @cac_install_hint >/dev/null 2>&1
	tmux display-message "cac-tmux: installed $bindir/cac-tmux ($1)" >/dev/null 2>&1
	note "installed $bindir/cac-tmux ($1)"
	CAC_TMUX_INSTALLED=1 sh "$dir/cac-tmux.tmux" >/dev/null 2>&1
	exit 0
}

mkdir -p "$bindir" || {
	say "cannot create $bindir: install cac-tmux with make build in a clone of it"
	exit 0
}
# One install at a time: the plugin runs on every start and reload of tmux.conf.
if ! mkdir "$work" 2>/dev/null; then
	pid=$(cat "$work/pid" 2>/dev/null)
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		exit 0 # the running install reports
	fi
	rm -rf "$work"
	mkdir "$work" || exit 0
fi
echo $$ >"$work/pid"
trap 'rm -rf "$work"' EXIT
trap 'say "the install of $bindir/cac-tmux was interrupted; prefix + I starts it again"; exit 0' HUP INT TERM
: >"$log"

need=$(sed -n 's/^go  *\([0-9][0-9a-z.]*\).*/\1/p' "$dir/go.mod" 2>/dev/null | head -n 1)
need=${need:-1.26.0}
tag=$(git -C "$dir" describe --tags --exact-match 2>/dev/null) || tag=
case $tag in *[!A-Za-z0-9._+-]*) tag= ;; esac

case $(uname -s) in
Linux) os=linux ;;
Darwin) os=darwin ;;
*) os=$(uname -s | tr A-Z a-z) ;;
esac
case $(uname -m) in
x86_64 | amd64) arch=amd64 ;;
aarch64 | arm64) arch=arm64 ;;
*) arch=$(uname -m) ;;
esac

# 1. The release.
base=${CAC_TMUX_RELEASE_URL:-$releases}
base=${base%/}
if [ -n "$tag" ]; then
	url=$base/download/$tag
	release="release $tag"
else
	url=$base/latest/download
	release="latest release"
fi
why=
if [ -z "$(sha256 /dev/null 2>/dev/null)" ]; then
	why="no sha256sum, shasum or openssl to verify a download"
else
	say "downloading the $release for $os/$arch"
	if ! fetch "$url/checksums.txt" "$work/checksums.txt"; then
		why="no $release at $url/checksums.txt ($err)"
	else
		want= name=
		while read -r sum file rest; do
			file=${file#\*}
			case $file in cac-tmux_*_"${os}_${arch}".tar.gz) ;; *) continue ;; esac
			case $file in */* | *[!A-Za-z0-9._+-]*) continue ;; esac
			case $sum in *[!0-9a-fA-F]*) continue ;; esac
			[ "${#sum}" -eq 64 ] || continue
			want=$(printf %s "$sum" | tr A-F a-f) name=$file
			break
		done <"$work/checksums.txt"
		if [ -z "$name" ]; then
			why="the $release has no archive for $os/$arch ($url/checksums.txt)"
		elif ! fetch "$url/$name" "$work/$name"; then
			why="could not download $url/$name ($err)"
		else
			got=$(sha256 "$work/$name")
			if [ "$got" != "$want" ]; then
				rm -f "$work/$name"
				refuse "refused $url/$name: its sha256 is $got, checksums.txt says $want; nothing installed"
			fi
			mkdir "$work/x" &&
				tar -xzf "$work/$name" -C "$work/x" cac-tmux 2>"$work/err" &&
				[ -f "$work/x/cac-tmux" ] && [ ! -h "$work/x/cac-tmux" ] ||
				refuse "the verified archive $name holds no file cac-tmux ($(grep . "$work/err" | tail -n 1)); nothing installed"
			chmod 755 "$work/x/cac-tmux"
			if out=$(bounded "$run_timeout" "$work/x/cac-tmux" version 2>&1); then
				mv "$work/x/cac-tmux" "$work/cac-tmux"
				installed "$name, sha256 verified: $(printf %s "$out" | head -n 1)"
			fi
			why="the verified $name does not run here ($(printf %s "$out" | tail -n 1))"
		fi
	fi
fi
note "$why"

# 2. A build with the go on PATH.
if ! command -v go >/dev/null 2>&1; then
	give_up "$why; go is not on the tmux server's PATH"
fi
set -- $(GOTOOLCHAIN=local go version 2>/dev/null)
have=${3:-}
[ "$have" = devel ] && have=${4:-}
if [ -z "$have" ] || ! goatleast "$have" "$need"; then
	give_up "$why; the go on PATH ($(command -v go), ${have:-no version}) is older than go.mod's $need"
fi
if [ ! -f "$dir/go.mod" ] || [ ! -d "$dir/cmd/cac-tmux" ]; then
	give_up "$why; $dir holds no source to build"
fi
say "building $bindir/cac-tmux with $have (a minute or two)"
(
	cd "$dir" &&
		GOTOOLCHAIN=local CGO_ENABLED=0 &&
		export GOTOOLCHAIN CGO_ENABLED &&
		bounded "$build_timeout" go build -o "$work/cac-tmux" ./cmd/cac-tmux
) >"$work/build.log" 2>&1
rc=$?
[ "$rc" -eq 0 ] && installed "built with $have"
cat "$work/build.log" >>"$log"
case $rc in
124 | 143) last="no build in ${build_timeout}s" ;;
*) last=$(grep . "$work/build.log" | tail -n 1) ;;
esac
give_up "$why; go build failed: ${last:-exit $rc} (the log: $log)"
