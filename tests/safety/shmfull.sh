#!/bin/sh
# A /dev/shm too small for the live segment (a private tmpfs mounted over it
# in a mount namespace of the test's own) does not turn profiling off (#27):
# the counts stay exact in private memory, one line says why, and nothing is
# left behind. Needs root (unshare -m); skipped (77) otherwise.
# usage: shmfull.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
set -eu
wrapper=$1 build=$2 pathprof=$3 via=$4 cc=$5 src=$6
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	echo "SKIP: needs root for a mount namespace"
	exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-shmfull.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$src/../crash/build.sh"
crash_build "$wrapper" "$build" "$via" "$cc" "$src/images.c" "$work/images"
for v in $(env | sed -n 's/^\(PATHPROF_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
fails=0
fail() { echo "FAIL: $via $cc: $*"; fails=$((fails + 1)); }
# leaf calls in a profile (clang's cyg also gates inline library functions)
leafs() { "$pathprof" report --format paths "$1" | sed -n 's/^\([0-9]*\)|main>calls>leaf$/\1/p'; }
# SIZE: the tmpfs; WANT: the stderr line's pattern
# the parent says the live view stopped (its first allocation could not be
# backed) or is off (not even the segment's first bytes fit); so do the
# children, each for its own segment
want='the live view \(stops here\|is off\), counting goes on in private memory$'
for size in 4k 1m; do
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
[ "$fails" -eq 0 ] || exit 1
echo "ok: $via $cc"
