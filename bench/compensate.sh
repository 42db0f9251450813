#!/bin/sh
# How close overhead compensation comes to the truth: bench/compensate.c
# (200 000 calls of a 5 ns helper, then 100 spins of 20 us) built plain and
# through raii and cyg, timed. The plain build times its two phases itself;
# each profiled run's report gives the phases' inclusive times compensated
# and --raw. Prints the helper phase's share of the two, and its time, as
# medians of interleaved runs (plain, raii, cyg, plain, ...), with their
# quartiles.
# usage: bench/compensate.sh BUILD_DIR [RUNS]   (default 7)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$build/meson-uninstalled"
wrap=$build/tools/pathprof-cc-uninstalled
gcc -O2 "$root/bench/compensate.c" -o "$tmp/plain"
for fe in raii cyg; do
	"$wrap" --via=$fe gcc -O2 "$root/bench/compensate.c" -o "$tmp/$fe"
done
phases() { # REPORT-ARGS...: "many long" inclusive ns of the two phases
	"$build/tools/pathprof" report --format json "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = {">".join(x["path"]): x["incl"]["sum_ticks"] / d["ticks_per_ns"] for x in d["nodes"]}
print(n["main>many_calls"], n["main>long_spins"])'
}
: >"$tmp/rows"
i=0
while [ "$i" -lt "$runs" ]; do
	"$tmp/plain" | awk '{ v[NR] = $2 } END { print "plain", v[1], v[2] }' >>"$tmp/rows"
	for fe in raii cyg; do
		PATHPROF_TIMING=on PATHPROF_OUT="$tmp/$fe.pathprof" "$tmp/$fe" >/dev/null
		echo "$fe-compensated $(phases "$tmp/$fe.pathprof")" >>"$tmp/rows"
		echo "$fe-raw $(phases --raw "$tmp/$fe.pathprof")" >>"$tmp/rows"
	done
	i=$((i + 1))
done
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/bench" python3 - "$tmp/rows" <<'PY'
import statistics, sys, rows as table
rows = table.read(sys.argv[1])
# The quartiles show how far the truth itself moves between processes: on
# some hosts the plain build's helper phase falls into two modes (about
# 1.0 and 1.45 ms on the twenty-fifth stop's), whatever the layout.
print("| build | helper phase share (median) | quartiles | helper phase time, ms (median) | quartiles |")
print("|---|---|---|---|---|")
for k in ["plain", "raii-compensated", "raii-raw", "cyg-compensated", "cyg-raw"]:
    v = rows[k]
    shares = [100 * a / (a + b) for a, b in v]
    ms = [a / 1e6 for a, b in v]
    print("| %s | %.1f %% | %s | %.2f | %s |" % (k, statistics.median(shares), table.quartiles(shares),
                                                statistics.median(ms), table.quartiles(ms)))
print("(%d interleaved runs each)" % len(rows["plain"]))
PY
