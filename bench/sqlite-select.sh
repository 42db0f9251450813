#!/bin/sh
# The README's workflow on a real program: SQLite and tests/e2e/driver.c
# (ROWS rows, default 50 000) built plain and through cyg (gcc -O2) with
# every function gated, run once timed, `pathprof select --budget 5%`,
# then rebuilt with the list through `pathprof-cc --exclude-functions=@FILE`
# (whole names, compiled out by pathprof's GCC plugin where the wrapper
# has it) ("selected"), and with the list `--binary` adds to it, the kept
# functions gcc inlined into dropped ones ("binary"), which also runs with
# burst timing (PATHPROF_TIMING=burst: what to leave on in production);
# that build run once timed and selected again with `--previous` (the
# second pass, whose profile its own gates distort far less), rebuilt with
# the longer list ("refined"); the build with every function gated run
# under PATHPROF_BUDGET=5% instead; and, for comparison, the binary list
# written for gcc's own exclude list (`--format gcc`, substrings, the route
# without the wrapper: "gcclist").
# Process wall time and CPU time (user + system, from wait4: it also
# counts the runtime's own threads, the budget's among them, which the wall
# time of a two-core machine hides) of each, counting only and timed,
# medians of interleaved runs, as ratios to the plain build, with the
# quartiles of each round's ratio (how far one round can stray). With
# INSTR_ROWS, then the instructions of the main thread of plain, selected,
# binary and refined at that many rows (callgrind), the whole run's and the exit
# dump's: deterministic for given lists, but the lists come from this
# run's one timed profile, whose noise moves a few functions across the
# budget's line from run to run. Fetches SQLite as the e2e test does (cached in the
# build dir).
# usage: bench/sqlite-select.sh BUILD_DIR [RUNS] [ROWS] [INSTR_ROWS]   (default 7, 50000, none)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-7}
rows=${3:-50000}
instr_rows=${4:-}
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$root/tests/e2e/lib.sh"
fetch_sqlite
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$build/meson-uninstalled"
wrap=$build/tools/pathprof-cc-uninstalled
# one build: NAME, then the wrapper's words before gcc (none: plain), then
# extra compile flags
build_prog() {
	name=$1 via=$2
	shift 2
	cc=gcc
	[ -z "$via" ] || cc="$wrap --via=$via gcc"
	# shellcheck disable=SC2086 # flag lists are words
	$cc -O2 $base_flags $sqlite_defs "$@" -w -c "$cache/sqlite3.c" -o "$tmp/$name-sqlite.o"
	# shellcheck disable=SC2086
	$cc -O2 $base_flags "$@" -I"$cache" -c "$root/tests/e2e/driver.c" -o "$tmp/$name-driver.o"
	# shellcheck disable=SC2086
	$cc "$tmp/$name-driver.o" "$tmp/$name-sqlite.o" -o "$tmp/$name" -lm
}
build_prog plain "" &
build_prog all cyg
wait
rm -f "$tmp/db"
PATHPROF_TIMING=on PATHPROF_OUT="$tmp/all.pathprof" "$tmp/all" --db "$tmp/db" --rows "$rows" >/dev/null
"$build/tools/pathprof" select "$tmp/all.pathprof" --budget 5% >"$tmp/drop" 2>"$tmp/select.err"
cat "$tmp/select.err" >&2
"$build/tools/pathprof" select "$tmp/all.pathprof" --budget 5% --binary "$tmp/all" \
	>"$tmp/drop-binary" 2>"$tmp/select-binary.err"
"$build/tools/pathprof" select "$tmp/all.pathprof" --budget 5% --binary "$tmp/all" --format gcc \
	>"$tmp/drop-gcc" 2>"$tmp/select-gcc.err"
grep -v "also drops the kept" "$tmp/select-gcc.err" >&2 || true
build_prog selected "cyg --exclude-functions=@$tmp/drop" &
build_prog binary "cyg --exclude-functions=@$tmp/drop-binary"
wait
build_prog gcclist cyg -finstrument-functions-exclude-function-list="$(cat "$tmp/drop-gcc")"
rm -f "$tmp/db"
PATHPROF_TIMING=on PATHPROF_OUT="$tmp/binary.pathprof" "$tmp/binary" --db "$tmp/db" --rows "$rows" >/dev/null
# the wrapper's route must have compiled the list out (its constructor
# names it in the profile), not left it to the run-time selection
"$build/tools/pathprof" report "$tmp/binary.pathprof" | grep -q '^  selection  compiled out by gcc' || {
	echo "sqlite-select.sh: the wrapper did not compile the list out (no GCC plugin?)" >&2
	exit 1
}
"$build/tools/pathprof" select "$tmp/binary.pathprof" --budget 5% --binary "$tmp/binary" \
	--previous "$tmp/drop-binary" >"$tmp/drop-refined" 2>"$tmp/select-refined.err"
