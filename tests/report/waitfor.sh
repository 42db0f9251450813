#!/bin/sh
# --format waitfor on mkprof's off-CPU profile: the exact graph (nodes by
# stable id, one edge per reason, labels, widths), --min-count and
# --min-time leave edges out and say how many, Graphviz renders it, and a
# profile without off-CPU data gives a graph that says so; merged profiles
# add their off-CPU entries.
# usage: waitfor.sh PATHPROF MKPROF WORKDIR
set -u
pp=$1 mkprof=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$mkprof" offcpu "$work/o.pathprof" || fail "mkprof offcpu"
"$mkprof" demo "$work/d.pathprof" || fail "mkprof demo"
"$pp" report --format waitfor "$work/o.pathprof" >"$work/all.dot" || fail "waitfor"
cat >"$work/want.dot" <<'DOT'
digraph waitfor {
  rankdir=LR;
  node [shape=box, fontname="monospace"];
  label="blocked path -> waker, by off-CPU time; 0 edge(s) below --min-count/--min-time left out";
  n92f0c1f4b7ef00e7 [label="main>parse>lex"];
  kernel [label="(kernel: interrupt, timer, kernel thread)", shape=ellipse, style=dashed];
  n92f0c1f4b7ef00e7 [label="main>parse>lex"];
  n4d379802b82c3e33 [label="main>work>compute"];
  n92f0c1f4b7ef00e7 -> kernel [label="sleep 10.000 ms, 2 blocks", penwidth=6.00];
  n92f0c1f4b7ef00e7 -> n4d379802b82c3e33 [label="futex 6.000 ms, 3 blocks", penwidth=4.00];
}
DOT
cmp -s "$work/all.dot" "$work/want.dot" || fail "graph differs: $(diff "$work/want.dot" "$work/all.dot")"
dot -Tsvg "$work/all.dot" -o "$work/all.svg" || fail "Graphviz refused the graph"
"$pp" report --format waitfor --min-count 3 "$work/o.pathprof" >"$work/count.dot" || fail "--min-count"
grep -q '1 edge(s) below' "$work/count.dot" && ! grep -q 'sleep 10' "$work/count.dot" &&
	grep -q 'futex 6.000 ms' "$work/count.dot" || fail "--min-count 3 keeps the futex edge only"
"$pp" report --format waitfor --min-time 7ms "$work/o.pathprof" >"$work/time.dot" || fail "--min-time"
grep -q '1 edge(s) below' "$work/time.dot" && grep -q 'sleep 10' "$work/time.dot" &&
	! grep -q 'futex 6' "$work/time.dot" || fail "--min-time 7ms keeps the sleep edge only"
"$pp" report --format waitfor "$work/d.pathprof" >"$work/none.dot" || fail "waitfor without data"
grep -q 'no off-CPU data' "$work/none.dot" || fail "a profile without off-CPU data does not say so"
# off-CPU entries merge like the rest: the same profile twice doubles them
"$pp" merge -o "$work/m.pathprof" "$work/o.pathprof" "$work/o.pathprof" || fail "merge"
"$pp" report --format waitfor "$work/m.pathprof" >"$work/m.dot" || fail "waitfor of the merge"
grep -q 'sleep 20.000 ms, 4 blocks' "$work/m.dot" && grep -q 'futex 12.000 ms, 6 blocks' "$work/m.dot" ||
	fail "merged edges: $(grep -- '->' "$work/m.dot")"
[ "$fails" -eq 0 ] && echo "waitfor: ok"
exit "$fails"
