#!/bin/sh
# `pathprof diff` on known profiles (diff_profiles): a profile against itself
# is all zero with no verdict but "no clear change"; B's parse stage is twice
# as slow, so its node alone is flagged slower (not the leaf below it), from
# files and from directories of runs; the outputs are compared byte for byte.
# usage: diff_test.sh PATHPROF DIFF_PROFILES EXPECTED_DIR WORK_DIR
set -u
pp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
gen=$2 exp=$3 dir=$4/diff-test.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$gen" "$dir" || { echo "FAIL: diff_profiles"; exit 1; }

# check NAME ARGS...: run diff in $dir (relative paths in the output) and
# compare with expected/NAME.
check() {
	name=$1
	shift
	(cd "$dir" && "$pp" diff "$@") >"$dir/$name" 2>"$dir/err" || fail "$name: exit $?: $(cat "$dir/err")"
	if [ -n "${UPDATE_EXPECTED:-}" ]; then cp "$dir/$name" "$exp/$name"; fi
	cmp -s "$exp/$name" "$dir/$name" || fail "$name differs: $(diff "$exp/$name" "$dir/$name" | head -20)"
}
check diff-same.txt a.pathprof a.pathprof
check diff-files.txt a.pathprof b.pathprof
check diff-files.json --format json a.pathprof b.pathprof
check diff-dirs.txt runs-a runs-b
check diff-dirs.json --format json runs-a runs-b
check diff-noise.txt runs-a runs-a2
# one run a side, only parse's slowest calls slower: the mean moved, the
# median call did not, so no verdict (a disturbance during one run looks so)
check diff-tail.txt a.pathprof a-tail.pathprof
# one run a side, B's process 6 % slower throughout: under the one-run floor
# (10 %) by default; --min-change 2 asks for the finer floor and gets
# verdicts from that drift
check diff-drift.txt a.pathprof a-drift.pathprof
check diff-drift-2.txt --min-change 2 a.pathprof a-drift.pathprof
# one run a side over 40 stages that scatter by +-20 % between the two
# processes: the floor rises over that scatter, and the one stage made 3x
# slower is the one verdict; --min-change 2 judges the scatter too
check diff-wide.txt wide-a.pathprof wide-b.pathprof
check diff-wide-2.txt --min-change 2 wide-a.pathprof wide-b.pathprof
# five runs a side over 40 stages, each run slower or faster as a whole by
# up to 30 %: the same workload gets no verdict, and in B w07 made 1.4x as
# slow is the one verdict (the runs' spread alone, a 54 % floor, hid it)
check diff-wruns-same.txt wruns-a wruns-a2
check diff-wruns.txt wruns-a wruns-b
# one run a side, the median call 80 % slower and the mean 84 % faster
# (undecided: two long calls of 40): the shape changed, no verdict
check diff-shape.txt shape-a.pathprof shape-b.pathprof
# one run a side, a 20 ns leaf's median call 5x slower, its mean undecided:
# the median's move over its 50 calls is under 0.1 % of the run
check diff-tiny.txt tiny-a.pathprof tiny-b.pathprof

# The verdicts themselves, so a wrong expected file cannot hide them.
verdict() { # FILE PATH-SUFFIX VERDICT (a regular expression)
	grep -E "^[0-9]+ +$3 +[-+0-9].*  $2\$" "$dir/$1" >/dev/null || fail "$1: '$2' is not '$3'"
}
for f in diff-files.txt diff-dirs.txt; do
	# parse's own code changed; main only holds it
	verdict $f "main > parse" slower
	verdict $f "main" "slower \(callees\)"
	verdict $f "main > parse > leaf" "no clear change"
	verdict $f "main > validate" "no clear change"
done
verdict diff-same.txt "main > parse > leaf" "no clear change"
verdict diff-noise.txt "main > parse > leaf" "no clear change"
verdict diff-noise.txt "main > validate" "no clear change"
grep -E '^[0-9]+ +(slower|faster)' "$dir/diff-same.txt" "$dir/diff-noise.txt" "$dir/diff-drift.txt" &&
	fail "a verdict where nothing changed"
verdict diff-drift.txt "main > parse" "no clear change"
verdict diff-shape.txt "main > validate" "no clear change"
grep -E '^[0-9]+ +(slower|faster)' "$dir/diff-wruns-same.txt" &&
	fail "diff-wruns-same.txt: a verdict where nothing changed"
grep -q '^  (runs brought to a common speed over 41 nodes' "$dir/diff-wruns.txt" ||
	fail "diff-wruns.txt does not say its runs were brought to a common speed"
grep -q 'common speed' "$dir/diff-dirs.txt" && fail "diff-dirs.txt: a common speed from 3 nodes"
[ "$(grep -E '^[0-9]+ +(slower|faster) ' "$dir/diff-wruns.txt" | sed 's/.*  //')" = "main > w07" ] ||
	fail "diff-wruns.txt: not exactly main > w07 flagged"
verdict diff-tiny.txt "main > validate" "no clear change"
[ "$(grep -E '^[0-9]+ +(slower|faster) ' "$dir/diff-wide.txt" | sed 's/.*  //')" = "main > w07" ] ||
	fail "diff-wide.txt: not exactly main > w07 flagged"
[ "$(grep -cE '^[0-9]+ +(slower|faster) ' "$dir/diff-wide-2.txt")" -gt 10 ] ||
	fail "diff-wide-2.txt: --min-change 2 did not judge the scatter"
grep -q '^  (from A to B the 41 nodes with verdicts' "$dir/diff-wide.txt" ||
	fail "diff-wide.txt does not say where its floor comes from"
verdict diff-drift-2.txt "main > parse" slower
grep -q '^  (two processes of one binary drift apart' "$dir/diff-drift.txt" ||
	fail "diff-drift.txt does not say why its floor is 10 %"
grep -q '^  (two processes' "$dir/diff-drift-2.txt" "$dir/diff-dirs.txt" &&
	fail "the one-run note where the floor is not the one-run floor"
grep -q '"change": "B - A"' "$dir/diff-files.json" || fail "json lacks the sign convention"
python3 -c 'import json,sys; json.load(open(sys.argv[1])); json.load(open(sys.argv[2]))' \
	"$dir/diff-files.json" "$dir/diff-dirs.json" 2>/dev/null || fail "json does not parse"

# Errors.
"$pp" diff "$dir/a.pathprof" >/dev/null 2>&1; [ $? = 2 ] || fail "one argument: not 2"
"$pp" diff "$dir/a.pathprof" "$dir/nope" >/dev/null 2>"$dir/err"; [ $? = 1 ] || fail "missing B: not 1"
mkdir "$dir/emptydir"
"$pp" diff "$dir/emptydir" "$dir/a.pathprof" >/dev/null 2>"$dir/err"; [ $? = 1 ] || fail "empty dir: not 1"
grep -q "no \*.pathprof files" "$dir/err" || fail "empty dir message: $(cat "$dir/err")"
exit $((fails > 0))