cat "$tmp/select-refined.err" >&2
build_prog refined "cyg --exclude-functions=@$tmp/drop-refined"
echo "dropped: $(wc -l <"$tmp/drop") selected, $(wc -l <"$tmp/drop-binary") binary, $(wc -l <"$tmp/drop-refined") refined" >&2
# one row: NAME TIMING EXE [BUDGET] -> "NAME wall_ns"
row() {
	rm -f "$tmp/db"
	PATHPROF_BUDGET=${4:-} PATHPROF_TIMING=$2 PATHPROF_OUT=/dev/null python3 - "$1" "$3" "$tmp/db" "$rows" <<'PY' >>"$tmp/rows"
import os, subprocess, sys, time
t = time.perf_counter_ns()
p = subprocess.Popen([sys.argv[2], "--db", sys.argv[3], "--rows", sys.argv[4]], stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
wall = time.perf_counter_ns() - t
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit("sqlite-select: %s exited %d" % (sys.argv[2], os.waitstatus_to_exitcode(status)))
print(sys.argv[1], wall, int((ru.ru_utime + ru.ru_stime) * 1e9))
PY
}
: >"$tmp/rows"
i=0
# each round starts one row later than the one before: no build always
# runs right after the same other (the one before it leaves the disk's
# writeback and the caches in its own state)
run_row() {
	case $1 in
	0) row plain off "$tmp/plain" ;;
	1) row all-off off "$tmp/all" ;;
	2) row all-on on "$tmp/all" ;;
	3) row all-budget on "$tmp/all" 5% ;;
	4) row selected-off off "$tmp/selected" ;;
	5) row selected-on on "$tmp/selected" ;;
	6) row binary-off off "$tmp/binary" ;;
	7) row binary-on on "$tmp/binary" ;;
	8) row binary-burst burst "$tmp/binary" ;;
	9) row refined-off off "$tmp/refined" ;;
	10) row refined-on on "$tmp/refined" ;;
	11) row refined-burst burst "$tmp/refined" ;;
	12) row gcclist-off off "$tmp/gcclist" ;;
	13) row gcclist-on on "$tmp/gcclist" ;;
	esac
}
while [ "$i" -lt "$runs" ]; do
	k=0
	while [ "$k" -lt 14 ]; do
		run_row $(((i + k) % 14))
		k=$((k + 1))
	done
	i=$((i + 1))
done
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/bench" python3 - "$tmp/rows" <<'PY'
import statistics, sys, rows as table
rows = table.read(sys.argv[1])
med = lambda k, i: statistics.median(r[i] for r in rows[k])
def spread(k):
    # each round's wall time over plain's in the same round: the quartiles
    # say how far one round's verdict can stray
    return table.quartiles([r[0] / p[0] for r, p in zip(rows[k], rows["plain"])])
print("| build | timing | wall, ms (median) | x plain | x plain a round, quartiles | CPU, ms (median) | x plain |")
print("|---|---|---|---|---|---|---|")
for k in ["plain", "all-off", "all-on", "all-budget", "selected-off", "selected-on",
          "binary-off", "binary-on", "binary-burst", "refined-off", "refined-on", "refined-burst", "gcclist-off", "gcclist-on"]:
    name, _, timing = k.partition("-")
    print("| %s | %s | %.0f | %.2f | %s | %.0f | %.2f |" % (name, timing or "-", med(k, 0) / 1e6,
          med(k, 0) / med("plain", 0), spread(k), med(k, 1) / 1e6, med(k, 1) / med("plain", 1)))
print("(%d interleaved runs each)" % len(rows["plain"]))
PY
[ -n "$instr_rows" ] || exit 0
command -v valgrind >/dev/null || { echo "sqlite-select.sh: valgrind not installed" >&2; exit 1; }
# one build and timing under callgrind -> "| build | timing | run | exit dump |"
instr() {
	rm -f "$tmp/db-$1-$2"
	PATHPROF_TIMING=$2 PATHPROF_OUT=/dev/null valgrind --tool=callgrind --separate-threads=yes \
		--callgrind-out-file="$tmp/cg-$1-$2" "$tmp/$1" --db "$tmp/db-$1-$2" --rows "$instr_rows" \
		>/dev/null 2>"$tmp/cg-$1-$2.err" || { cat "$tmp/cg-$1-$2.err" >&2; exit 1; }
	callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$tmp/cg-$1-$2-01" | awk -v b="$1" -v t="$2" '
		/PROGRAM TOTALS/ { gsub(",", "", $1); run = $1 }
		/runtime\/dump\.c:dump / { gsub(",", "", $1); dump = $1 }
		END { printf "| %s | %s | %.1f M | %s |\n", b, t, run / 1e6, dump ? sprintf("%.1f M", dump / 1e6) : "-" }'
}
echo
echo "instructions, main thread, $instr_rows rows (callgrind):"
echo
echo "| build | timing | run | exit dump |"
echo "|---|---|---:|---:|"
instr plain off
for b in selected binary refined gcclist; do
	instr "$b" off
	instr "$b" on
done
