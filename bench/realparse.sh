#!/bin/sh
# What overhead compensation leaves on a real parser with every function
# gated: tree-sitter's C parser and grammar (npm packages tree-sitter and
# tree-sitter-c, pinned and checked; cached in the build dir) driven by
# bench/realparse.c over this repository's report/*.c, REPEATS times each.
# Built with gcc -O2 plain, through cyg (pathprof-cc), and with
# -finstrument-functions calling empty hooks (bench/empty_hooks.c: the
# instrumented code's own cost). Interleaved runs of plain, empty hooks,
# cyg counting only and cyg timed; each timed run's report gives the gates
# (every node's calls), the calibrated gate cost, what compensation took
# out and the compensated gated time. Prints the medians, the gate's cost
# a call in place (each build's time less plain's, over the gates) beside
# the calibration, and the compensated total over the plain time.
# usage: bench/realparse.sh BUILD_DIR [RUNS] [REPEATS]   (default 7, 20)
set -eu
runs=${2:-7}
repeats=${3:-20}
# shellcheck source=bench/npm_bench.sh
. "$(dirname "$0")/npm_bench.sh"
npm_bench_start realparse "$1"
fetch tree-sitter 0.25.0 016448ee8e2c23aed7e1155c118cd66cd026e6436f7394b3f3606d30bf9aaa4a
fetch tree-sitter-c 0.24.1 8e9ecd7687665d2fa1b3c07fbd1f4380b7d285850d6954629e2156e1b757451e
lib=$cache/tree-sitter-0.25.0/vendor/tree-sitter/lib
grammar=$cache/tree-sitter-c-0.24.1/src

export PKG_CONFIG_PATH="$build/meson-uninstalled"
# one build: NAME LINK-EXTRA CC COMPILE-FLAGS...
build_prog() {
	name=$1 extra=$2 cc=$3
	shift 3
	# shellcheck disable=SC2086 # the compiler is words
	$cc -O2 "$@" -I"$lib/include" -I"$lib/src" -w -c "$lib/src/lib.c" -o "$tmp/$name-lib.o"
	# shellcheck disable=SC2086
	$cc -O2 "$@" -I"$grammar" -w -c "$grammar/parser.c" -o "$tmp/$name-grammar.o"
	# shellcheck disable=SC2086
	$cc -O2 "$@" -I"$lib/include" -c "$root/bench/realparse.c" -o "$tmp/$name-driver.o"
	# shellcheck disable=SC2086
	$cc "$tmp/$name-driver.o" "$tmp/$name-lib.o" "$tmp/$name-grammar.o" $extra -o "$tmp/$name"
}
build_prog plain "" gcc &
gcc -O2 -c "$root/bench/empty_hooks.c" -o "$tmp/empty_hooks.o"
build_prog empty "$tmp/empty_hooks.o" gcc -finstrument-functions
wait
build_prog cyg "" "$build/tools/pathprof-cc-uninstalled --via=cyg gcc"
files=$(ls "$root"/report/*.c)

own() { sed -n 's/^nodes [0-9]* ns //p'; } # the driver's own parse time
: >"$tmp/rows"
i=0
while [ "$i" -lt "$runs" ]; do
	# shellcheck disable=SC2086 # the files are words
	{
		echo "plain $("$tmp/plain" "$repeats" $files | own)"
		echo "empty $("$tmp/empty" "$repeats" $files | own)"
		echo "count $(PATHPROF_TIMING=off PATHPROF_OUT=/dev/null "$tmp/cyg" "$repeats" $files | own)"
		echo "timed $(PATHPROF_TIMING=on PATHPROF_OUT="$tmp/t.pathprof" "$tmp/cyg" "$repeats" $files | own)"
	} >>"$tmp/rows"
	"$build/tools/pathprof" report --format json "$tmp/t.pathprof" | python3 -c '
import json, sys
d = json.load(sys.stdin)
g = d["gate_cost"]
print("prof", sum(n["calls"] for n in d["nodes"]), d["gated_ns"], g["removed_ns"],
      g["inside_ns"] + g["outside_ns"])' >>"$tmp/rows"
	i=$((i + 1))
done
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/bench" python3 - "$tmp/rows" "$runs" <<'PY'
import statistics, sys, rows as table
rows = table.read(sys.argv[1])
med = {k: statistics.median(v) for k, v in rows.items() if k != "prof"}
prof = rows["prof"]
gates = statistics.median(p[0] for p in prof)
comp = statistics.median(p[1] for p in prof)
calib = statistics.median(p[3] for p in prof)
plain = med["plain"]
print("| build | parse time, ms (median) | quartiles | ratio to plain | a gate over plain, ns |")
print("|---|---:|---|---:|---:|")
for k, name in (("plain", "plain"), ("empty", "empty hooks"), ("count", "cyg, counting only"),
                ("timed", "cyg, timed")):
    v = rows[k]
    over = "-" if k == "plain" else "%.1f" % ((med[k] - plain) / gates)
    print("| %s | %.1f | %s | %.2f | %s |" % (name, med[k] / 1e6, table.quartiles([x / 1e6 for x in v]),
                                             med[k] / plain, over))
print("(%s interleaved runs each; %.0f M gates a run)" % (sys.argv[2], gates / 1e6))
print()
print("| timed gate, in place | calibrated (in + out) | compensated gated time | plain | compensated / plain |")
print("|---:|---:|---:|---:|---:|")
print("| %.1f ns | %.1f ns | %.1f ms | %.1f ms | %.2f |" % ((med["timed"] - plain) / gates, calib, comp / 1e6,
                                                   plain / 1e6, comp / plain))
PY
