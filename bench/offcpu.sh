#!/bin/sh
# What off-CPU recording costs per block: bench/switchbench (two gated
# threads handing a token through pipes; each round trip is two blocks and
# two wake-ups) under `pathprof run` and `pathprof run --offcpu`, 7 rounds
# interleaved, medians. Needs root with BPF. Prints both times per round
# trip and the cost per block.
# usage: bench/offcpu.sh BUILD_DIR [ROUND_TRIPS]
set -eu
build=$1
n=${2:-100000}
exe=$build/bench/switchbench
pp=$build/tools/pathprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/plain"
: >"$tmp/offcpu"
for i in 1 2 3 4 5 6 7; do
	for mode in plain offcpu; do
		flag=
		[ $mode = offcpu ] && flag=--offcpu
		# shellcheck disable=SC2086
		PATHPROF_OUT=$tmp/p.pathprof "$pp" run $flag --format paths -o /dev/null -- "$exe" "$n" \
			2>"$tmp/err" | sed -n 's/.*ns_per_rt \([0-9.]*\).*/\1/p' >>"$tmp/$mode"
		grep -q -- '--offcpu:' "$tmp/err" && { cat "$tmp/err" >&2; exit 1; }
	done
done
med() { sort -n "$1" | sed -n 4p; }
awk -v a="$(med "$tmp/plain")" -v b="$(med "$tmp/offcpu")" 'BEGIN {
	printf "round trip (2 blocks): %.0f ns profiled, %.0f ns with --offcpu\n", a, b
	printf "off-CPU recording: %.0f ns per block (median of 7 interleaved runs)\n", (b - a) / 2 }'
