#!/bin/sh
# The seeds of the fuzz targets that read what pathprof writes (profile,
# trace, shm), made by the build from the current writers so they never go
# stale (#27: seeds of format 1 were refused at the version check and the
# fuzzers covered 126 of 3561 counters). Each seed is read back by pathprof
# first: a writer and a reader that disagree fail the build here.
# usage: mkseeds.sh MKSEEDS MKSEEDS_SHM LIVE_WRITER PATHPROF OUTDIR STAMP
set -eu
mkseeds=$1 mkseeds_shm=$2 writer=$3 pp=$4 out=$5 stamp=$6
rm -rf "$out"
mkdir -p "$out/profile" "$out/trace" "$out/shm"
for v in $(env | sed -n 's/^\(PATHPROF_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PATHPROF_OUT=/dev/null
"$mkseeds" "$out/profile"
for f in "$out"/profile/*; do
	"$pp" report "$f" >/dev/null || { echo "mkseeds.sh: $f does not read" >&2; exit 1; }
done

# traces of the two-thread raii writer, timing on and off, and one cut short
PATHPROF_SHM=off PATHPROF_TIMING=on PATHPROF_TRACE="$out/trace/timed.pptrace" \
	"$writer" threads 2 300 </dev/null >/dev/null
PATHPROF_SHM=off PATHPROF_TIMING=off PATHPROF_TRACE="$out/trace/untimed.pptrace" \
	"$writer" threads 2 300 </dev/null >/dev/null
size=$(wc -c <"$out/trace/timed.pptrace")
head -c $((size * 2 / 3)) "$out/trace/timed.pptrace" >"$out/trace/cut.pptrace"
for f in "$out"/trace/*.pptrace; do
	st=0
	"$pp" replay "$f" -o /dev/null 2>"$out/err" || st=$?
	[ "$st" = 0 ] || { [ "$st" = 3 ] && [ "${f##*/}" = cut.pptrace ]; } ||
		{ echo "mkseeds.sh: $f: replay status $st: $(cat "$out/err")" >&2; exit 1; }
done

# kept live segments, cut to what the writer handed out
seg=pp-seed-$$
for c in "untimed off 1 3" "timed on 2 1500" "sampled sample:4 1 40"; do
	set -- $c
	PATHPROF_SHM=$seg PATHPROF_SHM_KEEP=1 PATHPROF_TIMING=$2 PATHPROF_PATHS=16 PATHPROF_ARENA_MB=16 \
		"$writer" threads "$3" "$4" </dev/null >/dev/null
	"$pp" top --once "$seg" >/dev/null 2>"$out/err" ||
		{ echo "mkseeds.sh: segment $1: $(cat "$out/err")" >&2; rm -f /dev/shm/$seg; exit 1; }
	"$mkseeds_shm" /dev/shm/$seg "$out/shm/$1"
	rm -f /dev/shm/$seg
done
rm -f "$out/err"
touch "$stamp"
