#!/bin/sh
# `pathprof diff`'s verdicts where nothing changed and where one function
# did, on a program that is not an event loop: bench/diffwalk.c (16 384
# calling contexts, through cyg, gcc -O2, timed, 50 walks a run), RUNS
# runs of each build, interleaved. Prints the slower/faster verdicts of:
# the same binary against itself one run a side (pairs 1..RUNS) and RUNS
# runs a side; and against the build whose b3 takes twice as long: the
# right answer is b3's four nodes as changed in their own code, and the
# nodes above them (main, a0, a1, b1, a2, b2: their inclusive time holds
# b3's) as changed in their callees; the flagged column counts those and
# the rest apart. Noise, not instructions: the counts
# depend on the machine (bench/README.md, seventeenth stop).
# usage: bench/diffnoise.sh BUILD_DIR [RUNS]   (default 5)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/common/fe_build.sh"
fe_build gcc cyg -O2 "$root/bench/diffwalk.c" "$tmp/walk"
fe_build gcc cyg "-O2 -DSLOW_B3" "$root/bench/diffwalk.c" "$tmp/slow"
mkdir "$tmp/a" "$tmp/b" "$tmp/s"
i=1
while [ "$i" -le "$runs" ]; do
	for side in a b s; do
		exe=$tmp/walk
		[ "$side" = s ] && exe=$tmp/slow
		PATHPROF_TIMING=on PATHPROF_OUT="$tmp/$side/r$i.pathprof" "$exe" 50
	done
	i=$((i + 1))
done
pp=$build/tools/pathprof
verdicts() { "$pp" diff "$@" | grep -E '^[0-9]+ +(slower|faster) ' || true; }
floor() { "$pp" diff "$@" | sed -n 's/.*noise floor\( = spread of A.s runs, at least\)\{0,1\} \([0-9.]*%\).*/\2/p'; }
echo "| diff | verdicts | floor | flagged |"
echo "|---|---:|---:|---|"
i=1
while [ "$i" -le "$runs" ]; do
	echo "| same binary, one run a side, pair $i | $(verdicts "$tmp/a/r$i.pathprof" "$tmp/b/r$i.pathprof" | wc -l) | $(floor "$tmp/a/r$i.pathprof" "$tmp/b/r$i.pathprof") | |"
	i=$((i + 1))
done
echo "| same binary, $runs runs a side | $(verdicts "$tmp/a" "$tmp/b" | wc -l) | $(floor "$tmp/a" "$tmp/b") | |"
# the flagged rows as "own: N b3, M other; callees: K": b3's own nodes are
# the right answer; a row whose change is in its callees (its inclusive
# time holds b3's) is right when it lies above b3 (a path of up to four
# names)
judge() { verdicts "$@" | awk -F'  ' '{ path = $NF; n = split(path, x, " > ")
		if ($0 ~ /callees/) { if (n <= 4) c++; else w++ }
		else if (n == 5 && x[5] == "b3") r++; else w++ }
	END { printf "own: %d b3; callees: %d above b3; %d elsewhere", r, c, w }'; }
echo "| b3 twice as long, one run a side | $(verdicts "$tmp/a/r1.pathprof" "$tmp/s/r1.pathprof" | wc -l) | $(floor "$tmp/a/r1.pathprof" "$tmp/s/r1.pathprof") | $(judge "$tmp/a/r1.pathprof" "$tmp/s/r1.pathprof") |"
echo "| b3 twice as long, $runs runs a side | $(verdicts "$tmp/a" "$tmp/s" | wc -l) | $(floor "$tmp/a" "$tmp/s") | $(judge "$tmp/a" "$tmp/s") |"
