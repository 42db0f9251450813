#!/bin/sh
# `pathprof diff` on real runs (#29): tests/trace/slowdown.c through cyg,
# timed. Two runs of the same binary, one run a side: no node gets a
# verdict. A run where stage_b spins twice as long: stage_b, and nothing
# else, is flagged slower, by about +100 %; main, one call a side, has not
# enough data for a verdict.
# usage: diff_real.sh SRCROOT PATHPROF WRAPPER WORKDIR
set -u
src=$1 pp=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") wrapper=$3 work=$4/diff-real.$$
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work" || exit 1
"$wrapper" --via=cyg gcc -O2 "$src/tests/trace/slowdown.c" -o prog >build.log 2>&1 || fail "build: $(cat build.log)"
for r in a1 a2; do
	PATHPROF_TIMING=on PATHPROF_OUT=$r.pathprof ./prog || fail "run $r"
done
PATHPROF_TIMING=on PATHPROF_OUT=b.pathprof ./prog slow || fail "run b"
"$pp" diff a1.pathprof a2.pathprof >same.txt 2>err || fail "diff same: $(cat err)"
grep -E '^[0-9]+ +(slower|faster) ' same.txt && fail "a verdict between two runs of the same binary: $(cat same.txt)"
grep -Eq '^[0-9]+ +no clear change .*  main > stage_b$' same.txt || fail "same: stage_b not judged: $(cat same.txt)"
grep -Eq '^[0-9]+ +not enough data .*  main$' same.txt || fail "same: main: $(cat same.txt)"
"$pp" diff a1.pathprof b.pathprof >slow.txt 2>err || fail "diff slow: $(cat err)"
flagged=$(grep -E '^[0-9]+ +(slower|faster) ' slow.txt)
n=$(printf '%s\n' "$flagged" | grep -c .)
[ "$n" = 1 ] || fail "$n verdicts, not 1: $(cat slow.txt)"
case $flagged in *slower*"  main > stage_b") ;; *) fail "flagged: $flagged" ;; esac
"$pp" diff --format json a1.pathprof b.pathprof | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = [r for r in d["paths"] if r["names"] == ["main", "stage_b"]]
pct = rows[0]["change_pct"]
if not 80 <= pct <= 120:
    print("FAIL: stage_b change %.1f %%, not about +100 %%" % pct); sys.exit(1)
' || exit 1
echo "ok: same binary: no verdict; stage_b twice as slow: only it flagged"
