#!/bin/sh
# `pathprof diff` on real runs (#29): tests/trace/slowdown.c through cyg,
# timed. Two runs of the same binary, one run a side: no node gets a
# verdict. A run where stage_b spins twice as long: stage_b, and nothing
# else, is flagged slower, its median call by about +100 %; main, one call a side, has not
# enough data for a verdict. A false verdict fails at once; a missed one
# (the machine preempted a spin for milliseconds) is tried again.
# usage: diff_real.sh SRCROOT PATHPROF WRAPPER WORKDIR
set -u
src=$1 pp=$(cd "$(dirname "$2")" && pwd)/$(basename "$2") wrapper=$3 work=$4/diff-real.$$
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work" || exit 1
"$wrapper" --via=cyg gcc -O2 "$src/tests/trace/slowdown.c" -o prog >build.log 2>&1 || fail "build: $(cat build.log)"
# One attempt: two runs of the binary and a slow one. A verdict on
# anything but stage_b, or any between the same binary's runs, fails at
# once; stage_b not flagged (a preempted spin widens its interval) is
# retried, up to three attempts.
attempt() {
	for r in a1 a2; do
		PATHPROF_TIMING=on PATHPROF_OUT=$r.pathprof ./prog || fail "run $r"
	done
	PATHPROF_TIMING=on PATHPROF_OUT=b.pathprof ./prog slow || fail "run b"
	"$pp" diff a1.pathprof a2.pathprof >same.txt 2>err || fail "diff same: $(cat err)"
	grep -E '^[0-9]+ +(slower|faster) ' same.txt && fail "a verdict between two runs of the same binary: $(cat same.txt)"
	grep -Eq '^[0-9]+ +not enough data .*  main$' same.txt || fail "same: main: $(cat same.txt)"
	# --min-change 5: one run a side carries no measure of how far two
	# processes drift apart, and under TSan on a slow VM host stage_a,
	# the same code in both, came out 3.4 % faster with a tight interval;
	# the doubled stage_b is +100 %
	"$pp" diff --min-change 5 a1.pathprof b.pathprof >slow.txt 2>err || fail "diff slow: $(cat err)"
	flagged=$(grep -E '^[0-9]+ +(slower|faster) ' slow.txt)
	case $flagged in
	"") return 1 ;;
	*slower*"  main > stage_b") ;;
	*) fail "flagged: $flagged" ;;
	esac
	[ "$(printf '%s\n' "$flagged" | grep -c .)" = 1 ] || fail "more than one verdict: $flagged"
	"$pp" diff --min-change 5 --format json a1.pathprof b.pathprof | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = [r for r in d["paths"] if r["names"] == ["main", "stage_b"]]
# the median call, which a preempted spin does not move as it moves the mean
seg = [x for x in rows[0]["segments"] if x["name"] == "stage_b"][0]
pct = seg["p50_change_pct"]
if not 90 <= pct <= 110 or not rows[0]["change_pct"] > 50:
    print("FAIL: stage_b median call %+.1f %%, mean %+.1f %%, not about +100 %%" % (pct, rows[0]["change_pct"])); sys.exit(1)
' || exit 1
}
n=1
until attempt; do
	[ "$n" -lt 3 ] || fail "stage_b twice as slow was not flagged in 3 attempts: $(cat slow.txt)"
	n=$((n + 1))
done
echo "ok: same binary: no verdict; stage_b twice as slow: only it flagged (attempt $n)"
