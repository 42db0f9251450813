#!/bin/sh
# A process killed with SIGKILL writes nothing; its live segment holds what
# it recorded. One leaving by _exit writes its profile then (runtime/host/exits.c):
# a snapshot taken at the call, while its other threads still run. tests/crash/killed.c runs three
# threads on known paths and keeps its own completed-call counts in a file:
# `pathprof recover` must give, per thread, that count or one more (the call
# in flight), every name, and say it was recovered; `pathprof run` must do
# the same by itself after a kill, and take the profile the program wrote at
# _exit (at most the final counts, from the program's own). Also: a running process is
# refused without --force, a recovered segment is gone, a second recover
# says so; `top --list` shows the process while it runs, `recover --list`
# the segment it left once killed, until it is recovered; a later process
# under the same name sets the killed one's segment aside, not replaces it.
# Under pathprof run, the gate's cost measured while the program ran is
# taken out of the times of the profile recovered or written at _exit.
# usage: killed.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
set -eu
wrapper=$1 build=$2 pathprof=$3 via=$4 cc=$5 src=$6
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-killed.XXXXXX")
pid=
trap '[ -z "$pid" ] || kill -9 "$pid" 2>/dev/null; rm -rf "$work"; rm -f /dev/shm/pp-killed-test.$$*' EXIT
. "$src/build.sh"
crash_build "$wrapper" "$build" "$via" "$cc" "$src/killed.c" "$work/killed" -pthread
fail() { echo "killed.sh: $via $cc: $*" >&2; exit 1; }

# refused WHAT PATTERN ARGS...: `pathprof recover ARGS` must exit 1 saying PATTERN
refused() {
	what=$1 pattern=$2
	shift 2
	set +e
	"$pathprof" recover "$@" 2>"$work/err"
	st=$?
	set -e
	[ "$st" -eq 1 ] && grep -q "$pattern" "$work/err" ||
		{ cat "$work/err" >&2; fail "$what: status $st"; }
}

# check PROFILE SIGNAL: counts against the progress file, names, report
# lines; SIGNAL "exit": a profile the program wrote at _exit
check() {
	prof=$1 sig=$2
	"$pathprof" report --format paths "$prof" >"$work/paths"
	python3 - "$work/progress" "$work/paths" "$sig" <<-'EOF' || fail "$prof: counts"
	import struct, sys
	done = struct.unpack_from("<3Q", open(sys.argv[1], "rb").read())
	at_exit = sys.argv[3] == "exit"
	got = {}
	for line in open(sys.argv[2]):
	    count, path = line.rstrip("\n").split("|", 1)
	    got[path] = int(count)
	want = {"spin_%s>step>leaf" % t: n for t, n in zip("abc", done)}
	if set(got) != set(want):
	    sys.exit("paths %s, expected %s" % (sorted(got), sorted(want)))
	for path, n in want.items():
	    if at_exit and 0 < got[path] <= n + 1:
	        continue
	    if got[path] not in (n, n + 1):
	        sys.exit("%s: %d recovered, the thread had completed %d" % (path, got[path], n))
	EOF
	"$pathprof" report "$prof" >"$work/report"
	# under pathprof run (timed), the gate's cost the process measured
	# while it ran is taken out, though it never reached its exit: the
	# times compensated and the cost removed add up to the raw times
	if [ "$sig" != 0 ]; then
		"$pathprof" report --format json "$prof" >"$work/comp.json"
		"$pathprof" report --raw --format json "$prof" >"$work/raw.json"
		python3 - "$work/comp.json" "$work/raw.json" <<-'EOF' || fail "$prof: gate cost"
		import json, sys
		c, r = (json.load(open(f)) for f in sys.argv[1:])
		g = c.get("gate_cost") or {}
		if not (g.get("compensated") and g["inside_ns"] + g["outside_ns"] > 0 and g["removed_ns"] > 0):
		    sys.exit("no gate cost taken out: %s" % g)
		left = r["gated_ns"] - c["gated_ns"] - g["removed_ns"]
		if abs(left) > 1e-6 * r["gated_ns"]:
		    sys.exit("raw %r, compensated %r, removed %r" % (r["gated_ns"], c["gated_ns"], g["removed_ns"]))
		EOF
	fi
	if [ "$sig" = exit ]; then
		! grep -q "recovered" "$work/report" || fail "$prof: a profile written at _exit says recovered"
		! grep -q "FRONTEND:0xKEY" "$work/report" || fail "$prof: keys without names"
		return
	fi
	want="  recovered  from the live segment of a process that died"
	[ "$sig" = 0 ] || want="$want of signal $sig (SIGKILL)"
	grep -qF "$want; events in flight not counted" "$work/report" ||
		{ cat "$work/report" >&2; fail "$prof: the report does not say it was recovered"; }
	! grep -q "FRONTEND:0xKEY" "$work/report" || fail "$prof: keys without names"
}

# wait_ready: until the program started in the background says "ready"
wait_ready() {
	i=0
	until grep -qs ready "$work/stdout"; do
		i=$((i + 1))
		[ "$i" -lt 300 ] || { cat "$work/stderr" >&2; fail "the program never got ready"; }
		sleep 0.1
	done
}

# recover: a process killed while its threads run, through the segment
# every process exports by default (pathprof.PID), found by its pid
env -u PATHPROF_SHM PATHPROF_XRAY=all PATHPROF_OUT="$work/never.pathprof" \
	"$work/killed" wait "$work/progress" >"$work/stdout" 2>"$work/stderr" &
