#!/bin/sh
# Record the known workload with timing on (every event, then one in three)
# and through the API; `pathprof replay` must give the live profile exactly:
# the same file bytes and the same `report --format json`. Then damage the
# trace every way we can think of: replay must use every complete chunk, say
# what was lost, exit 3 (partial) or 1 (unusable), and never crash.
# usage: replay_test.sh PATHPROF WORKLOAD WORK_DIR
set -u
pp=$1 wl=$2 dir=$3/replay-test.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

same_profile() { # LIVE REPLAYED what
	cmp -s "$1" "$2" || fail "$3: replayed profile bytes differ from the live one"
	"$pp" report --format json "$1" >"$dir/live.json" || fail "$3: report live"
	"$pp" report --format json "$2" >"$dir/replay.json" || fail "$3: report replay"
	cmp -s "$dir/live.json" "$dir/replay.json" ||
		fail "$3: json differs: $(diff "$dir/live.json" "$dir/replay.json" | head -5)"
}

record() { # NAME TIMING [api]
	name=$1 timing=$2
	if [ "${3:-}" = api ]; then
		env PATHPROF_TIMING="$timing" PATHPROF_DEPTH=8 PATHPROF_OUT="$dir/$name.pathprof" \
			PATHPROF_TRACE= "$wl" api "$dir/$name.trace"
	else
		env PATHPROF_TIMING="$timing" PATHPROF_DEPTH=8 PATHPROF_OUT="$dir/$name.pathprof" \
			PATHPROF_TRACE="$dir/$name.trace" "$wl"
	fi || fail "$name: workload exit $?"
}

