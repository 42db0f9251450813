#!/bin/sh
# e2e: `pathprof run --offcpu` on a real multi-threaded program: SQLite (its
# amalgamation from npm, as tests/e2e fetches it) under sqlite_threads.c,
# built through pathprof-cc --via=cyg. Four threads commit to one WAL
# database with synchronous=FULL: they block in fsync (disk) and in SQLite's
# busy handler (sleep). Checked: the off-CPU data names both, inside SQLite's
# own functions; the wait-for graph renders with Graphviz. Measured: the
# throughput with and without --offcpu (interleaved runs, medians) and the
# overhead. Needs root with BPF (skipped with a SKIP line, status 77,
# without). usage: sqlite_offcpu.sh BUILD_DIR [SECONDS]
set -u
LC_ALL=C
export LC_ALL
build=$(cd "$1" && pwd)
secs=${2:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$root/tests/e2e/lib.sh"
work=$build/tests/offcpu/sqlite
mkdir -p "$work" || exit 1
fail=0
say() { echo "sqlite-offcpu: $*"; }
bad() { say "FAIL: $*"; fail=1; }

if ! fetch_sqlite; then
	say "FAIL: SQLite $sqlite_version ($sqlite_pkg) could not be fetched"
	exit 1
fi
wrap="$build/tools/pathprof-cc-uninstalled --via=cyg gcc"
defs="-DSQLITE_THREADSAFE=1 -DSQLITE_OMIT_LOAD_EXTENSION -DSQLITE_DEFAULT_MEMSTATUS=0"
# the SQLite object is cached across runs (it is the slow part)
if [ ! -f "$work/sqlite3.o" ]; then
	# shellcheck disable=SC2086
	$wrap -O2 -g $defs -w -c "$cache/sqlite3.c" -o "$work/sqlite3.o.tmp" >"$work/build.log" 2>&1 &&
		mv "$work/sqlite3.o.tmp" "$work/sqlite3.o" || { say "FAIL: building SQLite"; cat "$work/build.log"; exit 1; }
fi
# shellcheck disable=SC2086
$wrap -O2 -g $defs -Wall -Wextra -Werror -I"$cache" -c "$root/tests/offcpu/sqlite_threads.c" \
	-o "$work/sqlite_threads.o" >>"$work/build.log" 2>&1 &&
	$wrap "$work/sqlite_threads.o" "$work/sqlite3.o" -o "$work/app" -lpthread -ldl -lm \
		>>"$work/build.log" 2>&1 || { say "FAIL: building the load"; cat "$work/build.log"; exit 1; }

unset PATHPROF_SHM
probe=$("$cli" run --offcpu -o /dev/null -- "$work/app" "$work/probe.db" 1 0.1 2>&1 >/dev/null)
case $probe in
*--offcpu:*) echo "SKIP: off-CPU recording is not possible here: $probe"; exit 77 ;;
esac

# throughput: profiled alone, and profiled with --offcpu, interleaved
i=0
: >"$work/tps.plain"
: >"$work/tps.offcpu"
while [ $i -lt 3 ]; do
	for mode in plain offcpu; do
		flag=
		[ $mode = offcpu ] && flag=--offcpu
		rm -f "$work/db"*
		# shellcheck disable=SC2086
		PATHPROF_OUT="$work/$mode.pathprof" "$cli" run $flag --format paths -o /dev/null -- \
			"$work/app" "$work/db" 4 "$secs" >"$work/out" 2>"$work/err" ||
			{ bad "$mode run failed: $(cat "$work/err")"; break 2; }
		sed -n 's/.*per_second \([0-9.]*\).*/\1/p' "$work/out" >>"$work/tps.$mode"
	done
	i=$((i + 1))
done
median() { sort -n "$1" | sed -n 2p; }
plain=$(median "$work/tps.plain")
off=$(median "$work/tps.offcpu")
say "throughput, transactions/s (median of 3): profiled $plain, profiled with --offcpu $off"
awk -v a="$plain" -v b="$off" 'BEGIN { if (a > 0) printf "sqlite-offcpu: overhead of --offcpu: %.1f %%\n", (a - b) / a * 100 }'

# what the last --offcpu run recorded
"$cli" report --format json "$work/offcpu.pathprof" >"$work/offcpu.json" || bad "report json"
"$cli" report "$work/offcpu.pathprof" >"$work/offcpu.txt" || bad "report text"
"$cli" report --format waitfor --min-time 1ms "$work/offcpu.pathprof" >"$work/waitfor.dot" ||
	bad "report waitfor"
dot -Tsvg "$work/waitfor.dot" -o "$work/waitfor.svg" 2>"$work/dot.err" || bad "Graphviz: $(cat "$work/dot.err")"
python3 - "$work/offcpu.json" <<'EOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
ent = d.get('offcpu', [])
def has(reason, fn, waker):
    return [e for e in ent if e['reason'] == reason and any(fn in n for n in e['blocked'])
            and e['waker'] == waker]
ok = True
for reason, fn, waker in (('disk', 'unixSync', 'kernel'), ('sleep', 'unixSleep', 'kernel')):
    m = has(reason, fn, waker)
    if not m:
        print('sqlite-offcpu: FAIL: no %s block inside %s woken by the %s' % (reason, fn, waker))
        ok = False
        continue
    e = max(m, key=lambda e: e['total_ns'])
    print('sqlite-offcpu: %s: %d blocks, %.1f ms, p99 %.2f ms: %s' % (
        reason, sum(x['blocks'] for x in m), sum(x['total_ns'] for x in m) / 1e6,
        e['p99_ns'] / 1e6, ' > '.join(e['blocked'][-4:])))
sys.exit(0 if ok else 1)
EOF
[ $fail -eq 0 ] && say "PASS" || say "FAIL"
exit $fail
