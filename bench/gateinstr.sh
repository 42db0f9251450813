#!/bin/sh
# Instructions per raii gate (entry + exit), counted by callgrind: the chain
# of bench/chain.c at each depth, gated minus plain, over events x depth, in
# count-only and timed mode. Deterministic: the same build gives the same
# figures on any machine load. Prints a markdown table.
# usage: bench/gateinstr.sh BUILD_DIR [DEPTH...]   (default depths 2 3 8 12 32)
set -eu
build=$1
shift
[ $# -gt 0 ] || set -- 2 3 8 12 32
exe=$build/bench/gatecost
[ -x "$exe" ] || { echo "gateinstr.sh: $exe not built" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "gateinstr.sh: valgrind not installed" >&2; exit 1; }
n=20000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ir() { # MODE DEPTH TIMING -> instructions inside run_batch (not the warm-up)
	PATHPROF_OUT=/dev/null PATHPROF_TIMING=$3 valgrind --tool=callgrind \
		--toggle-collect=run_batch --callgrind-out-file="$tmp/cg" "$exe" "$1" "$2" "$n" \
		>/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	sed -n 's/^summary: //p' "$tmp/cg"
}
echo "| depth | count-only instr/gate | timed instr/gate |"
echo "|---|---|---|"
for d in "$@"; do
	base=$(ir plain "$d" off)
	off=$(ir gated "$d" off)
	on=$(ir gated "$d" on)
	gates=$((n * d))
	awk -v d="$d" -v b="$base" -v f="$off" -v o="$on" -v g="$gates" \
		'BEGIN { printf "| %d | %.1f | %.1f |\n", d, (f - b) / g, (o - b) / g }'
done
