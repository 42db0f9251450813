#!/bin/sh
# Burst timing on programs of one event (#30): bench/tailparse.c and
# bench/inlparse.c (recursive parsers, gcc -O2, through cyg), whose main is
# the one event. Per program: the wall time of the plain build and of the
# cyg build count-only, in bursts (PATHPROF_TIMING=burst:N for each N
# given) and fully timed, medians of interleaved runs (plain, off, burst,
# ..., on, then again), as ratios to count-only; then each node's share of
# the self time (measured, --raw) in bursts against the fully timed runs'
# (medians per node), for the nodes above 1 %: the largest error relative
# to the fully timed share. Prints markdown tables.
# usage: bench/burst.sh BUILD_DIR [RUNS [N...]]   (default 7 runs, N = 16 32)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-7}
shift
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 16 32
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wrap=$build/tools/pathprof-cc-uninstalled
pp=$build/tools/pathprof
modes="off"
for n in "$@"; do modes="$modes burst:$n"; done
modes="$modes on"
echo "| program | mode | time (s) | x count-only | largest share error (nodes > 1 %) |"
echo "|---|---|---:|---:|---:|"
for prog in tailparse:1200000 inlparse:16000; do
	name=${prog%%:*} arg=${prog#*:}
	gcc -O2 "$root/bench/$name.c" -o "$tmp/plain"
	"$wrap" --via=cyg gcc -O2 "$root/bench/$name.c" -o "$tmp/cyg"
	: >"$tmp/times"
	i=0
	while [ "$i" -lt "$runs" ]; do
		for m in plain $modes; do
			exe=$tmp/cyg
			[ "$m" = plain ] && exe=$tmp/plain
			s=$(date +%s%N)
			PATHPROF_TIMING=${m#plain} PATHPROF_OUT="$tmp/$m.$i.pathprof" "$exe" "$arg" >/dev/null
			e=$(date +%s%N)
			echo "$m $(( (e - s) / 1000 ))" >>"$tmp/times"
		done
		i=$((i + 1))
	done
	for m in $modes; do
		for f in "$tmp/$m".*.pathprof; do
			"$pp" report --raw --format json "$f"
			echo
		done >"$tmp/$m.json"
	done
	python3 - "$tmp" "$name" $modes <<'PY'
import json, statistics, sys
tmp, name, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
t = {}
for line in open(tmp + "/times"):
    m, us = line.split()
    t.setdefault(m, []).append(int(us) / 1e6)
def shares(m):
    out = {}
    dec = json.JSONDecoder()
    text = open(tmp + "/" + m + ".json").read()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        d, i = dec.raw_decode(text, i)
        tot = sum(n["self_ticks"] for n in d["nodes"])
        for n in d["nodes"]:
            out.setdefault(">".join(n["path"]), []).append(n["self_ticks"] / tot)
    return {k: statistics.median(v) for k, v in out.items()}
full = shares("on")
co = statistics.median(t["off"])
print("| %s | plain | %.3f | %.2f | |" % (name, statistics.median(t["plain"]), statistics.median(t["plain"]) / co))
for m in modes:
    med = statistics.median(t[m])
    err = ""
    if m.startswith("burst"):
        b = shares(m)
        worst = max(abs(b.get(k, 0) - v) / v for k, v in full.items() if v > 0.01)
        err = "%.1f %%" % (100 * worst)
    print("| %s | %s | %.3f | %.2f | %s |" % (name, m, med, med / co, err))
PY
done
