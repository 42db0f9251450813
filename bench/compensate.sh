#!/bin/sh
# How close overhead compensation comes to the truth: bench/compensate.c
# (200 000 calls of a 5 ns helper and 100 spins of 20 us, in 20 rounds)
# built plain and through raii and cyg, timed. The program times its two
# phases itself, and the helper's ungated twin beside the gated calls; each
# profiled run's report gives the phases' inclusive times compensated and
# --raw. Prints the helper phase's share of the two, and its time, as
# medians of interleaved runs (plain, raii, cyg, plain, ...) with their
# quartiles: against the plain build (another process) and against the twin
# in the profiled process itself; then the gate's cost in place (the raw
# phase minus the twin's, a call) beside the calibration the report used,
# and the median of each run's difference of the two.
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
phases() { # REPORT-ARGS...: "many long calibrated" (ns: two phases' inclusive times, a gate's cost)
	"$build/tools/pathprof" report --format json "$@" | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = {">".join(x["path"]): x["incl"]["sum_ticks"] / d["ticks_per_ns"] for x in d["nodes"]}
g = d["gate_cost"]
print(n["main>many_calls"], n["main>long_spins"], g["inside_ns"] + g["outside_ns"])'
}
: >"$tmp/rows"
i=0
while [ "$i" -lt "$runs" ]; do
	"$tmp/plain" | awk '{ v[$1] = $2 } END { print "plain", v["many_calls"], v["long_spins"] }' >>"$tmp/rows"
	for fe in raii cyg; do
		PATHPROF_TIMING=on PATHPROF_OUT="$tmp/$fe.pathprof" "$tmp/$fe" |
			awk -v fe=$fe '{ v[$1] = $2 } END { print fe "-twin", v["twin_calls"], v["long_spins"] }' >>"$tmp/rows"
		echo "$fe-compensated $(phases "$tmp/$fe.pathprof")" >>"$tmp/rows"
		echo "$fe-raw $(phases --raw "$tmp/$fe.pathprof")" >>"$tmp/rows"
	done
	i=$((i + 1))
done
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/bench" python3 - "$tmp/rows" <<'PY'
import statistics, sys, rows as table
rows = table.read(sys.argv[1])
# The quartiles show how far the truth itself moves: on some hosts the
# plain build's helper phase fell into two modes from one second to the
# next (about 0.8 and 1.6 ms while the helper was a loop, bench/workload.h).
print("| build | helper phase share (median) | quartiles | helper phase time, ms (median) | quartiles |")
print("|---|---|---|---|---|")
for k in ["plain", "raii-twin", "raii-compensated", "raii-raw", "cyg-twin", "cyg-compensated", "cyg-raw"]:
    v = rows[k]
    shares = [100 * r[0] / (r[0] + r[1]) for r in v]
    ms = [r[0] / 1e6 for r in v]
    print("| %s | %.1f %% | %s | %.2f | %s |" % (k, statistics.median(shares), table.quartiles(shares),
                                                statistics.median(ms), table.quartiles(ms)))
print("(%d interleaved runs each; a twin row is the ungated helper timed in that build's process)" % len(rows["plain"]))
print()
print("| build | share compensated - twin, points (median) | quartiles | gate in place, ns a call (median) | calibrated (median) | calibrated - in place, each run's (median) | quartiles |")
print("|---|---|---|---|---|---|---|")
for fe in ["raii", "cyg"]:
    twin, comp, raw = rows[fe + "-twin"], rows[fe + "-compensated"], rows[fe + "-raw"]
    gaps = [100 * c[0] / (c[0] + c[1]) - 100 * w[0] / (w[0] + w[1]) for w, c in zip(twin, comp)]
    # 200 000 helper calls in the phase, and its own 20 gates
    inplace = [(r[0] - w[0]) / 200020 for w, r in zip(twin, raw)]
    over = [r[2] - i for r, i in zip(raw, inplace)]
    print("| %s | %+.1f | %s | %.1f | %.1f | %+.2f | %s |" % (fe, statistics.median(gaps), table.quartiles(gaps),
                                                          statistics.median(inplace), statistics.median(r[2] for r in raw),
                                                          statistics.median(over), table.quartiles(over)))
PY