for m in on:on sample:sample:3 off:off api:on; do
	name=${m%%:*} timing=${m#*:}
	if [ "$name" = api ]; then record "$name" "$timing" api; else record "$name" "$timing"; fi
	"$pp" replay "$dir/$name.trace" -o "$dir/$name.replay" 2>"$dir/err"
	st=$?
	[ "$st" = 0 ] || fail "$name: replay exit $st: $(cat "$dir/err")"
	[ -s "$dir/err" ] && fail "$name: replay stderr: $(cat "$dir/err")"
	# -o naming the trace itself: refused, the trace kept
	cp "$dir/$name.trace" "$dir/$name.kept"
	"$pp" replay "$dir/$name.trace" -o "$dir/./$name.trace" 2>"$dir/err"
	st=$?
	[ "$st" = 2 ] && [ "$(cat "$dir/err")" = "pathprof: replay: -o $dir/./$name.trace is the trace being replayed: name another file for the profile" ] ||
		fail "$name: replay -o the trace: exit $st: $(cat "$dir/err")"
	cmp -s "$dir/$name.trace" "$dir/$name.kept" || fail "$name: replay -o the trace changed it"
	same_profile "$dir/$name.pathprof" "$dir/$name.replay" "$name"
done

# The workload's own numbers, so that equality above cannot be two empties.
"$pp" report --format paths "$dir/on.replay" >"$dir/paths"
grep -qx '1|leaf' "$dir/paths" || fail "listing lacks the post-root leaf: $(cat "$dir/paths")"
grep -qx '1999|handle>parse>leaf' "$dir/paths" || fail "handle>parse>leaf count: $(cat "$dir/paths")"
grep -qx '300|handle>validate' "$dir/paths" || fail "handle>validate count: $(cat "$dir/paths")"
"$pp" report "$dir/on.replay" >"$dir/text"
grep -q '20 (frames beyond depth bound)' "$dir/text" || fail "depth drops: $(cat "$dir/text")"
grep -q 'unmatched  1$' "$dir/text" || fail "unmatched: $(cat "$dir/text")"
grep -q 'threads    4$' "$dir/text" || fail "threads: $(cat "$dir/text")"

# Environment of the replaying process is not the recording's.
PATHPROF_DEPTH=300 PATHPROF_TRACE="$dir/on.trace" "$pp" replay "$dir/on.trace" -o "$dir/env.replay" ||
	fail "replay under PATHPROF_TRACE=its own input"
same_profile "$dir/on.pathprof" "$dir/env.replay" "replay with PATHPROF_* set"

# --bench prints every operation kind and a TOTAL; the profile is unchanged.
"$pp" replay --bench=3 "$dir/on.trace" -o "$dir/bench.replay" >"$dir/bench" ||
	fail "replay --bench exit $?"
for k in enter leave 'leaf record' root 'first sight' TOTAL; do
	grep -q "^$k " "$dir/bench" || fail "--bench lacks '$k': $(cat "$dir/bench")"
done
same_profile "$dir/on.pathprof" "$dir/bench.replay" "--bench then -o"
# On a terminal (script(1) gives it one) --bench says which repetition runs;
# redirected, as above, it says nothing on stderr.
if command -v script >/dev/null 2>&1; then
	script -qec "'$pp' replay --bench=3 '$dir/on.trace'" /dev/null >"$dir/bench.tty" 2>&1 ||
		fail "replay --bench on a terminal exit $?"
	grep -q "replay --bench: repetition 3 of 3" "$dir/bench.tty" ||
		fail "--bench on a terminal shows no progress"
fi
"$pp" replay --bench=2 "$dir/on.trace" >/dev/null 2>"$dir/bench.err" || fail "replay --bench=2"
[ ! -s "$dir/bench.err" ] || fail "--bench wrote progress to a file: $(cat "$dir/bench.err")"

# Usage errors.
"$pp" replay >/dev/null 2>&1; [ $? = 2 ] || fail "replay without args: not 2"
"$pp" replay "$dir/on.trace" >/dev/null 2>&1; [ $? = 2 ] || fail "replay without -o: not 2"
"$pp" replay --bogus x >/dev/null 2>&1; [ $? = 2 ] || fail "replay --bogus: not 2"

# Unusable files: status 1, one line.
bad() { # WHAT FILE EXPECTED-LINE
	"$pp" replay "$2" -o "$dir/bad.out" >/dev/null 2>"$dir/err"
	st=$?
	[ "$st" = 1 ] || fail "$1: exit $st, expected 1"
	[ "$(wc -l <"$dir/err")" = 1 ] || fail "$1: stderr not one line: $(cat "$dir/err")"
	grep -qF "$3" "$dir/err" || fail "$1: stderr '$(cat "$dir/err")', expected '$3'"
	[ -e "$dir/bad.out" ] && fail "$1: wrote an output"
	rm -f "$dir/bad.out"
}
: >"$dir/empty.trace"
bad "zero-length" "$dir/empty.trace" "empty file, not a pathprof trace"
bad "missing" "$dir/nope.trace" "No such file or directory"
printf 'NOTATRACE_______' >"$dir/magic.trace"
bad "wrong magic" "$dir/magic.trace" "not a pathprof trace (bad magic)"
cp "$dir/on.trace" "$dir/future.trace"
printf '\011' | dd of="$dir/future.trace" bs=1 seek=8 conv=notrunc 2>/dev/null
bad "future version" "$dir/future.trace" "trace version 9; this pathprof reads version 3"

# Damage: cut at every chunk boundary and inside chunks, flip bytes. Every
# result must be status 3 with a profile written, never a crash.
size=$(wc -c <"$dir/on.trace")
"$pp" replay --chunks "$dir/on.trace" | head -1 | grep -qx '# offset stream sequence bytes events' ||
	fail "--chunks: no column header"
offsets=$("$pp" replay --chunks "$dir/on.trace" | grep -v '^#' | cut -d" " -f1)
cuts="16 17 40 $((size - 1)) $((size - 5))"
for o in $offsets; do cuts="$cuts $o $((o + 1)) $((o + 20)) $((o + 33)) $((o + 500))"; done
o=16
while [ "$o" -lt "$size" ]; do cuts="$cuts $o"; o=$((o + 1499)); done
n=0
for c in $cuts; do
	[ "$c" -lt "$size" ] || continue
	head -c "$c" "$dir/on.trace" >"$dir/cut.trace"
	"$pp" replay "$dir/cut.trace" -o "$dir/cut.out" >/dev/null 2>"$dir/err"
	st=$?
	[ "$st" = 3 ] || fail "cut at $c: exit $st: $(cat "$dir/err")"
	[ -s "$dir/cut.out" ] || fail "cut at $c: no profile written"
	grep -q "partial replay" "$dir/err" || fail "cut at $c: no loss summary: $(cat "$dir/err")"
	n=$((n + 1))
done
[ "$n" -gt 20 ] || fail "only $n cuts tried"

# A cut inside the last thread chunk loses only that chunk: the bytes lost
# are reported from where the chunk starts.
for o in 200 5000 9000 20000; do
	[ "$o" -lt "$size" ] || continue
	cp "$dir/on.trace" "$dir/flip.trace"
	# Invert the byte (writing a constant would change nothing where the
	# byte already had that value: the trace's bytes differ run to run).
	b=$(od -An -tu1 -j "$o" -N1 "$dir/on.trace" | tr -d ' ')
	# shellcheck disable=SC2059
	printf "\\$(printf '%03o' $((b ^ 255)))" | dd of="$dir/flip.trace" bs=1 seek="$o" conv=notrunc 2>/dev/null
	"$pp" replay "$dir/flip.trace" -o "$dir/flip.out" >/dev/null 2>"$dir/err"
	st=$?
	[ "$st" = 3 ] || fail "flip at $o: exit $st: $(cat "$dir/err")"
	grep -q "damaged, skipped" "$dir/err" || fail "flip at $o: damage not reported: $(cat "$dir/err")"
done

# A thread chunk copied to the end of the file (a trace appended to
# itself, a copy gone wrong): dropped with one line, counts unchanged.
line=$("$pp" replay --chunks "$dir/on.trace" | grep -v '^#' | awk '$2 != 0' | head -1)
off=${line%% *} rest=${line#* }
stream=${rest%% *} rest=${rest#* } rest=${rest#* }
len=${rest%% *}
cp "$dir/on.trace" "$dir/dup.trace"
tail -c +$((off + 1)) "$dir/on.trace" | head -c $((32 + len)) >>"$dir/dup.trace"
"$pp" replay "$dir/dup.trace" -o "$dir/dup.out" >/dev/null 2>"$dir/err"
st=$?
[ "$st" = 3 ] || fail "duplicated chunk: exit $st: $(cat "$dir/err")"
grep -q "thread $stream: 1 chunk(s) repeat an earlier chunk's sequence number: dropped" "$dir/err" ||
	fail "duplicated chunk: not said: $(cat "$dir/err")"
"$pp" replay "$dir/on.trace" -o "$dir/undup.out" >/dev/null 2>&1
[ "$("$pp" report --format paths "$dir/dup.out")" = "$("$pp" report --format paths "$dir/undup.out")" ] ||
	fail "duplicated chunk: counts changed"

# Two processes recording to one name at once: the first holds the file, the
# second records to NAME.<pid> (one line on stderr); each trace replays to
# its own process's profile exactly.
env PATHPROF_TIMING=on PATHPROF_DEPTH=8 PATHPROF_OUT="$dir/w1.pathprof" PATHPROF_TRACE="$dir/two.trace" \
	"$wl" slow 2>"$dir/w1.err" &
w1=$!
sleep 0.3
env PATHPROF_TIMING=on PATHPROF_DEPTH=8 PATHPROF_OUT="$dir/w2.pathprof" PATHPROF_TRACE="$dir/two.trace" \
	"$wl" 2>"$dir/w2.err"
w2=$(sed -n 's/.*recording to .*two\.trace\.\([0-9]*\)$/\1/p' "$dir/w2.err")
wait "$w1" || fail "two writers: first writer exit $?"
[ -n "$w2" ] && [ -s "$dir/two.trace.$w2" ] ||
	fail "two writers: the second did not get a file of its own: $(cat "$dir/w2.err")"
"$pp" replay "$dir/two.trace" -o "$dir/w1.replay" 2>"$dir/err" || fail "two writers: replay 1: $(cat "$dir/err")"
same_profile "$dir/w1.pathprof" "$dir/w1.replay" "two writers, first"
"$pp" replay "$dir/two.trace.$w2" -o "$dir/w2.replay" 2>"$dir/err" || fail "two writers: replay 2: $(cat "$dir/err")"
same_profile "$dir/w2.pathprof" "$dir/w2.replay" "two writers, second"

# A file two processes wrote into (as an older pathprof let them): replay
# refuses to mix them, says so, exits 3 and writes nothing.
cp "$dir/two.trace" "$dir/mixed.trace"
tail -c +17 "$dir/two.trace.$w2" >>"$dir/mixed.trace"
"$pp" replay "$dir/mixed.trace" -o "$dir/mixed.out" 2>"$dir/err"
st=$?
[ "$st" = 3 ] || fail "mixed writers: exit $st: $(cat "$dir/err")"
grep -q "written by two processes at once" "$dir/err" || fail "mixed writers: not said: $(cat "$dir/err")"
[ -e "$dir/mixed.out" ] && fail "mixed writers: an output was written"

# Killed with SIGKILL while it runs (asleep after its events, its threads'
# chunks written): nothing ran at exit, yet every key was named when first
# seen, so the replay has names, and says the trace was cut.
env PATHPROF_TIMING=on PATHPROF_DEPTH=8 PATHPROF_OUT="$dir/killed.pathprof" PATHPROF_SHM=off \
	PATHPROF_TRACE="$dir/killed.trace" "$wl" slow 2>/dev/null &
k=$!
sleep 0.5
kill -KILL "$k"
wait "$k" 2>/dev/null
[ -e "$dir/killed.pathprof" ] && fail "killed: a profile was written at exit"
"$pp" replay "$dir/killed.trace" -o "$dir/killed.replay" 2>"$dir/err"
st=$?
[ "$st" = 3 ] || fail "killed: replay exit $st, expected 3: $(cat "$dir/err")"
grep -q "no end-of-trace record" "$dir/err" || fail "killed: the cut is not said: $(cat "$dir/err")"
grep -q "have no name" "$dir/err" && fail "killed: keys without names: $(cat "$dir/err")"
"$pp" report --format paths "$dir/killed.replay" >"$dir/killed.paths"
[ -s "$dir/killed.paths" ] || fail "killed: no paths replayed"
grep -q ':0x' "$dir/killed.paths" && fail "killed: unnamed keys: $(cat "$dir/killed.paths")"
# A trace whose name records are damaged (every process chunk but the first,
# which holds the configuration) still replays, and lists the keys that lost
# their names. Chunks: u32 magic, u32 payload length, u64 stream, ...
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
size=$(wc -c <"$dir/killed.trace")
o=16 first=1
while [ $((o + 32)) -le "$size" ]; do
	len=$(u32 "$dir/killed.trace" $((o + 4)))
	stream=$(u32 "$dir/killed.trace" $((o + 8)))
	if [ "$stream" = 0 ]; then
		if [ "$first" = 1 ]; then
			first=0
		else
			printf 'X' | dd of="$dir/killed.trace" bs=1 seek=$((o + 32)) conv=notrunc 2>/dev/null
		fi
	fi
	o=$((o + 32 + len))
done
"$pp" replay "$dir/killed.trace" -o "$dir/noname.replay" 2>"$dir/err"
st=$?
[ "$st" = 3 ] || fail "names damaged: replay exit $st, expected 3: $(cat "$dir/err")"
grep -q "key(s) have no name in the trace" "$dir/err" || fail "names damaged: loss not listed: $(cat "$dir/err")"

exit $((fails > 0))
