#!/bin/sh
# PATHPROF_NAMER (docs/guides/live.md, "Names"): under auto, the default, a
# program that runs one thread gets no thread of pathprof's beside it, so
# glibc keeps its single-threaded ways (tests/live/namer_probe.c prints
# glibc's flag and its thread count); its profile still names every key at
# exit, and `pathprof top` names its keys from its files (JSON says no
# naming thread runs). Its
# first pthread_create starts the naming thread (interposed), as does
# PATHPROF_NAMER=on from the start; a bad value is said in one line and
# taken as auto. Under a sanitizer (SANITIZE, meson's b_sanitize, not
# "none") the naming thread starts at once whatever the setting (its
# interceptor of pthread_create), and the sanitizer may run threads of its
# own: only glibc's flag is compared there.
# A killed probe's segment names its keys from its files (raii, and cyg
# with PROBE_CYG, the probe built with -finstrument-functions; the plugin
# with WRAPPER and PLUGIN_CC, which build it through the LLVM pass here).
# usage: namer.sh PATHPROF PROBE [SANITIZE [PROBE_CYG [WRAPPER PLUGIN_CC]]]
set -u
pp=$1 probe=$2 san=${3:-none} probe_cyg=${4:-} wrapper=${5:-} plugin_cc=${6:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-namer.XXXXXX")
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# run NAMER MODE WANT: the probe's last line, and its profile's paths
run() {
	out=$(env ${1:+PATHPROF_NAMER=$1} PATHPROF_SHM="pp-namer-run.$$" PATHPROF_OUT="$work/p.pathprof" "$probe" "$2" 2>"$work/err")
	want=$3
	if [ "$san" != none ]; then
		out=${out% tasks *} want="single 0"
	fi
	[ "$out" = "$want" ] || fail "PATHPROF_NAMER=${1:-unset} $2: '$out', expected '$3' ($(cat "$work/err"))"
	paths=$("$pp" report --format paths "$work/p.pathprof" | sort | paste -sd' ' -)
	want="1000|work>leaf"
	[ "$2" = thread ] && want="2000|work>leaf"
	[ "$paths" = "$want" ] || fail "PATHPROF_NAMER=${1:-unset} $2: paths '$paths', expected '$want'"
}
run "" one "single 1 tasks 1"
run auto one "single 1 tasks 1"
run on one "single 0 tasks 2"
run "" thread "single 0 tasks 2"
run on thread "single 0 tasks 2"
# a bad value: one line, then auto
env PATHPROF_NAMER=yes PATHPROF_SHM="pp-namer-run.$$" PATHPROF_OUT=/dev/null "$probe" one >"$work/out" 2>"$work/err"
[ "$san" != none ] || [ "$(cat "$work/out")" = "single 1 tasks 1" ] || fail "PATHPROF_NAMER=yes: $(cat "$work/out")"
grep -qx "pathprof: PATHPROF_NAMER=yes: expected auto or on; using auto" "$work/err" ||
	fail "PATHPROF_NAMER=yes said: $(cat "$work/err")"
# the live view of a waiting single-threaded probe, then of one with PATHPROF_NAMER=on
for namer in auto on; do
	rm -f "$work/ready" "$work/go"
	PATHPROF_NAMER=$namer PATHPROF_OUT=/dev/null PATHPROF_SHM="pp-namer-test.$$" "$probe" one "$work/ready" "$work/go" \
		>/dev/null 2>&1 &
	pid=$!
	i=0
	while [ ! -e "$work/ready" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	sleep 0.2 # the naming thread's first pass, where there is one
	"$pp" top --once "pp-namer-test.$$" >"$work/top.txt" 2>&1 || fail "$namer: top: $(cat "$work/top.txt")"
	"$pp" top --once --format json "pp-namer-test.$$" >"$work/top.json" 2>&1 || fail "$namer: top json"
	touch "$work/go"
	wait "$pid"
	pid=
	# either way the path is named: by the naming thread, or (auto) by
	# top from the probe's files, so no note says names wait for the exit
	! grep -qF "names: some at the program's exit" "$work/top.txt" || fail "$namer: top says: $(cat "$work/top.txt")"
	grep -q "work>leaf" "$work/top.txt" || fail "$namer: top shows no named path: $(cat "$work/top.txt")"
	if [ $namer = auto ] && [ "$san" = none ]; then
		grep -q '"naming_thread":false' "$work/top.json" || fail "auto: top json: $(cat "$work/top.json")"
	else
		grep -q '"naming_thread":true' "$work/top.json" || fail "on: top json: $(cat "$work/top.json")"
	fi
done
# killed PROBE PATH: a single-threaded probe's recovered profile keeps
# every count; its keys, which no naming pass named, are named from the
# probe's files (the module list in its segment: raii from the gates'
# site records, cyg from the symbol table) and give the path PATH, as at
# exit; its times are in ns (the tool measures the tick rate from the
# writer's first reading of the clock: the probe's 20 ms of work come out
# at 20 ms; read --raw: the compensated time takes the leaves' estimated
# gate cost off, which a sanitizer's noise can make more than they cost),
# and its run lasts to the recovery (no pass bounded it earlier;
# under a sanitizer, to the naming thread's last pass)
killed() {
	rm -f "$work/ready" "$work/go"
	PATHPROF_TIMING=on PATHPROF_OUT=/dev/null PATHPROF_SHM="pp-namer-kill.$$" "$1" one "$work/ready" "$work/go" \
		>/dev/null 2>&1 &
	pid=$!
	i=0
	while [ ! -e "$work/ready" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	sleep 0.1
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	pid=
	"$pp" recover -o "$work/rec.pathprof" "pp-namer-kill.$$" >"$work/rec.out" 2>&1 ||
		{ fail "recover $1: $(cat "$work/rec.out")"; return; }
	"$pp" report --raw --format json "$work/rec.pathprof" | python3 -c '
import json, sys
d, want = json.load(sys.stdin), sys.argv[1]
run = d["end_ns"] - d["start_ns"]
raw = d.get("recovered_raw_keys", 0)
bad = []
got = sorted("%d|%s" % (p["count"], ">".join(p["path"])) for p in d["paths"])
if got != ["1000|" + want]:
    bad.append("paths %r, expected 1000|%s" % (got, want))
# the probe lived 100 ms after its work: a run cut at its start would be
# shorter. Under a sanitizer the naming thread runs, and the run ends at
# its last pass (every 50 ms, plus the pass): 50 ms is still past the
# start and the 20 ms of work
least = 100e6 if sys.argv[2] == "none" else 50e6
if run < least:
    bad.append("run %d ns, less than %d ms (the probe waited 100 ms)" % (run, least / 1e6))
if not d["ticks_per_ns"]:
    bad.append("no tick rate")
else:
    longest = max(n["incl"]["sum_ticks"] for n in d["nodes"]) / d["ticks_per_ns"]
    if run < longest:
        bad.append("run %d ns, shorter than a node time of %d ns" % (run, longest))
    if not 20e6 <= longest < 200e6:
        bad.append("the work took %d ns, expected its 20 ms spin (and under 200 ms)" % longest)
if raw:
    bad.append("%d raw keys, expected none" % raw)
if bad:
    print("; ".join(bad))' "$2" "$san" >"$work/rec.check" || fail "recovered $1: report json"
	[ ! -s "$work/rec.check" ] || fail "recovered $1: $(cat "$work/rec.check")"
}
killed "$probe" "work>leaf"
[ -z "$probe_cyg" ] || killed "$probe_cyg" "main>work>leaf"
if [ -n "$plugin_cc" ]; then
	src=$(dirname "$0")/namer_probe.c
	if "$wrapper" --via=plugin --plugin-mode=all "$plugin_cc" -O2 -DPROBE_PLUGIN -pthread "$src" \
		-o "$work/probe_plugin" >"$work/build.log" 2>&1; then
		killed "$work/probe_plugin" "main>work>leaf"
	else
		fail "plugin build: $(cat "$work/build.log")"
	fi
fi
[ "$fails" -eq 0 ] || { echo "namer.sh: $fails check(s) failed"; exit 1; }
echo "namer.sh: ok"