pid=$!
seg=$pid
wait_ready
refused "recover of a running process" "is still running" -o "$work/live.pathprof" "$seg"
# listed: as live by top, not as left by recover (other tests' segments may be there too)
"$pathprof" top --list >"$work/live-list"
grep -qx "$seg killed /pathprof.$seg" "$work/live-list" ||
	{ cat "$work/live-list" >&2; fail "top --list does not show the running process"; }
"$pathprof" recover --list >"$work/left"
! grep -q "^$seg " "$work/left" || fail "recover --list shows a running process"
"$pathprof" recover --force --keep -o "$work/live.pathprof" "$seg" 2>/dev/null ||
	fail "recover --force of a running process failed"
sleep "0.$(od -An -N1 -tu1 /dev/urandom | tr -d ' ' | cut -c1)"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pid=
"$pathprof" recover --list >"$work/left"
grep -qx "$seg killed /pathprof.$seg" "$work/left" ||
	{ cat "$work/left" >&2; fail "recover --list does not show the segment the killed process left"; }
"$pathprof" top --list >"$work/live-list"
! grep -q "^$seg " "$work/live-list" || fail "top --list shows a killed process"
"$pathprof" recover -o "$work/out.pathprof" "$seg" 2>"$work/err" ||
	{ cat "$work/err" >&2; fail "recover failed"; }
check "$work/out.pathprof" 0
[ ! -e "$work/never.pathprof" ] || fail "a killed process wrote its profile"
[ ! -e "/dev/shm/pathprof.$seg" ] || fail "the recovered segment was not removed"
refused "second recover" "no live segment of process $seg" -o "$work/again.pathprof" "$seg"
"$pathprof" recover --list >"$work/left"
! grep -q "^$seg " "$work/left" || fail "recover --list still shows the recovered segment"
set +e
"$pathprof" recover --list "$seg" 2>"$work/err"
st=$?
set -e
[ "$st" -eq 2 ] && grep -qx "pathprof: recover: --list takes no segment and no other option" "$work/err" ||
	{ cat "$work/err" >&2; fail "recover --list with a segment: status $st"; }

# A later process exporting under the killed one's name (every run given
# one PATHPROF_SHM, as a reused pid gives pathprof.PID): the killed one's
# counts are set aside under NAME.left-START without a word, and each
# process's counts are recovered from its own segment.
name=pp-killed-test.$$
killed_run() { # start killed under NAME, wait till ready, kill it
	PATHPROF_SHM=$name PATHPROF_XRAY=all PATHPROF_OUT="$work/never.pathprof" \
		"$work/killed" wait "$work/progress" >"$work/stdout" 2>"$work/stderr" &
	pid=$!
	wait_ready
	sleep 0.2
	kill -9 "$pid"
	wait "$pid" 2>/dev/null || true
	pid=
	[ ! -s "$work/stderr" ] || { cat "$work/stderr" >&2; fail "same name: the runtime said something"; }
}
killed_run
cp "$work/progress" "$work/progress.first"
killed_run
aside=$(cd /dev/shm && ls | grep "^$name\.left-[0-9]*$" || true)
[ "$(echo "$aside" | grep -c .)" -eq 1 ] || fail "same name: set aside: '$aside'"
"$pathprof" recover --list >"$work/left"
grep -q " /$aside\$" "$work/left" && grep -q " /$name\$" "$work/left" ||
	{ cat "$work/left" >&2; fail "same name: recover --list does not show both"; }
"$pathprof" recover -o "$work/second.pathprof" "$name" 2>"$work/err" ||
	{ cat "$work/err" >&2; fail "same name: recover of the second failed"; }
check "$work/second.pathprof" 0
cp "$work/progress.first" "$work/progress"
"$pathprof" recover -o "$work/first.pathprof" "$aside" 2>"$work/err" ||
	{ cat "$work/err" >&2; fail "same name: recover of the first failed"; }
check "$work/first.pathprof" 0
[ ! -e "/dev/shm/$aside" ] && [ ! -e "/dev/shm/$name" ] || fail "same name: segments left"

# pathprof run: the program kills itself, or leaves by _exit
for mode in kill exit; do
	set +e
	(cd "$work" && env -u PATHPROF_SHM "$pathprof" run --out "$work/run.pathprof" --format text \
		-- ./killed "$mode" "$work/progress" 50 >"$work/run.out" 2>"$work/run.err")
	st=$?
	set -e
	want=3 sig=exit
	[ "$mode" = exit ] || { want=137 sig=9; }
	[ "$st" -eq "$want" ] || { cat "$work/run.err" >&2; fail "run $mode: status $st, expected $want"; }
	check "$work/run.pathprof" "$sig"
	child=$(sed -n 's/^ready //p' "$work/run.out")
	[ -n "$child" ] || fail "run $mode: the program did not say its pid"
	[ ! -e "/dev/shm/pathprof-run.$child" ] || fail "run $mode: its segment was left in /dev/shm"
done
# PATHPROF_SHM=off: nothing is left, and run says so rather than nothing
rm -f "$work/run.pathprof"
set +e
(cd "$work" && PATHPROF_SHM=off "$pathprof" run --out "$work/run.pathprof" -- ./killed kill \
	"$work/progress" 50 >/dev/null 2>"$work/run.err")
st=$?
set -e
[ "$st" -eq 137 ] && [ ! -e "$work/run.pathprof" ] &&
	grep -qx "pathprof: run: no profile: './killed' died before it could write one and PATHPROF_SHM is off, so nothing was left to recover" "$work/run.err" ||
	{ cat "$work/run.err" >&2; fail "run with PATHPROF_SHM=off: status $st"; }
echo "killed.sh: $via $cc: recover, same name twice, run kill, run _exit, run with export off: ok"
