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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/common/fe_build.sh"
build_fe() { # FE OUT: the example's own sources (clang: xray and the plugin need it)
	fe_build "${CLANG:-clang}" "$1" -O2 "$(echo "$root"/examples/feed/*.c)" "$2"
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
