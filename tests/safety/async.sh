#!/bin/sh
# Builds tests/safety/async.c plain and through the injector, then runs
# async.py on both (every asynchronous signal ends them the same way).
# usage: async.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
set -eu
wrapper=$1 build=$2 pathprof=$3 via=$4 cc=$5 src=$6
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-async.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$src/../crash/build.sh"
"$cc" -O2 "$src/async.c" -o "$work/plain" -lrt
crash_build "$wrapper" "$build" "$via" "$cc" "$src/async.c" "$work/gated" -lrt
for v in $(env | sed -n 's/^\(PATHPROF_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
PATHPROF_XRAY=all exec python3 "$src/async.py" "$work/plain" "$work/gated" "$pathprof" "$work/run"
