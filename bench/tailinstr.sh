#!/bin/sh
# Instructions per gate on a parser whose small functions end in tail calls
# (bench/tailparse.c, clang -O2), for the cyg and xray injectors, counted by
# callgrind inside parse(): gated minus plain, over the gates a cyg run
# counts (entries below parse); xray once more built as
# `pathprof-cc --xray-no-tail-calls` builds it (-fno-optimize-sibling-calls),
# against the same plain build. Deterministic. Prints a markdown table.
# Another program the same way: SOURCE, the function FUNCTION counted
# inside, its argument ARG (bench/siblings.c loop 100000: sibling leaves).
# usage: bench/tailinstr.sh BUILD_DIR [SOURCE FUNCTION ARG]
set -eu
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "tailinstr.sh: valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/common/fe_build.sh"
src=$(cd "$(dirname "${2:-$root/bench/tailparse.c}")" && pwd)/$(basename "${2:-tailparse.c}")
fn=${3:-parse} n=${4:-2000}
clang -O2 -g "$src" -o "$tmp/plain"
for fe in cyg xray; do
	fe_build clang "$fe" -O2 "$src" "$tmp/$fe"
done
fe_build clang xray "-O2 -fno-optimize-sibling-calls" "$src" "$tmp/xray-no-tail-calls"
ir() { # EXE TIMING
	PATHPROF_XRAY=all PATHPROF_OUT=/dev/null PATHPROF_TIMING=$2 valgrind --tool=callgrind \
		--toggle-collect="$fn" --callgrind-out-file="$tmp/cg" "$1" "$n" >/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; exit 1; }
	sed -n 's/^summary: //p' "$tmp/cg"
}
PATHPROF_TIMING=on PATHPROF_OUT="$tmp/p.pathprof" "$tmp/cyg" "$n" >/dev/null
gates=$("$build/tools/pathprof" report --format json --top 0 "$tmp/p.pathprof" | FN=$fn python3 -c '
import json, os, sys
d = json.load(sys.stdin)
fn = os.environ["FN"]
print(sum(x["calls"] for x in d["nodes"] if fn in x["path"]))')
base_off=$(ir "$tmp/plain" off) base_on=$(ir "$tmp/plain" on)
echo "| injector | count-only instr/gate | timed instr/gate |"
echo "|---|---|---|"
for fe in cyg xray xray-no-tail-calls; do
	off=$(ir "$tmp/$fe" off) on=$(ir "$tmp/$fe" on)
	awk -v fe="$fe" -v b0="$base_off" -v b1="$base_on" -v f="$off" -v o="$on" -v g="$gates" \
		'BEGIN { printf "| %s | %.1f | %.1f |\n", fe, (f - b0) / g, (o - b1) / g }'
done
echo "($gates gates below $fn, $(basename "$src") $n)"
