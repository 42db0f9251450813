#!/bin/sh
# A gated thread outlives main (outlive.c): replay of the trace == the
# profile written at exit, exactly, timed and untimed; without the exit dump,
# replay names the cut stream and exits 3.
# usage: outlive.sh PATHPROF OUTLIVE WORKDIR
set -u
pathprof=$1 prog=$2 dir=$3/outlive
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
for timing in off on; do
	PATHPROF_TIMING=$timing PATHPROF_OUT="$dir/live.pathprof" PATHPROF_TRACE="$dir/run.trace" \
		"$prog" || fail "$timing: exit $?"
	"$pathprof" replay -o "$dir/replay.pathprof" "$dir/run.trace" 2>"$dir/err" ||
		fail "$timing: replay exit $?: $(cat "$dir/err")"
	for f in paths json; do
		"$pathprof" report --format $f "$dir/live.pathprof" |
			grep -v -e '"pid"' -e '_ns"' -e 'ticks_per_ns' >"$dir/live.$f"
		"$pathprof" report --format $f "$dir/replay.pathprof" |
			grep -v -e '"pid"' -e '_ns"' -e 'ticks_per_ns' >"$dir/replay.$f"
	done
	cmp -s "$dir/live.paths" "$dir/replay.paths" ||
		{ fail "$timing: replay's paths differ from the profile"; diff "$dir/live.paths" "$dir/replay.paths" | head; }
	cmp -s "$dir/live.json" "$dir/replay.json" ||
		{ fail "$timing: replay's JSON differs from the profile"; diff "$dir/live.json" "$dir/replay.json" | head; }
	# Not two empties: the running thread's path is there, with at least
	# the rounds main waited for, and main's 1000 events.
	n=$(sed -n 's/^\([0-9]*\)|bg>mid>leaf$/\1/p' "$dir/live.paths")
	[ "${n:-0}" -ge 50000 ] || fail "$timing: bg>mid>leaf counted ${n:-0} times, expected >= 50000"
	grep -qx '1000|work' "$dir/live.paths" || fail "$timing: no 1000|work: $(cat "$dir/live.paths")"
done

# No exit dump: nothing froze, bg's stream was cut.
PATHPROF_TRACE="$dir/cut.trace" "$prog" nodump || fail "nodump: exit $?"
"$pathprof" replay -o "$dir/cut.pathprof" "$dir/cut.trace" 2>"$dir/err"
st=$?
[ "$st" = 3 ] || fail "nodump: replay exit $st, expected 3"
# bg's stream only (main's ends with its end record at exit)
n=$(grep -c "cut.trace: thread [12] (tid [0-9]*): its stream stops after [0-9]* event(s) in [0-9]* chunk(s) without the thread's end record" "$dir/err")
[ "$n" = 1 ] || fail "nodump: $n cut streams named, expected bg's alone: $(cat "$dir/err")"

[ "$fails" -eq 0 ] || { echo "outlive.sh: $fails check(s) failed"; exit 1; }
echo "outlive.sh: ok"
