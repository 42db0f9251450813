#!/bin/sh
# Bytes a trace costs per gate, per injector: the feed example built through
# raii, cyg, xray and the plugin (clang), 20 000 messages recorded with
# PATHPROF_TRACE (timing off, then on), file size over the gate events in it
# (entries plus exits, from 'pathprof replay --chunks'). Deterministic for a
# given build: the same messages, the same gates. Prints a markdown table.
# usage: bench/tracesize.sh BUILD_DIR [MESSAGES]
set -eu
build=$(cd "$1" && pwd)
n=${2:-20000}
root=$(cd "$(dirname "$0")/.." && pwd)
pp=$build/tools/pathprof
plugin=$build/frontends/plugin/pathprof-plugin.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc="-I$root/runtime/include -I$root/frontends/raii -I$root/frontends/plugin"
libs="$build/runtime/libpathprof.a -ldw -lelf -lpthread -ldl -lm"
build_fe() { # FE OUT
	case $1 in
	raii) f="-DFEED_RAII" l= ;;
	cyg) f="-DFEED_PATHPROF -finstrument-functions"
		l="-Wl,--whole-archive $build/frontends/cyg/libpathprof-cyg.a -Wl,--no-whole-archive" ;;
	xray) f="-DFEED_PATHPROF -fxray-instrument -fxray-instruction-threshold=1"
		l="-Wl,--whole-archive $build/frontends/xray/libpathprof-xray.a -Wl,--no-whole-archive" ;;
	plugin) f="-DFEED_PATHPROF -fplugin=$plugin -fpass-plugin=$plugin -mllvm -pathprof-mode=all"
		l=$build/frontends/plugin/libpathprof-plugin.a ;;
	esac
	# shellcheck disable=SC2086
	${CLANG:-clang} -std=gnu11 -O2 $f $inc "$root"/examples/feed/*.c -o "$2" $l $libs
}
echo "| injector | gate events | bytes/gate (timing off) | bytes/gate (timing on) |"
echo "|---|---|---|---|"
for fe in raii cyg xray plugin; do
	build_fe $fe "$tmp/$fe" 2>"$tmp/err" || { echo "| $fe | not built: $(head -1 "$tmp/err") | | |"; continue; }
	row="| $fe"
	for timing in off on; do
		PATHPROF_XRAY=all PATHPROF_TIMING=$timing PATHPROF_OUT=/dev/null PATHPROF_TRACE="$tmp/t" \
			"$tmp/$fe" --seed 42 --messages "$n" >/dev/null
		ev=$("$pp" replay --chunks "$tmp/t" | awk '!/^#/ { s += $5 } END { print s }')
		sz=$(wc -c <"$tmp/t")
		[ "$timing" = on ] || row="$row | $ev"
		row="$row | $(awk -v s="$sz" -v e="$ev" 'BEGIN { printf "%.2f", s / e }')"
	done
	echo "$row |"
done
