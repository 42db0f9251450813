#!/bin/sh
# Every image gets its profile and nothing stays in /dev/shm (#27): an exec
# chain of 5 images (each its own profile, 50..10 leaf calls), 20 forked
# children that _exit (20 profiles of 7 calls), and 20 processes started at
# once with one PATHPROF_OUT without %p (20 profiles, one line each for the
# 19 that were diverted).
# usage: images.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
. "$6/lib.sh"
safety_build prog.c "$work/images" -pthread -lrt -ldl
export PATHPROF_XRAY=all
keep_shm_off
segments() { ls /dev/shm | grep -c "^pathprof\.$1\(\.\|$\)" || true; }

# 1. exec chain: one pid, five images
mkdir "$work/exec" && cd "$work/exec"
../images exec 5 2>stderr & child=$!
wait $child || fail "exec: exit status $?"
got=$(for f in images.$child.pathprof*; do leafs "$f"; done | sort -n | tr '\n' ' ')
[ "$got" = "10 20 30 40 50 " ] || fail "exec: leaf calls per image: '$got' ($(ls))"
[ "$(segments $child)" -eq 0 ] || fail "exec: segments left: $(ls /dev/shm | grep "pathprof.$child")"
[ "$(grep -c 'earlier image of this one' stderr)" -eq 4 ] || fail "exec: stderr: $(cat stderr)"

# 2. forked children that _exit
mkdir "$work/fork" && cd "$work/fork"
../images fork 20 2>stderr & child=$!
wait $child || fail "fork: exit status $?"
n=0
for f in images.*.pathprof; do
	[ "$f" = "images.$child.pathprof" ] && continue
	[ "$(leafs "$f")" = 7 ] || fail "fork: $f: $(leafs "$f")"
	n=$((n + 1))
done
[ "$n" -eq 20 ] || fail "fork: $n child profiles, expected 20"
[ "$(leafs "images.$child.pathprof")" = 3 ] || fail "fork: parent: $(leafs "images.$child.pathprof")"
[ "$(ls /dev/shm | grep -c "^pathprof\.$child\.")" -eq 0 ] || fail "fork: child segments left"
[ "$(cat stderr)" = "pathprof: profile written to images.$child.pathprof (timing off; PATHPROF_OUT=FILE names it, PATHPROF_TIMING=on times it, 'pathprof run' does both)" ] ||
	fail "fork: stderr: $(cat stderr)"

# 3. one PATHPROF_OUT for 20 processes at once
mkdir "$work/shared" && cd "$work/shared"
i=0
while [ $i -lt 20 ]; do
	PATHPROF_OUT=$PWD/out.pathprof ../images hold 1500 2>"err.$i" &
	i=$((i + 1))
done
wait
n=$(ls out.pathprof* | wc -l)
[ "$n" -eq 20 ] || fail "shared: $n profiles, expected 20: $(ls)"
for f in out.pathprof*; do [ "$(leafs "$f")" = 5 ] || fail "shared: $f: $(leafs "$f")"; done
[ "$(cat err.* | grep -c 'holds the profile of another process')" -eq 19 ] ||
	fail "shared: messages: $(cat err.*)"

# 4. a PATHPROF_OUT that names what is not a profile (the program itself,
# a source file, a trace): left as it was, the profile beside it at NAME.1;
# an empty file and a profile of an earlier run are written at
mkdir "$work/other" && cd "$work/other"
cp ../images prog
printf 'int main(void) { return 0; }\n' >src.c
printf 'PPTRACE\nrest of a trace\n' >t.trace
for f in prog src.c t.trace; do
	cp "$f" "$f.kept"
	PATHPROF_OUT=$PWD/$f ./prog fork 0 2>err || fail "other: $f: exit status $?"
	cmp -s "$f" "$f.kept" || fail "other: $f was replaced"
	[ "$(leafs "$f.1")" = 3 ] || fail "other: $f.1: $(leafs "$f.1") ($(ls))"
	[ "$(cat err)" = "pathprof: $PWD/$f is not a pathprof profile, and is left as it was; this profile goes to $PWD/$f.1" ] ||
		fail "other: $f: stderr: $(cat err)"
done
: >empty.pathprof
PATHPROF_OUT=$PWD/empty.pathprof ./prog fork 0 2>err && [ "$(leafs empty.pathprof)" = 3 ] && [ ! -s err ] ||
	fail "other: an empty file: $(leafs empty.pathprof), stderr $(cat err)"
PATHPROF_OUT=$PWD/empty.pathprof ./prog fork 0 2>err && [ ! -e empty.pathprof.1 ] && [ ! -s err ] ||
	fail "other: a profile of an earlier run was not replaced ($(ls)), stderr $(cat err)"
# the same for a trace (PATHPROF_TRACE): a file that is not a trace is left
# as it was, the trace recorded at NAME.1 and replayable
printf 'my notes\n' >notes.txt
PATHPROF_OUT=$PWD/n.pathprof PATHPROF_TRACE=$PWD/notes.txt ./prog fork 0 2>err || fail "trace: exit status $?"
[ "$(cat notes.txt)" = "my notes" ] || fail "trace: notes.txt was replaced"
[ "$(cat err)" = "pathprof: trace $PWD/notes.txt is not a pathprof trace, and is left as it was; recording to $PWD/notes.txt.1" ] ||
	fail "trace: stderr: $(cat err)"
"$pathprof" replay notes.txt.1 -o replayed.pathprof 2>err && [ "$(leafs replayed.pathprof)" = 3 ] ||
	fail "trace: notes.txt.1 does not replay to 3 leaf calls: $(cat err)"
finish
