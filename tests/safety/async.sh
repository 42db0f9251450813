#!/bin/sh
# Builds tests/safety/prog.c plain and through the injector, then runs
# async.py on both (every asynchronous signal ends them the same way).
# usage: async.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
. "$6/lib.sh"
"$cc" -O2 "$src/prog.c" -o "$work/plain" -pthread -lrt
safety_build prog.c "$work/gated" -pthread -lrt -ldl
keep_shm_off
PATHPROF_XRAY=all python3 "$src/async.py" "$work/plain" "$work/gated" "$pathprof" "$work/run" ||
	fail "async.py"
finish
