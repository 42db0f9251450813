#!/bin/sh
# A /dev/shm too small for the live segment (a private tmpfs mounted over it
# in a mount namespace of the test's own) does not turn profiling off (#27):
# the counts stay exact in private memory, one line says why, and nothing is
# left behind. Needs root (unshare -m); skipped (77) otherwise.
# usage: shmfull.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
. "$6/lib.sh"
safety_build prog.c "$work/images" -pthread -lrt -ldl
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	echo "SKIP: needs root for a mount namespace"
	exit 77
fi
# SIZE: the tmpfs; WANT: the stderr line's pattern
# the parent says the live view stopped (its first allocation could not be
# backed) or is off (not even the segment's first bytes fit); so do the
# children, each for its own segment
want='the live view \(stops here\|is off\), counting goes on in private memory$'
# 64k: the segment starts, the first slab's table (128 KiB) cannot be
# backed (it was 1m while tables started at 2 MiB)
for size in 4k 64k; do
	rm -f "$work"/out.pathprof*
	unshare -m sh -c 'mount -t tmpfs -o size='"$size"' tmpfs /dev/shm && cd "$1" &&
		PATHPROF_XRAY=all PATHPROF_OUT="$1/out.pathprof" ./images fork 3 2>"$1/stderr" &&
		ls /dev/shm >"$1/left"' sh "$work" || fail "$size: exit status $?"
	[ "$(leafs "$work/out.pathprof")" = 3 ] || fail "$size: parent: $(leafs "$work/out.pathprof")"
	for f in "$work"/out.pathprof.*; do
		[ "$(leafs "$f")" = 7 ] || fail "$size: child $f: $(leafs "$f")"
	done
	[ "$(ls "$work"/out.pathprof.* | wc -l)" -eq 3 ] || fail "$size: $(ls "$work")"
	# one line per process (the parent and each child exports its own)
	[ "$(grep -c "$want" "$work/stderr")" -eq "$(wc -l <"$work/stderr")" ] &&
		[ -s "$work/stderr" ] || fail "$size: stderr: $(cat "$work/stderr")"
	[ ! -s "$work/left" ] || fail "$size: left in /dev/shm: $(cat "$work/left")"
done
finish
