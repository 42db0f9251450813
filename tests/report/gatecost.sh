#!/bin/sh
# The gate's own cost, measured by the profiled process (runtime/gate_cost.c)
# and taken out by the reports (report/compensate.c), through each injector:
# examples/multi built through pathprof-cc and run timed must write a
# profile whose JSON has the measure (inside > 0), report it compensated
# with exactly the removed time missing from the gated time (raw minus
# compensated, to the rounding), and keep it raw with --raw (report and
# diff, whose time per run is the report's gated time); the same under a
# function selection through cyg and the plugin; with another selection
# or timing off no measure is taken and the text says so.
# Exact checks only: how close the compensated times come to a plain build
# is measured by bench/compensate.sh, not asserted here.
# usage: gatecost.sh VIA CC MULTI_SRC PATHPROF WRAPPER WORKDIR
# shellcheck disable=SC2046 # json's fields are split into $1.. on purpose
set -u
via=$1 cc=$2 src=$3 pp=$4 wrapper=$5 work=$6/gatecost-$1.$$
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $via: $*"; exit 1; }
extra=
[ "$via" = plugin ] && extra=--plugin-mode=all
make -s -C "$work" -f "$src/Makefile" SRCDIR="$src" CC="$wrapper --via=$via $extra $cc" >"$work/build.log" 2>&1 ||
	fail "build: $(cat "$work/build.log")"
run() { # OUT ENV...: run multi with the given environment, profile to OUT
	out=$1
	shift
	(cd "$work" && env PATHPROF_OUT="$work/$out" PATHPROF_XRAY=all "$@" ./multi >/dev/null 2>"$work/err") ||
		fail "run: $(cat "$work/err")"
}
json() { "$pp" report --format json "$@" | python3 -c "
import json, sys
d = json.load(sys.stdin)
g = d.get('gate_cost')
print(d['gated_ns'], g['inside_ns'] if g else '-', g['outside_ns'] if g else '-',
      g['removed_ns'] if g else '-', g['compensated'] if g else '-')"; }

# raii and cyg measure their gate as the program's compiler made it: the
# archive's gated loop (frontends/*/cost.c) must be in the program
case $via in
raii | cyg)
	nm "$work/multi" | grep -q " T pp__${via}_cost_loop\$" ||
		fail "the program lacks pp__${via}_cost_loop: the measure would use the runtime's copy" ;;
esac

run timed.pathprof PATHPROF_TIMING=on
set -- $(json "$work/timed.pathprof")
comp=$1 inside=$2 outside=$3 removed=$4 flag=$5
set -- $(json --raw "$work/timed.pathprof")
raw=$1 rflag=$5
[ "$inside" != - ] || fail "no gate cost in the profile"
python3 -c "import sys; sys.exit(not ($inside > 0 and $outside >= 0))" ||
	fail "inside $inside ns, outside $outside ns"
[ "$flag" = True ] || fail "not compensated by default"
[ "$rflag" = False ] || fail "--raw is compensated"
python3 -c "import sys; sys.exit(not (abs($raw - $comp - $removed) <= 0.001 * $raw + 1 and $removed > 0))" ||
	fail "raw gated $raw - compensated $comp is not the removed $removed"
"$pp" report "$work/timed.pathprof" | grep -q "^  gate cost  .* ns a timed gate" ||
	fail "the text header does not show the gate cost"
# diff compares what report shows: each side's time per run is the
# compensated gated time, and with --raw the raw one
for mode in comp raw; do
	want=$comp flagwant=True opt=
	[ "$mode" = raw ] && want=$raw flagwant=False opt=--raw
	"$pp" diff --format json $opt "$work/timed.pathprof" "$work/timed.pathprof" | python3 -c "
import json, sys
d = json.load(sys.stdin)
for side in ('a', 'b'):
    s = d[side]
    if not (abs(s['total_ns_per_run'] - $want) <= 0.001 * $want + 1 and s['compensated'] == $flagwant):
        sys.exit('%s: %s, report says %s' % (side, s, $want))" || fail "diff $opt: not the report's times"
done
"$pp" diff "$work/timed.pathprof" "$work/timed.pathprof" | grep -q "^  A  .*(1 run, $via; the gates' cost taken out)$" ||
	fail "diff's text does not say the gates' cost was taken out"
# the program's CPU time (one thread) is within its run: pathprof's own
# threads and what ran before the run are not in it
"$pp" report --format json "$work/timed.pathprof" | python3 -c "
import json, sys
d = json.load(sys.stdin)
run, cpu = d['end_ns'] - d['start_ns'], d['cpu']['cpu_ns']
sys.exit(not (0 < cpu <= run))" || fail "CPU time beyond the run or none"

# A function selection alone: cyg's and the plugin's kept gates take their
# own way (runtime/gate_selected.c), which the measure takes too, so the
# profile is compensated, exactly as above; raii and XRay gates go out of
# line by ways the measure does not take: no measure. A root selection: no
# measure on any injector.
run selected.pathprof PATHPROF_TIMING=on PATHPROF_FUNCTIONS='main,handle_request,parse_*'
set -- $(json "$work/selected.pathprof")
scomp=$1 sinside=$2 sremoved=$4
set -- $(json --raw "$work/selected.pathprof")
sraw=$1
case $via in
cyg | plugin)
	[ "$sinside" != - ] || fail "no measure under a function selection"
	python3 -c "import sys; sys.exit(not (abs($sraw - $scomp - $sremoved) <= 0.001 * $sraw + 1 and $sremoved > 0))" ||
		fail "selected: raw gated $sraw - compensated $scomp is not the removed $sremoved" ;;
*)
	[ "$sinside" = - ] || fail "a measure under a selection: $sinside"
	"$pp" report "$work/selected.pathprof" | grep -q "^  gate cost  not measured" ||
		fail "the text does not say the cost was not measured" ;;
esac
run rooted.pathprof PATHPROF_TIMING=on PATHPROF_ROOT='handle_request'
set -- $(json "$work/rooted.pathprof")
[ "$2" = - ] || fail "a measure under a root selection: $2"
"$pp" report "$work/rooted.pathprof" | grep -q "^  gate cost  not measured" ||
	fail "the text does not say the cost was not measured under a root selection"

run untimed.pathprof PATHPROF_TIMING=off
set -- $(json "$work/untimed.pathprof")
[ "$2" = - ] || fail "a measure with timing off: $2"
"$pp" diff --format json "$work/untimed.pathprof" "$work/untimed.pathprof" | python3 -c "
import json, sys
d = json.load(sys.stdin)
sys.exit(d['a']['compensated'] is not False)" || fail "diff calls an untimed run compensated"
echo "ok: $via: inside $inside ns, outside $outside ns a gate; $removed of $raw ns removed"
