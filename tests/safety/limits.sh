#!/bin/sh
# Edges found by the hostile pass (#27, low): a profile whose last path
# component is 252 bytes is written (the temporary's name no longer adds a
# suffix to it); a reader under `ulimit -v 1 GiB` still reads a live segment
# (it maps what the writer used, not the 64 GiB reservation); a /proc file
# that says it is empty is read, and refused as what it is.
# usage: limits.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
. "$6/lib.sh"
safety_build prog.c "$work/images" -pthread -lrt -ldl

long=$(printf 'p%.0s' $(seq 1 252))
(cd "$work" && PATHPROF_OUT="$work/$long" ./images hold 0 2>err) || fail "long name: exit $?"
[ -f "$work/$long" ] && [ ! -s "$work/err" ] || fail "long name: $(cat "$work/err")"

(cd "$work" && PATHPROF_OUT=/dev/null ./images hold 3000) & pid=$!
i=0
until [ -e /dev/shm/pathprof.$pid ]; do i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.05; done
sleep 0.2
# (a sanitizer build's tool cannot start under any such limit: its shadow
# memory is terabytes of address space; that part is skipped there)
if (ulimit -v 1048576; "$pathprof" --version) >/dev/null 2>&1; then
	out=$( (ulimit -v 1048576; "$pathprof" top --once --format json $pid) 2>&1) ||
		fail "top under ulimit -v: $out"
	echo "$out" | grep -q '"pid":'"$pid" || fail "top under ulimit -v: $out"
else
	echo "note: this pathprof cannot run under ulimit -v (a sanitizer build): not checked"
fi
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=

out=$("$pathprof" report /proc/self/status 2>&1) && fail "a /proc file was read as a profile"
[ "$out" = "pathprof: /proc/self/status: not a pathprof profile (bad magic)" ] ||
	fail "/proc/self/status: $out"
finish
