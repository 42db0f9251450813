#!/bin/sh
# Instructions per gate, deterministic where timings are noisy: runs each
# variant of `gatecost --count` under callgrind at two call counts and divides
# the difference of the totals, so start-up and exit costs cancel out.
# Usage: callgrind.sh GATECOST [--quick]
set -eu
exe=$1
k1=2000 k2=22000
[ "${2:-}" = --quick ] && k2=7000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Valgrind caps the address space below the runtime's default arena reserve.
export PATHPROF_ARENA_MB=256

# total instructions of one run; any runtime warning (profiling off) is fatal
ir() {
	valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$exe" --count "$@" >"$tmp/log" 2>&1 || {
		echo "callgrind.sh: valgrind failed on gatecost --count $*:" >&2
		cat "$tmp/log" >&2
		exit 1
	}
	if grep -q '^pathprof:' "$tmp/log"; then
		echo "callgrind.sh: gatecost --count $* under valgrind:" >&2
		grep '^pathprof:' "$tmp/log" >&2
		exit 1
	fi
	awk '$1 == "totals:" || $1 == "summary:" { print $2; exit }' "$tmp/out"
}

# instructions per call of one variant
per_call() {
	a=$(ir "$1" "$2" $k1)
	b=$(ir "$1" "$2" $k2)
	awk -v a="$a" -v b="$b" -v n=$((k2 - k1)) 'BEGIN { printf "%.2f", (b - a) / n }'
}

echo "| tree | mode | gates/call | baseline instr/call | gated instr/call | instr/gate |"
echo "|---|---|---:|---:|---:|---:|"
for tree in d2 d4; do
	case $tree in d2) gates=3 name="depth 2" ;; d4) gates=15 name="depth 4" ;; esac
	echo "callgrind.sh: $name ..." >&2
	base=$(per_call $tree plain)
	for mode in off on sample:64; do
		case $mode in off) label=count-only ;; on) label=timed ;; *) label="sampled 1/64" ;; esac
		g=$(per_call $tree $mode)
		awk -v b="$base" -v g="$g" -v n=$gates -v t="$name" -v m="$label" \
			'BEGIN { printf "| %s | %s | %d | %.2f | %.2f | %.2f |\n", t, m, n, b, g, (g - b) / n }'
	done
done
echo
echo "Instructions from valgrind --tool=callgrind, difference of $k2 and $k1 calls."
