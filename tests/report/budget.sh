#!/bin/sh
# PATHPROF_BUDGET on a real run through VIA: bench/budget.c (30 batches of
# 100 000 calls of a 5 ns helper, 100 spins of 100 us). With a 5 % budget
# the helper (its gates cost several times its work) stops being gated
# during the run and the profile says so in every format; the batches, the
# spins and main keep every call; the batches run after it stopped are
# leaves whose paths say the helper's frames are elided; a merge adds the
# throttled counts; bad settings are one warning line and no budget.
# usage: budget.sh VIA CC SRCROOT PATHPROF WRAPPER WORKDIR
script=budget
# shellcheck source=tests/report/via_common.sh
. "$(dirname "$0")/via_common.sh"
"$wrapper" --via="$via" $extra "$cc" $def -O2 "$src/bench/budget.c" -o prog >build.log 2>&1 || fail "build: $(cat build.log)"
"$pp" run --budget 5% --out b.pathprof --top 0 ./prog >run.txt 2>run.err || fail "run: $(cat run.err)"
"$pp" report --format json b.pathprof >b.json || fail "report json"
python3 - b.json <<'PY' || fail "profile: see above"
import json, sys
d = json.load(open(sys.argv[1]))
def bad(m):
    print("  " + m); sys.exit(1)
names = [t["function"] for t in d["throttled"]]
if d.get("budget_pct") != 5: bad("budget_pct %r" % d.get("budget_pct"))
if "helper" not in names: bad("helper not throttled: %r" % names)
for keep in ("main", "batch", "spin"):
    if keep in names: bad(keep + " throttled")
calls = {}
for n in d["nodes"]:
    calls[">".join(n["path"])] = n["calls"]
if calls.get("main") != 1 or calls.get("main>batch") != 30:
    bad("main/batch calls %r %r" % (calls.get("main"), calls.get("main>batch")))
spins = sum(c for p, c in calls.items() if p.endswith(">spin"))
if spins != 100: bad("spin calls %d" % spins)
h = calls.get("main>batch>helper", 0)
t = [x for x in d["throttled"] if x["function"] == "helper"][0]
if not (1000 <= t["calls"] <= h < 3000000):
    bad("helper: %d calls in its node, %d when throttled, of 3000000" % (h, t["calls"]))
if d["unmatched"] != 0: bad("unmatched %d" % d["unmatched"])
leaf = [p for p in d["paths"] if p["path"] == ["main", "batch"]]
if not leaf or leaf[0].get("elided_below") != ["helper"]:
    bad("no batch leaf with the helper elided: %r" % leaf)
if not 1 <= leaf[0]["count"] <= 29: bad("batch leaves %d" % leaf[0]["count"])
PY
grep -q "^  budget     5% of a function's work (PATHPROF_BUDGET): [0-9]* functions\{0,1\} throttled" run.txt ||
	fail "header: $(grep budget run.txt)"
grep -q "^throttled: " run.txt || fail "no throttled section"
# what a stopped gate leaves, named for the injector, and the way to lose it
case $via in
raii) left="a jump over the gate" ;;
xray) left="the unpatched sleds' jumps" ;;
*) left="the hooks' frame and saved registers" ;;
esac
grep -q "^Each call still runs what the gates left in its code ($left);$" run.txt ||
	fail "no residue line for $via: $(grep '^Each call' run.txt)"
grep -q "^\`pathprof select --budget\` lists them for a rebuild without" run.txt || fail "no rebuild hint"
# unoptimised, a raii entry is not patchable: a stopped gate tests its stop
if [ "$via" = raii ]; then
	"$wrapper" --via=raii "$cc" $def -O0 "$src/bench/budget.c" -o prog0 >build0.log 2>&1 || fail "build -O0: $(cat build0.log)"
	"$pp" run --budget 5% --out b0.pathprof --top 0 ./prog0 5 >run0.txt 2>run0.err || fail "run -O0: $(cat run0.err)"
	grep -q "^Each call still runs what the gates left in its code (the gate's test of its stop);$" run0.txt ||
		fail "-O0: $(grep -e '^Each call' -e '^  budget' run0.txt)"
fi
grep -q "main > batch  \[elided below: helper" run.txt || fail "no elided mark in the paths"
"$pp" report --format flat b.pathprof | grep -q " helper  (throttled)\(  ([0-9]*% gate)\)\{0,1\}$" ||
	fail "flat: helper not marked"
# the other formats: DOT (dashed node, graph label), HTML (its data and
# header), pprof (the comment); folded carries stacks and counts only
"$pp" report --format dot b.pathprof >b.dot || fail "dot"
grep -q 'throttled by the budget (dashed; their frames elided once stopped): .*"helper"' b.dot || fail "dot label"
grep -q 'label="helper" .*style="rounded,filled,dashed"' b.dot || fail "dot: helper not dashed"
"$pp" report --format html -o b.html b.pathprof || fail "html"
grep -q '"throttled": \[' b.html || fail "html: no throttled list in its data"
"$pp" report --format pprof -o b.pb b.pathprof || fail "pprof"
gzip -dc b.pb | grep -a -q "; throttled by the budget: [a-z_, ]*helper" || fail "pprof: no throttled comment"
# a merge of the run with itself adds the throttled counts
"$pp" merge -o m.pathprof b.pathprof b.pathprof 2>/dev/null || fail "merge"
one=$("$pp" report --format json b.pathprof | python3 -c 'import json,sys; print([t["calls"] for t in json.load(sys.stdin)["throttled"] if t["function"]=="helper"][0])')
two=$("$pp" report --format json m.pathprof | python3 -c 'import json,sys; print([t["calls"] for t in json.load(sys.stdin)["throttled"] if t["function"]=="helper"][0])')
[ "$two" -eq $((2 * one)) ] || fail "merged helper calls $two, not 2 x $one"
# bad settings: one line, no budget
PATHPROF_XRAY=all PATHPROF_BUDGET=abc PATHPROF_TIMING=on PATHPROF_OUT=x.pathprof ./prog 3 >/dev/null 2>e1
grep -q "^pathprof: PATHPROF_BUDGET=abc: expected a percentage above 0 and up to 100" e1 || fail "bad value: $(cat e1)"
PATHPROF_XRAY=all PATHPROF_BUDGET=5 PATHPROF_TIMING=off PATHPROF_OUT=y.pathprof ./prog 3 >/dev/null 2>e2
grep -q "PATHPROF_TIMING is not on; no budget" e2 || fail "timing off: $(cat e2)"
PATHPROF_XRAY=all PATHPROF_BUDGET=5 PATHPROF_FUNCTIONS='*' PATHPROF_OUT=z.pathprof ./prog 3 >/dev/null 2>e4
grep -q "^pathprof: PATHPROF_BUDGET: not applied under a selection (PATHPROF_ROOT, PATHPROF_FUNCTIONS); nothing was throttled" e4 ||
	fail "a budget under a selection: $(cat e4)"
"$pp" report --format json y.pathprof | grep -q '"throttled"' && fail "a refused budget was recorded"
"$pp" report --format json z.pathprof | grep -q '"throttled"' && fail "a budget under a selection was recorded"
"$pp" run --budget 5 --timing off ./prog 3 >/dev/null 2>e3 && fail "run --budget --timing off accepted"
grep -q "^pathprof: run: --budget weighs every call's time" e3 || fail "run: $(cat e3)"
echo "ok: $via: throttled $(python3 -c 'import json,sys; print(" ".join(t["function"] for t in json.load(open(sys.argv[1]))["throttled"]))' b.json)"
