#!/bin/sh
# A budget stops a function while one call of it is open on another thread
# (tests/report/openstop.c): that call leaves as usual. Its node has its one
# call with the whole wait (at least the main thread's 200 ms of calls), no
# exit is unmatched, the function is in the throttled list and its calls on
# the main thread stopped being counted. The open call then calls tick a
# thousand times itself: not gates any more, none of them may leave its
# frame. Before the fix, a raii site stopped
# with its frame open returned at its exit without leaving it, and the call
# was lost. The thread then calls tick a thousand times as events of their
# own, where the entry is inline: not one may count (they did, once the open
# call had ended, where the entry was not patched out: raii built with
# PP_RAII_NO_PATCH, checked here, and a cyg site not yet patched).
# usage: openstop.sh VIA CC SRCROOT PATHPROF WRAPPER WORKDIR
script=openstop
# shellcheck source=tests/report/via_common.sh
. "$(dirname "$0")/via_common.sh"
one() { # extra compile flags
	"$wrapper" --via="$via" $extra "$cc" $def "$@" -O2 -I"$src/bench" "$src/tests/report/openstop.c" -o prog -lpthread \
		>build.log 2>&1 || fail "build $*: $(cat build.log)"
	"$pp" run --budget 5% --out o.pathprof --top 0 ./prog 200 >run.txt 2>run.err || fail "run: $(cat run.err)"
	"$pp" report --format json o.pathprof >o.json || fail "report json"
	python3 - o.json <<'PY' || fail "profile $*: see above"
import json, sys
d = json.load(open(sys.argv[1]))
def bad(m):
    print("  " + m); sys.exit(1)
names = [t["function"] for t in d["throttled"]]
if "tick" not in names: bad("tick not throttled: %r" % names)
if d["unmatched"] != 0: bad("unmatched %d" % d["unmatched"])
nodes = {">".join(n["path"]): n for n in d["nodes"]}
if "tick" not in nodes: bad("no node for the open call: %r" % sorted(nodes))
n = nodes["tick"]
ms = n["incl"]["sum_ticks"] / d["ticks_per_ns"] / 1e6
if n["calls"] != 1 or ms < 200: bad("the open call: %d calls, %.1f ms" % (n["calls"], ms))
# the open call's own calls of tick, made after the stop, are not gates:
# none may have left its frame (it would have been cut short above)
if "tick>tick" in nodes: bad("calls after the stop were gated: %d" % nodes["tick>tick"]["calls"])
# main's event and the open call's: the thread's later calls of tick,
# stopped, start none
if d["events"] != 2: bad("%d events, 2 expected" % d["events"])
if nodes.get("main>tick", {}).get("calls", 0) >= 2000000:
    bad("the main thread's calls of tick were never stopped")
print("  open call %.1f ms" % ms)
PY
}
one
[ "$via" != raii ] || one -DPP_RAII_NO_PATCH
echo "ok: $via: the open call of a stopped function kept its exit"
