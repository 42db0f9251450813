#!/bin/sh
# DOT keeps the subtree of a root that never returned (#29): in mkprof's
# `noexit` profile thread_main has no timed exit while poll below it took
# 96 % of the gated time; with --min-share 10 the graph must show
# thread_main (weighing what its children took) and poll, and leave out
# main (4 %). usage: noexit.sh PATHPROF MKPROF WORKDIR
set -eu
pp=$1 mkprof=$2 dir=$3
mkdir -p "$dir"
"$mkprof" noexit "$dir/noexit.pathprof"
"$pp" report --format dot --min-share 10 "$dir/noexit.pathprof" >"$dir/noexit.dot"
got=$(grep -o 'label="[a-z_]*"' "$dir/noexit.dot" | tr '\n' ' ')
[ "$got" = 'label="thread_main" label="poll" ' ] || { echo "FAIL: nodes shown: $got"; exit 1; }
grep -q '2 of 4 nodes shown (share >= 10%)' "$dir/noexit.dot" || { echo "FAIL: $(sed -n 2p "$dir/noexit.dot")"; exit 1; }
echo "ok: the never-returning root's subtree is drawn"
