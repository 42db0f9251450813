#!/bin/sh
# The profile's CPU time is the program's (tests/report/cputime.c): at
# least 90 % of what main's body used (two threads, 20 ms of CPU each)
# and at most that plus 1 ms, through each injector, timed; built with a
# selection as pathprof-cc sets one (--exclude-functions) where it can. The margin
# holds the program's own start and exit (the C library's, the printf);
# before the runtime's own start, symbol tables and registrations were
# taken out, the profile read 2-2.5 ms more.
# usage: cputime.sh VIA CC SRCROOT PATHPROF WRAPPER WORKDIR
script=cputime
# shellcheck source=tests/report/via_common.sh
. "$(dirname "$0")/via_common.sh"
sel=
case $via in cyg | raii) sel=--exclude-functions=cpu_ns ;; esac
"$wrapper" --via="$via" $extra $sel "$cc" $def -O2 -I"$src/bench" \
	"$src/tests/report/cputime.c" -o prog -lpthread >build.log 2>&1 || fail "build: $(cat build.log)"
for i in 1 2 3; do
	main=$(PATHPROF_XRAY=all PATHPROF_TIMING=on PATHPROF_OUT=o.pathprof ./prog 20 2>run.err) ||
		fail "run: $(cat run.err)"
	"$pp" report --format json o.pathprof >o.json || fail "report json"
	python3 - o.json "$main" <<'PY' && exit 0
import json, sys
d = json.load(open(sys.argv[1]))
main, cpu = int(sys.argv[2]), d["cpu"]["cpu_ns"]
print("  main's body %.2f ms, the profile's CPU time %.2f ms" % (main / 1e6, cpu / 1e6))
sys.exit(not (0.9 * main <= cpu <= main + 1000000))
PY
done
fail "the profile's CPU time is not the program's in three runs"
