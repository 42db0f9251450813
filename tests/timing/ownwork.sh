#!/bin/sh
# The runtime's own work at a node's first sight is not the program's time
# (#29): tests/timing/ownwork.c through VIA walks 2 046 nodes twice, the
# first time meeting each of them for the first time, timed. Its own clock
# sees the first walk take longer (the runtime registers every node and
# backs new arena chunks page by page); the profile's two calls of
# main>walk must not differ by more than a quarter of that (max less min,
# measured, --raw, against the program's first walk less its second: the
# first sights' cost, 4-7 ms here, which a profile that kept it shows
# whole; 1.5x of the min was the bound before, and XRay's walks, cheaper
# behind pathprof's trampolines, came to 1.4-1.9x of it under meson's
# parallel load with 0.2-0.5 ms of that cost left), and the self times must still add up to the
# roots' time to the tick. The profile says how much it took out: at
# least once for each of the 2 048 nodes (section OWNWORK, the text
# header's "own work" line, JSON's own_work). Skipped (77) where the first sight costs too
# little to tell: the program's own first walk under 1.5x its second.
# usage: ownwork.sh VIA CC SRCROOT PATHPROF WRAPPER WORKDIR
script=ownwork
. "$(dirname "$0")/../report/via_common.sh"
[ "$via" = xray ] && export PATHPROF_XRAY=all
"$wrapper" --via="$via" $extra "$cc" $def -O2 "$src/tests/timing/ownwork.c" -o prog >build.log 2>&1 ||
	fail "build: $(cat build.log)"
# up to seven runs, until two pass: a run passes when the profile's walks
# agree; the program's own clock says whether there was first-sight work to
# take out. Other tests running beside this one stretch single walks of
# half a millisecond (a run in three differed under meson's parallel run),
# where a first walk still holding the runtime's work is 2-5x the second in
# every run.
ok=0 sensitive=0 runs=0
for run in 1 2 3 4 5 6 7; do
	[ "$ok" -ge 2 ] && break
	runs=$run
	PATHPROF_TIMING=on PATHPROF_OUT=p$run.pathprof ./prog >own$run.txt 2>err || fail "run: $(cat err)"
	"$pp" report --raw --format json p$run.pathprof >p$run.json || fail "json"
	r=$(python3 - p$run.json own$run.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
first, second = map(int, open(sys.argv[2]).read().split())
nodes = {">".join(n["path"]): n for n in d["nodes"]}
if len(d["nodes"]) != 2048:
    print("bad %d nodes, expected 2048" % len(d["nodes"])); sys.exit()
w = nodes["main>walk"]
if w["calls"] != 2:
    print("bad main>walk called %d times" % w["calls"]); sys.exit()
total_self = sum(n["self_ticks"] for n in d["nodes"])
root = nodes["main"]["incl"]["sum_ticks"]
if total_self != root:
    print("bad self times add up to %d ticks, main's time is %d" % (total_self, root)); sys.exit()
own = d.get("own_work")
if not own or own["count"] < 2048 or not own["ns"] > 0:
    print("bad own_work %r: expected a count of at least 2048 nodes' first records" % own); sys.exit()
lo, hi = w["incl"]["min_ns"], w["incl"]["max_ns"]
# what of the first sights' cost, as the program's clock sees it (first
# walk less second), the profile's first walk still holds
print("%s %s %.3f %.3f %d %d" % ("agree" if hi - lo <= 0.25 * max(first - second, 0) else "differ",
      "sensitive" if first >= 1.5 * second else "insensitive", lo, hi, first, second))
PY
	) || fail "profile check"
	case $r in bad*) fail "${r#bad }" ;; esac
	"$pp" report p$run.pathprof >p$run.txt || fail "text report"
	grep -q "^  own work   [0-9]* ns of pathprof's in [0-9]* first sights (a node's first record,$" p$run.txt ||
		fail "no own work line: $(grep -A1 'gate cost' p$run.txt)"
	echo "run $run: $r (profile min, max ns; program's first, second walk ns)"
	case $r in agree*) ok=$((ok + 1)) ;; esac
	case $r in *" sensitive"*) sensitive=$((sensitive + 1)) ;; esac
done
[ "$sensitive" -gt 0 ] || { echo "SKIP: the first sight costs too little here to tell"; exit 77; }
[ "$ok" -ge 2 ] || fail "the profile's first walk holds the runtime's work in $((runs - ok)) runs of $runs"
echo "PASS: $via"
